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

namespace stguard::cli {

// A --reader value: a reader directory, or the name of a bundled reader
// (a directory of `adapters`); with `writer`, a --writer-dir value likewise,
// with writer.json. nullopt with *error naming the bundled ones.
std::optional<std::filesystem::path> reader_dir(const std::string& value,
                                                const std::filesystem::path& adapters,
                                                std::string* error, bool writer = false);

// Why the first word of an --adapter command names nothing that can run,
// for a word conformance::resolve_executable did not resolve.
std::string why_not_executable(const std::string& word, const std::filesystem::path& working_dir);

// -j/--jobs: 1 to 256.
bool parse_jobs(const std::string& text, unsigned* jobs, std::string* error);
// --timeout: seconds from 0.001 to 86400, up to three decimals.
bool parse_timeout(const std::string& text, std::chrono::milliseconds* timeout, std::string* error);
// --memory-mb: 0 (no limit) to 2^30.
bool parse_memory_mb(const std::string& text, std::uint64_t* memory_mb, std::string* error);

}  // namespace stguard::cli

#endif  // STGUARD_CLI_READER_ARGS_H_
