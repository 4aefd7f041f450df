// tests/cli/verify_cli_test.cc: `stguard verify` end to end (STGUARD_CLI_PATH):
// exit statuses, one line per finding, the JSON document, usage errors. The
// folders come from tests/verify/folder_builder.h; the checks themselves are
// tested through the library in tests/verify/.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "folder_builder.h"
#include "hub_builder.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

using stguard_test::kShard3;
using stguard_test::TempDir;
using stguard_test::truncate_file;
using stguard_test::write_good_model;
using stguard_test::write_sums;

// `stguard verify args...`
stguard_test::CliRun run_verify_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "verify");
  return stguard_test::run_cli(args);
}

TEST(VerifyCli, GoodFolderExitsZero) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  const stguard_test::CliRun text = run_verify_cli({dir.path().string()});
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  // The checkpoint's line and the summary (reports are by checkpoint).
  EXPECT_EQ(std::count(text.out.begin(), text.out.end(), '\n'), 2) << text.out;
  const stguard_test::CliRun json = run_verify_cli({"--json", "-j", "2", dir.path().string()});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["ok"], true);
  EXPECT_EQ(doc["checksums"]["verified"], 6);
  EXPECT_TRUE(json.err.empty()) << json.err;  // no progress bar when not a TTY
}

// A name with an escape sequence, quoted in the parser's message, once
// showed as "\\x1b[2J" in verify where check shows "\x1b[2J": one escaping
// for the terminal, the same in both.
TEST(VerifyCli, AParserMessageIsEscapedOnceAsCheckShowsIt) {
  const TempDir dir;
  const std::string header = R"({"a\u001b[2J":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                             R"("a\u001b[2J":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})";
  std::string file(8, '\0');
  for (std::size_t i = 0; i < 8; ++i)
    file[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  file += header + "xy";
  std::ofstream(dir.file("model.safetensors"), std::ios::binary) << file;
  const stguard_test::CliRun check =
      stguard_test::run_cli({"check", dir.file("model.safetensors")});
  const stguard_test::CliRun verify = run_verify_cli({dir.path().string()});
  const std::string shown = R"(tensor name "a\x1b[2J" appears twice)";
  EXPECT_NE(check.out.find(shown), std::string::npos) << check.out;
  EXPECT_NE(verify.out.find(shown), std::string::npos) << verify.out;
  EXPECT_EQ(verify.out.find('\x1b'), std::string::npos) << verify.out;
}

TEST(VerifyCli, ProblemsExitOneOneLinePerFinding) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  truncate_file(dir.file(kShard3), 100);
  const stguard_test::CliRun run = run_verify_cli({"--quiet", dir.path().string()});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  // The checkpoint's line, shard_truncated + checksum_mismatch under it, summary.
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 4) << run.out;
  EXPECT_NE(run.out.find("shard_truncated"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("HEADER_LENGTH_EXCEEDS_FILE at byte 0"), std::string::npos) << run.out;
}

TEST(VerifyCli, CouldNotRunAndUsageExitTwo) {
  const TempDir dir;
  EXPECT_EQ(run_verify_cli({dir.file("absent")}).exit_code, 2);
  EXPECT_EQ(run_verify_cli({}).exit_code, 2);
  EXPECT_EQ(run_verify_cli({"--bogus", dir.path().string()}).exit_code, 2);
  EXPECT_EQ(run_verify_cli({"-j", "0", dir.path().string()}).exit_code, 2);
  EXPECT_EQ(run_verify_cli({"--sha256", dir.file("absent"), dir.path().string()}).exit_code, 2);
  const stguard_test::CliRun help = run_verify_cli({"--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("usage:"), std::string::npos);
}

// A file that could not be read is an I/O failure: exit status 2, as
// `stguard check` gives for IO_ERROR, even with other problems found.
TEST(VerifyCli, UnreadableFilesExitTwo) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  truncate_file(dir.file(kShard3), 0);  // a problem (exit 1) on its own
  std::filesystem::create_directory(dir.path() / "sub");
  std::ofstream(dir.file("SHA256SUMS"), std::ios::app) << std::string(64, '0') << "  sub\n";
  const stguard_test::CliRun run = run_verify_cli({"--quiet", dir.path().string()});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.out.find("checksum_unreadable"), std::string::npos) << run.out;
}

// The same with a shard that cannot be read. Root reads every file, so the
// command runs as an unprivileged user when the tests run as root.
TEST(VerifyCli, UnreadableShardExitsTwo) {
  const TempDir dir;
  write_good_model(dir);
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);
  std::filesystem::permissions(dir.file(kShard3), std::filesystem::perms::none);
  const stguard_test::CliRunAs run =
      stguard_test::run_cli_as({"verify", "--quiet", dir.path().string()}, {.unprivileged = true});
  std::filesystem::permissions(dir.file(kShard3), std::filesystem::perms::owner_all);
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.out.find("shard_unreadable"), std::string::npos) << run.out;
}

// Names that are not UTF-8 keep their bytes in "<field>_hex" beside the
// display form, so two such names stay apart in --json.
TEST(VerifyCli, JsonNamesThatAreNotUtf8CarryTheirBytes) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  std::ofstream(dir.file("x\xff.safetensors")) << "not a shard";
  std::ofstream(dir.file("x\xfe.safetensors")) << "not a shard";
  const stguard_test::CliRun run = run_verify_cli({"--json", "--quiet", dir.path().string()});
  const nlohmann::json doc = nlohmann::json::parse(run.out);
  std::vector<std::string> hex;
  for (const nlohmann::json& shard : doc["shards"]) {
    if (shard.contains("file_hex")) hex.push_back(shard["file_hex"].get<std::string>());
  }
  std::sort(hex.begin(), hex.end());
  EXPECT_EQ(hex, (std::vector<std::string>{"78fe2e7361666574656e736f7273",
                                           "78ff2e7361666574656e736f7273"}))
      << run.out;
}

// ------------------------------------------ multi-checkpoint folders --

// Each of the Hub's folder layouts exits 0, one `checkpoint` line per checkpoint.
TEST(VerifyCli, MultiCheckpointLayoutsExitZero) {
  struct Layout {
    const char* name;
    void (*write)(const TempDir&);
    std::size_t checkpoints;
  };
  const Layout layouts[] = {
      {"variant", stguard_test::write_variant_model, 2},
      {"consolidated", stguard_test::write_consolidated_beside_shards, 2},
      {"model.fp16", stguard_test::write_single_beside_variant, 2},
      {"adapter", stguard_test::write_adapter_beside_model, 2},
  };
  for (const Layout& layout : layouts) {
    const TempDir dir;
    layout.write(dir);
    const stguard_test::CliRun run = run_verify_cli({"--quiet", dir.path().string()});
    EXPECT_EQ(run.exit_code, 0) << layout.name << "\n" << run.out << run.err;
    std::size_t lines = 0;
    for (std::size_t at = run.out.find("checkpoint "); at != std::string::npos;
         at = run.out.find("\ncheckpoint ", at + 1)) {
      ++lines;
    }
    EXPECT_EQ(lines, layout.checkpoints) << layout.name << "\n" << run.out;
    EXPECT_NE(run.out.find("OK: " + std::to_string(layout.checkpoints) + " checkpoints"),
              std::string::npos)
        << run.out;
  }
}

TEST(VerifyCli, RecursiveCoversDiffusersSubfolders) {
  const TempDir dir;
  stguard_test::write_diffusers_pipeline(dir);
  EXPECT_EQ(run_verify_cli({"--quiet", dir.path().string()}).exit_code, 1);  // no_shards
  const stguard_test::CliRun run = run_verify_cli({"-r", "--quiet", dir.path().string()});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("checkpoint vae/diffusion_pytorch_model.safetensors: 1 shard, 2 tensors "
                         "(32 B): ok"),
            std::string::npos)
      << run.out;
  const stguard_test::CliRun json = run_verify_cli({"--recursive", "--json", dir.path().string()});
  EXPECT_EQ(json.exit_code, 0);
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["checkpoints"].size(), 4u);
  EXPECT_EQ(doc["checkpoints"][0]["folder"], "unet");
}

TEST(VerifyCli, TotalSizeMismatchIsAnErrorOnlyWithStrict) {
  const TempDir dir;
  write_good_model(dir);
  dir.write(stguard_test::kIndex,
            stguard_test::bytes_of(stguard_test::index_text(stguard_test::good_weight_map(), 1)));
  const stguard_test::CliRun lenient = run_verify_cli({"--quiet", dir.path().string()});
  EXPECT_EQ(lenient.exit_code, 0) << lenient.out;
  EXPECT_NE(lenient.out.find("warning total_size_mismatch"), std::string::npos) << lenient.out;
  const stguard_test::CliRun strict = run_verify_cli({"--strict", dir.path().string()});
  EXPECT_EQ(strict.exit_code, 1) << strict.out;
  EXPECT_NE(strict.out.find("error total_size_mismatch"), std::string::npos) << strict.out;
}

}  // namespace

// ------------------------------------------------------- Hugging Face layouts --

namespace {

using stguard_test::build_hub_repo;
using stguard_test::build_local_dir;
using stguard_test::flip_last_byte;
using stguard_test::HubRepo;
using stguard_test::kNewCommit;
using stguard_test::kShard2;

TEST(VerifyCliHub, CacheRepositoryTextAndJson) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  const stguard_test::CliRun text = run_verify_cli({repo.root.string()});
  EXPECT_EQ(text.exit_code, 0) << text.out << text.err;
  EXPECT_TRUE(text.out.starts_with("layout: hub-repo; checksums used: hub-blob-names\n"))
      << text.out;
  EXPECT_NE(text.out.find("snapshot " + kNewCommit + " (refs: main): 5 of 5 files verified"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("Hub checksums: 7 of 7 files match"), std::string::npos) << text.out;
  const stguard_test::CliRun json = run_verify_cli({"--json", repo.cache.string()});
  EXPECT_EQ(json.exit_code, 0) << json.err;
  const nlohmann::json doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["layout"], "hub-cache");
  EXPECT_EQ(doc["hub"]["repositories"][0]["name"], "models--org--tiny");
  EXPECT_EQ(doc["hub"]["files"].size(), 7u);
}

TEST(VerifyCliHub, FlippedBlobByteExitsOneNamingBothHashes) {
  const TempDir dir;
  const HubRepo repo = build_hub_repo(dir);
  const std::string blob = repo.blob_of(kNewCommit, kShard2);
  flip_last_byte(repo.blob_path(blob));
  const stguard_test::CliRun run = run_verify_cli({"--quiet", repo.root.string()});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("blobs/" + blob + ": error hub_content_mismatch"), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("expected sha256 " + blob), std::string::npos) << run.out;
}

TEST(VerifyCliHub, LocalDirFlippedByteExitsOne) {
  const TempDir dir;
  build_local_dir(dir);
  EXPECT_EQ(run_verify_cli({dir.path().string()}).exit_code, 0);
  flip_last_byte(dir.file(kShard2));
  const stguard_test::CliRun run = run_verify_cli({dir.path().string()});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_TRUE(run.out.starts_with("layout: local-dir; checksums used: local-dir-metadata\n"))
      << run.out;
}

TEST(VerifyCliHub, BadLayoutIsAUsageError) {
  const TempDir dir;
  const stguard_test::CliRun run = run_verify_cli({"--layout", "cache", dir.path().string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--layout is auto, folder, hub or local-dir"), std::string::npos)
      << run.err;
}

}  // namespace
