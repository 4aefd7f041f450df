// conformance/model/case.h: one corpus case as corpus/manifest.json records
// it, and what a reader that accepts it must report. The generator fills
// these in from the recipes; the runner, `stguard corpus` and the tests read
// them back through manifest.h.
//
//   for (const stguard::conformance::Case& c : manifest.cases) {
//     if (c.verdict == Verdict::kReject) continue;
//     for (const ExpectedTensor& t : c.expected->tensors) use(t.name, t.sha256);
//   }
#ifndef STGUARD_CONFORMANCE_MODEL_CASE_H_
#define STGUARD_CONFORMANCE_MODEL_CASE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "conformance/model/verdict.h"

namespace stguard::conformance {

struct ExpectedTensor {
  std::string name;  // unescaped UTF-8 (may contain U+0000)
  std::string dtype;
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0;  // data_offsets, relative to the data buffer
  std::uint64_t end = 0;
  std::string sha256;  // 64 lower-case hex digits: the data bytes [begin, end)

  bool operator==(const ExpectedTensor&) const = default;
};

// What a reader that accepts the case must report.
struct ExpectedContent {
  // nullopt = no metadata (absent, or null where the profile allows it); else
  // the __metadata__ entries in header order.
  std::optional<std::vector<std::pair<std::string, std::string>>> metadata;
  std::vector<ExpectedTensor> tensors;  // in header (document) order

  bool operator==(const ExpectedContent&) const = default;
};

// What one stguard profile does with a case: accept, or reject with `reason`
// (a stguard reason name, "OFFSET_GAP") at `offset` when the recipe pins the
// byte. The manifest keeps only whether each profile accepts and one reason;
// the whole outcome comes from the recipe (generator/corpus.h) and is what
// the corpus replay holds stguard to.
struct ExpectedOutcome {
  bool accept = false;
  std::string reason;                   // empty when accept
  std::optional<std::uint64_t> offset;  // absolute byte offset, when given

  Verdict verdict() const noexcept { return accept ? Verdict::kAccept : Verdict::kReject; }
};

// One entry of the manifest's "cases", field for field.
struct Case {
  std::string id;      // "layout/gap-between": "<group>/<name>", stable forever
  std::string file;    // "layout/gap-between.safetensors", relative to the corpus
  std::string sha256;  // of the whole file, 64 lower-case hex digits
  std::uint64_t size = 0;
  std::string description;
  std::vector<std::string> rules;        // ids of docs/spec.md's rules ("ST-LAY-2")
  Verdict verdict = Verdict::kReject;    // case_verdict(strict, reference)
  Verdict strict = Verdict::kReject;     // kAccept or kReject
  Verdict reference = Verdict::kReject;  // kAccept or kReject
  // The strict profile's reason when it rejects, else the reference
  // profile's; empty (null in the manifest) when both accept.
  std::string reason;
  std::vector<std::string> tags;
  // The upstream release whose behaviour the case pins, when older releases
  // read the file otherwise (a dtype added later); nullopt when every release
  // agrees. A reader that implements an older release is not graded on it.
  std::optional<std::string> since;
  // Present exactly when some profile accepts (verdict accept or either).
  std::optional<ExpectedContent> expected;

  // The id up to its first '/' ("layout").
  std::string_view group() const noexcept { return std::string_view(id).substr(0, id.find('/')); }

  bool operator==(const Case&) const = default;
};

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_MODEL_CASE_H_
