#include "model_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <set>
#include <span>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "stguard/header.h"

namespace stguard::cli {
namespace {

constexpr std::string_view kShardSuffix = ".safetensors";
constexpr std::string_view kIndexSuffix = ".safetensors.index.json";
constexpr std::string_view kChecksumName = "SHA256SUMS";
constexpr std::string_view kLfsMagic = "version https://git-lfs.github.com/spec/";
// Enough of a rejected file to say what it is instead (HTML title, LFS oid).
constexpr std::size_t kSniffBytes = 4096;

// ---------------------------------------------------------------- files ----

class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept {
    if (this != &other) {
      reset();
      fd_ = std::exchange(other.fd_, -1);
    }
    return *this;
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  ~UniqueFd() { reset(); }

  int get() const noexcept { return fd_; }
  explicit operator bool() const noexcept { return fd_ >= 0; }
  void reset() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

struct Opened {
  UniqueFd fd;
  int err = 0;  // errno when !fd
};

int raw_openat2(int dirfd, const char* path, std::uint64_t flags, std::uint64_t resolve) {
  open_how how{};
  how.flags = flags;
  how.resolve = resolve;
  return static_cast<int>(::syscall(SYS_openat2, dirfd, path, &how, sizeof how));
}

// Without openat2 (Linux < 5.6, or a seccomp filter that hides it): walk the
// components one by one, none of them allowed to be a symlink.
Opened open_beneath_fallback(int dirfd, const std::string& rel, std::uint64_t final_flags) {
  Opened out;
  UniqueFd held;
  int current = dirfd;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = rel.find('/', start);
    const std::string part =
        rel.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (slash == std::string::npos) {
      const int fd = ::openat(current, part.c_str(), static_cast<int>(final_flags) | O_NOFOLLOW);
      if (fd < 0) {
        out.err = errno;
      } else {
        out.fd = UniqueFd(fd);
      }
      return out;
    }
    const int fd = ::openat(current, part.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
      out.err = errno;
      return out;
    }
    held = UniqueFd(fd);
    current = held.get();
    start = slash + 1;
  }
}

// Opens `rel` (already checked by safe_relative_name, or a name read from the
// directory) below `dirfd`, read-only. Resolution never leaves the directory:
// absolute symlinks and ".." that would climb out fail with EXDEV. Without
// `follow`, any symlink on the way fails with ELOOP. O_NONBLOCK keeps a FIFO
// named like a shard from blocking the open forever (it is then rejected as
// not a regular file); O_NOATIME is used where permitted so that even access
// times stay as they were.
Opened open_beneath(int dirfd, const std::string& rel, bool follow, bool directory = false) {
  std::uint64_t flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK;
  if (!follow) flags |= O_NOFOLLOW;
  if (directory) flags |= O_DIRECTORY;
  std::uint64_t resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS;
  if (!follow) resolve |= RESOLVE_NO_SYMLINKS;
  Opened out;
  int fd = raw_openat2(dirfd, rel.c_str(), flags | O_NOATIME, resolve);
  if (fd < 0 && errno == EPERM) fd = raw_openat2(dirfd, rel.c_str(), flags, resolve);
  if (fd < 0 && errno == ENOSYS) {
    if (follow) {
      // Following safely needs RESOLVE_BENEATH; refuse rather than guess.
      Opened probe = open_beneath_fallback(dirfd, rel, flags);
      if (!probe.fd && probe.err == ELOOP) probe.err = EXDEV;
      return probe;
    }
    return open_beneath_fallback(dirfd, rel, flags);
  }
  if (fd < 0) {
    out.err = errno;
  } else {
    out.fd = UniqueFd(fd);
  }
  return out;
}

std::string open_error_text(int err) {
  switch (err) {
    case ENOENT:
      return "does not exist";
    case ELOOP:
      return "is a symlink or goes through one (not followed)";
    case EXDEV:
      return "resolves outside DIR (not opened)";
    case EACCES:
    case EPERM:
      return "permission denied";
    case ENOTDIR:
      return "a component of the path is not a directory";
    default:
      return std::strerror(err);
  }
}

// Reads up to `len` bytes at `offset`; returns how many were read (short at
// end of file). *err = errno on failure.
std::size_t read_at(int fd, std::uint8_t* buf, std::size_t len, std::uint64_t offset, int* err) {
  std::size_t got = 0;
  *err = 0;
  while (got < len) {
    const ssize_t n = ::pread(fd, buf + got, len - got, static_cast<off_t>(offset + got));
    if (n < 0) {
      if (errno == EINTR) continue;
      *err = errno;
      break;
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  return got;
}

struct FileStamp {
  std::uint64_t size = 0;
  std::int64_t mtime_sec = 0;
  std::int64_t mtime_nsec = 0;
  std::uint64_t inode = 0;
  friend bool operator==(const FileStamp&, const FileStamp&) = default;
};

FileStamp stamp_of(const struct stat& st) {
  return FileStamp{
      static_cast<std::uint64_t>(st.st_size), static_cast<std::int64_t>(st.st_mtim.tv_sec),
      static_cast<std::int64_t>(st.st_mtim.tv_nsec), static_cast<std::uint64_t>(st.st_ino)};
}

// Reads a whole small file (index, checksum list) into `out`.
// Returns an empty string on success, else why not.
std::string read_small_file(int fd, std::uint64_t max_bytes, std::string* out) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return std::string("fstat failed: ") + std::strerror(errno);
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size > max_bytes) {
    return "too large: " + std::to_string(size) + " bytes (limit " + std::to_string(max_bytes) +
           ")";
  }
  out->assign(static_cast<std::size_t>(size), '\0');
  int err = 0;
  const std::size_t got =
      read_at(fd, reinterpret_cast<std::uint8_t*>(out->data()), out->size(), 0, &err);
  if (err != 0) return std::string("read failed: ") + std::strerror(err);
  out->resize(got);
  return {};
}

// -------------------------------------------------------------- helpers ----

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
bool starts_with(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && s.substr(0, prefix.size()) == prefix;
}

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (lower(s[i]) != lower(prefix[i])) return false;
  }
  return true;
}

std::size_t find_nocase(std::string_view s, std::string_view needle) {
  if (needle.size() > s.size()) return std::string_view::npos;
  for (std::size_t i = 0; i + needle.size() <= s.size(); ++i) {
    if (starts_with_nocase(s.substr(i), needle)) return i;
  }
  return std::string_view::npos;
}

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

// Text that a person or a server wrote, not binary: printable ASCII, common
// whitespace, or UTF-8 lead/continuation bytes.
bool looks_like_text(std::string_view bytes) {
  if (bytes.empty()) return false;
  for (const char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\n' || c == '\r' || c == '\t') continue;
    if (c < 0x20 || c == 0x7F) return false;
  }
  return true;
}

std::string_view skip_bom_and_space(std::string_view s) {
  if (starts_with(s, "\xEF\xBB\xBF")) s.remove_prefix(3);
  while (!s.empty() &&
         (s.front() == ' ' || s.front() == '\t' || s.front() == '\n' || s.front() == '\r')) {
    s.remove_prefix(1);
  }
  return s;
}

// A short, single-line excerpt of untrusted text for a message.
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
  return out;
}

// "an HTML page titled "404 Not Found"" when `sniff` is markup; else nullopt.
std::optional<std::string> describe_markup(std::string_view sniff) {
  const std::string_view s = skip_bom_and_space(sniff);
  if (s.size() < 2 || s[0] != '<') return std::nullopt;
  const char next = s[1];
  const bool tag_like =
      next == '!' || next == '?' || (next >= 'a' && next <= 'z') || (next >= 'A' && next <= 'Z');
  if (!tag_like) return std::nullopt;
  std::string what;
  if (starts_with_nocase(s, "<?xml") && find_nocase(s, "<html") == std::string_view::npos) {
    what = "an XML document (a cloud storage error response?)";
    const std::size_t code = s.find("<Code>");
    if (code != std::string_view::npos) {
      const std::size_t end = s.find("</Code>", code);
      if (end != std::string_view::npos) {
        what += " with error code " + in_quotes(excerpt(s.substr(code + 6, end - code - 6), 60));
      }
    }
    return what;
  }
  what = "an HTML page (a download error or login page?)";
  const std::size_t title = find_nocase(s, "<title>");
  if (title != std::string_view::npos) {
    const std::size_t end = find_nocase(s.substr(title), "</title>");
    if (end != std::string_view::npos) {
      what += " titled " + in_quotes(excerpt(s.substr(title + 7, end - 7), 80));
    }
  }
  return what;
}

struct LfsPointer {
  std::string oid;
  std::optional<std::uint64_t> size;
};

std::optional<LfsPointer> parse_lfs_pointer(std::string_view sniff) {
  if (!starts_with(sniff, kLfsMagic)) return std::nullopt;
  LfsPointer out;
  std::size_t pos = 0;
  while (pos < sniff.size()) {
    std::size_t nl = sniff.find('\n', pos);
    if (nl == std::string_view::npos) nl = sniff.size();
    const std::string_view line = sniff.substr(pos, nl - pos);
    if (starts_with(line, "oid sha256:")) out.oid = std::string(line.substr(11, 64));
    if (starts_with(line, "size ")) {
      std::uint64_t value = 0;
      bool ok = line.size() > 5;
      for (const char c : line.substr(5)) {
        if (c < '0' || c > '9' || __builtin_mul_overflow(value, 10u, &value) ||
            __builtin_add_overflow(value, static_cast<unsigned>(c - '0'), &value)) {
          ok = false;
          break;
        }
      }
      if (ok) out.size = value;
    }
    pos = nl + 1;
  }
  return out;
}

// For a file whose tensors run past its end: how big the header says it
// should be. An independent, forgiving read of the header JSON, only to make
// the message concrete; the verdict itself is the parser's.
std::optional<std::uint64_t> declared_file_size(std::string_view header, std::uint64_t data_start) {
  const nlohmann::json doc = nlohmann::json::parse(header, nullptr, /*allow_exceptions=*/false);
  if (!doc.is_object()) return std::nullopt;
  std::uint64_t max_end = 0;
  for (const auto& [name, entry] : doc.items()) {
    if (!entry.is_object()) continue;
    const auto it = entry.find("data_offsets");
    if (it == entry.end() || !it->is_array() || it->size() != 2) continue;
    const nlohmann::json& end = (*it)[1];
    if (!end.is_number_unsigned()) continue;
    max_end = std::max(max_end, end.get<std::uint64_t>());
  }
  std::uint64_t total = 0;
  if (__builtin_add_overflow(data_start, max_end, &total)) return std::nullopt;
  return total;
}

// ----------------------------------------------------------- index JSON ----

// Forward iterator over the index text that publishes how far the JSON lexer
// has read, so SAX events can be given byte positions.
class CountingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator() = default;
  CountingIterator(const char* p, const char** cursor) : p_(p), cursor_(cursor) {}
  reference operator*() const { return *p_; }
  CountingIterator& operator++() {
    ++p_;
    if (cursor_ != nullptr) *cursor_ = p_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  friend bool operator==(const CountingIterator& a, const CountingIterator& b) {
    return a.p_ == b.p_;
  }

 private:
  const char* p_ = nullptr;
  const char** cursor_ = nullptr;
};

struct IndexFailure {
  FindingKind kind = FindingKind::kIndexMalformed;
  std::uint64_t offset = 0;
  std::string message;
};

// Streams the index through nlohmann's SAX parser: duplicate keys in any
// object are caught (a DOM would silently keep the last), and only what the
// checks need is kept (weight_map, metadata.total_size).
class IndexSax {
 public:
  IndexSax(std::string_view text, const char** cursor) : text_(text), cursor_(cursor) {}

  std::unordered_map<std::string, std::string> weight_map;  // tensor -> shard, as written
  bool saw_weight_map = false;
  std::optional<std::uint64_t> total_size;
  std::optional<IndexFailure> failure;

  bool null() { return scalar(Kind::kOther, nullptr); }
  bool boolean(bool /*value*/) { return scalar(Kind::kOther, nullptr); }
  bool number_integer(std::int64_t value) {
    if (value < 0) return scalar(Kind::kOther, nullptr);
    const auto u = static_cast<std::uint64_t>(value);
    return scalar(Kind::kSize, &u);
  }
  bool number_unsigned(std::uint64_t value) { return scalar(Kind::kSize, &value); }
  bool number_float(double value, const std::string& /*text*/) {
    // Some exporters write total_size as 123.0; accept it when exact.
    if (value >= 0 && value <= 9007199254740992.0 &&
        value == static_cast<double>(static_cast<std::uint64_t>(value))) {
      const auto u = static_cast<std::uint64_t>(value);
      return scalar(Kind::kSize, &u);
    }
    return scalar(Kind::kOther, nullptr);
  }
  bool string(std::string& value) {
    if (!check_value(Kind::kString)) return false;
    if (!stack_.empty() && stack_.back().frame == Frame::kWeightMap) {
      weight_map.emplace(std::move(stack_.back().key), std::move(value));
    }
    return true;
  }
  bool binary(nlohmann::json::binary_t& /*value*/) { return scalar(Kind::kOther, nullptr); }

  bool start_object(std::size_t /*elements*/) {
    if (stack_.empty()) {
      stack_.push_back(Level{Frame::kTop, {}, {}});
      return true;
    }
    if (!check_value(Kind::kObject)) return false;
    stack_.push_back(Level{child_frame(), {}, {}});
    return true;
  }
  bool key(std::string& name) {
    Level& level = stack_.back();
    const bool duplicate = level.frame == Frame::kWeightMap ? weight_map.count(name) != 0
                                                            : !level.keys.insert(name).second;
    if (duplicate) {
      fail(FindingKind::kIndexDuplicateKey, key_quote_offset(),
           "duplicate key " + in_quotes(name) + " in a JSON object" +
               (level.frame == Frame::kWeightMap ? " (weight_map lists this tensor twice)" : ""));
      return false;
    }
    level.key = name;
    return true;
  }
  bool end_object() {
    if (stack_.size() == 1 && !saw_weight_map) {
      fail(FindingKind::kIndexInvalid, position(), "no \"weight_map\" object in the index");
      return false;
    }
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*elements*/) {
    if (stack_.empty()) {
      fail(FindingKind::kIndexInvalid, 0, "the top level is a JSON array, not an object");
      return false;
    }
    if (!check_value(Kind::kArray)) return false;
    stack_.push_back(Level{Frame::kOther, {}, {}});
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::json::exception& ex) {
    if (failure) return false;
    std::string what = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax
    // error while parsing ..." -> keep the part after the location.
    const std::size_t colon = what.find(": ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    fail(FindingKind::kIndexMalformed, position > 0 ? position - 1 : 0, what);
    return false;
  }

 private:
  enum class Frame : std::uint8_t { kTop, kWeightMap, kMetadata, kOther };
  enum class Kind : std::uint8_t { kObject, kArray, kString, kSize, kOther };
  struct Level {
    Frame frame;
    std::unordered_set<std::string> keys;
    std::string key;  // the key whose value comes next
  };

  std::uint64_t position() const { return static_cast<std::uint64_t>(*cursor_ - text_.data()); }

  // The cursor sits just past the key's closing quote: walk back to the
  // opening quote, skipping escaped quotes.
  std::uint64_t key_quote_offset() const {
    std::size_t close = static_cast<std::size_t>(position());
    if (close == 0 || close > text_.size()) return position();
    std::size_t i = close - 1;  // the closing quote
    while (i > 0) {
      --i;
      if (text_[i] != '"') continue;
      std::size_t backslashes = 0;
      while (backslashes < i && text_[i - 1 - backslashes] == '\\') ++backslashes;
      if (backslashes % 2 == 0) return i;
    }
    return 0;
  }

  void fail(FindingKind kind, std::uint64_t offset, std::string message) {
    if (!failure) failure = IndexFailure{kind, offset, std::move(message)};
  }

  Frame child_frame() const {
    const Level& parent = stack_.back();
    if (parent.frame == Frame::kTop) {
      if (parent.key == "weight_map") return Frame::kWeightMap;
      if (parent.key == "metadata") return Frame::kMetadata;
    }
    return Frame::kOther;
  }

  bool scalar(Kind kind, const std::uint64_t* size) {
    if (!check_value(kind)) return false;
    if (kind == Kind::kSize && size != nullptr && stack_.back().frame == Frame::kMetadata &&
        stack_.back().key == "total_size") {
      total_size = *size;
    }
    return true;
  }

  // Type rules for the values the checks rely on.
  bool check_value(Kind kind) {
    if (stack_.empty()) {
      fail(FindingKind::kIndexInvalid, 0, "the top level is not a JSON object");
      return false;
    }
    const Level& parent = stack_.back();
    if (parent.frame == Frame::kTop) {
      if (parent.key == "weight_map") {
        if (kind != Kind::kObject) {
          fail(FindingKind::kIndexInvalid, position(), "\"weight_map\" is not an object");
          return false;
        }
        saw_weight_map = true;
      } else if (parent.key == "metadata" && kind != Kind::kObject) {
        fail(FindingKind::kIndexInvalid, position(), "\"metadata\" is not an object");
        return false;
      }
    } else if (parent.frame == Frame::kWeightMap && kind != Kind::kString) {
      fail(FindingKind::kIndexInvalid, position(),
           "weight_map entry " + in_quotes(parent.key) + " is not a shard file name (string)");
      return false;
    } else if (parent.frame == Frame::kMetadata && parent.key == "total_size" &&
               kind != Kind::kSize) {
      fail(FindingKind::kIndexInvalid, position(),
           "metadata.total_size is not a non-negative integer");
      return false;
    }
    return true;
  }

  std::string_view text_;
  const char** cursor_;
  std::vector<Level> stack_;
};

// ------------------------------------------------------------- verifier ----

enum class EntryType : std::uint8_t { kRegular, kSymlink, kDirectory, kOther };
enum class Role : std::uint8_t { kShard, kIndex, kChecksums, kOther };

struct Entry {
  std::string name;
  EntryType type = EntryType::kOther;
  Role role = Role::kOther;
  std::string link_target;  // symlinks
};

std::optional<std::string> stray_reason(std::string_view name) {
  struct Suffix {
    std::string_view suffix;
    std::string_view why;
  };
  static constexpr Suffix kSuffixes[] = {
      {".incomplete", "an unfinished Hugging Face download (.incomplete)"},
      {".part", "an unfinished download (.part)"},
      {".partial", "an unfinished download (.partial)"},
      {".crdownload", "an unfinished Chrome download (.crdownload)"},
      {".download", "an unfinished Safari download (.download)"},
      {".aria2", "the control file of an unfinished aria2 download (.aria2)"},
      {".filepart", "an unfinished WinSCP transfer (.filepart)"},
      {".tmp", "a temporary file left by an interrupted download or copy (.tmp)"},
      {".temp", "a temporary file left by an interrupted download or copy (.temp)"},
  };
  for (const Suffix& s : kSuffixes) {
    if (ends_with(name, s.suffix) && name.size() > s.suffix.size()) return std::string(s.why);
  }
  if (name.find(kShardSuffix) != std::string_view::npos && !ends_with(name, kShardSuffix) &&
      !ends_with(name, kIndexSuffix)) {
    if (starts_with(name, ".")) {
      return std::string("a hidden copy of a shard (the temporary file of an interrupted rsync?)");
    }
    return std::string(
        "a partial, backup or duplicate copy of a shard (e.g. wget's .1 suffix); "
        "not checked as a shard");
  }
  return std::nullopt;
}

struct ShardState {
  std::optional<FileStamp> stamp;  // when it was checked
};

struct HashJob {
  std::size_t entry = 0;  // index into the checksum lines
  std::string name;       // normalised relative name
  std::uint64_t size = 0;
};

struct HashResult {
  Sha256Outcome outcome;
  int open_err = 0;
  bool changed = false;
  std::optional<FileStamp> stamp;
};

class Verifier {
 public:
  Verifier(const std::string& dir, const VerifyOptions& options) : options_(options) {
    report_.dir = dir;
  }

  VerifyReport run() {
    if (!load_checksum_option()) return std::move(report_);
    if (!open_dir()) return std::move(report_);
    report_.ran = true;
    report_folder_entries();
    check_shards();
    check_duplicates();
    check_indexes();
    check_checksums();
    finish();
    return std::move(report_);
  }

 private:
  void add(Finding finding) { report_.findings.push_back(std::move(finding)); }

  Finding make(FindingKind kind, Category category, std::string file, std::string message,
               Severity severity = Severity::kError) {
    Finding f;
    f.kind = kind;
    f.category = category;
    f.file = std::move(file);
    f.message = std::move(message);
    f.severity = severity;
    return f;
  }

  bool fatal(std::string why) {
    report_.ran = false;
    report_.fatal = std::move(why);
    return false;
  }

  // --sha256 FILE is read first: a missing list is a usage error (exit 2),
  // not a finding about DIR.
  bool load_checksum_option() {
    if (!options_.sha256_file) return true;
    const std::string& path = *options_.sha256_file;
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0) return fatal("cannot open checksum file " + path + ": " + std::strerror(errno));
    UniqueFd holder(fd);
    std::string text;
    const std::string err = read_small_file(fd, options_.max_checksum_file_bytes, &text);
    if (!err.empty()) return fatal("cannot read checksum file " + path + ": " + err);
    checksum_text_ = std::move(text);
    return true;
  }

  bool open_dir() {
    const std::string& dir = report_.dir;
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
      const int err = errno;
      if (err == ENOENT) return fatal(dir + ": no such directory");
      if (err == ENOTDIR) return fatal(dir + ": not a directory");
      return fatal(dir + ": cannot open: " + std::strerror(err));
    }
    dirfd_ = UniqueFd(fd);
    std::vector<std::string> names;
    std::string err;
    if (!list_dir(dirfd_.get(), &names, &err)) return fatal(dir + ": cannot list: " + err);
    for (std::string& name : names) {
      Entry e;
      e.name = std::move(name);
      struct stat st {};
      if (::fstatat(dirfd_.get(), e.name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
        e.type = EntryType::kOther;
      } else if (S_ISREG(st.st_mode)) {
        e.type = EntryType::kRegular;
      } else if (S_ISLNK(st.st_mode)) {
        e.type = EntryType::kSymlink;
        char target[4096];
        const ssize_t n = ::readlinkat(dirfd_.get(), e.name.c_str(), target, sizeof target);
        if (n > 0) e.link_target.assign(target, static_cast<std::size_t>(n));
      } else if (S_ISDIR(st.st_mode)) {
        e.type = EntryType::kDirectory;
      }
      if (ends_with(e.name, kIndexSuffix)) {
        e.role = Role::kIndex;
      } else if (ends_with(e.name, kShardSuffix)) {
        e.role = Role::kShard;
      } else if (e.name == kChecksumName) {
        e.role = Role::kChecksums;
      }
      entries_.push_back(std::move(e));
    }
    std::sort(entries_.begin(), entries_.end(),
              [](const Entry& a, const Entry& b) { return a.name < b.name; });
    for (std::size_t i = 0; i < entries_.size(); ++i) by_name_[entries_[i].name] = i;
    return true;
  }

  static bool list_dir(int dirfd, std::vector<std::string>* names, std::string* err) {
    const int dup = ::openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dup < 0) {
      *err = std::strerror(errno);
      return false;
    }
    DIR* d = ::fdopendir(dup);
    if (d == nullptr) {
      *err = std::strerror(errno);
      ::close(dup);
      return false;
    }
    while (true) {
      errno = 0;
      const dirent* ent = ::readdir(d);
      if (ent == nullptr) {
        if (errno != 0) {
          *err = std::strerror(errno);
          ::closedir(d);
          return false;
        }
        break;
      }
      const std::string_view name = ent->d_name;
      if (name == "." || name == "..") continue;
      names->emplace_back(name);
    }
    ::closedir(d);
    return true;
  }

  bool matters(const Entry& e) const { return e.role != Role::kOther; }

  // Symlinks (when not followed) and leftovers of interrupted transfers.
  void report_folder_entries() {
    for (const Entry& e : entries_) {
      if (e.type == EntryType::kSymlink && !options_.follow_symlinks) {
        Finding f =
            make(FindingKind::kSymlink, Category::kFolder, e.name,
                 "is a symlink to " + in_quotes(e.link_target) +
                     "; not followed (--follow-symlinks follows links that stay inside DIR)",
                 matters(e) ? Severity::kError : Severity::kWarning);
        f.other = e.link_target;
        add(std::move(f));
      }
      if (e.role == Role::kOther) {
        if (std::optional<std::string> why = stray_reason(e.name)) {
          add(make(FindingKind::kStrayFile, Category::kFolder, e.name, "looks like " + *why,
                   Severity::kWarning));
        }
      }
    }
    // `huggingface-cli download --local-dir` keeps unfinished files here.
    Opened cache = open_beneath(dirfd_.get(), ".cache/huggingface/download", false, true);
    if (cache.fd) {
      std::vector<std::string> names;
      std::string err;
      if (list_dir(cache.fd.get(), &names, &err)) {
        std::sort(names.begin(), names.end());
        for (const std::string& name : names) {
          if (!ends_with(name, ".incomplete")) continue;
          add(make(
              FindingKind::kStrayFile, Category::kFolder, ".cache/huggingface/download/" + name,
              "looks like an unfinished Hugging Face download (.incomplete)", Severity::kWarning));
        }
      }
    }
  }

  // ---- shards ----

  void check_shards() {
    for (const Entry& e : entries_) {
      if (e.role != Role::kShard) continue;
      ShardReport r;
      r.file = e.name;
      check_shard(e, r);
      shard_index_[e.name] = report_.shards.size();
      report_.shards.push_back(std::move(r));
    }
    if (report_.shards.empty()) {
      add(make(FindingKind::kNoShards, Category::kFolder, "",
               "no *.safetensors file in " + report_.dir));
    }
  }

  void skip_shard(ShardReport& r, FindingKind kind, std::string message, bool add_finding) {
    r.verdict = ShardVerdict::kSkipped;
    r.kind = kind;
    r.message = message;
    if (add_finding) add(make(kind, Category::kShard, r.file, std::move(message)));
  }

  void check_shard(const Entry& e, ShardReport& r) {
    r.via_symlink = e.type == EntryType::kSymlink;
    if (e.type == EntryType::kDirectory || e.type == EntryType::kOther) {
      skip_shard(r, FindingKind::kNotRegularFile,
                 e.type == EntryType::kDirectory ? "is a directory, not a shard file"
                                                 : "is not a regular file (device, FIFO, socket?)",
                 true);
      return;
    }
    if (e.type == EntryType::kSymlink && !options_.follow_symlinks) {
      // The folder pass already reported the link.
      skip_shard(r, FindingKind::kSymlink, "symlink not followed", false);
      return;
    }
    Opened o = open_beneath(dirfd_.get(), e.name, options_.follow_symlinks);
    if (!o.fd) {
      if (e.type == EntryType::kSymlink && (o.err == EXDEV || o.err == ELOOP)) {
        Finding f = make(FindingKind::kSymlinkEscapes, Category::kFolder, e.name,
                         "is a symlink to " + in_quotes(e.link_target) +
                             " which resolves outside DIR; not followed");
        f.other = e.link_target;
        add(std::move(f));
        skip_shard(r, FindingKind::kSymlinkEscapes, "symlink resolves outside DIR", false);
        return;
      }
      skip_shard(r, FindingKind::kShardUnreadable, "cannot open: " + open_error_text(o.err), true);
      return;
    }
    struct stat st {};
    if (::fstat(o.fd.get(), &st) != 0) {
      skip_shard(r, FindingKind::kShardUnreadable,
                 std::string("fstat failed: ") + std::strerror(errno), true);
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      skip_shard(r, FindingKind::kNotRegularFile, "resolves to something that is not a file", true);
      return;
    }
    r.size = static_cast<std::uint64_t>(st.st_size);
    shard_state_[e.name].stamp = stamp_of(st);

    ParseOptions parse_options;  // strict profile, default limits
    std::uint8_t prefix[8] = {};
    int err = 0;
    const std::size_t prefix_len = static_cast<std::size_t>(std::min<std::uint64_t>(r.size, 8));
    if (read_at(o.fd.get(), prefix, prefix_len, 0, &err) != prefix_len) {
      skip_shard(r, FindingKind::kShardUnreadable,
                 std::string("read failed: ") + (err != 0 ? std::strerror(err) : "file shrank"),
                 true);
      return;
    }
    Result<std::uint64_t> n =
        parse_header_length(std::span(prefix, prefix_len), r.size, parse_options.limits);
    if (!n) {
      reject_shard(o.fd.get(), r, n.error(), {});
      return;
    }
    // parse_header_length guarantees 8 + N <= file size and N within limits.
    std::vector<std::uint8_t> head(static_cast<std::size_t>(8 + *n));
    if (read_at(o.fd.get(), head.data(), head.size(), 0, &err) != head.size()) {
      skip_shard(r, FindingKind::kShardUnreadable,
                 std::string("read failed: ") + (err != 0 ? std::strerror(err) : "file shrank"),
                 true);
      return;
    }
    Result<Header> header = parse_header(head, r.size, parse_options);
    if (!header) {
      reject_shard(o.fd.get(), r, header.error(), head);
      return;
    }
    r.verdict = ShardVerdict::kAccept;
    r.header_len = header->header_len;
    r.tensors = header->tensors.size();
    const std::uint32_t shard_id = static_cast<std::uint32_t>(report_.shards.size());
    for (const TensorInfo& t : header->tensors) {
      r.tensor_bytes += t.byte_size();  // sums of a validated layout cannot overflow
      tensors_[t.name].push_back(shard_id);
    }
  }

  void reject_shard(int fd, ShardReport& r, const Error& error,
                    std::span<const std::uint8_t> head) {
    r.verdict = ShardVerdict::kReject;
    r.reason = error.reason;
    r.offset = error.offset;
    std::string sniff(static_cast<std::size_t>(std::min<std::uint64_t>(r.size, kSniffBytes)), '\0');
    int err = 0;
    sniff.resize(read_at(fd, reinterpret_cast<std::uint8_t*>(sniff.data()), sniff.size(), 0, &err));

    FindingKind kind = FindingKind::kShardInvalid;
    std::string message;
    std::optional<std::uint64_t> expected_size;
    const std::string parser_note = "; parser: " + error.message;
    if (r.size == 0) {
      kind = FindingKind::kShardEmpty;
      message = "zero-byte file: nothing was downloaded or copied";
    } else if (std::optional<LfsPointer> lfs = parse_lfs_pointer(sniff)) {
      kind = FindingKind::kShardLfsPointer;
      message = "a Git LFS pointer file, not the weights (run `git lfs pull`)";
      if (lfs->size) {
        expected_size = lfs->size;
        message += "; the real file is " + std::to_string(*lfs->size) + " bytes";
      }
      if (!lfs->oid.empty()) message += ", sha256 " + lfs->oid;
    } else if (std::optional<std::string> markup = describe_markup(sniff)) {
      kind = FindingKind::kShardHtml;
      message = *markup + " saved under a .safetensors name, not a safetensors file";
    } else if (starts_with(sniff, "PK\x03\x04")) {
      kind = FindingKind::kShardNotSafetensors;
      message = "a ZIP archive (a PyTorch .bin/.pt checkpoint renamed?), not safetensors";
    } else if (sniff.size() >= 2 && static_cast<unsigned char>(sniff[0]) == 0x80 && sniff[1] >= 2 &&
               sniff[1] <= 5) {
      kind = FindingKind::kShardNotSafetensors;
      message = "a Python pickle (a PyTorch checkpoint renamed?), not safetensors";
    } else if (starts_with(sniff, "\x1f\x8b")) {
      kind = FindingKind::kShardNotSafetensors;
      message = "a gzip-compressed file, not safetensors";
    } else if (sniff.find_first_not_of('\0') == std::string::npos) {
      // Download tools that preallocate (aria2, some browsers) leave
      // full-size files of zeros when interrupted before writing them.
      kind = FindingKind::kShardTruncated;
      message = "starts with " + std::to_string(sniff.size()) +
                " zero bytes: space preallocated by a download or copy that never wrote it "
                "(interrupted?)";
    } else if (error.reason == Reason::kHeaderTooSmall) {
      kind = FindingKind::kShardTruncated;
      message = "truncated: only " + std::to_string(r.size) +
                " bytes, shorter than the 8-byte header length (interrupted download?)";
    } else if ((error.reason == Reason::kHeaderTooLarge ||
                error.reason == Reason::kHeaderLengthExceedsFile) &&
               looks_like_text(std::string_view(sniff).substr(0, 8))) {
      kind = FindingKind::kShardNotSafetensors;
      const std::string_view text = skip_bom_and_space(sniff);
      message = std::string(starts_with(text, "{") || starts_with(text, "[")
                                ? "JSON text (an error response saved as a shard?)"
                                : "a text file") +
                ", not safetensors: starts with " + in_quotes(excerpt(text, 60));
    } else if (error.reason == Reason::kHeaderLengthExceedsFile) {
      kind = FindingKind::kShardTruncated;
      std::uint64_t n = 0;
      for (std::size_t i = 0; i < 8 && i < sniff.size(); ++i) {
        n |= static_cast<std::uint64_t>(static_cast<unsigned char>(sniff[i])) << (8 * i);
      }
      message = "truncated inside the header (interrupted download?): the header is " +
                std::to_string(n) + " bytes, the file only " + std::to_string(r.size);
    } else if (error.reason == Reason::kOffsetOutOfBounds) {
      kind = FindingKind::kShardTruncated;
      message = "truncated (interrupted download?): the tensor data is cut short";
      if (head.size() >= 8) {
        const std::string_view header_text(reinterpret_cast<const char*>(head.data()) + 8,
                                           head.size() - 8);
        expected_size = declared_file_size(header_text, head.size());
        if (expected_size && *expected_size > r.size) {
          message += ": the header describes " + std::to_string(*expected_size) +
                     " bytes, the file has " + std::to_string(r.size) + " (" +
                     std::to_string(*expected_size - r.size) + " missing)";
        }
      }
    } else {
      message = error.message.empty() ? std::string(reason_name(error.reason)) : error.message;
      if (error.reason == Reason::kTrailingData) {
        message +=
            " (the file is longer than its header describes: appended to, or a resumed "
            "download of a different version?)";
      }
    }
    if (kind != FindingKind::kShardInvalid) message += parser_note;
    r.kind = kind;
    r.message = message;
    Finding f = make(kind, Category::kShard, r.file, std::move(message));
    f.reason = error.reason;
    f.offset = error.offset;
    if (expected_size) {
      f.expected_size = expected_size;
      f.actual_size = r.size;
    }
    add(std::move(f));
  }

  void check_duplicates() {
    std::vector<const std::pair<const std::string, std::vector<std::uint32_t>>*> dups;
    for (const auto& item : tensors_) {
      if (item.second.size() > 1) dups.push_back(&item);
    }
    std::sort(dups.begin(), dups.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    for (const auto* item : dups) {
      std::string where;
      for (const std::uint32_t id : item->second) {
        if (!where.empty()) where += ", ";
        where += report_.shards[id].file;
      }
      Finding f = make(FindingKind::kTensorDuplicate, Category::kIndex,
                       report_.shards[item->second[0]].file,
                       "tensor " + in_quotes(item->first) + " is in " +
                           std::to_string(item->second.size()) + " shards: " + where);
      f.tensor = item->first;
      f.shard = report_.shards[item->second[0]].file;
      f.other = report_.shards[item->second[1]].file;
      add(std::move(f));
    }
  }

  // ---- indexes ----

  struct ParsedIndex {
    IndexReport report;
    std::unordered_map<std::string, std::string> weight_map;
    std::set<std::string> named;  // valid shard names it names
  };

  void check_indexes() {
    std::vector<ParsedIndex> usable;
    for (const Entry& e : entries_) {
      if (e.role != Role::kIndex) continue;
      IndexReport ir;
      ir.file = e.name;
      std::optional<ParsedIndex> parsed = load_index(e);
      if (parsed) {
        parsed->report.file = e.name;
        usable.push_back(std::move(*parsed));
      } else {
        report_.indexes.push_back(ir);
      }
    }
    bool any_index_present = false;
    for (const Entry& e : entries_) any_index_present |= e.role == Role::kIndex;

    if (!any_index_present) {
      if (report_.shards.size() > 1) {
        add(make(FindingKind::kIndexMissing, Category::kIndex, "",
                 std::to_string(report_.shards.size()) +
                     " shards but no *.safetensors.index.json: nothing says which shards belong "
                     "together"));
      }
      return;
    }
    std::set<std::string> named_by_any;
    for (ParsedIndex& index : usable) {
      compare_index(index);
      named_by_any.insert(index.named.begin(), index.named.end());
      report_.indexes.push_back(index.report);
    }
    std::sort(report_.indexes.begin(), report_.indexes.end(),
              [](const IndexReport& a, const IndexReport& b) { return a.file < b.file; });
    if (usable.empty()) return;  // nothing trustworthy to hold the shards against
    std::string index_names;
    for (const ParsedIndex& index : usable) {
      if (!index_names.empty()) index_names += ", ";
      index_names += index.report.file;
    }
    for (const ShardReport& shard : report_.shards) {
      if (named_by_any.count(shard.file) != 0) continue;
      Finding f = make(FindingKind::kShardNotInIndex, Category::kIndex, shard.file,
                       "is not named in " + index_names +
                           " (left over from another revision, or a separate checkpoint?)");
      f.shard = shard.file;
      add(std::move(f));
    }
  }

  std::optional<ParsedIndex> load_index(const Entry& e) {
    if (e.type == EntryType::kSymlink && !options_.follow_symlinks) return std::nullopt;
    if (e.type != EntryType::kRegular && e.type != EntryType::kSymlink) {
      add(make(FindingKind::kNotRegularFile, Category::kIndex, e.name,
               "is not a regular file; index not read"));
      return std::nullopt;
    }
    Opened o = open_beneath(dirfd_.get(), e.name, options_.follow_symlinks);
    if (!o.fd) {
      if (e.type == EntryType::kSymlink && (o.err == EXDEV || o.err == ELOOP)) {
        Finding f = make(FindingKind::kSymlinkEscapes, Category::kFolder, e.name,
                         "is a symlink to " + in_quotes(e.link_target) +
                             " which resolves outside DIR; not followed");
        f.other = e.link_target;
        add(std::move(f));
      } else {
        add(make(FindingKind::kIndexMalformed, Category::kIndex, e.name,
                 "cannot open: " + open_error_text(o.err)));
      }
      return std::nullopt;
    }
    std::string text;
    const std::string err = read_small_file(o.fd.get(), options_.max_index_bytes, &text);
    if (!err.empty()) {
      add(make(FindingKind::kIndexMalformed, Category::kIndex, e.name, "cannot read: " + err));
      return std::nullopt;
    }
    if (parse_lfs_pointer(text)) {
      add(make(FindingKind::kIndexMalformed, Category::kIndex, e.name,
               "a Git LFS pointer file, not the index (run `git lfs pull`)"));
      return std::nullopt;
    }
    if (std::optional<std::string> markup = describe_markup(text)) {
      add(make(FindingKind::kIndexMalformed, Category::kIndex, e.name,
               *markup + ", not a JSON index"));
      return std::nullopt;
    }
    const char* cursor = text.data();
    IndexSax sax(text, &cursor);
    bool parsed = false;
    try {
      parsed = nlohmann::json::sax_parse(CountingIterator(text.data(), &cursor),
                                         CountingIterator(text.data() + text.size(), nullptr), &sax,
                                         nlohmann::json::input_format_t::json,
                                         /*strict=*/true);
    } catch (const nlohmann::json::exception& ex) {
      // Errors arrive through IndexSax::parse_error; this is insurance.
      parsed = false;
      if (!sax.failure) {
        sax.failure = IndexFailure{FindingKind::kIndexMalformed,
                                   static_cast<std::uint64_t>(cursor - text.data()), ex.what()};
      }
    }
    if (!parsed || sax.failure) {
      IndexFailure failure = sax.failure
                                 ? *sax.failure
                                 : IndexFailure{FindingKind::kIndexMalformed, 0, "not valid JSON"};
      Finding f = make(failure.kind, Category::kIndex, e.name,
                       failure.message + " (" + line_column(text, failure.offset) + ")");
      f.offset = failure.offset;
      add(std::move(f));
      return std::nullopt;
    }
    ParsedIndex index;
    index.report.usable = true;
    index.report.entries = sax.weight_map.size();
    index.report.total_size = sax.total_size;
    index.weight_map = std::move(sax.weight_map);
    return index;
  }

  static std::string line_column(std::string_view text, std::uint64_t offset) {
    std::uint64_t line = 1;
    std::uint64_t column = 1;
    const std::size_t end = static_cast<std::size_t>(std::min<std::uint64_t>(offset, text.size()));
    for (std::size_t i = 0; i < end; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return "byte " + std::to_string(offset) + ", line " + std::to_string(line) + ", column " +
           std::to_string(column);
  }

  void compare_index(ParsedIndex& index) {
    const std::string& file = index.report.file;
    // Shard names: validate each distinct one once.
    std::map<std::string, std::uint64_t> tensors_per_shard;  // raw name -> count
    for (const auto& [tensor, shard] : index.weight_map) ++tensors_per_shard[shard];
    std::set<std::string> unusable;  // raw names whose tensors cannot be checked
    std::unordered_map<std::string, std::string> normalised;  // raw -> DIR name
    for (const auto& [raw, count] : tensors_per_shard) {
      std::string why;
      std::optional<std::string> name = safe_relative_name(raw, &why);
      if (name && name->find('/') != std::string::npos) {
        name.reset();
        why = "not a file directly in DIR (shards must sit next to their index)";
      }
      if (!name) {
        Finding f = make(FindingKind::kUnsafePath, Category::kIndex, file,
                         "weight_map names shard " + in_quotes(raw) + ": " + why + "; not opened");
        f.shard = raw;
        add(std::move(f));
        unusable.insert(raw);
        continue;
      }
      normalised[raw] = *name;
      index.named.insert(*name);
      const auto it = shard_index_.find(*name);
      if (it == shard_index_.end()) {
        std::string message = "names shard " + in_quotes(*name) + " for " + std::to_string(count) +
                              " tensor" + (count == 1 ? "" : "s") + ", but it is not in DIR";
        const auto entry = by_name_.find(*name);
        if (entry != by_name_.end())
          message += " (a file of that name exists but is not *.safetensors)";
        Finding f = make(FindingKind::kIndexShardMissing, Category::kIndex, file, message);
        f.shard = *name;
        add(std::move(f));
        unusable.insert(raw);
        continue;
      }
      if (report_.shards[it->second].verdict != ShardVerdict::kAccept) {
        unusable.insert(raw);  // its own finding explains why
      }
    }
    index.report.shards_named = index.named.size();

    // Tensors named by the index, in name order for a stable report.
    std::vector<const std::pair<const std::string, std::string>*> entries;
    entries.reserve(index.weight_map.size());
    for (const auto& item : index.weight_map) entries.push_back(&item);
    std::sort(entries.begin(), entries.end(),
              [](const auto* a, const auto* b) { return a->first < b->first; });
    for (const auto* item : entries) {
      const std::string& tensor = item->first;
      const std::string& raw_shard = item->second;
      const auto found = tensors_.find(tensor);
      const auto norm = normalised.find(raw_shard);
      const std::string shard = norm != normalised.end() ? norm->second : raw_shard;
      if (found != tensors_.end()) {
        bool in_named = false;
        for (const std::uint32_t id : found->second) in_named |= report_.shards[id].file == shard;
        if (in_named) continue;
        const std::string& actual = report_.shards[found->second[0]].file;
        Finding f = make(
            FindingKind::kTensorWrongShard, Category::kIndex, file,
            "tensor " + in_quotes(tensor) + " is mapped to " + shard + " but found in " + actual);
        f.tensor = tensor;
        f.shard = shard;
        f.other = actual;
        add(std::move(f));
        continue;
      }
      // Not found anywhere. When its shard is missing or broken, the shard's
      // own finding covers it (listing every tensor of a missing 5 GB shard
      // would bury the one line that matters).
      if (unusable.count(raw_shard) != 0) continue;
      Finding f = make(
          FindingKind::kTensorMissing, Category::kIndex, file,
          "tensor " + in_quotes(tensor) + " is mapped to " + shard + " but no shard contains it");
      f.tensor = tensor;
      f.shard = shard;
      add(std::move(f));
    }

    // Tensors in the shards this index names that it does not list.
    std::vector<std::pair<std::string, std::string>> extra;
    for (const auto& [tensor, ids] : tensors_) {
      if (index.weight_map.count(tensor) != 0) continue;
      for (const std::uint32_t id : ids) {
        if (index.named.count(report_.shards[id].file) != 0) {
          extra.emplace_back(tensor, report_.shards[id].file);
          break;
        }
      }
    }
    std::sort(extra.begin(), extra.end());
    for (const auto& [tensor, shard] : extra) {
      Finding f = make(
          FindingKind::kTensorExtra, Category::kIndex, file,
          "tensor " + in_quotes(tensor) + " in " + shard + " is not in the index's weight_map");
      f.tensor = tensor;
      f.shard = shard;
      add(std::move(f));
    }

    // metadata.total_size: comparable only when every named shard was read.
    if (unusable.empty()) {
      std::uint64_t sum = 0;
      bool overflow = false;
      for (const std::string& name : index.named) {
        overflow |=
            __builtin_add_overflow(sum, report_.shards[shard_index_.at(name)].tensor_bytes, &sum);
      }
      if (!overflow) {
        index.report.computed_size = sum;
        if (index.report.total_size && *index.report.total_size != sum) {
          Finding f = make(FindingKind::kTotalSizeMismatch, Category::kIndex, file,
                           "metadata.total_size is " + std::to_string(*index.report.total_size) +
                               " but the tensors in its shards add up to " + std::to_string(sum) +
                               " bytes");
          f.expected_size = *index.report.total_size;
          f.actual_size = sum;
          add(std::move(f));
        }
      }
    }
  }

  // ---- checksums ----

  void check_checksums() {
    std::string source;
    if (options_.sha256_file) {
      source = *options_.sha256_file;
    } else {
      const auto it = by_name_.find(std::string(kChecksumName));
      if (it == by_name_.end()) return;
      const Entry& e = entries_[it->second];
      source = e.name;
      ChecksumReport cr;
      cr.file = source;
      if (e.type == EntryType::kSymlink && !options_.follow_symlinks) {
        report_.checksums = cr;  // the symlink finding says why nothing was checked
        return;
      }
      Opened o = open_beneath(dirfd_.get(), e.name, options_.follow_symlinks);
      std::string err =
          o.fd ? read_small_file(o.fd.get(), options_.max_checksum_file_bytes, &checksum_text_)
               : open_error_text(o.err);
      if (!err.empty()) {
        report_.checksums = cr;
        add(make(FindingKind::kChecksumUnreadable, Category::kChecksum, source,
                 "cannot read the checksum list: " + err));
        return;
      }
    }
    ChecksumReport cr;
    cr.file = source;
    cr.from_option = options_.sha256_file.has_value();

    std::vector<std::pair<std::uint64_t, std::string>> malformed;
    std::vector<ChecksumLine> lines = parse_checksum_file(checksum_text_, &malformed);
    for (auto& [line, why] : malformed) {
      Finding f = make(FindingKind::kChecksumMalformed, Category::kChecksum, source,
                       "line " + std::to_string(line) + ": " + why);
      f.line = line;
      add(std::move(f));
    }
    cr.entries = lines.size();

    std::vector<HashJob> jobs;
    std::map<std::string, std::pair<std::uint64_t, Sha256Digest>> listed;  // name -> first line
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const ChecksumLine& line = lines[i];
      std::string why;
      std::optional<std::string> name = safe_relative_name(line.name, &why);
      if (!name) {
        Finding f = make(FindingKind::kUnsafePath, Category::kChecksum, source,
                         "line " + std::to_string(line.line) + ": " + in_quotes(line.name) + ": " +
                             why + "; not opened");
        f.line = line.line;
        f.other = line.name;
        add(std::move(f));
        ++cr.failed;
        continue;
      }
      const auto [it, inserted] = listed.emplace(*name, std::make_pair(line.line, line.digest));
      if (!inserted) {
        const bool same = it->second.second == line.digest;
        Finding f = make(FindingKind::kChecksumDuplicate, Category::kChecksum, source,
                         "line " + std::to_string(line.line) + ": " + in_quotes(*name) +
                             " is already listed on line " + std::to_string(it->second.first) +
                             (same ? " (same digest)" : " with a different digest"),
                         same ? Severity::kWarning : Severity::kError);
        f.line = line.line;
        f.other = *name;
        add(std::move(f));
        continue;
      }
      if (!cr.from_option && *name == kChecksumName) {
        Finding f = make(FindingKind::kChecksumDuplicate, Category::kChecksum, source,
                         "line " + std::to_string(line.line) +
                             ": the list names itself, which no list can do correctly "
                             "(written with `sha256sum * > SHA256SUMS`?); entry ignored",
                         Severity::kWarning);
        f.line = line.line;
        f.other = *name;
        add(std::move(f));
        continue;
      }
      Opened o = open_beneath(dirfd_.get(), *name, options_.follow_symlinks);
      if (!o.fd) {
        Finding f = make(
            o.err == ENOENT ? FindingKind::kChecksumFileMissing : FindingKind::kChecksumUnreadable,
            Category::kChecksum, *name,
            std::string(o.err == ENOENT ? "listed" : "listed, but") + " on line " +
                std::to_string(line.line) + " of " + source + ", " +
                (o.err == ENOENT ? "but not in DIR" : open_error_text(o.err)));
        f.line = line.line;
        add(std::move(f));
        ++cr.failed;
        continue;
      }
      struct stat st {};
      if (::fstat(o.fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
        Finding f = make(FindingKind::kChecksumUnreadable, Category::kChecksum, *name,
                         "listed on line " + std::to_string(line.line) + " of " + source +
                             ", but not a regular file");
        f.line = line.line;
        add(std::move(f));
        ++cr.failed;
        continue;
      }
      jobs.push_back(HashJob{i, *name, static_cast<std::uint64_t>(st.st_size)});
    }

    // Shards the list does not cover: their content is unverified.
    for (const ShardReport& shard : report_.shards) {
      // A directory or FIFO named like a shard has its own finding.
      if (listed.count(shard.file) != 0 || shard.kind == FindingKind::kNotRegularFile) continue;
      add(make(FindingKind::kChecksumUnlisted, Category::kChecksum, shard.file,
               "is not listed in " + source + ": its content cannot be verified"));
    }

    std::vector<HashResult> results = hash_all(jobs, &cr);
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const HashJob& job = jobs[j];
      const ChecksumLine& line = lines[job.entry];
      HashResult& result = results[j];
      if (result.open_err != 0 || !result.outcome.ok()) {
        Finding f =
            make(FindingKind::kChecksumUnreadable, Category::kChecksum, job.name,
                 "could not be hashed: " + (result.open_err != 0 ? open_error_text(result.open_err)
                                                                 : result.outcome.error));
        f.line = line.line;
        add(std::move(f));
        ++cr.failed;
        continue;
      }
      const auto state = shard_state_.find(job.name);
      const bool changed_since_check = state != shard_state_.end() && state->second.stamp &&
                                       result.stamp && !(*state->second.stamp == *result.stamp);
      if (result.changed || changed_since_check) {
        add(make(FindingKind::kFileChanged, Category::kFolder, job.name,
                 "changed while being verified (still being written or copied?): check again "
                 "once the transfer has finished"));
      }
      if (result.outcome.digest != line.digest) {
        Finding f = make(FindingKind::kChecksumMismatch, Category::kChecksum, job.name,
                         "SHA-256 mismatch: " + source + " line " + std::to_string(line.line) +
                             " expects " + to_hex(line.digest) + ", the file has " +
                             to_hex(result.outcome.digest));
        f.line = line.line;
        f.expected_sha256 = to_hex(line.digest);
        f.actual_sha256 = to_hex(result.outcome.digest);
        f.actual_size = result.outcome.bytes;
        add(std::move(f));
        ++cr.failed;
        continue;
      }
      ++cr.verified;
    }
    report_.checksums = cr;
  }

  HashResult hash_one(const HashJob& job, std::atomic<std::uint64_t>* done) const {
    HashResult result;
    Opened o = open_beneath(dirfd_.get(), job.name, options_.follow_symlinks);
    if (!o.fd) {
      result.open_err = o.err;
      return result;
    }
    struct stat before {};
    struct stat after {};
    const bool stat_before = ::fstat(o.fd.get(), &before) == 0;
    result.outcome = sha256_fd(o.fd.get(), options_.hash, done);
    const bool stat_after = ::fstat(o.fd.get(), &after) == 0;
    if (stat_before && stat_after) {
      result.stamp = stamp_of(before);
      result.changed = !(stamp_of(before) == stamp_of(after));
    }
    return result;
  }

  // Hashes the jobs on a pool of threads, largest files first so that one
  // big file started last does not leave the other threads idle at the end.
  std::vector<HashResult> hash_all(const std::vector<HashJob>& jobs, ChecksumReport* cr) {
    std::vector<HashResult> results(jobs.size());
    if (jobs.empty()) return results;
    std::vector<std::size_t> order(jobs.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return jobs[a].size > jobs[b].size; });
    std::uint64_t total = 0;
    for (const HashJob& job : jobs) total += job.size;

    unsigned threads = options_.jobs != 0 ? options_.jobs : std::thread::hardware_concurrency();
    if (threads == 0) threads = 1;
    if (threads > jobs.size()) threads = static_cast<unsigned>(jobs.size());

    std::atomic<std::size_t> next{0};
    std::atomic<std::uint64_t> done{0};
    std::mutex mutex;
    std::condition_variable cv;
    unsigned finished = 0;
    const auto worker = [&] {
      while (true) {
        const std::size_t k = next.fetch_add(1);
        if (k >= order.size()) break;
        results[order[k]] = hash_one(jobs[order[k]], &done);
      }
      {
        std::lock_guard<std::mutex> lock(mutex);
        ++finished;
      }
      cv.notify_all();
    };

    const auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t) {
      try {
        pool.emplace_back(worker);
      } catch (const std::system_error&) {
        break;  // fewer threads than asked: the ones running share the work
      }
    }
    if (pool.empty()) {
      worker();
    } else {
      std::unique_lock<std::mutex> lock(mutex);
      const auto all_done = [&] { return finished == pool.size(); };
      while (!cv.wait_for(lock, options_.progress_interval, all_done)) {
        if (options_.progress) {
          lock.unlock();
          options_.progress(done.load(std::memory_order_relaxed), total, false);
          lock.lock();
        }
      }
    }
    for (std::thread& t : pool) t.join();
    if (options_.progress) options_.progress(done.load(), total, true);
    cr->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    cr->bytes_hashed = done.load();
    cr->jobs = pool.empty() ? 1 : static_cast<unsigned>(pool.size());
    return results;
  }

  void finish() {
    for (const ShardReport& shard : report_.shards) {
      if (shard.verdict != ShardVerdict::kAccept) continue;
      report_.tensors += shard.tensors;
      report_.tensor_bytes += shard.tensor_bytes;
    }
    for (const Finding& f : report_.findings) {
      if (f.severity == Severity::kError) {
        ++report_.errors;
      } else {
        ++report_.warnings;
      }
    }
  }

  const VerifyOptions& options_;
  VerifyReport report_;
  UniqueFd dirfd_;
  std::vector<Entry> entries_;
  std::unordered_map<std::string, std::size_t> by_name_;
  std::unordered_map<std::string, std::size_t> shard_index_;  // name -> report_.shards index
  std::unordered_map<std::string, ShardState> shard_state_;
  std::unordered_map<std::string, std::vector<std::uint32_t>> tensors_;  // name -> shard ids
  std::string checksum_text_;
};

// --------------------------------------------------------- JSON helpers ----

template <class T>
nlohmann::ordered_json optional_json(const std::optional<T>& value) {
  if (!value) return nullptr;
  return *value;
}

}  // namespace

std::string_view finding_kind_name(FindingKind kind) noexcept {
  switch (kind) {
    case FindingKind::kNoShards:
      return "no_shards";
    case FindingKind::kSymlink:
      return "symlink";
    case FindingKind::kSymlinkEscapes:
      return "symlink_escapes";
    case FindingKind::kNotRegularFile:
      return "not_regular_file";
    case FindingKind::kStrayFile:
      return "stray_file";
    case FindingKind::kFileChanged:
      return "file_changed";
    case FindingKind::kShardEmpty:
      return "shard_empty";
    case FindingKind::kShardTruncated:
      return "shard_truncated";
    case FindingKind::kShardHtml:
      return "shard_html";
    case FindingKind::kShardLfsPointer:
      return "shard_lfs_pointer";
    case FindingKind::kShardNotSafetensors:
      return "shard_not_safetensors";
    case FindingKind::kShardInvalid:
      return "shard_invalid";
    case FindingKind::kShardUnreadable:
      return "shard_unreadable";
    case FindingKind::kIndexMissing:
      return "index_missing";
    case FindingKind::kIndexMalformed:
      return "index_malformed";
    case FindingKind::kIndexDuplicateKey:
      return "index_duplicate_key";
    case FindingKind::kIndexInvalid:
      return "index_invalid";
    case FindingKind::kTensorMissing:
      return "tensor_missing";
    case FindingKind::kTensorExtra:
      return "tensor_extra";
    case FindingKind::kTensorWrongShard:
      return "tensor_wrong_shard";
    case FindingKind::kTensorDuplicate:
      return "tensor_duplicate";
    case FindingKind::kIndexShardMissing:
      return "index_shard_missing";
    case FindingKind::kShardNotInIndex:
      return "shard_not_in_index";
    case FindingKind::kTotalSizeMismatch:
      return "total_size_mismatch";
    case FindingKind::kUnsafePath:
      return "unsafe_path";
    case FindingKind::kChecksumMalformed:
      return "checksum_malformed";
    case FindingKind::kChecksumFileMissing:
      return "checksum_file_missing";
    case FindingKind::kChecksumUnlisted:
      return "checksum_unlisted";
    case FindingKind::kChecksumMismatch:
      return "checksum_mismatch";
    case FindingKind::kChecksumUnreadable:
      return "checksum_unreadable";
    case FindingKind::kChecksumDuplicate:
      return "checksum_duplicate";
  }
  return "unknown";
}

std::string_view severity_name(Severity severity) noexcept {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
  }
  return "error";
}

std::string_view category_name(Category category) noexcept {
  switch (category) {
    case Category::kFolder:
      return "folder";
    case Category::kShard:
      return "shard";
    case Category::kIndex:
      return "index";
    case Category::kChecksum:
      return "checksum";
  }
  return "folder";
}

std::string_view shard_verdict_name(ShardVerdict verdict) noexcept {
  switch (verdict) {
    case ShardVerdict::kAccept:
      return "accept";
    case ShardVerdict::kReject:
      return "reject";
    case ShardVerdict::kSkipped:
      return "skipped";
  }
  return "skipped";
}

std::uint64_t VerifyReport::count(FindingKind kind) const noexcept {
  std::uint64_t n = 0;
  for (const Finding& f : findings) n += f.kind == kind ? 1 : 0;
  return n;
}

VerifyReport verify_model_folder(const std::string& dir, const VerifyOptions& options) {
  Verifier verifier(dir, options);
  return verifier.run();
}

std::optional<std::string> safe_relative_name(std::string_view name, std::string* why) {
  const auto reject = [&](const char* reason) -> std::optional<std::string> {
    if (why != nullptr) *why = reason;
    return std::nullopt;
  };
  if (name.empty()) return reject("empty name");
  if (name.find('\0') != std::string_view::npos) return reject("contains a NUL byte");
  if (name.find('\\') != std::string_view::npos) return reject("contains a backslash");
  if (name.front() == '/') return reject("absolute path");
  std::string out;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t slash = name.find('/', start);
    if (slash == std::string_view::npos) slash = name.size();
    const std::string_view part = name.substr(start, slash - start);
    if (part == "..") return reject("contains a '..' component (would leave DIR)");
    if (!part.empty() && part != ".") {
      if (!out.empty()) out += '/';
      out += part;
    }
    start = slash + 1;
  }
  if (out.empty()) return reject("names DIR itself, not a file");
  return out;
}

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
    if (starts_with(line, "SHA256 (")) {
      // BSD tag form: SHA256 (NAME) = HEX
      const std::size_t close = line.rfind(") = ");
      if (close == std::string_view::npos || close < 8) {
        bad("tagged line without \") = \"");
        continue;
      }
      name = line.substr(8, close - 8);
      hex = line.substr(close + 4);
    } else if (starts_with(line, "SHA") || starts_with(line, "MD5 (") ||
               starts_with(line, "BLAKE2")) {
      const std::size_t paren = line.find(" (");
      bad("tagged line for another algorithm (" +
          std::string(line.substr(0, std::min<std::size_t>(paren, 16))) + "), not SHA256");
      continue;
    } else {
      std::size_t n = 0;
      while (n < line.size() && std::isxdigit(static_cast<unsigned char>(line[n])) != 0) ++n;
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
    std::optional<Sha256Digest> digest = digest_from_hex(hex);
    if (!digest) {
      bad("the digest is not 64 hex digits");
      continue;
    }
    entry.digest = *digest;
    if (escaped) {
      std::string unescaped;
      bool ok = true;
      for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] != '\\') {
          unescaped += name[i];
          continue;
        }
        if (i + 1 >= name.size()) {
          ok = false;
          break;
        }
        const char c = name[++i];
        if (c == '\\') {
          unescaped += '\\';
        } else if (c == 'n') {
          unescaped += '\n';
        } else if (c == 'r') {
          unescaped += '\r';
        } else {
          ok = false;
          break;
        }
      }
      if (!ok) {
        bad("bad '\\' escape in the file name");
        continue;
      }
      entry.name = std::move(unescaped);
    } else {
      entry.name = std::string(name);
    }
    if (entry.name.empty()) {
      bad("empty file name");
      continue;
    }
    out.push_back(std::move(entry));
  }
  return out;
}

nlohmann::ordered_json report_to_json(const VerifyReport& report) {
  using Json = nlohmann::ordered_json;
  Json doc = Json::object();
  doc["dir"] = report.dir;
  doc["ok"] = report.ok();
  doc["exit_code"] = report.exit_code();
  doc["fatal"] = report.ran ? Json(nullptr) : Json(report.fatal);

  Json shards = Json::array();
  std::uint64_t accepted = 0;
  std::uint64_t rejected = 0;
  std::uint64_t skipped = 0;
  for (const ShardReport& s : report.shards) {
    Json j = Json::object();
    j["file"] = s.file;
    j["verdict"] = shard_verdict_name(s.verdict);
    j["kind"] = s.kind ? Json(finding_kind_name(*s.kind)) : Json(nullptr);
    j["reason"] = s.reason ? Json(reason_name(*s.reason)) : Json(nullptr);
    j["offset"] = optional_json(s.offset);
    j["message"] = s.message.empty() ? Json(nullptr) : Json(s.message);
    j["size"] = s.size;
    j["header_len"] = s.header_len;
    j["tensors"] = s.tensors;
    j["tensor_bytes"] = s.tensor_bytes;
    j["via_symlink"] = s.via_symlink;
    shards.push_back(std::move(j));
    accepted += s.verdict == ShardVerdict::kAccept ? 1 : 0;
    rejected += s.verdict == ShardVerdict::kReject ? 1 : 0;
    skipped += s.verdict == ShardVerdict::kSkipped ? 1 : 0;
  }
  doc["shards"] = std::move(shards);

  Json indexes = Json::array();
  for (const IndexReport& i : report.indexes) {
    Json j = Json::object();
    j["file"] = i.file;
    j["usable"] = i.usable;
    j["entries"] = i.entries;
    j["shards_named"] = i.shards_named;
    j["total_size"] = optional_json(i.total_size);
    j["computed_size"] = optional_json(i.computed_size);
    indexes.push_back(std::move(j));
  }
  doc["indexes"] = std::move(indexes);

  if (report.checksums) {
    const ChecksumReport& c = *report.checksums;
    Json j = Json::object();
    j["file"] = c.file;
    j["from_option"] = c.from_option;
    j["entries"] = c.entries;
    j["verified"] = c.verified;
    j["failed"] = c.failed;
    j["bytes_hashed"] = c.bytes_hashed;
    j["seconds"] = c.seconds;
    j["jobs"] = c.jobs;
    doc["checksums"] = std::move(j);
  } else {
    doc["checksums"] = nullptr;
  }

  Json findings = Json::array();
  std::map<std::string_view, std::uint64_t> by_kind;
  for (const Finding& f : report.findings) {
    Json j = Json::object();
    j["kind"] = finding_kind_name(f.kind);
    j["severity"] = severity_name(f.severity);
    j["category"] = category_name(f.category);
    j["file"] = f.file;
    if (!f.tensor.empty()) j["tensor"] = f.tensor;
    if (!f.shard.empty()) j["shard"] = f.shard;
    if (!f.other.empty()) j["other"] = f.other;
    if (f.reason) j["reason"] = reason_name(*f.reason);
    if (f.offset) j["offset"] = *f.offset;
    if (f.line) j["line"] = *f.line;
    if (f.expected_size) j["expected_size"] = *f.expected_size;
    if (f.actual_size) j["actual_size"] = *f.actual_size;
    if (!f.expected_sha256.empty()) j["expected_sha256"] = f.expected_sha256;
    if (!f.actual_sha256.empty()) j["actual_sha256"] = f.actual_sha256;
    j["message"] = f.message;
    findings.push_back(std::move(j));
    ++by_kind[finding_kind_name(f.kind)];
  }
  doc["findings"] = std::move(findings);

  Json summary = Json::object();
  summary["shards"] = report.shards.size();
  summary["shards_accepted"] = accepted;
  summary["shards_rejected"] = rejected;
  summary["shards_skipped"] = skipped;
  summary["tensors"] = report.tensors;
  summary["tensor_bytes"] = report.tensor_bytes;
  summary["errors"] = report.errors;
  summary["warnings"] = report.warnings;
  Json kinds = Json::object();
  for (const auto& [kind, n] : by_kind) kinds[std::string(kind)] = n;
  summary["by_kind"] = std::move(kinds);
  doc["summary"] = std::move(summary);
  return doc;
}

}  // namespace stguard::cli
