#include "base/sniff.h"

#include <algorithm>

#include "base/decimal.h"
#include "base/hex.h"
#include "base/text.h"

namespace stguard::base {
namespace {

constexpr std::string_view kLfsMagic = "version https://git-lfs.github.com/spec/";

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() &&
         std::equal(prefix.begin(), prefix.end(), s.begin(),
                    [](char a, char b) { return lower(a) == lower(b); });
}

std::size_t find_nocase(std::string_view s, std::string_view needle) {
  for (std::size_t i = 0; i + needle.size() <= s.size(); ++i) {
    if (starts_with_nocase(s.substr(i), needle)) return i;
  }
  return std::string_view::npos;
}

// Text that a person or a server wrote, not binary: well-formed UTF-8 with no
// control characters other than common whitespace. `cut` says the bytes may
// end inside a character (only the file's first bytes were read).
bool looks_like_text(std::string_view bytes, bool cut) {
  if (bytes.empty()) return false;
  std::size_t pos = 0;
  while (pos < bytes.size()) {
    const std::size_t start = pos;
    const char32_t c = next_code_point(bytes, pos);
    if (c == kNotUtf8) return cut && bytes.size() - start < 4;
    if ((c < 0x20 && c != '\n' && c != '\r' && c != '\t') || c == 0x7F) return false;
  }
  return true;
}

std::string_view skip_bom_and_space(std::string_view s) {
  if (s.starts_with("\xEF\xBB\xBF")) s.remove_prefix(3);
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  return s;
}

// A short, single-line excerpt of untrusted text, in double quotes.
std::string excerpt(std::string_view s, std::size_t max_len) {
  std::string out;
  bool space = false;
  for (const char c : s) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
    if (out.size() >= max_len) {
      out += "...";
      break;
    }
  }
  return "\"" + out + "\"";
}

std::optional<Sniffed> sniff_markup(std::string_view head) {
  const std::string_view s = skip_bom_and_space(head);
  if (s.size() < 2 || s[0] != '<') return std::nullopt;
  const char next = s[1];
  const bool tag_like =
      next == '!' || next == '?' || (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z');
  if (!tag_like) return std::nullopt;
  Sniffed out;
  if (starts_with_nocase(s, "<?xml") && find_nocase(s, "<html") == std::string_view::npos) {
    out.kind = ContentKind::kXmlDocument;
    out.what = "an XML document (a cloud storage error response?)";
    const std::size_t code = s.find("<Code>");
    const std::size_t end = code == std::string_view::npos ? code : s.find("</Code>", code);
    if (end != std::string_view::npos) {
      out.what += " with error code " + excerpt(s.substr(code + 6, end - code - 6), 60);
    }
  } else {
    out.kind = ContentKind::kHtmlPage;
    out.what = "an HTML page (a download error or login page?)";
    const std::size_t title = find_nocase(s, "<title>");
    if (title != std::string_view::npos) {
      const std::size_t end = find_nocase(s.substr(title), "</title>");
      if (end != std::string_view::npos) {
        out.what += " titled " + excerpt(s.substr(title + 7, end - 7), 80);
      }
    }
  }
  out.description = out.what + ", not safetensors: download the file again";
  return out;
}

std::optional<Sniffed> sniff_lfs_pointer(std::string_view head) {
  if (!head.starts_with(kLfsMagic)) return std::nullopt;
  Sniffed out;
  out.kind = ContentKind::kGitLfsPointer;
  out.what = "a Git LFS pointer file";
  std::size_t pos = 0;
  while (pos < head.size()) {
    std::size_t newline = head.find('\n', pos);
    if (newline == std::string_view::npos) newline = head.size();
    const std::string_view line = head.substr(pos, newline - pos);
    if (line.starts_with("oid sha256:")) {
      const std::string_view oid = line.substr(11);
      std::uint8_t digest[32];
      if (from_hex(oid, digest)) out.real_sha256 = to_hex(digest);
    }
    if (line.starts_with("size ")) out.real_size = parse_u64(line.substr(5));
    pos = newline + 1;
  }
  out.description = out.what + ", not the weights: run `git lfs pull`";
  if (out.real_size)
    out.description += "; the real file is " + std::to_string(*out.real_size) + " bytes";
  if (!out.real_sha256.empty()) out.description += ", sha256 " + out.real_sha256;
  return out;
}

// `what` names the content; `rest` completes the description.
Sniffed described(ContentKind kind, std::string what, std::string_view rest) {
  Sniffed out;
  out.kind = kind;
  out.description = what + std::string(rest);
  out.what = std::move(what);
  return out;
}

}  // namespace

std::string_view content_kind_name(ContentKind kind) noexcept {
  switch (kind) {
    case ContentKind::kEmpty:
      return "empty";
    case ContentKind::kGitLfsPointer:
      return "git_lfs_pointer";
    case ContentKind::kHtmlPage:
      return "html_page";
    case ContentKind::kXmlDocument:
      return "xml_document";
    case ContentKind::kJsonText:
      return "json_text";
    case ContentKind::kText:
      return "text";
    case ContentKind::kZipArchive:
      return "zip_archive";
    case ContentKind::kPickle:
      return "pickle";
    case ContentKind::kGzip:
      return "gzip";
    case ContentKind::kGguf:
      return "gguf";
    case ContentKind::kNumpy:
      return "numpy";
    case ContentKind::kHdf5:
      return "hdf5";
    case ContentKind::kZeros:
      return "zeros";
  }
  return "unknown";
}

std::optional<Sniffed> sniff_content(std::string_view head, std::uint64_t file_size,
                                     bool length_prefix_absurd) {
  constexpr std::string_view kUntrusted =
      ", not safetensors: convert it, and load it only if you trust where it came from (it can "
      "run code)";
  if (file_size == 0) {
    return described(ContentKind::kEmpty, "an empty file", ": nothing was downloaded or copied");
  }
  if (auto lfs = sniff_lfs_pointer(head)) return lfs;
  if (auto markup = sniff_markup(head)) return markup;
  if (head.starts_with("PK\x03\x04")) {
    return described(ContentKind::kZipArchive,
                     "a ZIP archive (a PyTorch .bin/.pt checkpoint renamed?)", kUntrusted);
  }
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x80 && head[1] >= 2 &&
      head[1] <= 5) {
    return described(ContentKind::kPickle, "a Python pickle (a PyTorch checkpoint renamed?)",
                     kUntrusted);
  }
  if (head.starts_with("\x1f\x8b")) {
    return described(ContentKind::kGzip, "a gzip-compressed file",
                     ", not safetensors: decompress it");
  }
  if (head.starts_with("GGUF")) {
    return described(ContentKind::kGguf, "a GGUF model (llama.cpp)",
                     ", not safetensors: read it with a GGUF reader");
  }
  if (head.starts_with("\x93NUMPY")) {
    return described(ContentKind::kNumpy, "a NumPy .npy array", ", not safetensors");
  }
  if (head.starts_with("\x89HDF\r\n\x1a\n")) {
    return described(ContentKind::kHdf5, "an HDF5 file (Keras .h5 weights?)", ", not safetensors");
  }
  // A real preallocated download is megabytes; a few zero bytes are just that.
  constexpr std::size_t kFewZeros = 64;
  if (head.size() >= kFewZeros && head.find_first_not_of('\0') == std::string_view::npos) {
    // Download tools that preallocate (aria2, some browsers) leave full-size
    // files of zeros when interrupted before writing them.
    const bool whole = head.size() == file_size;
    const std::string zeros = std::to_string(whole ? file_size : head.size());
    Sniffed out;
    out.kind = ContentKind::kZeros;
    out.what = (whole ? "a file of " : "a file that starts with ") + zeros + " zero bytes";
    out.description = out.what +
                      ": space preallocated by a download or copy that never wrote it "
                      "(interrupted?): download the file again";
    return out;
  }
  if (length_prefix_absurd && looks_like_text(head, head.size() < file_size)) {
    const std::string_view text = skip_bom_and_space(head);
    const bool json = text.starts_with("{") || text.starts_with("[");
    return described(json ? ContentKind::kJsonText : ContentKind::kText,
                     json ? "JSON text (an error response saved as a model file?)" : "a text file",
                     ", not safetensors: starts with " + excerpt(text, 60));
  }
  return std::nullopt;
}

}  // namespace stguard::base
