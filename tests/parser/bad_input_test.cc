// Hostile and broken inputs through the file API: files that cannot be read,
// length prefixes that lie, huge headers, huge declared sizes, huge files.
// Each must end in a clean verdict, quickly, without large allocations (the
// suite runs under ASan, which aborts on absurd allocation sizes).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stguard/stguard.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "tests/support/child_process.h"
#include "tests/support/file_builder.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_util.h"

namespace {

using stguard::File;
using stguard::Reason;
using stguard_test::Accepts;
using stguard_test::entry;
using stguard_test::FileBuilder;
using stguard_test::make_file;
using stguard_test::Reference;
using stguard_test::Rejects;
using stguard_test::Strict;
using stguard_test::TempDir;

// Writes a file made of `head`, then `fill_count` copies of `fill`, then
// `tail`, in chunks (no 100 MB buffer in memory).
std::string WriteLarge(const TempDir& dir, const std::string& name,
                       const std::vector<std::uint8_t>& head, char fill, std::uint64_t fill_count,
                       const std::string& tail = "") {
  const std::string path = dir.file(name);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) std::abort();
  auto write_all = [fd](const void* data, std::size_t size) {
    const char* p = static_cast<const char*>(data);
    while (size > 0) {
      const ssize_t n = ::write(fd, p, size);
      if (n <= 0) std::abort();
      p += n;
      size -= static_cast<std::size_t>(n);
    }
  };
  write_all(head.data(), head.size());
  const std::string chunk(1 << 20, fill);
  while (fill_count > 0) {
    const std::size_t n =
        static_cast<std::size_t>(std::min<std::uint64_t>(fill_count, chunk.size()));
    write_all(chunk.data(), n);
    fill_count -= n;
  }
  write_all(tail.data(), tail.size());
  ::close(fd);
  return path;
}

// Extends (sparsely) or cuts a file to `size` bytes.
void Resize(const std::string& path, std::uint64_t size) {
  const int fd = ::open(path.c_str(), O_WRONLY);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
  ::close(fd);
}

class Stopwatch {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// Generous bounds: the point is "not quadratic, not reading gigabytes", on a
// shared 2-core machine under ASan.
constexpr double kQuick = 30.0;

TEST(BadInput, MissingFile) {
  TempDir dir;
  const std::string path = dir.file("does-not-exist.safetensors");
  EXPECT_TRUE(Rejects(File::open(path), Reason::kIoError, std::nullopt));
  EXPECT_TRUE(Rejects(stguard::parse_file(path), Reason::kIoError, std::nullopt));
  EXPECT_TRUE(Rejects(stguard::parse_file(""), Reason::kIoError, std::nullopt));
}

TEST(BadInput, Directory) {
  TempDir dir;
  EXPECT_TRUE(Rejects(File::open(dir.path().string()), Reason::kIoError, std::nullopt));
  EXPECT_TRUE(Rejects(stguard::parse_file(dir.path().string()), Reason::kIoError, std::nullopt));
}

// Root reads a mode-000 file, so the test suite, which runs as root in CI,
// checks this in a child that has dropped root's privileges.
TEST(BadInput, UnreadableFile) {
  TempDir dir;
  const std::string path = dir.write("secret.safetensors", make_file("{}"));
  ASSERT_EQ(::chmod(path.c_str(), 0), 0);
  stguard_test::open_to_everyone(dir.path());
  const stguard_test::ChildOutcome outcome = stguard_test::in_child(
      [&] {
        if (::access(path.c_str(), R_OK) == 0) return 3;  // still readable: no test
        if (!Rejects(File::open(path), Reason::kIoError, std::nullopt)) return 1;
        if (!Rejects(stguard::parse_file(path), Reason::kIoError, std::nullopt)) return 2;
        return 0;
      },
      {.unprivileged = true});
  EXPECT_EQ(outcome.exit_code, 0) << "1: File::open, 2: parse_file did not say IO_ERROR; 3: the "
                                     "file stayed readable; 120: could not drop privileges";
}

// A named pipe: open(2) on a FIFO blocks until a writer appears, so a reader
// that opens before checking the file type hangs. A helper thread plays the
// writer after a delay so that a blocking implementation fails this test
// instead of hanging the suite.
TEST(BadInput, NamedPipeIsNotWaitedFor) {
  TempDir dir;
  const std::string path = dir.file("pipe.safetensors");
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  std::atomic<bool> done{false};
  std::thread unblocker([&] {
    const auto start = std::chrono::steady_clock::now();
    while (!done.load()) {
      if (std::chrono::steady_clock::now() - start > std::chrono::seconds(2)) {
        // Succeeds only while a reader is blocked in open().
        const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK);
        if (fd >= 0) {
          ::close(fd);
          return;
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  });
  Stopwatch watch;
  const auto result = stguard::parse_file(path);
  const double seconds = watch.seconds();
  done.store(true);
  unblocker.join();
  EXPECT_LT(seconds, 1.5) << "parse_file blocked in open() waiting for a writer on a FIFO";
  EXPECT_TRUE(Rejects(result, Reason::kIoError, std::nullopt));
}

TEST(BadInput, NotRegularFiles) {
  EXPECT_TRUE(Rejects(stguard::parse_file("/dev/null"), Reason::kIoError, std::nullopt));
  EXPECT_TRUE(Rejects(File::open("/dev/zero"), Reason::kIoError, std::nullopt));
}

TEST(BadInput, EmptyFile) {
  TempDir dir;
  const std::string path = dir.write("empty.safetensors", std::vector<std::uint8_t>{});
  EXPECT_TRUE(Rejects(File::open(path), Reason::kHeaderTooSmall, 0));
  EXPECT_TRUE(Rejects(stguard::parse_file(path, Reference()), Reason::kHeaderTooSmall, 0));
}

TEST(BadInput, SevenByteFile) {
  TempDir dir;
  const std::string path = dir.write("seven.safetensors", std::vector<std::uint8_t>(7, 0));
  EXPECT_TRUE(Rejects(File::open(path), Reason::kHeaderTooSmall, 0));
}

TEST(BadInput, FileShorterThanItsHeaderClaims) {
  TempDir dir;
  const std::string path =
      dir.write("short.safetensors", FileBuilder("{}").length_prefix(1000).build());
  EXPECT_TRUE(Rejects(File::open(path), Reason::kHeaderLengthExceedsFile, 0));
  EXPECT_TRUE(Rejects(stguard::parse_file(path, Reference()), Reason::kHeaderLengthExceedsFile, 0));
  // A valid file cut inside its header.
  const std::string h = "{" + entry("a", "U8", "4", 0, 4) + "}";
  const std::string cut =
      dir.write("cut.safetensors", FileBuilder(h).data_size(4).truncate(20).build());
  EXPECT_TRUE(Rejects(File::open(cut), Reason::kHeaderLengthExceedsFile, 0));
}

TEST(BadInput, LengthPrefixOneAboveTheLimit) {
  TempDir dir;
  // Small file: the size cap is checked before the file length.
  const std::string small =
      dir.write("small.safetensors", FileBuilder("{}").length_prefix(100'000'001).build());
  EXPECT_TRUE(Rejects(File::open(small), Reason::kHeaderTooLarge, 0));
  // A (sparse) file that really is long enough: still too large.
  const std::string big = dir.write("big.safetensors", stguard_test::u64_le(100'000'001));
  Resize(big, 8 + 100'000'001);
  EXPECT_TRUE(Rejects(File::open(big), Reason::kHeaderTooLarge, 0));
  EXPECT_TRUE(Rejects(stguard::parse_file(big, Reference()), Reason::kHeaderTooLarge, 0));
}

TEST(BadInput, HeaderOfExactly100000000BytesIsAllowed) {
  TempDir dir;
  constexpr std::uint64_t kN = 100'000'000;
  std::vector<std::uint8_t> head = stguard_test::u64_le(kN);
  head.push_back('{');
  head.push_back('}');
  const std::string path = WriteLarge(dir, "max.safetensors", head, ' ', kN - 2);
  for (const auto& options : {Strict(), Reference()}) {
    Stopwatch watch;
    const auto header = stguard::parse_file(path, options);
    ASSERT_TRUE(Accepts(header));
    EXPECT_EQ(header->header_len, kN);
    EXPECT_TRUE(header->tensors.empty());
    EXPECT_EQ(header->data_len(), 0U);
    EXPECT_LT(watch.seconds(), kQuick);
  }
  // One byte of lower limit turns it away.
  stguard::ParseOptions tight;
  tight.limits.max_header_bytes = kN - 1;
  EXPECT_TRUE(Rejects(stguard::parse_file(path, tight), Reason::kHeaderTooLarge, 0));
}

TEST(BadInput, FiftyMegabytesOfOpenBrackets) {
  TempDir dir;
  constexpr std::uint64_t kN = 50'000'000;
  const std::string path =
      WriteLarge(dir, "brackets.safetensors", stguard_test::u64_le(kN), '[', kN);
  Stopwatch watch;
  EXPECT_TRUE(Rejects(File::open(path), Reason::kHeaderBadStart, 8));
  // The reference reader wants '{' first as well, but the brackets never
  // close: the syntax error at the end of the header wins (docs/reasons.md).
  EXPECT_TRUE(Rejects(File::open(path, Reference()), Reason::kHeaderNotJson, 8 + kN));
  EXPECT_LT(watch.seconds(), kQuick);
}

TEST(BadInput, FiftyMegabytesOfNestingInAnUnknownField) {
  TempDir dir;
  const std::string prefix = R"({"t":{"dtype":"U8","shape":[0],"data_offsets":[0,0],"x":)";
  constexpr std::uint64_t kN = 50'000'000;
  std::vector<std::uint8_t> head = stguard_test::u64_le(kN);
  head.insert(head.end(), prefix.begin(), prefix.end());
  const std::string path = WriteLarge(dir, "nested.safetensors", head, '[', kN - prefix.size());
  Stopwatch watch;
  // strict stops at the unknown field, reference at the nesting limit (depth
  // 128 at the 126th bracket), long before the end of the header; but the
  // brackets never close, and that syntax error at the end of the header
  // wins in both profiles (docs/reasons.md).
  EXPECT_TRUE(Rejects(File::open(path), Reason::kHeaderNotJson, 8 + kN));
  EXPECT_TRUE(Rejects(File::open(path, Reference()), Reason::kHeaderNotJson, 8 + kN));
  EXPECT_LT(watch.seconds(), kQuick);
}

TEST(BadInput, ExabyteTensorsAreRejectedWithoutAllocating) {
  TempDir dir;
  {
    // Shapes and offsets agree; the data is simply not there.
    const std::string h =
        "{" + entry("big", "U8", "1000000000000000000", 0, 1'000'000'000'000'000'000ULL) + "}";
    const std::string path = dir.write("eb.safetensors", make_file(h));
    EXPECT_TRUE(Rejects(File::open(path), Reason::kOffsetOutOfBounds, 8 + h.size()));
    EXPECT_TRUE(Rejects(File::open(path, Reference()), Reason::kOffsetOutOfBounds, 8 + h.size()));
  }
  {
    const std::string h =
        "{" + entry("a", "I64", "125000000000000000", 0, 1'000'000'000'000'000'000ULL) + "," +
        entry("b", "U8", "1000000000000000000", 1'000'000'000'000'000'000ULL,
              2'000'000'000'000'000'000ULL) +
        "}";
    const std::string path = dir.write("eb2.safetensors", make_file(h, 16));
    EXPECT_TRUE(Rejects(File::open(path), Reason::kOffsetOutOfBounds, 8 + h.size() + 16));
  }
  {
    // 10^18 doubles: the bit count overflows u64.
    const std::string h = "{" + entry("f", "F64", "1000000000000000000", 0, 0) + "}";
    const std::string path = dir.write("eb3.safetensors", make_file(h));
    EXPECT_TRUE(Rejects(File::open(path), Reason::kSizeOverflow, 9));
  }
  {
    // A rank-1000 shape of large dimensions.
    std::string shape;
    for (int i = 0; i < 1000; ++i) shape += (i ? ",1000000" : "1000000");
    const std::string h = "{" + entry("r", "U8", shape, 0, 0) + "}";
    const std::string path = dir.write("rank.safetensors", make_file(h));
    EXPECT_TRUE(Rejects(File::open(path), Reason::kSizeOverflow, 9));
  }
}

TEST(BadInput, AMillionTinyTensors) {
  constexpr std::uint64_t kCount = 1'000'000;
  // Built straight into the file buffer: 8-byte prefix, header, data.
  std::vector<std::uint8_t> file(8, 0);
  file.reserve(8 + kCount * 56 + kCount);
  auto put = [&file](std::string_view s) { file.insert(file.end(), s.begin(), s.end()); };
  auto put_number = [&file](std::uint64_t v) {
    char buf[24];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    file.insert(file.end(), buf, end);
  };
  std::size_t last_quote = 0;
  put("{");
  for (std::uint64_t i = 0; i < kCount; ++i) {
    // Layout order differs from document order (7919 is prime to 10^6).
    const std::uint64_t at = (i * 7919) % kCount;
    if (i > 0) put(",");
    last_quote = file.size();  // absolute: the buffer starts with the 8-byte prefix
    put("\"t");
    put_number(i);
    put("\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[");
    put_number(at);
    put(",");
    put_number(at + 1);
    put("]}");
  }
  put("}");
  const std::uint64_t n = file.size() - 8;
  for (int i = 0; i < 8; ++i)
    file[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(n >> (8 * i));
  file.resize(file.size() + kCount, 0xab);

  // One parse only: under ASan a million tensors cost seconds per pass.
  Stopwatch watch;
  const auto header = stguard::parse(file);
  EXPECT_LT(watch.seconds(), kQuick);
  ASSERT_TRUE(Accepts(header));
  ASSERT_EQ(header->tensors.size(), kCount);
  EXPECT_EQ(header->header_len, n);
  EXPECT_EQ(header->tensors[0].name, "t0");
  EXPECT_EQ(header->tensors[kCount - 1].name, "t999999");
  EXPECT_EQ(header->tensors[kCount - 1].begin, (999'999ULL * 7919) % kCount);
  EXPECT_EQ(header->tensors[kCount - 1].header_offset, last_quote);
  EXPECT_EQ(header->data_len(), kCount);
}

TEST(BadInput, FourGigabyteSparseDataIsNotRead) {
  TempDir dir;
  constexpr std::uint64_t kData = 4ULL << 30;
  const std::string h = "{" + entry("big", "U8", std::to_string(kData), 0, kData) + "}";
  FileBuilder builder(h);
  builder.pad_to_8();
  const std::vector<std::uint8_t> head = builder.build();
  const std::string path = dir.write("sparse.safetensors", head);
  Resize(path, head.size() + kData);

  Stopwatch watch;
  const auto checked = stguard::parse_file(path);
  ASSERT_TRUE(Accepts(checked));
  EXPECT_EQ(checked->data_len(), kData);
  auto file = File::open(path);
  ASSERT_TRUE(Accepts(file));
  EXPECT_LT(watch.seconds(), kQuick);
  EXPECT_EQ(file->bytes().size(), head.size() + kData);
  const auto data = file->tensor_data("big");
  ASSERT_TRUE(Accepts(data));
  ASSERT_EQ(data->size(), kData);
  EXPECT_EQ(data->data(), file->bytes().data() + head.size());
  // Touch one page at each end of the hole: zeros.
  EXPECT_EQ((*data)[0], 0);
  EXPECT_EQ((*data)[kData - 1], 0);

  // One byte more is trailing data; found from the size alone.
  Resize(path, head.size() + kData + 1);
  EXPECT_TRUE(Rejects(stguard::parse_file(path), Reason::kTrailingData, head.size() + kData));
}

}  // namespace
