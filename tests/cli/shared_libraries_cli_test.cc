// tests/cli/shared_libraries_cli_test.cc: the system libraries that only some
// commands need are loaded by those commands alone (base/shared_library.h):
// libcrypto on the first hash, libarchive for `corpus export --tarball`,
// libcurl on the first HTTP request.
// The dynamic loader's own trace (LD_DEBUG=files) says what each process
// loaded, linked or opened.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using stguard_test::CliRun;
using stguard_test::run_cli;
using stguard_test::TempDir;

const fs::path kF32File = fs::path(STGUARD_SOURCE_DIR) / "corpus" / "dtypes" / "f32.safetensors";

bool loaded(const CliRun& run, const std::string& soname) {
  return run.err.find("file=" + soname) != std::string::npos;
}

// A folder of one valid file and a SHA256SUMS naming it, which verify hashes.
fs::path folder_with_checksums(const TempDir& dir) {
  const fs::path folder = dir.path() / "model";
  fs::create_directory(folder);
  fs::copy_file(kF32File, folder / "model.safetensors");
  std::ofstream(folder / "SHA256SUMS") << std::string(64, '0') << "  model.safetensors\n";
  return folder;
}

TEST(SharedLibraries, CheckAndInspectLoadNeitherLibcryptoNorLibarchive) {
  const std::string file = (kF32File).string();
  for (const char* command : {"check", "inspect"}) {
    SCOPED_TRACE(command);
    const CliRun run = run_cli({command, file}, {{"LD_DEBUG", "files"}});
    EXPECT_EQ(run.exit_code, 0) << run.out;
    // The trace is there at all (so its silence below means something).
    EXPECT_TRUE(loaded(run, "libc.so.6")) << run.err.substr(0, 2000);
    EXPECT_FALSE(loaded(run, "libcrypto.so.3")) << run.err;
    EXPECT_FALSE(loaded(run, "libarchive.so.13")) << run.err;
    EXPECT_FALSE(loaded(run, "libcurl.so.4")) << run.err;
  }
}

// A URL loads libcurl, with its first request (remote/http.h); nothing
// listens on port 9 of the loopback, so the check is an I/O error.
TEST(SharedLibraries, CheckOfAUrlOpensLibcurl) {
  const CliRun run = run_cli({"check", "--timeout", "5", "http://127.0.0.1:9/x.safetensors"},
                             {{"LD_DEBUG", "files"}});
  EXPECT_EQ(run.exit_code, 2) << run.out;
  EXPECT_TRUE(loaded(run, "libcurl.so.4")) << run.err.substr(0, 2000);
}

TEST(SharedLibraries, VerifyOpensLibcryptoWhenItHashes) {
  const TempDir dir;
  const fs::path folder = folder_with_checksums(dir);
  const CliRun run = run_cli({"verify", folder.string()}, {{"LD_DEBUG", "files"}});
  EXPECT_TRUE(loaded(run, "libcrypto.so.3")) << run.err.substr(0, 2000);
  EXPECT_NE(run.out.find("SHA256SUMS: 0 of 1 file match"), std::string::npos) << run.out;
  // Without checksums nothing is hashed, and nothing loads the library.
  fs::remove(folder / "SHA256SUMS");
  const CliRun plain = run_cli({"verify", folder.string()}, {{"LD_DEBUG", "files"}});
  EXPECT_EQ(plain.exit_code, 0) << plain.out << plain.err.substr(0, 2000);
  EXPECT_FALSE(loaded(plain, "libcrypto.so.3"));
}

// A libcrypto.so.3 without the EVP functions: the command stops at its first
// hash with a sentence and exit status 2 (the work was not done), and a
// command that does not hash runs as ever.
TEST(SharedLibraries, ALibcryptoWithoutEvpStopsHashingWithAReason) {
  const std::string fake_dir = fs::path(STGUARD_FAKE_LIBCRYPTO).parent_path().string();
  const TempDir dir;
  const fs::path folder = folder_with_checksums(dir);
  const CliRun run = run_cli({"verify", folder.string()}, {{"LD_LIBRARY_PATH", fake_dir}});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("libcrypto.so.3 lacks an EVP function stguard calls; hashing needs it"),
            std::string::npos)
      << run.err;
  const CliRun check =
      run_cli({"check", (folder / "model.safetensors").string()}, {{"LD_LIBRARY_PATH", fake_dir}});
  EXPECT_EQ(check.exit_code, 0) << check.err;
}

}  // namespace
