// verify/checksums.cc: the sha256sum-format parser.
#include "verify/checksums.h"

#include <algorithm>
#include <climits>
#include <optional>

#include "base/hex.h"
#include "verify/findings.h"

namespace stguard::verify {
namespace {

// Undoes sha256sum's escapes in a name ("\\" "\n" "\r"); nullopt for any other.
std::optional<std::string> unescape_name(std::string_view name) {
  std::string out;
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (name[i] != '\\') {
      out += name[i];
      continue;
    }
    if (i + 1 >= name.size()) return std::nullopt;
    const char c = name[++i];
    if (c == '\\') {
      out += '\\';
    } else if (c == 'n') {
      out += '\n';
    } else if (c == 'r') {
      out += '\r';
    } else {
      return std::nullopt;
    }
  }
  return out;
}

// Why no file can have `name`, or "" when one can: the kernel refuses a
// path of PATH_MAX bytes or more (with its NUL) and a component longer than
// NAME_MAX before looking at any folder, so such a line is no file listing.
std::string impossible_name(std::string_view name) {
  if (name.size() >= PATH_MAX) {
    return "file name " + in_quotes(name) + " is longer than any path can be (" +
           std::to_string(PATH_MAX - 1) + " bytes)";
  }
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t end = std::min(name.find('/', start), name.size());
    if (end - start > NAME_MAX) {
      return "file name " + in_quotes(name) + " has a component of " + std::to_string(end - start) +
             " bytes, longer than any file name can be (" + std::to_string(NAME_MAX) + ")";
    }
    start = end + 1;
  }
  return "";
}

}  // namespace

std::vector<ChecksumLine> parse_checksum_file(
    std::string_view text, std::vector<std::pair<std::uint64_t, std::string>>* malformed) {
  std::vector<ChecksumLine> out;
  std::uint64_t line_no = 0;
  std::size_t pos = 0;
  const auto bad = [&](std::string why) {
    if (malformed != nullptr) malformed->emplace_back(line_no, std::move(why));
  };
  while (pos < text.size()) {
    ++line_no;
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string_view::npos) nl = text.size();
    std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty() || line.front() == '#') continue;
    while (!line.empty() && (line.front() == ' ' || line.front() == '\t')) line.remove_prefix(1);
    if (line.empty()) continue;
    if (line.find('\0') != std::string_view::npos) {
      bad("contains a NUL byte");
      continue;
    }
    bool escaped = false;
    if (line.front() == '\\') {
      escaped = true;
      line.remove_prefix(1);
    }
    ChecksumLine entry;
    entry.line = line_no;
    std::string_view hex;
    std::string_view name;
    if (line.starts_with("SHA256 (")) {
      // BSD tag form: SHA256 (NAME) = HEX
      const std::size_t close = line.rfind(") = ");
      if (close == std::string_view::npos || close < 8) {
        bad("tagged line without \") = \"");
        continue;
      }
      name = line.substr(8, close - 8);
      hex = line.substr(close + 4);
    } else if (line.starts_with("SHA") || line.starts_with("MD5 (") || line.starts_with("BLAKE2")) {
      const std::size_t paren = line.find(" (");
      bad("tagged line for another algorithm (" +
          std::string(line.substr(0, std::min<std::size_t>(paren, 16))) + "), not SHA256");
      continue;
    } else {
      std::size_t n = 0;
      while (n < line.size() && base::hex_value(line[n]) >= 0) ++n;
      hex = line.substr(0, n);
      if (n != 64) {
        if (n == 32 || n == 40 || n == 56 || n == 96 || n == 128) {
          bad("a " + std::to_string(n) + "-hex-digit digest: not SHA-256 (64 digits)");
        } else {
          bad("not \"<64 hex digits> <space><space or *><file name>\"");
        }
        continue;
      }
      if (line.size() < 66 || (line[64] != ' ' && line[64] != '\t')) {
        bad("no file name after the digest");
        continue;
      }
      if (line[65] == '*') {
        entry.binary = true;
        name = line.substr(66);
      } else if (line[65] == ' ') {
        name = line.substr(66);
      } else {
        name = line.substr(65);  // one separator only, as `md5 -r` style writes
      }
    }
    std::optional<base::Sha256Digest> digest = base::digest_from_hex(hex);
    if (!digest) {
      bad("the digest is not 64 hex digits");
      continue;
    }
    entry.digest = *digest;
    if (escaped) {
      std::optional<std::string> unescaped = unescape_name(name);
      if (!unescaped) {
        bad("bad '\\' escape in the file name");
        continue;
      }
      entry.name = std::move(*unescaped);
    } else {
      entry.name = std::string(name);
    }
    if (entry.name.empty()) {
      bad("empty file name");
      continue;
    }
    if (std::string why = impossible_name(entry.name); !why.empty()) {
      bad(std::move(why));
      continue;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace stguard::verify
