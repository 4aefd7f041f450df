// tests/support/files.h: whole files read and written by the tests.
//
//   stguard_test::write_text(dir / "a" / "b.json", "{}");  // creates a/
//   EXPECT_EQ(stguard_test::read_text(dir / "a" / "b.json"), "{}");
#ifndef STGUARD_TESTS_SUPPORT_FILES_H_
#define STGUARD_TESTS_SUPPORT_FILES_H_

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>

namespace stguard_test {

// The bytes of `path`; "" when it cannot be read, which a test comparing
// contents shows as a mismatch.
inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Writes `bytes` to `path`, creating its parent folders. A file the test
// cannot write is no test at all: abort.
inline void write_text(const std::filesystem::path& path, std::string_view bytes) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) std::abort();
}

}  // namespace stguard_test

#endif  // STGUARD_TESTS_SUPPORT_FILES_H_
