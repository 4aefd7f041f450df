// Raw bytes through both profiles, one parse each, kept lean so that raw
// byte mutation runs fast (>= 100k exec/s under ASan+UBSan): accepted tensors
// lie inside the input and tile the data buffer exactly, each tensor's size
// is its dtype x shape, error offsets stay inside the input, and strict
// accepts imply reference accepts with the same header; and the comparative
// tester: the plain path or a combination of fast paths drawn from the
// input (parser/src/layers.h) gives the same answer. The checks that parse
// again (validate_header agreement, the data part never read) run in
// fuzz_mutator and fuzz_structured.
#include <cstddef>
#include <cstdint>

#include "fuzz_invariants.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  stguard_fuzz::check_profiles(data, size);
  return 0;
}
