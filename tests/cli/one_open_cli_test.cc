// tests/cli/one_open_cli_test.cc: `check` and `inspect` read FILE through one
// descriptor. The command is started with STGUARD_TEST_PAUSE_FD naming one
// end of a socket pair: it pauses between its two reads of FILE (the verdict,
// then the sniff of a rejected file or the value scan), the test renames
// another file over FILE there and lets it go on. The output must describe
// the file first opened, never its header with the other file's contents.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "folder_builder.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using stguard_test::bytes_of;
using stguard_test::CliRun;
using stguard_test::kF32Nan;
using stguard_test::kF32One;
using stguard_test::make_f32_shard;
using stguard_test::TempDir;

// The descriptor number the command gets its end of the socket pair as.
constexpr int kPauseFd = 100;

// Runs `stguard args...`; when it pauses (STGUARD_TEST_PAUSE_FD), calls
// `between` and lets it go on. A command that never pauses fails the test.
CliRun run_pausing(const std::vector<std::string>& args, const std::function<void()>& between) {
  int pair[2] = {-1, -1};
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    ADD_FAILURE() << "socketpair failed";
    return {};
  }
  stguard_test::StartedCli command(args, {{"STGUARD_TEST_PAUSE_FD", std::to_string(kPauseFd)}},
                                   {pair[1], kPauseFd});
  ::close(pair[1]);
  if (!command.started()) {
    ::close(pair[0]);
    return {};
  }
  char paused = 0;
  ssize_t n = 0;
  do {
    n = ::read(pair[0], &paused, 1);
  } while (n < 0 && errno == EINTR);
  if (n == 1) {
    between();
    const char go = 'g';
    do {
      n = ::write(pair[0], &go, 1);
    } while (n < 0 && errno == EINTR);
  } else {
    ADD_FAILURE() << "the command did not pause between its two reads of the file";
  }
  ::close(pair[0]);
  return command.wait();
}

// Renames `bytes`, written beside `path`, over `path` (as `mv B A`).
void replace_by_rename(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  const std::string staged = path + ".staged";
  const TempDir scratch;
  fs::copy_file(scratch.write("b", bytes), staged);
  fs::rename(staged, path);
}

const std::string kLfsPointer =
    "version https://git-lfs.github.com/spec/v1\n"
    "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
    "size 12345\n";
const std::string kHtmlPage =
    "<!DOCTYPE html>\n<html><head><title>404 Not Found</title></head><body></body></html>\n";

TEST(OneOpenCli, InspectScansTheValuesOfTheFileItsHeaderCameFrom) {
  const TempDir dir;
  const std::string file =
      dir.write("a.safetensors", make_f32_shard({{"w", {kF32One, kF32One, kF32One, kF32One}}}));
  const std::vector<std::uint8_t> nan =
      make_f32_shard({{"w", {kF32Nan, kF32Nan, kF32Nan, kF32Nan}}});
  for (const bool as_json : {false, true}) {
    std::vector<std::string> args = {"inspect", "--scan-values", file};
    if (as_json) args.insert(args.begin() + 1, "--json");
    const TempDir restore;
    const std::string first = restore.write("a", bytes_of(stguard_test::read_text(file)));
    const CliRun run = run_pausing(args, [&] { replace_by_rename(file, nan); });
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;  // no NaN: the first file's values
    EXPECT_EQ(run.out.find("1 with NaN"), std::string::npos) << run.out;
    fs::copy_file(first, file, fs::copy_options::overwrite_existing);
  }
}

TEST(OneOpenCli, CheckSniffsTheFileItRejected) {
  const TempDir dir;
  const std::string file = dir.write("a.safetensors", bytes_of(kLfsPointer));
  const CliRun text =
      run_pausing({"check", file}, [&] { replace_by_rename(file, bytes_of(kHtmlPage)); });
  EXPECT_EQ(text.exit_code, 1) << text.err;
  EXPECT_NE(text.out.find("Git LFS pointer"), std::string::npos) << text.out;
  EXPECT_EQ(text.out.find("HTML"), std::string::npos) << text.out;

  dir.write("a.safetensors", bytes_of(kLfsPointer));
  const CliRun json_run =
      run_pausing({"check", "--json", file}, [&] { replace_by_rename(file, bytes_of(kHtmlPage)); });
  EXPECT_NE(json_run.out.find("\"content\":\"git_lfs_pointer\""), std::string::npos)
      << json_run.out;
}

TEST(OneOpenCli, InspectSniffsTheFileItRejected) {
  const TempDir dir;
  const std::string file = dir.write("a.safetensors", bytes_of(kLfsPointer));
  const CliRun run = run_pausing({"inspect", "--json", file},
                                 [&] { replace_by_rename(file, bytes_of(kHtmlPage)); });
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.out.find("\"content\":\"git_lfs_pointer\""), std::string::npos) << run.out;
}

}  // namespace
