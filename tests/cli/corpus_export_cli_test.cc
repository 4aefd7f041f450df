// tests/cli/corpus_export_cli_test.cc: `stguard corpus export --tarball`,
// the corpus release (docs/cli.md, "stguard corpus"): named after the
// manifest's corpus_version, the same bytes every time, holding the cases,
// the manifests, docs/spec.md, the licence and SHA256SUMS that check.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/files.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using stguard_test::CliRun;
using stguard_test::run_cli;
using stguard_test::TempDir;

const fs::path kSource = STGUARD_SOURCE_DIR;

using stguard_test::read_text;

std::string corpus_version() {
  const nlohmann::json manifest =
      nlohmann::json::parse(read_text(kSource / "corpus" / "manifest.json"));
  return manifest.value("corpus_version", "");
}

CliRun export_tarball(const fs::path& dir, const fs::path& corpus = kSource / "corpus") {
  return run_cli({"corpus", "export", "--tarball", dir.string(), "--corpus", corpus.string(),
                  "--data-dir", kSource.string()});
}

TEST(CorpusExportCli, TarballIsTheVersionedReleaseTheSameEveryTime) {
  const std::string version = corpus_version();
  ASSERT_FALSE(version.empty()) << "corpus/manifest.json has no corpus_version";
  const std::string name = "stguard-corpus-" + version + ".tar.gz";
  const TempDir first;
  const TempDir second;
  const CliRun a = export_tarball(first.path());
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("exported corpus " + version), std::string::npos) << a.out;
  const CliRun b = export_tarball(second.path());
  ASSERT_EQ(b.exit_code, 0) << b.err;
  ASSERT_TRUE(fs::is_regular_file(first.path() / name)) << a.out;
  EXPECT_TRUE(read_text(first.path() / name) == read_text(second.path() / name))
      << "two exports of one corpus differ";

  // Unpacked: the manifest as committed, the spec and licence, and checksums
  // of every other file that sha256sum accepts.
  const std::string untar =
      "tar -xzf '" + (first.path() / name).string() + "' -C '" + first.path().string() + "'";
  ASSERT_EQ(std::system(untar.c_str()), 0);
  const fs::path top = first.path() / ("stguard-corpus-" + version);
  EXPECT_TRUE(read_text(top / "manifest.json") == read_text(kSource / "corpus" / "manifest.json"));
  EXPECT_TRUE(read_text(top / "spec.md") == read_text(kSource / "docs" / "spec.md"));
  EXPECT_TRUE(read_text(top / "LICENSE") == read_text(kSource / "LICENSE"));
  EXPECT_TRUE(fs::is_regular_file(top / "layout" / "gap-between.safetensors"));
  EXPECT_TRUE(fs::is_regular_file(top / "writers" / "manifest.json"));
  const std::string check = "cd '" + top.string() + "' && sha256sum --quiet --strict -c SHA256SUMS";
  EXPECT_EQ(std::system(check.c_str()), 0);
  std::size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(top)) files += entry.is_regular_file();
  std::istringstream sums(read_text(top / "SHA256SUMS"));
  std::size_t lines = 0;
  for (std::string line; std::getline(sums, line);) ++lines;
  EXPECT_EQ(lines + 1, files) << "SHA256SUMS lists every file but itself";
}

TEST(CorpusExportCli, AManifestWithoutAVersionIsNoRelease) {
  const TempDir dir;
  const fs::path corpus = dir.path() / "corpus";
  fs::create_directories(corpus);
  nlohmann::ordered_json manifest =
      nlohmann::ordered_json::parse(read_text(kSource / "corpus" / "manifest.json"));
  manifest.erase("corpus_version");
  manifest["cases"] = nlohmann::ordered_json::array();
  std::ofstream(corpus / "manifest.json") << manifest.dump();
  const CliRun run = export_tarball(dir.path(), corpus);
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("names no corpus_version"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(dir.path() / "stguard-corpus-.tar.gz"));
}

TEST(CorpusExportCli, FlatOrTarballNotBoth) {
  const TempDir dir;
  const CliRun both = run_cli({"corpus", "export", "--flat", (dir.path() / "flat").string(),
                               "--tarball", dir.path().string(), "--data-dir", kSource.string()});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("one of --flat DIR and --tarball DIR"), std::string::npos) << both.err;
  const CliRun neither = run_cli({"corpus", "export", "--data-dir", kSource.string()});
  EXPECT_EQ(neither.exit_code, 2);
}

// `corpus export --flat` once kept a file the user had edited, of a case no
// longer in the corpus, without a word; `corpus build` says it.
TEST(CorpusExportCli, FlatSaysWhichStaleFilesItKept) {
  const TempDir dir;
  const fs::path flat = dir.path() / "flat";
  ASSERT_EQ(run_cli({"corpus", "export", "--flat", flat.string(), "--corpus",
                     (kSource / "corpus").string()})
                .exit_code,
            0);
  // The next corpus lacks two cases: one file left as exported, one edited.
  const fs::path smaller = dir.path() / "corpus";
  fs::copy(kSource / "corpus", smaller, fs::copy_options::recursive);
  nlohmann::json manifest = nlohmann::json::parse(read_text(smaller / "manifest.json"));
  std::vector<std::string> flat_names;
  for (int i = 0; i < 2; ++i) {
    const nlohmann::json gone = manifest["cases"][0];
    manifest["cases"].erase(manifest["cases"].begin());
    const std::string prefix = gone["verdict"] == "accept"   ? "y_"
                               : gone["verdict"] == "reject" ? "n_"
                                                             : "i_";
    std::string id = gone["id"];
    std::replace(id.begin(), id.end(), '/', '_');
    flat_names.push_back(prefix + id + ".safetensors");
  }
  std::ofstream(smaller / "manifest.json") << manifest.dump();
  ASSERT_TRUE(fs::exists(flat / flat_names[1])) << flat_names[1];
  std::ofstream(flat / flat_names[1]) << "edited";
  const CliRun r =
      run_cli({"corpus", "export", "--flat", flat.string(), "--corpus", smaller.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("removed stale " + flat_names[0]), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("kept " + flat_names[1] + ": an earlier export made it, but it changed"),
            std::string::npos)
      << r.out;
  EXPECT_FALSE(fs::exists(flat / flat_names[0]));
  EXPECT_EQ(read_text(flat / flat_names[1]), "edited");
}

}  // namespace
