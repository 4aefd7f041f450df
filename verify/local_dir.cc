// verify/local_dir.cc: --local-dir downloads: metadata files read and
// checked, files hashed against their etags, leftovers reported.
#include "verify/local_dir.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "base/file_io.h"
#include "base/path.h"
#include "base/sandbox.h"
#include "verify/findings.h"
#include "verify/folder.h"
#include "verify/hub_content.h"

namespace stguard::verify {
namespace {

constexpr std::string_view kDownloadDir = ".cache/huggingface/download";
constexpr std::string_view kMetadataSuffix = ".metadata";
constexpr std::string_view kIncompleteSuffix = ".incomplete";
constexpr int kMaxDepth = 16;
// The Hub client trusts metadata whose timestamp is at most this much older
// than the file's mtime (huggingface_hub's read_download_metadata).
constexpr double kStaleSlackSeconds = 1.0;

struct Metadata {
  std::string commit;
  std::string etag;
  double timestamp = 0;
};

// The three lines; fails with what is wrong with them.
base::Result<Metadata> parse_metadata(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  while (start < text.size() && lines.size() < 4) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(std::move(line));
    start = end + 1;
  }
  if (lines.size() < 3) {
    return base::fail("has " + std::to_string(lines.size()) +
                      " line(s); expected 3 (commit hash, etag, timestamp)");
  }
  Metadata m;
  m.commit = lines[0];
  m.etag = lines[1];
  if (hub_algorithm(m.commit) != kGitBlobAlgorithm) {
    return base::fail("line 1 is not a commit hash (40 hex digits)");
  }
  if (m.etag.empty()) {
    return base::fail("line 2 (the etag) is empty");
  }
  const std::string& stamp = lines[2];
  const auto [end, ec] = std::from_chars(stamp.data(), stamp.data() + stamp.size(), m.timestamp);
  if (stamp.empty() || ec != std::errc() || end != stamp.data() + stamp.size() ||
      !(m.timestamp >= 0)) {
    return base::fail("line 3 is not a Unix timestamp");
  }
  return m;
}

struct Walk {
  const Listing& folder;
  std::vector<Finding>& findings;
  std::vector<ContentFile> files;
  std::set<std::string> described;  // files with usable metadata
};

void read_metadata(Walk& w, int dir_fd, const std::string& name, const std::string& rel) {
  const std::string where = std::string(kDownloadDir) + "/" + rel;
  const std::string path = rel.substr(0, rel.size() - kMetadataSuffix.size());
  const base::Opened o = base::open_beneath(dir_fd, name, {.follow_symlinks = false});
  const base::Result<std::string> read =
      o.fd ? base::read_fd(o.fd.get(), kMaxDownloadMetadataBytes)
           : base::Result<std::string>(base::fail(base::open_error_text(o.err)));
  const std::string err = read ? std::string() : read.error().message;
  const base::Result<Metadata> m =
      err.empty() ? parse_metadata(*read) : base::Result<Metadata>(base::fail(err));
  const base::Result<std::string> safe = base::safe_relative_name(path);
  const std::string why = !safe ? safe.error().message : m ? std::string() : m.error().message;
  if (!err.empty() || !m || !safe) {
    Finding f = make_finding(FindingKind::kHubMetadataInvalid, Category::kHub, where,
                             (err.empty() ? why : "cannot be read: " + err) + "; " +
                                 in_quotes(path) + " not verified from it",
                             Severity::kWarning);
    f.other = path;
    w.findings.push_back(std::move(f));
    return;
  }
  ContentFile c;
  c.file = *safe;
  c.expected = m->etag;
  c.algorithm = hub_algorithm(m->etag);
  c.used_by.push_back(where);
  // Opened as the other passes open it, once (open_listed): the file
  // examined here is the one hashed and scanned.
  const HeldFile file = open_listed(w.folder, *safe, /*follow_symlinks=*/false);
  struct stat st {};
  if (!file || ::fstat(file.fd, &st) != 0) {
    c.verdict = ContentVerdict::kMissing;
    Finding f = make_finding(
        FindingKind::kHubFileMissing, Category::kHub, *safe,
        "described by " + where + " but " +
            (file ? std::string("cannot be examined") : base::open_error_text(file.err)));
    f.other = where;
    w.findings.push_back(std::move(f));
  } else {
    c.size = static_cast<std::uint64_t>(st.st_size);
    const double mtime =
        static_cast<double>(st.st_mtim.tv_sec) + static_cast<double>(st.st_mtim.tv_nsec) * 1e-9;
    if (m->timestamp < mtime - kStaleSlackSeconds) {
      Finding f = make_finding(FindingKind::kHubMetadataStale, Category::kHub, *safe,
                               "was modified after its download metadata " + where +
                                   " was written (edited or copied over since the download?)",
                               Severity::kWarning);
      f.other = where;
      w.findings.push_back(std::move(f));
    }
  }
  w.described.insert(*safe);
  w.files.push_back(std::move(c));
}

// What an entry named like a metadata file but not a regular one is.
std::string not_a_file(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISLNK(mode)) return "a symlink (not followed)";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

bool is_metadata_name(std::string_view name) {
  return name.ends_with(kMetadataSuffix) && name.size() > kMetadataSuffix.size();
}

// .cache/huggingface/download/<rel>, named like the metadata of a file but
// not a regular file: never opened (a FIFO would block a reader), and said,
// so that the file it should describe is not silently taken as covered. A
// directory so named is also a folder of the repository when the file it
// would describe is a folder too (or absent): then nothing is said.
void report_unusable_metadata(Walk& w, const std::string& rel, mode_t mode) {
  const std::string path = rel.substr(0, rel.size() - kMetadataSuffix.size());
  if (S_ISDIR(mode)) {
    const HeldFile described = open_listed(w.folder, path, /*follow_symlinks=*/false);
    struct stat st {};
    if (!described || ::fstat(described.fd, &st) != 0 || S_ISDIR(st.st_mode)) return;
  }
  Finding f = make_finding(FindingKind::kHubMetadataInvalid, Category::kHub,
                           std::string(kDownloadDir) + "/" + rel,
                           "is " + not_a_file(mode) + ", not a metadata file; " + in_quotes(path) +
                               " not verified from it",
                           Severity::kWarning);
  f.other = path;
  w.findings.push_back(std::move(f));
}

void walk(Walk& w, int dir_fd, const std::string& prefix, int depth) {
  for (const std::string& name : sorted_names(dir_fd)) {
    const std::string rel = prefix + name;
    struct stat st {};
    if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode) && is_metadata_name(name))
      report_unusable_metadata(w, rel, st.st_mode);
    if (S_ISDIR(st.st_mode)) {
      if (depth >= kMaxDepth) continue;
      const base::Opened sub =
          base::open_beneath(dir_fd, name, {.follow_symlinks = false, .directory = true});
      if (sub.fd) walk(w, sub.fd.get(), rel + "/", depth + 1);
    } else if (name.ends_with(kIncompleteSuffix) && name.size() > kIncompleteSuffix.size()) {
      w.findings.push_back(interrupted_download(FindingKind::kHubDownloadIncomplete,
                                                std::string(kDownloadDir) + "/" + rel,
                                                static_cast<std::uint64_t>(st.st_size)));
    } else if (S_ISREG(st.st_mode) && is_metadata_name(name)) {
      read_metadata(w, dir_fd, name, rel);
    }
  }
}

}  // namespace

LocalDirCheck check_local_dir(const PassContext& context, const ValueScans& values,
                              std::vector<Finding>& findings) {
  LocalDirCheck out;
  const Listing& folder = context.folder;
  const base::Opened download = base::open_beneath(folder.dir.get(), std::string(kDownloadDir),
                                                   {.follow_symlinks = false, .directory = true});
  // A SHA256SUMS (or --sha256 list) covers what the metadata does not.
  const bool has_checksum_list =
      context.options.sha256_file || folder.by_name.count(std::string(kChecksumName)) != 0;
  // Every shard no usable metadata describes, even when none does (the
  // download folder missing, a symlink, empty, or its metadata all absent,
  // directories, FIFOs or symlinks): its content is not verified.
  const auto report_unverified = [&](const std::set<std::string>& described) {
    if (has_checksum_list) return;
    for (const Entry& e : folder.entries) {
      if (e.role != Role::kShard || described.count(e.name) != 0) continue;
      findings.push_back(
          make_finding(FindingKind::kHubFileUnverified, Category::kHub, e.name,
                       "has no download metadata and no SHA256SUMS lists it; content not verified",
                       Severity::kWarning));
    }
  };
  // A --local-dir folder in which nothing can be checked is not one that
  // checks out: the summary's "0 of 0 files match" must not read as a pass.
  const auto report_nothing_verified = [&](const std::string& why) {
    if (has_checksum_list) return;
    findings.push_back(
        make_finding(FindingKind::kHubNothingVerified, Category::kHub, std::string(kDownloadDir),
                     why + ", and no SHA256SUMS: no file's content was verified against anything"));
  };
  if (!download.fd) {
    report_unverified({});
    report_nothing_verified(base::open_error_text(download.err) +
                            " (the download metadata of `hf download --local-dir`)");
    return out;
  }
  // folder_findings calls the top-level .incomplete files stray; here they
  // get their own, more precise finding.
  const std::string download_prefix = std::string(kDownloadDir) + "/";
  std::erase_if(findings, [&](const Finding& f) {
    return f.kind == FindingKind::kStrayFile && f.file.starts_with(download_prefix);
  });
  Walk w{folder, findings, {}, {}};
  walk(w, download.fd.get(), "", 0);

  hash_contents(
      w.files,
      [&folder](const ContentFile& f) {
        return open_listed(folder, f.file, /*follow_symlinks=*/false);
      },
      context.options, &out.hub, [&values](const ContentFile& f) { return values.claim(f.file); });
  for (const ContentFile& f : w.files) {
    if (std::optional<Finding> finding = content_finding(f, kLocalDirChecksumName)) {
      findings.push_back(std::move(*finding));
    }
    if (f.algorithm == kSha256Algorithm) out.etag_sha256[f.file] = f.expected;
    if (std::optional<FileRead> read = sha256_read_of(f)) out.reads[f.file] = *read;
  }
  report_unverified(w.described);
  if (w.files.empty()) report_nothing_verified("holds no usable download metadata");
  out.hub.files = std::move(w.files);
  return out;
}

}  // namespace stguard::verify
