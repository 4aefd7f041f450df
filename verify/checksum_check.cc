// verify/checksum_check.cc: SHA256SUMS (or --sha256 FILE) read and held
// against DIR: malformed, unsafe and duplicate lines, files listed but
// missing, shards not listed, and every listed file hashed on a pool of
// threads, largest first; then, for a layout, the list against its own
// sha256 checksums.
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/file_io.h"
#include "base/hex.h"
#include "base/path.h"
#include "base/sandbox.h"
#include "base/sha256.h"
#include "verify/checksums.h"
#include "verify/file_read.h"
#include "verify/findings.h"
#include "verify/passes.h"

namespace stguard::verify {
namespace {

struct HashJob {
  std::size_t entry = 0;  // index into the checksum lines
  std::string name;       // normalised relative name
  std::uint64_t size = 0;
};

using HashResult = FileRead;

// Hashes the files, each shard being value-scanned in the same read (when
// asked).
std::vector<HashResult> hash_all(const ReadContext& reads, const std::vector<HashJob>& jobs,
                                 ChecksumReport* cr) {
  std::vector<ReadJob> files;
  files.reserve(jobs.size());
  for (const HashJob& job : jobs) files.push_back(ReadJob{job.name, job.size});
  ReadStats stats;
  std::vector<HashResult> results = read_all(reads, files, /*hash=*/true, &stats);
  cr->jobs = stats.jobs;
  cr->seconds = stats.seconds;
  cr->bytes_hashed = stats.bytes;
  return results;
}

// True for an open that the link policy refused (base::open_beneath): a
// symlink not followed (ELOOP), or one leaving DIR or looping while followed
// (EXDEV, ELOOP). That is a fact about the folder, not a failure to read.
bool refused_by_link_policy(int err) { return err == ELOOP || err == EXDEV; }

// The finding for a listed name whose open the link policy refused: a
// symlink finding (exit status 1), not checksum_unreadable (exit status 2);
// none when the folder or shard pass already reported the link as an error.
void report_refused_link(const PassContext& context, const std::string& source,
                         const ChecksumLine& line, const std::string& name, int err,
                         std::vector<Finding>& findings) {
  const auto is_link_finding = [](FindingKind kind) {
    return kind == FindingKind::kSymlink || kind == FindingKind::kSymlinkEscapes ||
           kind == FindingKind::kSymlinkLoop;
  };
  for (const Finding& f : findings) {
    if (f.file == name && is_link_finding(f.kind) && f.severity == Severity::kError) return;
  }
  const bool follow = context.options.follow_symlinks;
  const bool loop = follow && err == ELOOP;
  const FindingKind kind = !follow ? FindingKind::kSymlink
                           : loop  ? FindingKind::kSymlinkLoop
                                   : FindingKind::kSymlinkEscapes;
  const std::string why = loop
                              ? "is a symlink that loops (or too many links in a row); not followed"
                              : base::open_error_text(err);
  Finding f = make_finding(kind, Category::kFolder, name,
                           "listed on line " + std::to_string(line.line) + " of " + source +
                               ", but " + why + ": its content is not verified");
  f.line = line.line;
  if (const auto it = context.folder.by_name.find(name); it != context.folder.by_name.end()) {
    f.other = context.folder.entries[it->second].link_target;
  }
  findings.push_back(std::move(f));
}

// Checks each line's name and opens what it names: the files to hash. Adds
// *listed with the (normalised) names listed.
std::vector<HashJob> plan_hashing(const PassContext& context, const std::string& source,
                                  const std::vector<ChecksumLine>& lines, ChecksumReport& cr,
                                  std::set<std::string>* listed_names,
                                  std::vector<Finding>& findings) {
  std::vector<HashJob> jobs;
  std::map<std::string, std::pair<std::uint64_t, base::Sha256Digest>> listed;  // first line
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const ChecksumLine& line = lines[i];
    const base::Result<std::string> name = base::safe_relative_name(line.name);
    if (!name) {
      Finding f = make_finding(FindingKind::kUnsafePath, Category::kChecksum, source,
                               "line " + std::to_string(line.line) + ": " + in_quotes(line.name) +
                                   ": " + name.error().message + "; not opened");
      f.line = line.line;
      f.other = line.name;
      findings.push_back(std::move(f));
      ++cr.failed;
      continue;
    }
    const auto [it, inserted] = listed.emplace(*name, std::make_pair(line.line, line.digest));
    if (!inserted) {
      const bool same = it->second.second == line.digest;
      Finding f =
          make_finding(FindingKind::kChecksumDuplicate, Category::kChecksum, source,
                       "line " + std::to_string(line.line) + ": " + in_quotes(*name) +
                           " is already listed on line " + std::to_string(it->second.first) +
                           (same ? " (same digest)" : " with a different digest"),
                       same ? Severity::kWarning : Severity::kError);
      f.line = line.line;
      f.other = *name;
      findings.push_back(std::move(f));
      continue;
    }
    if (!cr.from_option && *name == kChecksumName) {
      Finding f = make_finding(FindingKind::kChecksumDuplicate, Category::kChecksum, source,
                               "line " + std::to_string(line.line) +
                                   ": the list names itself, which no list can do correctly "
                                   "(written with `sha256sum * > SHA256SUMS`?); entry ignored",
                               Severity::kWarning);
      f.line = line.line;
      f.other = *name;
      findings.push_back(std::move(f));
      continue;
    }
    const HeldFile o = open_listed(context.folder, *name, context.options.follow_symlinks);
    if (!o && refused_by_link_policy(o.err)) {
      report_refused_link(context, source, line, *name, o.err, findings);
      ++cr.failed;
      continue;
    }
    if (!o) {
      const bool missing = o.err == ENOENT;
      Finding f = make_finding(
          missing ? FindingKind::kChecksumFileMissing : FindingKind::kChecksumUnreadable,
          Category::kChecksum, *name,
          std::string(missing ? "listed" : "listed, but") + " on line " +
              std::to_string(line.line) + " of " + source + ", " +
              (missing ? "but not in DIR" : base::open_error_text(o.err)));
      f.line = line.line;
      findings.push_back(std::move(f));
      ++cr.failed;
      continue;
    }
    struct stat st {};
    if (::fstat(o.fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      Finding f = make_finding(FindingKind::kChecksumUnreadable, Category::kChecksum, *name,
                               "listed on line " + std::to_string(line.line) + " of " + source +
                                   ", but not a regular file");
      f.line = line.line;
      findings.push_back(std::move(f));
      ++cr.failed;
      continue;
    }
    jobs.push_back(HashJob{i, *name, static_cast<std::uint64_t>(st.st_size)});
  }
  for (const auto& item : listed) listed_names->insert(item.first);
  return jobs;
}

// The findings for one hashed file; true when its digest matched. A file
// that changed is neither a match nor a mismatch, whatever its digest was:
// it is file_changed (once, when the Hub's hashing already said so).
bool judge_hash(const ReadContext& reads, const std::string& source, const HashJob& job,
                const ChecksumLine& line, const HashResult& result,
                std::vector<Finding>& findings) {
  if (changed_while_verified(reads, job.name, result)) {
    const bool reported = std::any_of(findings.begin(), findings.end(), [&](const Finding& f) {
      return f.kind == FindingKind::kFileChanged && f.file == job.name;
    });
    if (!reported) {
      findings.push_back(make_finding(FindingKind::kFileChanged, Category::kFolder, job.name,
                                      changed_message(result)));
    }
    return false;
  }
  if (!result.ok()) {
    Finding f = make_finding(FindingKind::kChecksumUnreadable, Category::kChecksum, job.name,
                             "could not be hashed: " + result.error_text());
    f.line = line.line;
    findings.push_back(std::move(f));
    return false;
  }
  if (result.outcome.digest != line.digest) {
    Finding f = make_finding(FindingKind::kChecksumMismatch, Category::kChecksum, job.name,
                             "SHA-256 mismatch: " + source + " line " + std::to_string(line.line) +
                                 " expects " + base::to_hex(line.digest) + ", the file has " +
                                 base::to_hex(result.outcome.digest));
    f.line = line.line;
    f.expected_sha256 = base::to_hex(line.digest);
    f.actual_sha256 = base::to_hex(result.outcome.digest);
    f.actual_size = result.outcome.bytes;
    findings.push_back(std::move(f));
    return false;
  }
  return true;
}

}  // namespace

std::optional<ChecksumList> read_checksum_list(const PassContext& context,
                                               std::string option_text) {
  const VerifyOptions& options = context.options;
  if (options.sha256_file) {  // read before anything else
    ChecksumList list;
    list.file = *options.sha256_file;
    list.from_option = true;
    list.text = std::move(option_text);
    return list;
  }
  const auto it = context.folder.by_name.find(std::string(kChecksumName));
  if (it == context.folder.by_name.end()) return std::nullopt;
  const Entry& e = context.folder.entries[it->second];
  ChecksumList list;
  list.file = e.name;
  // A symlink not followed: the folder pass's finding says why nothing was checked.
  if (e.type == EntryType::kSymlink && !options.follow_symlinks) return list;
  const HeldFile o = open_listed(context.folder, e.name, options.follow_symlinks);
  if (!o && e.type == EntryType::kSymlink && refused_by_link_policy(o.err)) {
    // A link refused: about the folder, not unreadable.
    list.finding = unfollowable_symlink_finding(e, o.err);
    return list;
  }
  base::Result<std::string> text =
      o ? base::read_fd(o.fd, options.max_checksum_file_bytes)
        : base::Result<std::string>(base::fail(base::open_error_text(o.err)));
  if (!text) {
    list.finding = make_finding(FindingKind::kChecksumUnreadable, Category::kChecksum, e.name,
                                "cannot read the checksum list: " + text.error().message);
    return list;
  }
  list.text = std::move(*text);
  return list;
}

std::optional<ChecksumReport> check_checksums(const ReadContext& reads,
                                              const std::vector<ShardReport>& shards,
                                              const std::optional<ChecksumList>& list,
                                              std::vector<Finding>& findings) {
  if (!list) return std::nullopt;
  ChecksumReport cr;
  cr.file = list->file;
  // A list that is there but could not be used: its finding, if any, says why.
  if (!list->text) return cr;
  cr.from_option = list->from_option;
  const std::string& source = list->file;
  const PassContext context{reads.options, reads.folder};

  std::vector<std::pair<std::uint64_t, std::string>> malformed;
  const std::vector<ChecksumLine> lines = parse_checksum_file(*list->text, &malformed);
  for (auto& [line, why] : malformed) {
    Finding f = make_finding(FindingKind::kChecksumMalformed, Category::kChecksum, source,
                             "line " + std::to_string(line) + ": " + why);
    f.line = line;
    findings.push_back(std::move(f));
  }
  cr.entries = lines.size();

  std::set<std::string> listed;
  const std::vector<HashJob> jobs = plan_hashing(context, source, lines, cr, &listed, findings);
  // Shards the list does not cover: their content is unverified.
  for (const ShardReport& shard : shards) {
    // A directory or FIFO named like a shard has its own finding.
    if (listed.count(shard.file) != 0 || shard.kind == FindingKind::kNotRegularFile) continue;
    findings.push_back(
        make_finding(FindingKind::kChecksumUnlisted, Category::kChecksum, shard.file,
                     "is not listed in " + source + ": its content cannot be verified"));
  }

  const std::vector<HashResult> results = hash_all(reads, jobs, &cr);
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (judge_hash(reads, source, jobs[j], lines[jobs[j].entry], results[j], findings)) {
      ++cr.verified;
    } else {
      ++cr.failed;
    }
  }
  return cr;
}

std::vector<Finding> compare_checksum_sources(
    const std::string& checksum_text, const std::optional<ChecksumReport>& checksums,
    const std::map<std::string, std::string>& layout_sha256, std::string_view layout_source) {
  std::vector<Finding> findings;
  if (checksum_text.empty() || layout_sha256.empty()) return findings;
  const std::string list = checksums ? checksums->file : std::string(kChecksumName);
  for (const ChecksumLine& line : parse_checksum_file(checksum_text, nullptr)) {
    const base::Result<std::string> name = base::safe_relative_name(line.name);
    if (!name) continue;  // check_checksums reported it
    const auto it = layout_sha256.find(*name);
    if (it == layout_sha256.end()) continue;
    const std::string listed = base::to_hex(line.digest);
    // Hub checksums are written in lower case; a hand-made etag may not be.
    std::string layout = it->second;
    for (char& c : layout) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    if (listed == layout) continue;
    Finding f = make_finding(FindingKind::kChecksumSourcesDisagree, Category::kHub, *name,
                             list + " line " + std::to_string(line.line) + " says sha256 " +
                                 listed + ", its " + std::string(layout_source) + " says sha256 " +
                                 layout + "; at most one of them describes the file");
    f.line = line.line;
    f.expected_sha256 = listed;
    f.actual_sha256 = layout;
    findings.push_back(std::move(f));
  }
  return findings;
}

}  // namespace stguard::verify
