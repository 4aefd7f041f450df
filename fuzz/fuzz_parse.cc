// Raw bytes through both profiles: parse_header and validate_header agree,
// accepted tensors lie inside the input and tile the data buffer exactly,
// strict accepts imply reference accepts with the same header, error offsets
// stay inside the input, and the data part is never read.
#include <cstddef>
#include <cstdint>

#include "fuzz_invariants.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  stguard_fuzz::check_all(data, size);
  return 0;
}
