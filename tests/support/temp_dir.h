// tests/support/temp_dir.h: a scratch directory per test, removed afterwards.
//
//   stguard_test::TempDir dir;
//   std::string path = dir.write("a.safetensors", bytes);
#ifndef STGUARD_TESTS_SUPPORT_TEMP_DIR_H_
#define STGUARD_TESTS_SUPPORT_TEMP_DIR_H_

#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <string_view>
#include <system_error>

namespace stguard_test {

class TempDir {
 public:
  TempDir() {
    static std::atomic<unsigned> counter{0};
    const std::filesystem::path base = std::filesystem::temp_directory_path();
    for (int attempt = 0; attempt < 100; ++attempt) {
      std::filesystem::path candidate =
          base / ("stguard_test_" + std::to_string(::getpid()) + "_" +
                  std::to_string(counter.fetch_add(1)) + "_" + std::to_string(attempt));
      std::error_code ec;
      if (std::filesystem::create_directory(candidate, ec) && !ec) {
        path_ = candidate;
        return;
      }
    }
    std::abort();  // no scratch directory: nothing sensible to test
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ec;
    // Make chmod-000 files removable again before cleaning up.
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(path_, ec);
  }

  const std::filesystem::path& path() const { return path_; }
  std::string file(std::string_view name) const { return (path_ / name).string(); }

  // Writes `bytes` to `name` inside the directory and returns the full path.
  std::string write(std::string_view name, std::span<const std::uint8_t> bytes) const {
    const std::string full = file(name);
    std::ofstream out(full, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) std::abort();
    return full;
  }

 private:
  std::filesystem::path path_;
};

}  // namespace stguard_test

#endif  // STGUARD_TESTS_SUPPORT_TEMP_DIR_H_
