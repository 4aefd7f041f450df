// verify/findings.h (internal to verify/): building findings.
//
//   Finding f = make_finding(FindingKind::kTensorMissing, Category::kIndex, index_file,
//                            "tensor " + in_quotes(name) + " is mapped to ...");
#ifndef STGUARD_VERIFY_FINDINGS_H_
#define STGUARD_VERIFY_FINDINGS_H_

#include <string>
#include <string_view>

#include "verify/verify.h"

namespace stguard::verify {

Finding make_finding(FindingKind kind, Category category, std::string file, std::string message,
                     Severity severity = Severity::kError);

// `text` in double quotes, as messages show names (escaping is the printer's job).
std::string in_quotes(std::string_view text);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_FINDINGS_H_
