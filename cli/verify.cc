// cli/verify.cc: `stguard verify DIR`, is a copied or downloaded model folder
// whole? Options, the call to the verify library, the two report formats.
#include "verify/verify.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "base/decimal.h"
#include "base/failure.h"
#include "base/json.h"
#include "base/text.h"
#include "command.h"
#include "remote/hub.h"
#include "sarif.h"
#include "verify_remote.h"

namespace stguard::cli {
namespace {

using base::HashIo;
using verify::Category;
using verify::CheckpointReport;
using verify::ChecksumReport;
using verify::Finding;
using verify::finding_kind_name;
using verify::IndexReport;
using verify::report_to_json;
using verify::Severity;
using verify::severity_name;
using verify::ShardReport;
using verify::ShardVerdict;
using verify::verify_model_folder;
using verify::VerifyOptions;
using verify::VerifyReport;

constexpr std::string_view kVerifyUsage =
    "stguard verify [--json] [--sarif FILE] [--quiet] [-r] [--strict] [--follow-symlinks]\n"
    "               [--sha256 FILE] [--scan-values] [-j N] [--layout auto|folder|hub|local-dir] "
    "DIR\n"
    "       stguard verify [--json] [--sarif FILE] [--quiet] [-r] [--strict] [-j N] "
    "URL|hf://ORG/NAME[@REV][/PATH]";

constexpr std::string_view kVerifyIntro =
    R"(Checks that a model folder is whole before anything else is blamed, one
checkpoint at a time: each index (*.safetensors.index*.json, variants such as
model.safetensors.index.fp16.json included) with the shards it names is one
checkpoint; a *.safetensors file no index names is one of its own
(consolidated.safetensors, model.fp16.safetensors, adapter_model.safetensors).
  - every *.safetensors shard's structure (strict profile, header bytes only);
    truncated shards, HTML error pages, Git LFS pointers, zero-byte files and
    other formats saved under a shard's name each get their own message
  - each index against the tensors actually present in its shards: missing,
    extra, wrong-shard and duplicated tensors, shards named but absent, shards
    named like its own (X-0000N-of-0000M) that it does not name; duplicate
    JSON keys are rejected. A set of X-0000N-of-0000M shards with no index is
    an error; a tensor in two shards is one only within one checkpoint.
    metadata.total_size differing from the tensors' bytes is a warning (no
    loader reads it), an error with --strict.
  - SHA256SUMS (sha256sum format) when present, or --sha256 FILE: listed but
    missing, mismatched, and shards not listed
  - symlinks, and leftovers of interrupted downloads (.part, .incomplete, ...)
  - with --scan-values, the values: NaN and Inf in floating-point tensors
    (errors) and tensors that are all zeros (warnings), in the same read as
    hashing
  - where models live: a Hugging Face cache repository (models--ORG--NAME), a
    snapshot in one, or the cache root (every repository, one line each):
    each blob's content against its name (sha256 for Git LFS files, git blob
    hash for small ones), dangling snapshot links, blobs/*.incomplete, unused
    blobs, refs; then the checks above on each snapshot. A `--local-dir`
    download: each file against the etag in .cache/huggingface/download.
Nothing in DIR is ever created, changed, moved or deleted. Names from the
index or the checksum list that could leave DIR (absolute, "..", backslash,
NUL) are reported and never opened.
A remote repository is verified without downloading it: hf://ORG/NAME[@REV]
(every shard and index the Hub lists; HF_ENDPOINT, HF_TOKEN as for check),
or the URL (or hf:// path) of an index, with the shards it names beside it,
or of one .safetensors file. Shard headers are fetched with Range requests
(-j at a time, default 8) and indexes whole; the checks above that read
headers and indexes run as for a folder, sizes are held against the Hub's
listing (shard_size_mismatch); checksums and values, which need the data,
are not checked.
)";

constexpr std::string_view kVerifyOutro =
    R"(Output: findings about the folder as a whole, then per checkpoint a line
`checkpoint NAME: ...: ok|FAILED` followed by its findings, indented, each
`FILE: error|warning KIND: MESSAGE`; then a summary line. A progress bar is
drawn on stderr while hashing when stderr is a terminal (not with --quiet).

Exit status: 0 the folder checks out, 1 problems found (any error finding),
2 could not run (DIR missing, not a directory, unreadable; --sha256 FILE
unreadable; usage error) or some file in DIR could not be read (a finding
shard_unreadable, index_unreadable, checksum_unreadable, folder_unreadable or
hub_content_unreadable). For the cache root, the worst of its repositories.
)";

struct VerifyArgs {
  VerifyOptions options;
  bool json = false;
  std::optional<std::string> sarif;
  bool quiet = false;
  std::optional<std::string> jobs;
  std::optional<std::string> hash_io;
  std::optional<std::string> layout;
  std::vector<std::string> dirs;
};

// The options' values, checked into args.options; fails with the first bad one.
base::Result<void> finish_args(VerifyArgs& args) {
  if (args.options.sha256_file && args.options.sha256_file->empty()) {
    return base::fail("--sha256 needs a file name");
  }
  if (args.jobs) {
    const std::optional<std::uint64_t> n = base::parse_u64(*args.jobs);
    if (!n || *n == 0 || *n > 1024) {
      return base::fail("-j needs a number of threads from 1 to 1024, got '" + *args.jobs + "'");
    }
    args.options.jobs = static_cast<unsigned>(*n);
  }
  if (args.hash_io) {
    if (*args.hash_io == "read") {
      args.options.hash.io = HashIo::kRead;
    } else if (*args.hash_io == "mmap") {
      args.options.hash.io = HashIo::kMmap;
    } else {
      return base::fail("--hash-io is read or mmap, got '" + *args.hash_io + "'");
    }
  }
  if (args.layout) {
    if (*args.layout == "auto") {
      args.options.layout = verify::Layout::kAuto;
    } else if (*args.layout == "folder") {
      args.options.layout = verify::Layout::kFolder;
    } else if (*args.layout == "local-dir") {
      args.options.layout = verify::Layout::kLocalDir;
    } else if (*args.layout == "hub") {
      args.options.layout = verify::Layout::kHubRepo;  // which Hub layout is detected
    } else {
      return base::fail("--layout is auto, folder, hub or local-dir, got '" + *args.layout + "'");
    }
  }
  if (args.dirs.empty()) {
    return base::fail("no DIR given");
  }
  if (args.dirs.size() > 1) {
    return base::fail("more than one DIR given");
  }
  return {};
}

std::string human_bytes(std::uint64_t n) {
  static constexpr const char* kUnits[] = {"B", "KB", "MB", "GB", "TB", "PB"};
  double value = static_cast<double>(n);
  std::size_t unit = 0;
  while (value >= 1000.0 && unit + 1 < std::size(kUnits)) {
    value /= 1000.0;
    ++unit;
  }
  char buf[32];
  if (unit == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(n));
  } else {
    std::snprintf(buf, sizeof buf, "%.2f %s", value, kUnits[unit]);
  }
  return buf;
}

// Draws "hashing  42%  0.84 / 2.00 GB  1.9 GB/s" on stderr, only once the
// run has lasted a second (short runs stay silent), and erases it at the end.
class ProgressBar {
 public:
  void update(std::uint64_t done, std::uint64_t total, bool finished) {
    const auto now = std::chrono::steady_clock::now();
    if (finished) {
      if (drawn_) std::fputs("\r\x1b[K", stderr);
      std::fflush(stderr);
      return;
    }
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < 1.0) return;
    const double percent =
        total == 0 ? 100.0 : 100.0 * static_cast<double>(done) / static_cast<double>(total);
    const double rate = elapsed > 0 ? static_cast<double>(done) / elapsed : 0;
    std::fprintf(stderr, "\r\x1b[Khashing %3.0f%%  %s / %s  %s/s", percent,
                 human_bytes(done).c_str(), human_bytes(total).c_str(),
                 human_bytes(static_cast<std::uint64_t>(rate)).c_str());
    std::fflush(stderr);
    drawn_ = true;
  }

 private:
  bool drawn_ = false;
  // Hashing starts right after the structure checks, which take milliseconds.
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// The layout, what each snapshot or repository came to, and the Hub checksums.
void print_layout(const VerifyReport& report) {
  std::cout << "layout: " << verify::layout_name(report.layout);
  if (!report.checksum_sources.empty()) {
    std::cout << "; checksums used:";
    for (const std::string& s : report.checksum_sources) std::cout << " " << base::terminal_safe(s);
  }
  std::cout << "\n";
  if (!report.hub) return;
  // The cache root: one line per repository, not per snapshot.
  const bool per_snapshot = report.hub->repositories.empty();
  for (const verify::SnapshotReport& s : report.hub->snapshots) {
    if (!per_snapshot) break;
    std::cout << "snapshot " << base::terminal_safe(s.commit);
    if (!s.refs.empty()) {
      std::cout << " (refs:";
      for (const std::string& r : s.refs) std::cout << " " << base::terminal_safe(r);
      std::cout << ")";
    }
    std::cout << ": " << s.verified << " of " << base::plural(s.files, "file")
              << " verified against blob names\n";
  }
  for (const verify::RepositorySummary& r : report.hub->repositories) {
    std::cout << base::terminal_safe(r.name) << ": " << (r.exit_code == 0 ? "OK" : "FAILED")
              << " (exit " << r.exit_code << "): " << base::plural(r.snapshots, "snapshot") << ", "
              << r.files_verified << " of " << base::plural(r.files, "blob") << " verified, "
              << base::plural(r.errors, "error") << ", " << base::plural(r.warnings, "warning")
              << "\n";
  }
}

void print_finding(const VerifyReport& report, const Finding& f, std::string_view indent) {
  // Messages about a line of the checksum list already name the line.
  const std::string where =
      f.file.empty() ? base::terminal_safe(report.dir) : base::terminal_safe(f.file);
  // A shard's finding with a parser reason quotes the parser's message, in
  // which names are already escaped (as `check` shows it, cli/output.h
  // error_text); escaping its backslashes again would show "\\x1b" where
  // `check` shows "\x1b".
  const bool parser_message = f.reason.has_value() && f.category == Category::kShard;
  std::cout << indent << where << ": " << severity_name(f.severity) << " "
            << finding_kind_name(f.kind) << ": "
            << base::terminal_safe(f.message, {.keep_backslash = parser_message});
  if (f.reason && f.category == Category::kShard) {
    std::cout << " [" << reason_name(*f.reason) << " at byte " << f.offset.value_or(0) << "]";
  }
  std::cout << "\n";
}

// Findings about the folder as a whole first, then one section per
// checkpoint: its line, then its findings.
void print_by_checkpoint(const VerifyReport& report) {
  std::map<std::string_view, std::vector<const Finding*>> by_checkpoint;
  for (const CheckpointReport& c : report.checkpoints) by_checkpoint[c.name];
  for (const Finding& f : report.findings) {
    // A finding whose checkpoint has no section (the Hub layouts merge
    // snapshots' findings but not their checkpoints) is printed on its own.
    const auto section = by_checkpoint.find(f.checkpoint);
    if (f.checkpoint.empty() || section == by_checkpoint.end()) {
      print_finding(report, f, "");
    } else {
      section->second.push_back(&f);
    }
  }
  for (const CheckpointReport& c : report.checkpoints) {
    std::cout << "checkpoint " << base::terminal_safe(c.name) << ": "
              << base::plural(c.shards.size(), "shard") << ", " << base::plural(c.tensors, "tensor")
              << " (" << human_bytes(c.tensor_bytes) << "): " << (c.ok() ? "ok" : "FAILED");
    if (c.errors != 0 || c.warnings != 0) {
      std::cout << " (" << base::plural(c.errors, "error") << ", "
                << base::plural(c.warnings, "warning") << ")";
    }
    std::cout << "\n";
    const auto it = by_checkpoint.find(c.name);
    if (it == by_checkpoint.end()) continue;
    for (const Finding* f : it->second) print_finding(report, *f, "  ");
  }
}

void print_text(const VerifyReport& report) {
  if (report.layout != verify::Layout::kFolder) print_layout(report);
  print_by_checkpoint(report);

  std::uint64_t accepted = 0;
  for (const ShardReport& s : report.shards) accepted += s.verdict == ShardVerdict::kAccept;
  std::string summary = report.ok() ? "OK: " : "FAILED: ";
  summary += base::plural(report.checkpoints.size(), "checkpoint") + ", ";
  summary += base::plural(report.shards.size(), "shard");
  if (accepted != report.shards.size()) summary += " (" + std::to_string(accepted) + " valid)";
  summary +=
      ", " + base::plural(report.tensors, "tensor") + " (" + human_bytes(report.tensor_bytes) + ")";
  std::uint64_t index_findings = 0;
  std::uint64_t checksum_findings = 0;
  for (const Finding& f : report.findings) {
    index_findings += f.category == Category::kIndex && f.severity == Severity::kError;
    checksum_findings += f.category == Category::kChecksum && f.severity == Severity::kError;
  }
  if (report.indexes.empty()) {
    summary += "; no index";
  } else {
    for (const IndexReport& i : report.indexes) {
      summary += "; " + base::terminal_safe(i.file) + ": ";
      summary += i.usable ? std::to_string(i.entries) + (i.entries == 1 ? " entry" : " entries")
                          : std::string("unusable");
    }
    if (index_findings != 0) summary += " (" + base::plural(index_findings, "problem") + ")";
  }
  if (report.checksums) {
    const ChecksumReport& c = *report.checksums;
    summary += "; " + base::terminal_safe(c.file) + ": " + std::to_string(c.verified) + " of " +
               base::plural(c.entries, "file") + " match";
    if (c.bytes_hashed != 0) {
      char rate[64];
      std::snprintf(rate, sizeof rate, " (%s in %.2f s, %u thread%s)",
                    human_bytes(c.bytes_hashed).c_str(), c.seconds, c.jobs, c.jobs == 1 ? "" : "s");
      summary += rate;
    }
    if (checksum_findings != 0) summary += ", " + base::plural(checksum_findings, "problem");
  } else if (report.layout == verify::Layout::kRemote) {
    summary += "; contents not verified (remote: only headers were fetched)";
  } else if (!report.hub) {
    summary += "; no SHA256SUMS: file contents not verified";
  }
  if (report.hub) {
    std::uint64_t verified = 0;
    for (const verify::ContentFile& f : report.hub->files) {
      if (f.verdict == verify::ContentVerdict::kVerified) ++verified;
    }
    // "0 of 0 files match" would read as a pass of a check that never ran.
    summary += report.hub->files.empty()
                   ? std::string("; Hub checksums: none usable, no content verified by them")
                   : "; Hub checksums: " + std::to_string(verified) + " of " +
                         base::plural(report.hub->files.size(), "file") + " match";
    if (report.hub->bytes_hashed != 0) {
      char rate[64];
      std::snprintf(rate, sizeof rate, " (%s in %.2f s)",
                    human_bytes(report.hub->bytes_hashed).c_str(), report.hub->seconds);
      summary += rate;
    }
  }
  if (report.values) {
    const verify::ValuesReport& vr = *report.values;
    summary += "; values: " + base::plural(vr.tensors, "tensor") + " scanned (" +
               human_bytes(vr.tensor_bytes) + "), " + std::to_string(vr.tensors_nan) +
               " with NaN, " + std::to_string(vr.tensors_inf) + " with Inf, " +
               std::to_string(vr.tensors_all_zero) + " all zero";
    if (vr.shards_incomplete != 0) {
      summary += " (" + base::plural(vr.shards_incomplete, "shard") + " not read through)";
    }
  }
  summary +=
      "; " + base::plural(report.errors, "error") + ", " + base::plural(report.warnings, "warning");
  std::cout << summary << "\n";
}

// verify keeps each file it reads open until the run ends, so that every
// pass reads the same file (verify/open_files.h): a folder of more files than
// the soft limit on descriptors (often 1024) needs the hard one.
void raise_open_file_limit() {
  struct rlimit limit {};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  (void)::setrlimit(RLIMIT_NOFILE, &limit);  // where refused, the soft limit stays
}

int run_verify(const Command& command, VerifyArgs& args) {
  if (const base::Result<void> finished = finish_args(args); !finished) {
    return usage_error(command, finished.error().message);
  }
  raise_open_file_limit();
  ProgressBar bar;
  if (!args.quiet && ::isatty(STDERR_FILENO) == 1) {
    args.options.progress = [&bar](std::uint64_t done, std::uint64_t total, bool finished) {
      bar.update(done, total, finished);
    };
    args.options.progress_interval = std::chrono::milliseconds(200);
  }
  const std::string& dir = args.dirs.front();
  VerifyReport report;
  if (remote::is_remote_address(dir)) {
    // Only headers and indexes are fetched: what needs the data cannot run.
    if (args.options.sha256_file || args.options.scan_values) {
      return usage_error(command,
                         "--sha256 and --scan-values need the files' data; a remote "
                         "repository is verified from its headers only");
    }
    const bool progress = !args.quiet && ::isatty(STDERR_FILENO) == 1;
    base::Result<RemoteRepository> repo =
        fetch_repository(dir, args.options, args.jobs ? args.options.jobs : 8, progress);
    if (repo) {
      report = verify::verify_fetched(repo->name, repo->files, args.options);
    } else {
      report.dir = dir;
      report.layout = verify::Layout::kRemote;
      report.fatal = repo.error().message;
    }
  } else {
    report = verify_model_folder(dir, args.options);
  }
  if (args.json) {
    std::cout << base::json_line(report_to_json(report)) << "\n";
  } else if (report.ran) {
    print_text(report);
  }
  if (!report.ran) std::cerr << "stguard verify: " << base::terminal_safe(report.fatal) << "\n";
  if (args.sarif) {
    if (const base::Result<void> wrote = sarif::write_verify_log(*args.sarif, report); !wrote) {
      std::cerr << "stguard verify: " << base::terminal_safe(wrote.error().message) << "\n";
      return kExitUsage;
    }
  }
  return report.exit_code();
}

}  // namespace

void add_verify_command(CLI::App& root, Commands& commands) {
  Command& command =
      commands.add(root, "verify", "check a sharded model folder against its index and SHA256SUMS",
                   kVerifyUsage, kVerifyIntro, kVerifyOutro);
  auto args = std::make_shared<VerifyArgs>();
  CLI::App& app = *command.app;
  app.add_flag("--json", args->json,
               "one JSON document on stdout (shards, indexes, checksums, findings, summary)")
      ->disable_flag_override();
  app.add_option("--sarif", args->sarif,
                 "also write a SARIF 2.1.0 log to FILE: a result per finding, its file "
                 "relative to DIR")
      ->option_text("FILE")
      ->check(role(ValueRole::kOutputFile));
  app.add_flag("-q,--quiet", args->quiet, "no progress bar")->disable_flag_override();
  app.add_flag("-r,--recursive", args->options.recursive,
               "also check subfolders (diffusers: unet/, vae/, ...); "
               "hidden folders are skipped, symlinked folders never "
               "followed, at most 8 levels and 100000 names")
      ->disable_flag_override();
  app.add_flag("--strict", args->options.strict, "a total_size mismatch is an error, not a warning")
      ->disable_flag_override();
  app.add_flag("--follow-symlinks", args->options.follow_symlinks,
               "follow symlinks whose target stays inside DIR (links "
               "leaving DIR are never followed)")
      ->disable_flag_override();
  app.add_option("--sha256", args->options.sha256_file,
                 "checksum list to use instead of DIR/SHA256SUMS; names in "
                 "it are relative to DIR")
      ->option_text("FILE")
      ->check(role(ValueRole::kInputFile));
  app.add_option("-j,--jobs", args->jobs, "hashing threads (default: one per core)")
      ->option_text("N");
  app.add_option("--hash-io", args->hash_io,
                 "how files are read for hashing (default read); a file "
                 "that grows or shrinks meanwhile is file_changed with "
                 "either")
      ->option_text("read|mmap");
  app.add_flag("--scan-values", args->options.scan_values,
               "count NaN, +Inf and -Inf in every floating-point tensor "
               "(F64, F32, F16, BF16, C64, the F8, F6 and F4 types) and "
               "find tensors that are all zeros; each shard is read "
               "once, hashed or not")
      ->disable_flag_override();
  app.add_option("--layout", args->layout,
                 "auto (default): detect; folder: a plain folder; hub: a "
                 "cache repository, snapshot or cache root; local-dir: "
                 "a `hf download --local-dir` folder")
      ->option_text("L");
  app.add_option("DIR", args->dirs)->check(role(ValueRole::kInputDir));
  command.positionals = &args->dirs;
  command.run = [&command, args] { return run_verify(command, *args); };
}

}  // namespace stguard::cli
