// tests/support/files.h: whole files read and written by the tests.
//
//   stguard_test::write_text(dir / "a" / "b.json", "{}");  // creates a/
//   EXPECT_EQ(stguard_test::read_text(dir / "a" / "b.json"), "{}");
#ifndef STGUARD_TESTS_SUPPORT_FILES_H_
#define STGUARD_TESTS_SUPPORT_FILES_H_

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace stguard_test {

// The bytes of `path`; "" when it cannot be read, which a test comparing
// contents shows as a mismatch. With read(2), not a stream: libstdc++'s
// filebuf throws when a read fails after the open (a folder, EIO, a
// /proc/PID file whose process exited meanwhile: ESRCH).
inline std::string read_text(const std::filesystem::path& path) {
  std::string text;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return text;
  char buffer[65536];
  ssize_t got = 0;
  while ((got = ::read(fd, buffer, sizeof buffer)) > 0)
    text.append(buffer, static_cast<std::size_t>(got));
  ::close(fd);
  if (got < 0) text.clear();
  return text;
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
