// cli/data_dir.h: where stguard finds its data (the corpus, the recipes and
// the bundled readers' adapters) and where `stguard corpus build` writes.
//
// A data directory has the source tree's layout: corpus/ (case files and
// manifest.json) and conformance/ (vocabulary.txt, cases/, adapters/). It is
// found, in this order:
//   1. --data-dir DIR on the command line;
//   2. the STGUARD_DATA_DIR environment variable;
//   3. ../share/stguard next to the running executable (an installed stguard,
//      `cmake --install` or the .deb);
//   4. the source tree the binary was built from, when it still exists (a
//      build tree).
// A candidate counts only when it holds conformance/vocabulary.txt, so a
// half-copied directory is passed over with a word about it, never used.
#ifndef STGUARD_CLI_DATA_DIR_H_
#define STGUARD_CLI_DATA_DIR_H_

#include <CLI/CLI.hpp>
#include <filesystem>
#include <optional>
#include <string>

#include "base/failure.h"

namespace stguard::cli {

struct DataDir {
  std::filesystem::path root;
  std::string found_by;  // "--data-dir", "STGUARD_DATA_DIR", "installed", "source tree"

  std::filesystem::path corpus() const { return root / "corpus"; }
  std::filesystem::path recipes() const { return root / "conformance"; }
  std::filesystem::path adapters() const { return root / "conformance" / "adapters"; }
};

// Registers --data-dir DIR, in the group "Data" of --help.
void add_data_dir_option(CLI::App& app, std::optional<std::string>& flag);

// The data directory. Fails saying where it looked.
base::Result<DataDir> find_data_dir(const std::optional<std::string>& flag);

// The stguard checkout that contains `start` (itself or a parent holding
// conformance/vocabulary.txt and a corpus/ directory), for `stguard corpus
// build`, which writes into the checkout it is run in.
std::optional<std::filesystem::path> find_checkout(const std::filesystem::path& start);

// Where an installed stguard's data is: share/stguard next to bin/stguard
// (whether or not it exists).
std::filesystem::path installed_data_dir();

// The running executable (/proc/self/exe), for ${STGUARD} in reader.json.
std::filesystem::path self_executable();

}  // namespace stguard::cli

#endif  // STGUARD_CLI_DATA_DIR_H_
