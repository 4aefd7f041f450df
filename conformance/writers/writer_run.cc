// conformance/writers/writer_run.cc: the parallel run of one writer
// (writer_run.h).
#include "conformance/writers/writer_run.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <cerrno>

#include "base/file_io.h"
#include "base/sha256.h"
#include "conformance/runner/cleanup.h"
#include "conformance/writers/writer_grade.h"

namespace stguard::conformance {
namespace {

namespace fs = std::filesystem;

// What the writer left at `path`, read up to kMaxWrittenBytes.
WrittenFile read_written(const fs::path& path) {
  WrittenFile out;
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return out;
  out.exists = true;
  out.mode = st.st_mode & 07777;
  if (static_cast<std::uint64_t>(st.st_size) > kMaxWrittenBytes) {
    out.too_large = true;
    return out;
  }
  base::Result<std::string> bytes = base::read_file(path, kMaxWrittenBytes);
  if (!bytes) {
    out.exists = false;
    return out;
  }
  out.bytes = std::move(*bytes);
  return out;
}

}  // namespace

base::Result<std::vector<LoadedWriterCase>> load_writer_cases(const fs::path& corpus_dir,
                                                              const CaseFilter& filter) {
  std::vector<LoadedWriterCase> loaded;
  const fs::path manifest = corpus_dir / "writers" / "manifest.json";
  std::error_code ec;
  if (!fs::exists(manifest, ec)) return loaded;
  base::Result<std::vector<WriterCaseEntry>> entries = read_writer_manifest(manifest);
  if (!entries) return entries.error();
  const fs::path corpus = fs::absolute(corpus_dir, ec);
  for (WriterCaseEntry& entry : *entries) {
    if (!filter.matches(entry.as_case())) continue;
    LoadedWriterCase c;
    c.spec_path = corpus / entry.file;
    const base::Result<std::string> text = base::read_file(c.spec_path);
    if (!text) return text.error();
    if (base::sha256_hex(*text) != entry.sha256) {
      return base::fail(
          entry.id + ": " + entry.file +
          " does not match the writer manifest's sha256 (run `stguard corpus build`)");
    }
    base::Result<WriterSpec> spec = parse_writer_spec(*text);
    if (!spec) return spec.error().in(entry.file);
    c.spec = std::move(*spec);
    c.entry = std::move(entry);
    loaded.push_back(std::move(c));
  }
  return loaded;
}

ReaderRun run_writer(const ReaderSpec& spec, std::span<const LoadedWriterCase> cases,
                     const RunOptions& options) {
  ReaderRun run;
  run.name = spec.name;
  run.command = command_text(spec.command);
  run.mode = std::string(kWriterMode);
  run_cases(run, cases.size(), options, [&](std::size_t index) -> std::optional<CaseResult> {
    const LoadedWriterCase& c = cases[index];
    // A private directory per case: nothing of one case's output can be
    // taken for another's, and nothing is written where the user works.
    std::string scratch = (fs::temp_directory_path() / "stguard-writer-XXXXXX").string();
    CaseResult result;
    if (::mkdtemp(scratch.data()) == nullptr) {
      result.case_id = c.entry.id;
      result.group = c.entry.id.substr(0, c.entry.id.find('/'));
      result.grade = Grade::kCrash;
      result.detail = "could not create a scratch directory: " + base::errno_text(errno);
    } else {
      const fs::path out = fs::path(scratch) / "out.safetensors";
      std::vector<std::string> argv = spec.command;
      argv.push_back(c.spec_path.string());
      argv.push_back(out.string());
      ProcessResult process = run_process(argv, spec.working_dir, options.limits);
      if (process.status != ProcessResult::Status::kInterrupted) {
        result = grade_writer_case(c.entry, c.spec, process, read_written(out), options.limits);
      }
      std::error_code ec;
      fs::remove_all(scratch, ec);
      if (process.status == ProcessResult::Status::kInterrupted) return std::nullopt;
    }
    return result;
  });
  return run;
}

}  // namespace stguard::conformance
