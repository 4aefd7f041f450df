// base/sigbus_guard.h: a mapped file truncated under the reader is a return
// value inside the guard, and still the signal it always was outside it.
#include "base/sigbus_guard.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "base/file_io.h"
#include "base/sha256.h"

namespace stguard::base {
namespace {

namespace fs = std::filesystem;

// A file of `pages` pages of 'x', mapped whole; the file is left open.
class MappedFile {
 public:
  explicit MappedFile(std::size_t pages) {
    std::string pattern = (fs::temp_directory_path() / "stguard-sigbus-XXXXXX").string();
    fd_ = UniqueFd(::mkstemp(pattern.data()));
    path_ = pattern;
    page_ = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    length_ = pages * page_;
    const std::string bytes(length_, 'x');
    EXPECT_EQ(::write(fd_.get(), bytes.data(), bytes.size()), static_cast<ssize_t>(length_));
    void* map = ::mmap(nullptr, length_, PROT_READ, MAP_PRIVATE, fd_.get(), 0);
    EXPECT_NE(map, MAP_FAILED);
    map_ = static_cast<const std::uint8_t*>(map);
  }
  ~MappedFile() {
    ::munmap(const_cast<std::uint8_t*>(map_), length_);
    fs::remove(path_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  void truncate_to(std::size_t bytes) {
    ASSERT_EQ(::ftruncate(fd_.get(), static_cast<off_t>(bytes)), 0);
  }
  const std::uint8_t* data() const { return map_; }
  std::size_t length() const { return length_; }
  std::size_t page() const { return page_; }
  int fd() const { return fd_.get(); }

  // Sum of every byte: touches every page.
  std::uint64_t sum() const {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < length_; ++i)
      total += static_cast<volatile const std::uint8_t*>(map_)[i];
    return total;
  }

 private:
  UniqueFd fd_;
  fs::path path_;
  std::size_t page_ = 0;
  std::size_t length_ = 0;
  const std::uint8_t* map_ = nullptr;
};

TEST(SigbusGuardTest, ReturnsNulloptWhenNothingFaults) {
  MappedFile file(3);
  std::uint64_t total = 0;
  EXPECT_EQ(with_sigbus_guard(file.data(), file.length(), [&] { total = file.sum(); }),
            std::nullopt);
  EXPECT_EQ(total, std::uint64_t{'x'} * file.length());
}

TEST(SigbusGuardTest, TruncatedMappingIsAReturnValueNotACrash) {
  MappedFile file(4);
  file.truncate_to(file.page() + 10);  // pages 2 and 3 are gone
  std::uint64_t total = 0;
  const std::optional<std::uint64_t> fault =
      with_sigbus_guard(file.data(), file.length(), [&] { total = file.sum(); });
  ASSERT_TRUE(fault.has_value());
  // The first access past the file's end, in the first page that is gone.
  EXPECT_EQ(*fault, 2 * file.page());
  // The guard can be used again on the same thread, and still passes
  // through reads that do not fault.
  EXPECT_EQ(with_sigbus_guard(file.data(), file.page(), [&] { total = file.data()[0]; }),
            std::nullopt);
  EXPECT_EQ(with_sigbus_guard(file.data(), file.length(), [&] { total = file.sum(); }).value_or(0),
            2 * file.page());
}

TEST(SigbusGuardTest, GuardsEachThreadOnItsOwn) {
  MappedFile file(4);
  file.truncate_to(file.page());
  std::optional<std::uint64_t> faults[4];
  std::thread threads[4];
  for (int t = 0; t < 4; ++t) {
    threads[t] = std::thread([&, t] {
      faults[t] = with_sigbus_guard(file.data(), file.length(), [&] { (void)file.sum(); });
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const auto& fault : faults) EXPECT_EQ(fault.value_or(0), file.page());
}

// The mmap hash of a file that ended early gives an error, never a signal.
TEST(SigbusGuardTest, Sha256MmapOfAFileTruncatedAfterMappingIsAnError) {
  // sha256_fd takes the size from its own fstat, so the truncation has to
  // fall between that fstat and the reads: a thread truncates the file as
  // soon as hashing has made progress. Whether it lands in time varies; what
  // may never happen is a crash, and an error must say where the file ended.
  MappedFile file(16384);  // 64 MiB with 4 KiB pages
  std::atomic<std::uint64_t> progress{0};
  std::thread cutter([&] {
    while (progress.load() == 0) std::this_thread::yield();
    file.truncate_to(file.page());
  });
  const Sha256Outcome out = sha256_fd(file.fd(), {.io = HashIo::kMmap}, &progress);
  cutter.join();
  if (!out.ok()) {
    EXPECT_NE(out.error.find("ended at byte"), std::string::npos) << out.error;
  }
}

// A SIGBUS outside any guarded range still ends the process, as it would
// have without the guard (the previous handler, or the default action).
TEST(SigbusGuardDeathTest, FaultOutsideTheGuardStillKills) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        MappedFile file(4);
        file.truncate_to(file.page());
        // Installs the handler, guarding only the first page.
        (void)with_sigbus_guard(file.data(), file.page(), [&] { (void)file.data()[0]; });
        std::_Exit(static_cast<int>(file.sum() & 1));  // faults outside the guard
      },
      "");
}

}  // namespace
}  // namespace stguard::base
