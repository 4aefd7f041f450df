// base/sniff.h: what a file that is not safetensors is, from its first bytes.
//
//   std::optional<stguard::base::Sniffed> s = stguard::base::sniff_content(head, size);
//   if (s) std::cout << "note: " << s->description << "\n";
//   // "a Git LFS pointer file, not the weights: run `git lfs pull` (the real
//   //  file is 4965120 bytes, sha256 3d2f...)"
//
// The most common broken "safetensors" files are not damaged safetensors at
// all: a Git LFS pointer committed instead of the weights, an HTML or JSON
// error page saved by a download tool, a PyTorch checkpoint renamed, a GGUF
// file, or a preallocated file of zeros left by an interrupted download. The
// parser only sees an absurd header length in them; this says what they are
// and what to do. `check`, `inspect` and `verify` all use it, so the same file
// is described the same way everywhere. The verdict stays the parser's.
#ifndef STGUARD_BASE_SNIFF_H_
#define STGUARD_BASE_SNIFF_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace stguard::base {

// How many leading bytes sniff_content wants (fewer for a shorter file).
inline constexpr std::size_t kSniffBytes = 4096;

// Stable names (content_kind_name) appear in JSON outputs.
enum class ContentKind : std::uint8_t {
  kEmpty,          // "empty": zero bytes
  kGitLfsPointer,  // "git_lfs_pointer"
  kHtmlPage,       // "html_page": an HTML page (error or login page)
  kXmlDocument,    // "xml_document": e.g. a cloud storage error response
  kJsonText,       // "json_text": e.g. an API error response
  kText,           // "text": some other text file
  kZipArchive,     // "zip_archive": a PyTorch .bin/.pt checkpoint (zip) or other zip
  kPickle,         // "pickle": a Python pickle (older PyTorch checkpoints)
  kGzip,           // "gzip"
  kGguf,           // "gguf": a llama.cpp GGUF model
  kNumpy,          // "numpy": a .npy array
  kHdf5,           // "hdf5": Keras .h5 weights
  kZeros,          // "zeros": starts with zero bytes only (preallocated, never written)
};

std::string_view content_kind_name(ContentKind kind) noexcept;

struct Sniffed {
  ContentKind kind = ContentKind::kText;
  // One sentence: what the file is, and what to do about it. Quotes of the
  // file's own text (an HTML title, an error message) are cut short but not
  // otherwise escaped: show it through base::terminal_safe.
  std::string description;
  // What the file is, as a noun phrase without the advice ("an HTML page (a
  // download error or login page?) titled "404 Not Found"", "a Git LFS
  // pointer file"), for files that were meant to be something other than
  // safetensors (a shard index: "..., not a JSON index"). Same quoting rules.
  std::string what;
  // Git LFS pointer: the size and sha256 of the real file, as the pointer says.
  std::optional<std::uint64_t> real_size;
  std::string real_sha256;  // 64 lower-case hex digits, or empty
};

// `head` holds the first min(file_size, kSniffBytes) bytes of a file of
// `file_size` bytes. nullopt when the bytes look like nothing known (a
// safetensors file, damaged or not, gives nullopt: its first 8 bytes are a
// binary length). `length_prefix_absurd` says whether the parser found the
// 8-byte length impossible (too large, or beyond the file): only then is a
// plain text or JSON file called one, since a real header is JSON text too.
std::optional<Sniffed> sniff_content(std::string_view head, std::uint64_t file_size,
                                     bool length_prefix_absurd);

}  // namespace stguard::base

#endif  // STGUARD_BASE_SNIFF_H_
