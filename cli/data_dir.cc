#include "data_dir.h"

#include <cstdlib>
#include <system_error>
#include <vector>

#include "command.h"

namespace stguard::cli {
namespace {

namespace fs = std::filesystem;

bool holds_data(const fs::path& root) {
  std::error_code ec;
  return fs::is_regular_file(root / "conformance" / "vocabulary.txt", ec);
}

}  // namespace

fs::path self_executable() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("stguard") : exe;
}

fs::path installed_data_dir() {
  // STGUARD_INSTALLED_DATA: share/stguard relative to bin/, as installed.
  return (self_executable().parent_path() / STGUARD_INSTALLED_DATA).lexically_normal();
}

void add_data_dir_option(CLI::App& app, std::optional<std::string>& flag) {
  app.add_option("--data-dir", flag,
                 "a directory holding corpus/ and conformance/ (else STGUARD_DATA_DIR, "
                 "then share/stguard next to the installed executable, then the "
                 "source tree stguard was built from)")
      ->option_text("DIR")
      ->group("Data")
      ->check(role(ValueRole::kInputDir));
}

base::Result<DataDir> find_data_dir(const std::optional<std::string>& flag) {
  if (flag) {
    if (holds_data(*flag)) return DataDir{*flag, "--data-dir"};
    return base::fail("--data-dir " + *flag +
                      " holds no stguard data (no conformance/vocabulary.txt)");
  }
  if (const char* env = std::getenv("STGUARD_DATA_DIR"); env != nullptr && *env != '\0') {
    if (holds_data(env)) return DataDir{env, "STGUARD_DATA_DIR"};
    return base::fail(std::string("STGUARD_DATA_DIR=") + env +
                      " holds no stguard data (no conformance/vocabulary.txt)");
  }
  std::vector<std::string> looked;
  const fs::path installed = installed_data_dir();
  if (holds_data(installed)) return DataDir{installed, "installed"};
  looked.push_back(installed.string());
#ifdef STGUARD_SOURCE_TREE
  const fs::path source = STGUARD_SOURCE_TREE;
  if (holds_data(source)) return DataDir{source, "source tree"};
  looked.push_back(source.string());
#endif
  std::string error = "cannot find stguard's data (corpus, recipes, adapters): looked in";
  for (const std::string& place : looked) error += " " + place;
  error += "; give --data-dir DIR or set STGUARD_DATA_DIR";
  return base::fail(std::move(error));
}

std::optional<fs::path> find_checkout(const fs::path& start) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec);
  if (ec) return std::nullopt;
  for (;;) {
    if (holds_data(dir) && fs::is_directory(dir / "corpus", ec)) return dir;
    if (!dir.has_parent_path() || dir.parent_path() == dir) return std::nullopt;
    dir = dir.parent_path();
  }
}

}  // namespace stguard::cli
