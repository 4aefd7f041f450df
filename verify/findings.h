// verify/findings.h (internal to verify/): building findings.
//
//   Finding f = make_finding(FindingKind::kTensorMissing, Category::kIndex, index_file,
//                            "tensor " + in_quotes(name) + " is mapped to ...");
#ifndef STGUARD_VERIFY_FINDINGS_H_
#define STGUARD_VERIFY_FINDINGS_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "verify/verify.h"

namespace stguard::verify {

Finding make_finding(FindingKind kind, Category category, std::string file, std::string message,
                     Severity severity = Severity::kError);

// Names and quotes taken from files are shown in messages up to this many
// bytes: a message stays one readable line whatever a file holds (a 5 MB
// name in SHA256SUMS, an index key of megabytes).
inline constexpr std::size_t kMaxShownBytes = 512;

// `text` as a message shows it: whole up to kMaxShownBytes; longer, cut
// there (before a UTF-8 sequence, never inside one) with "…" and its length
// in bytes: `abc… (5000000 bytes)`. Escaping is the printer's job.
std::string shown(std::string_view text);

// shown(text) in double quotes: `"abc"`, `"abc…" (5000000 bytes)`.
std::string in_quotes(std::string_view text);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_FINDINGS_H_
