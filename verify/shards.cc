// verify/shards.cc: one shard: the head read, the parser's verdict, and what
// a rejected file really is.
#include "verify/shards.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <nlohmann/json.hpp>
#include <span>
#include <utility>

#include "base/file_io.h"
#include "base/sandbox.h"
#include "base/sniff.h"
#include "stguard/header.h"
#include "verify/findings.h"

namespace stguard::verify {
namespace {

Error read_failure(int err) {
  return Error{Reason::kIoError, 0,
               "read failed: " + (err != 0 ? base::errno_text(err) : std::string("file shrank"))};
}

// Where a shard's bytes come from: its descriptor, or, for a remote shard,
// the first bytes fetched (verify_fetched), which hold all that is read of
// it here (its length prefix, header and the sniff's first bytes).
struct ShardBytes {
  int fd = -1;
  std::span<const std::uint8_t> fetched;

  // base::read_at's contract: the bytes read, fewer at the end (a short
  // count with *err 0 for fetched bytes that end there).
  std::size_t read_at(void* out, std::size_t len, std::uint64_t offset, int* err) const {
    if (fd >= 0) return base::read_at(fd, out, len, offset, err);
    *err = 0;
    if (offset >= fetched.size()) return 0;
    const std::size_t n =
        std::min<std::size_t>(len, fetched.size() - static_cast<std::size_t>(offset));
    std::memcpy(out, fetched.data() + offset, n);
    return n;
  }
};

// The parser's verdict on the shard (`size` bytes by fstat or the server),
// from its first 8 + N bytes. A read that fails or comes up short is
// Reason::kIoError ("read failed: ..."): the shard is then unreadable, not
// rejected. The one place a shard's head is read, so that a parse_fd(fd,
// options) from the parser takes its place in one line.
Result<Header> parse_shard_head(const ShardBytes& bytes, std::uint64_t size,
                                const ParseOptions& options) {
  std::uint8_t prefix[8] = {};
  int err = 0;
  const std::size_t prefix_len = static_cast<std::size_t>(std::min<std::uint64_t>(size, 8));
  if (bytes.read_at(prefix, prefix_len, 0, &err) != prefix_len) return read_failure(err);
  Result<std::uint64_t> n =
      parse_header_length(std::span(prefix, prefix_len), size, options.limits);
  if (!n) return std::move(n).error();
  // parse_header_length guarantees 8 + N <= size and N within the limits.
  std::vector<std::uint8_t> head(static_cast<std::size_t>(8 + *n));
  if (bytes.read_at(head.data(), head.size(), 0, &err) != head.size()) {
    return read_failure(err);
  }
  return parse_header(head, size, options);
}

// The 8-byte little-endian length prefix at the start of `head` (short: the
// bytes there are).
std::uint64_t length_prefix(std::string_view head) {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < 8 && i < head.size(); ++i) {
    n |= static_cast<std::uint64_t>(static_cast<unsigned char>(head[i])) << (8 * i);
  }
  return n;
}

// For a shard whose tensors run past its end: the size its header describes
// (data start + the largest end offset). An independent, forgiving read of
// the header JSON, only to make the message concrete; the verdict itself is
// the parser's. nullopt when the header cannot be read again.
std::optional<std::uint64_t> declared_file_size(const ShardBytes& bytes, std::uint64_t header_len) {
  std::string header(static_cast<std::size_t>(header_len), '\0');
  int err = 0;
  if (bytes.read_at(header.data(), header.size(), 8, &err) != header.size()) {
    return std::nullopt;
  }
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
  if (__builtin_add_overflow(8 + header_len, max_end, &total)) return std::nullopt;
  return total;
}

FindingKind kind_of(base::ContentKind content) {
  switch (content) {
    case base::ContentKind::kEmpty:
      return FindingKind::kShardEmpty;
    case base::ContentKind::kGitLfsPointer:
      return FindingKind::kShardLfsPointer;
    case base::ContentKind::kHtmlPage:
    case base::ContentKind::kXmlDocument:
      return FindingKind::kShardHtml;
    case base::ContentKind::kZeros:
      // Download tools that preallocate (aria2, some browsers) leave
      // full-size files of zeros when interrupted before writing them.
      return FindingKind::kShardTruncated;
    case base::ContentKind::kJsonText:
    case base::ContentKind::kText:
    case base::ContentKind::kZipArchive:
    case base::ContentKind::kPickle:
    case base::ContentKind::kGzip:
    case base::ContentKind::kGguf:
    case base::ContentKind::kNumpy:
    case base::ContentKind::kHdf5:
      return FindingKind::kShardNotSafetensors;
  }
  return FindingKind::kShardNotSafetensors;
}

// Why the parser rejected the shard, as the finding shows it.
Finding explain_rejection(const ShardBytes& bytes, const std::string& file, std::uint64_t size,
                          const Error& error) {
  std::string head(static_cast<std::size_t>(std::min<std::uint64_t>(size, base::kSniffBytes)),
                   '\0');
  int err = 0;
  head.resize(bytes.read_at(head.data(), head.size(), 0, &err));
  const bool absurd_length =
      error.reason == Reason::kHeaderTooLarge || error.reason == Reason::kHeaderLengthExceedsFile;

  FindingKind kind = FindingKind::kShardInvalid;
  std::string message;
  std::optional<std::uint64_t> expected_size;
  if (std::optional<base::Sniffed> sniffed = base::sniff_content(head, size, absurd_length)) {
    kind = kind_of(sniffed->kind);
    message = std::move(sniffed->description);
    expected_size = sniffed->real_size;  // a Git LFS pointer's record of the real file
  } else if (error.reason == Reason::kHeaderTooSmall) {
    kind = FindingKind::kShardTruncated;
    message = "truncated: only " + std::to_string(size) +
              " bytes, shorter than the 8-byte header length (interrupted download?)";
  } else if (error.reason == Reason::kHeaderLengthExceedsFile) {
    kind = FindingKind::kShardTruncated;
    message = "truncated inside the header (interrupted download?): the header is " +
              std::to_string(length_prefix(head)) + " bytes, the file only " + std::to_string(size);
  } else if (error.reason == Reason::kOffsetOutOfBounds) {
    kind = FindingKind::kShardTruncated;
    message = "truncated (interrupted download?): the tensor data is cut short";
    // The parser accepted the length prefix to get this far.
    expected_size = declared_file_size(bytes, length_prefix(head));
    if (expected_size && *expected_size > size) {
      message += ": the header describes " + std::to_string(*expected_size) +
                 " bytes, the file has " + std::to_string(size) + " (" +
                 std::to_string(*expected_size - size) + " missing)";
    }
  } else {
    message = error.message.empty() ? std::string(reason_name(error.reason)) : error.message;
    if (error.reason == Reason::kTrailingData) {
      message +=
          " (the file is longer than its header describes: appended to, or a resumed "
          "download of a different version?)";
    }
  }
  if (kind != FindingKind::kShardInvalid) message += "; parser: " + error.message;
  Finding f = make_finding(kind, Category::kShard, file, std::move(message));
  f.reason = error.reason;
  f.offset = error.offset;
  if (expected_size) {
    f.expected_size = expected_size;
    f.actual_size = size;
  }
  return f;
}

ShardCheck skipped(ShardCheck c, FindingKind kind, std::string message, bool with_finding) {
  c.report.verdict = ShardVerdict::kSkipped;
  c.report.kind = kind;
  c.report.message = message;
  if (with_finding) {
    c.finding = make_finding(kind, Category::kShard, c.report.file, std::move(message));
  }
  return c;
}

// The strict parser's verdict on the shard whose size is in c.report, its
// bytes read from `bytes`, and what explains a reject.
ShardCheck judge_shard(ShardCheck c, const ShardBytes& bytes, bool keep_layout) {
  ShardReport& r = c.report;
  Result<Header> header = parse_shard_head(bytes, r.size, ParseOptions{});
  if (!header && header.error().reason == Reason::kIoError) {
    return skipped(std::move(c), FindingKind::kShardUnreadable, header.error().message, true);
  }
  if (!header) {
    Finding f = explain_rejection(bytes, r.file, r.size, header.error());
    r.verdict = ShardVerdict::kReject;
    r.kind = f.kind;
    r.reason = f.reason;
    r.offset = f.offset;
    r.message = f.message;
    c.finding = std::move(f);
    return c;
  }
  r.verdict = ShardVerdict::kAccept;
  r.header_len = header->header_len;
  r.tensors = header->tensors.size();
  for (const TensorInfo& t : header->tensors) {
    r.tensor_bytes += t.byte_size();  // sums of a validated layout cannot overflow
    c.tensors.emplace_back(t.name);
  }
  if (keep_layout) c.layout = std::move(*header);
  return c;
}

}  // namespace

ShardCheck check_shard(const Listing& folder, const Entry& entry, bool follow_symlinks,
                       bool keep_layout) {
  ShardCheck c;
  ShardReport& r = c.report;
  r.file = entry.name;
  r.via_symlink = entry.type == EntryType::kSymlink;
  if (folder.fetched != nullptr) {
    const auto it = folder.fetched->find(entry.name);
    if (it == folder.fetched->end() || !it->second->error.empty()) {
      return skipped(std::move(c), FindingKind::kShardUnreadable,
                     it == folder.fetched->end() ? std::string("not fetched")
                                                 : "cannot fetch: " + it->second->error,
                     true);
    }
    r.size = it->second->size;
    return judge_shard(std::move(c), ShardBytes{-1, it->second->bytes}, keep_layout);
  }
  if (entry.type == EntryType::kDirectory || entry.type == EntryType::kOther) {
    return skipped(std::move(c), FindingKind::kNotRegularFile,
                   entry.type == EntryType::kDirectory
                       ? "is a directory, not a shard file"
                       : "is not a regular file (device, FIFO, socket?)",
                   true);
  }
  if (entry.type == EntryType::kSymlink && !follow_symlinks) {
    // folder_findings already reported the link.
    return skipped(std::move(c), FindingKind::kSymlink, "symlink not followed", false);
  }
  const HeldFile o = open_listed(folder, entry.name, follow_symlinks);
  if (!o) {
    if (entry.type == EntryType::kSymlink && (o.err == EXDEV || o.err == ELOOP)) {
      c.finding = unfollowable_symlink_finding(entry, o.err);
      const FindingKind kind = c.finding->kind;
      return skipped(std::move(c), kind,
                     kind == FindingKind::kSymlinkLoop ? "symlink loop; not followed"
                                                       : "symlink resolves outside DIR",
                     false);
    }
    return skipped(std::move(c), FindingKind::kShardUnreadable,
                   "cannot open: " + base::open_error_text(o.err), true);
  }
  if (o.replaced) {
    // A blob another snapshot's check read first, replaced since (open_files.h).
    c.finding = make_finding(FindingKind::kFileChanged, Category::kFolder, r.file,
                             "changed while being verified (still being written or copied?): "
                             "check again once the transfer has finished");
    return skipped(std::move(c), FindingKind::kFileChanged, "changed while being verified", false);
  }
  struct stat st {};
  if (::fstat(o.fd, &st) != 0) {
    return skipped(std::move(c), FindingKind::kShardUnreadable,
                   "fstat failed: " + base::errno_text(errno), true);
  }
  if (!S_ISREG(st.st_mode)) {
    return skipped(std::move(c), FindingKind::kNotRegularFile,
                   "resolves to something that is not a file", true);
  }
  r.size = static_cast<std::uint64_t>(st.st_size);
  c.stamp = stamp_of(st);
  return judge_shard(std::move(c), ShardBytes{o.fd, {}}, keep_layout);
}

}  // namespace stguard::verify
