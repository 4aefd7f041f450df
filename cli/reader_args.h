// cli/reader_args.h: what `stguard conform` and `stguard hunt` share on their
// command lines: finding a --reader directory, explaining an --adapter that
// cannot run, and the limit options (-j, --timeout, --memory-mb).
#ifndef STGUARD_CLI_READER_ARGS_H_
#define STGUARD_CLI_READER_ARGS_H_

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "base/failure.h"

namespace stguard::cli {

// A --reader value: a reader directory, or the name of a bundled reader
// (a directory of `adapters`); with `writer`, a --writer-dir value likewise,
// with writer.json. Fails naming the bundled ones.
base::Result<std::filesystem::path> reader_dir(const std::string& value,
                                               const std::filesystem::path& adapters,
                                               bool writer = false);

// Why the first word of an --adapter command names nothing that can run,
// for a word conformance::resolve_executable did not resolve.
std::string why_not_executable(const std::string& word, const std::filesystem::path& working_dir);

// -j/--jobs: 1 to 256.
base::Result<unsigned> parse_jobs(const std::string& text);
// --timeout: seconds from 0.001 to 86400, up to three decimals.
base::Result<std::chrono::milliseconds> parse_timeout(const std::string& text);
// --memory-mb: 0 (no limit) to 2^30.
base::Result<std::uint64_t> parse_memory_mb(const std::string& text);

}  // namespace stguard::cli

#endif  // STGUARD_CLI_READER_ARGS_H_
