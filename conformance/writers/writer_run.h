// conformance/writers/writer_run.h: runs a writer's adapter over the writer
// cases (docs/writer-protocol.md).
//
//   std::vector<LoadedWriterCase> cases = load_writer_cases(corpus_dir, filter, &error);
//   ReaderRun run = run_writer(spec, cases, options);   // one column of the matrix
//
// Each case is one process, `CMD SPEC.json OUT.safetensors`, run exactly as
// readers are run (run_process: timeout, address-space limit, own process
// group, stdout cap), in the writer's directory, `jobs` at a time. OUT is in
// a fresh private directory per case, removed after grading. The results are
// a ReaderRun (mode "writer") so every report renders writers beside readers.
#ifndef STGUARD_CONFORMANCE_WRITERS_WRITER_RUN_H_
#define STGUARD_CONFORMANCE_WRITERS_WRITER_RUN_H_

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "base/failure.h"
#include "conformance/runner/reader.h"
#include "conformance/runner/results.h"
#include "conformance/runner/runner.h"
#include "conformance/runner/selection.h"
#include "conformance/writers/spec.h"
#include "conformance/writers/writer_manifest.h"

namespace stguard::conformance {

// The file name of a writer directory's description (the schema of
// reader.json, see reader.h).
inline constexpr std::string_view kWriterJson = "writer.json";

struct LoadedWriterCase {
  WriterCaseEntry entry;
  std::filesystem::path spec_path;  // absolute
  WriterSpec spec;
};

// Reads corpus_dir/writers/manifest.json and the spec of every case the
// filter selects, checking each spec against the manifest's sha256. Fails
// when anything is off; an empty vector when the corpus has no writer cases
// or none is selected.
base::Result<std::vector<LoadedWriterCase>> load_writer_cases(
    const std::filesystem::path& corpus_dir, const CaseFilter& filter);

// The largest file read back from a writer; larger is FAIL_INVALID_OUTPUT.
inline constexpr std::uint64_t kMaxWrittenBytes = std::uint64_t{256} << 20;

ReaderRun run_writer(const ReaderSpec& spec, std::span<const LoadedWriterCase> cases,
                     const RunOptions& options);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_WRITERS_WRITER_RUN_H_
