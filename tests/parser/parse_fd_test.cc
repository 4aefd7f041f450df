// parse_fd and validate_fd: the structural check of a file the caller has
// open, on memfds, temporary files, and descriptors that are not regular
// files or not descriptors at all.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stguard/stguard.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "tests/support/file_builder.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_util.h"

namespace {

using stguard::Reason;
using stguard_test::Accepts;
using stguard_test::entry;
using stguard_test::make_file;
using stguard_test::Rejects;

// Owns a descriptor.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// An anonymous in-memory regular file holding `bytes`.
int MemFdWith(std::span<const std::uint8_t> bytes) {
  const int fd = ::memfd_create("stguard_parse_fd_test", MFD_CLOEXEC);
  if (fd < 0) return fd;
  std::size_t written = 0;
  while (written < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
    if (n <= 0) {
      ::close(fd);
      return -1;
    }
    written += static_cast<std::size_t>(n);
  }
  return fd;
}

// parse_fd gives what parse_header gives for the same bytes, in both
// profiles, and validate_fd what validate_header gives.
void ExpectSameAsInMemory(const std::vector<std::uint8_t>& bytes) {
  const Fd fd(MemFdWith(bytes));
  ASSERT_GE(fd.get(), 0);
  for (const stguard::Profile profile : {stguard::Profile::kStrict, stguard::Profile::kReference}) {
    SCOPED_TRACE(std::string(stguard::profile_name(profile)));
    const stguard::ParseOptions options = stguard_test::WithProfile(profile);
    const auto from_fd = stguard::parse_fd(fd.get(), options);
    const auto in_memory = stguard::parse_header(bytes, bytes.size(), options);
    ASSERT_EQ(from_fd.has_value(), in_memory.has_value());
    if (in_memory) {
      EXPECT_EQ(from_fd->tensors, in_memory->tensors);
      EXPECT_EQ(from_fd->metadata, in_memory->metadata);
      EXPECT_EQ(from_fd->header_len, in_memory->header_len);
      EXPECT_EQ(from_fd->file_size, in_memory->file_size);
    } else {
      EXPECT_EQ(from_fd.error().reason, in_memory.error().reason);
      EXPECT_EQ(from_fd.error().offset, in_memory.error().offset);
      EXPECT_EQ(from_fd.error().message, in_memory.error().message);  // "byte for byte"
    }
    const auto summary_fd = stguard::validate_fd(fd.get(), options);
    const auto summary = stguard::validate_header(bytes, bytes.size(), options);
    ASSERT_EQ(summary_fd.has_value(), summary.has_value());
    if (summary) {
      EXPECT_EQ(summary_fd->tensor_count, summary->tensor_count);
      EXPECT_EQ(summary_fd->metadata_count, summary->metadata_count);
      EXPECT_EQ(summary_fd->has_metadata, summary->has_metadata);
      EXPECT_EQ(summary_fd->header_len, summary->header_len);
      EXPECT_EQ(summary_fd->file_size, summary->file_size);
    } else {
      EXPECT_EQ(summary_fd.error().reason, summary.error().reason);
      EXPECT_EQ(summary_fd.error().offset, summary.error().offset);
    }
  }
}

TEST(ParseFd, SameVerdictsAsTheBytesInMemory) {
  const std::string two = "{\"__metadata__\":{\"format\":\"pt\"}," + entry("b", "F32", "2", 4, 12) +
                          "," + entry("a", "U8", "4", 0, 4) + "}";
  {
    SCOPED_TRACE("valid");
    ExpectSameAsInMemory(make_file(two, 12));
  }
  {
    SCOPED_TRACE("trailing data");
    ExpectSameAsInMemory(make_file(two, 13));
  }
  {
    SCOPED_TRACE("leading space: strict rejects, reference accepts");
    ExpectSameAsInMemory(make_file(" " + two, 12));
  }
  {
    SCOPED_TRACE("empty file");
    ExpectSameAsInMemory({});
  }
  {
    SCOPED_TRACE("five bytes");
    ExpectSameAsInMemory({1, 2, 3, 4, 5});
  }
  {
    SCOPED_TRACE("prefix beyond the file");
    ExpectSameAsInMemory(stguard_test::FileBuilder("{}").length_prefix(100).build());
  }
  {
    SCOPED_TRACE("prefix above max_header_bytes");
    ExpectSameAsInMemory(stguard_test::FileBuilder("{}").length_prefix(100'000'001).build());
  }
}

TEST(ParseFd, LeavesTheDescriptorOpenAndItsOffsetAlone) {
  const Fd fd(MemFdWith(make_file("{" + entry("a", "U8", "4", 0, 4) + "}", 4)));
  ASSERT_GE(fd.get(), 0);
  ASSERT_EQ(::lseek(fd.get(), 3, SEEK_SET), 3);
  EXPECT_TRUE(Accepts(stguard::parse_fd(fd.get())));
  EXPECT_TRUE(Accepts(stguard::validate_fd(fd.get())));
  EXPECT_EQ(::lseek(fd.get(), 0, SEEK_CUR), 3);
  EXPECT_NE(::fcntl(fd.get(), F_GETFD), -1) << "parse_fd closed the descriptor";
}

TEST(ParseFd, SeesTheFileAsItIsNow) {
  const std::string h = "{" + entry("a", "U8", "4", 0, 4) + "}";
  const Fd fd(MemFdWith(make_file(h, 4)));
  ASSERT_GE(fd.get(), 0);
  EXPECT_TRUE(Accepts(stguard::parse_fd(fd.get())));
  // Two data bytes cut off: the tensor now ends beyond the data buffer.
  ASSERT_EQ(::ftruncate(fd.get(), static_cast<off_t>(8 + h.size() + 2)), 0);
  EXPECT_TRUE(Rejects(stguard::parse_fd(fd.get()), Reason::kOffsetOutOfBounds, 8 + h.size() + 2));
  ASSERT_EQ(::ftruncate(fd.get(), 5), 0);
  EXPECT_TRUE(Rejects(stguard::validate_fd(fd.get()), Reason::kHeaderTooSmall, 0));
}

TEST(ParseFd, NotADescriptor) {
  EXPECT_TRUE(Rejects(stguard::parse_fd(-1), Reason::kIoError, 0));
  EXPECT_TRUE(Rejects(stguard::validate_fd(-1), Reason::kIoError, 0));
  int closed = MemFdWith(make_file("{}"));
  ASSERT_GE(closed, 0);
  ASSERT_EQ(::close(closed), 0);
  EXPECT_TRUE(Rejects(stguard::parse_fd(closed), Reason::kIoError, 0));
}

TEST(ParseFd, DirectoryIsRefused) {
  stguard_test::TempDir dir;
  const Fd fd(::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  ASSERT_GE(fd.get(), 0);
  EXPECT_TRUE(Rejects(stguard::parse_fd(fd.get()), Reason::kIoError, 0));
  EXPECT_TRUE(Rejects(stguard::validate_fd(fd.get()), Reason::kIoError, 0));
}

// A pipe with a writer that never writes: reading it would wait forever, so
// it must be refused before any read.
TEST(ParseFd, PipeIsRefusedWithoutReading) {
  int ends[2];
  ASSERT_EQ(::pipe(ends), 0);
  const Fd read_end(ends[0]);
  const Fd write_end(ends[1]);
  EXPECT_TRUE(Rejects(stguard::parse_fd(read_end.get()), Reason::kIoError, 0));
  EXPECT_TRUE(Rejects(stguard::validate_fd(read_end.get()), Reason::kIoError, 0));
}

TEST(ParseFd, WriteOnlyDescriptorCannotBeRead) {
  stguard_test::TempDir dir;
  const std::string path = dir.write("w.safetensors", make_file("{}"));
  const Fd fd(::open(path.c_str(), O_WRONLY | O_CLOEXEC));
  ASSERT_GE(fd.get(), 0);
  // The read of the length prefix fails at byte 0.
  EXPECT_TRUE(Rejects(stguard::parse_fd(fd.get()), Reason::kIoError, 0));
}

// A regular file whose content ends before the size fstat gives is what a
// file truncated between parse_fd's fstat and its pread looks like. sysfs
// attributes are such files (4096 bytes by fstat, a few bytes of text), so
// the case needs no race: the read must stop with kIoError where the file
// ended, not read past it or crash.
TEST(ParseFd, FileEndingBeforeItsSizeIsAnIoErrorWhereItEnds) {
  for (const char* path : {"/sys/devices/system/cpu/online", "/sys/devices/system/cpu/possible",
                           "/sys/kernel/mm/ksm/run", "/sys/kernel/profiling"}) {
    const Fd fd(::open(path, O_RDONLY | O_CLOEXEC));
    if (fd.get() < 0) continue;
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    std::uint8_t buffer[64];
    const ssize_t length = ::pread(fd.get(), buffer, sizeof buffer, 0);
    // Needed: fewer than 8 bytes (the read then ends inside the length
    // prefix) while fstat says there are more.
    if (length <= 0 || length >= 8 || st.st_size <= length) continue;
    SCOPED_TRACE(path);
    EXPECT_TRUE(
        Rejects(stguard::parse_fd(fd.get()), Reason::kIoError, static_cast<std::uint64_t>(length)));
    EXPECT_TRUE(Rejects(stguard::validate_fd(fd.get()), Reason::kIoError,
                        static_cast<std::uint64_t>(length)));
    return;
  }
  GTEST_SKIP() << "no sysfs attribute shorter than its fstat size is readable here";
}

// The length prefix is checked against the limit and the file size before
// the header buffer is allocated, so a huge N allocates nothing (an attempt
// to allocate it would fail the test under AddressSanitizer).
TEST(ParseFd, HugeLengthPrefixAllocatesNothing) {
  const Fd small(MemFdWith(stguard_test::FileBuilder("{}").length_prefix(1ULL << 62).build()));
  ASSERT_GE(small.get(), 0);
  EXPECT_TRUE(Rejects(stguard::parse_fd(small.get()), Reason::kHeaderTooLarge, 0));
  stguard::ParseOptions unlimited;
  unlimited.limits.max_header_bytes = std::numeric_limits<std::uint64_t>::max();
  EXPECT_TRUE(
      Rejects(stguard::parse_fd(small.get(), unlimited), Reason::kHeaderLengthExceedsFile, 0));

  // A sparse 1 TiB file whose prefix claims all of it as header.
  const Fd sparse(MemFdWith(stguard_test::u64_le((1ULL << 40) - 8)));
  ASSERT_GE(sparse.get(), 0);
  if (::ftruncate(sparse.get(), static_cast<off_t>(1ULL << 40)) != 0) {
    GTEST_SKIP() << "cannot make a sparse 1 TiB memfd here";
  }
  EXPECT_TRUE(Rejects(stguard::parse_fd(sparse.get()), Reason::kHeaderTooLarge, 0));
  EXPECT_TRUE(Rejects(stguard::validate_fd(sparse.get()), Reason::kHeaderTooLarge, 0));
}

}  // namespace
