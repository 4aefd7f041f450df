// verify/checksums.h: reading a checksum list in sha256sum format.
//
//   std::vector<std::pair<std::uint64_t, std::string>> malformed;  // (line, why)
//   std::vector<stguard::verify::ChecksumLine> lines =
//       stguard::verify::parse_checksum_file(text, &malformed);
//   for (const auto& l : lines) use(l.name, stguard::base::to_hex(l.digest));
//
// Accepts what coreutils writes and reads: `sha256sum` ("HEX  NAME", "HEX
// *NAME" for binary mode), `sha256sum --tag` (BSD "SHA256 (NAME) = HEX"), and
// the '\'-escaped form for names holding a newline or a backslash. Names are
// returned as written (after undoing the escapes); they are untrusted, and
// the caller checks them with base::safe_relative_name before opening.
#ifndef STGUARD_VERIFY_CHECKSUMS_H_
#define STGUARD_VERIFY_CHECKSUMS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/sha256.h"

namespace stguard::verify {

// One well-formed line.
struct ChecksumLine {
  std::uint64_t line = 0;  // 1-based
  std::string name;        // as written, after undoing the '\' escapes
  base::Sha256Digest digest{};
  bool binary = false;  // '*' marker
};

// Parses the whole list. Comment ('#') and blank lines are skipped as
// coreutils does; a trailing CR is dropped. Each malformed line (another
// algorithm, a digest of the wrong length, no name, a bad escape, NUL, a
// name longer than any path can be) is appended to *malformed (when not
// null) as (line number, why); `why` quotes at most kMaxShownBytes of the
// line (findings.h).
std::vector<ChecksumLine> parse_checksum_file(
    std::string_view text, std::vector<std::pair<std::uint64_t, std::string>>* malformed);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_CHECKSUMS_H_
