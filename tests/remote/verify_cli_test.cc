// tests/remote/verify_cli_test.cc: `stguard verify` of a remote repository
// end to end: an index URL through nginx gives the findings a local copy
// gets; hf://ORG/NAME through a fake Hub holds shard sizes against the
// listing; what needs the data is refused or reported as not checked.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "nginx_server.h"
#include "test_server.h"
#include "tests/support/file_builder.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using stguard_test::http_answer;
using stguard_test::HttpConnection;
using stguard_test::HttpRequest;
using stguard_test::run_cli;
using stguard_test::TempDir;
using stguard_test::TestServer;

std::string shard_of(const std::vector<std::string>& names) {
  std::string header = "{";
  std::uint64_t at = 0;
  for (const std::string& n : names) {
    if (at > 0) header += ",";
    header += stguard_test::entry(n, "F32", "2", at, at + 8);
    at += 8;
  }
  header += "}";
  const auto bytes = stguard_test::FileBuilder(header).pad_to_8().data_size(at).build();
  return {bytes.begin(), bytes.end()};
}

const std::string kIndexText =
    R"({"metadata":{"total_size":32},"weight_map":{"a":"m-00001-of-00002.safetensors",)"
    R"("b":"m-00001-of-00002.safetensors","c":"m-00002-of-00002.safetensors",)"
    R"("ghost":"m-00002-of-00002.safetensors"}})";

// A two-shard model whose index names a tensor no shard has, and whose
// second shard holds one the index does not name.
void write_model(const fs::path& dir) {
  fs::create_directories(dir);
  std::ofstream(dir / "m-00001-of-00002.safetensors", std::ios::binary) << shard_of({"a", "b"});
  std::ofstream(dir / "m-00002-of-00002.safetensors", std::ios::binary) << shard_of({"c", "d"});
  std::ofstream(dir / "m.safetensors.index.json") << kIndexText;
}

// The lines of a text report that do not depend on where the files are.
std::string findings_of(const std::string& out) {
  std::istringstream lines(out);
  std::string kept;
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("layout:", 0) == 0) continue;
    const std::size_t contents = line.find("; contents not verified");
    const std::size_t sums = line.find("; no SHA256SUMS");
    kept += line.substr(0, std::min(contents, sums)) + "\n";
  }
  return kept;
}

TEST(VerifyUrl, AnIndexUrlGetsTheFindingsOfALocalCopy) {
  const TempDir dir;
  write_model(dir.path() / "model");
  stguard_test::NginxServer nginx(dir.path());
  const auto local = run_cli({"verify", (dir.path() / "model").string()});
  const auto remote = run_cli({"verify", nginx.url("/model/m.safetensors.index.json")});
  EXPECT_EQ(local.exit_code, 1) << local.out << local.err;
  EXPECT_EQ(remote.exit_code, 1) << remote.out << remote.err;
  EXPECT_EQ(findings_of(remote.out), findings_of(local.out));
  EXPECT_NE(remote.out.find("tensor_missing"), std::string::npos) << remote.out;
  EXPECT_NE(remote.out.find("contents not verified (remote: only headers were fetched)"),
            std::string::npos);
  // Each shard cost one request of its header's bytes, not the whole file.
  EXPECT_NE(nginx.access_log().find("/model/m-00002-of-00002.safetensors"), std::string::npos);
}

TEST(VerifyUrl, OneShardUrlAndUsageErrors) {
  const TempDir dir;
  write_model(dir.path() / "model");
  stguard_test::NginxServer nginx(dir.path());
  const auto one = run_cli({"verify", "--json", nginx.url("/model/m-00001-of-00002.safetensors")});
  const nlohmann::json report = nlohmann::json::parse(one.out);
  EXPECT_EQ(report.at("layout"), "remote");
  EXPECT_EQ(report.at("shards").size(), 1U);
  EXPECT_EQ(report.at("checksums"), nullptr);
  EXPECT_EQ(
      run_cli({"verify", "--scan-values", nginx.url("/model/m.safetensors.index.json")}).exit_code,
      2);
  const auto other = run_cli({"verify", nginx.url("/model/README.md")});
  EXPECT_EQ(other.exit_code, 2);
  EXPECT_NE(other.err.find("not a repository, a .safetensors file or a shard index"),
            std::string::npos)
      << other.err;
  const auto gone = run_cli({"verify", nginx.url("/model/none.safetensors.index.json")});
  EXPECT_EQ(gone.exit_code, 2);
  EXPECT_NE(gone.err.find("HTTP 404"), std::string::npos) << gone.err;
}

TEST(VerifyHub, ARepositoryIsVerifiedFromItsListingAndHeaders) {
  const std::string shard1 = shard_of({"a", "b"});
  const std::string shard2 = shard_of({"c", "d"});
  TestServer hub([&](const HttpRequest& request, HttpConnection& out) {
    if (request.target == "/api/models/org/model/tree/main?recursive=true") {
      const nlohmann::json listing = {
          {{"type", "file"}, {"path", "m-00001-of-00002.safetensors"}, {"size", shard1.size()}},
          // The listing's size is not the served file's.
          {{"type", "file"}, {"path", "m-00002-of-00002.safetensors"}, {"size", 4096}},
          {{"type", "file"}, {"path", "m.safetensors.index.json"}, {"size", kIndexText.size()}},
          {{"type", "file"}, {"path", "SHA256SUMS"}, {"size", 10}},
          {{"type", "file"}, {"path", "config.json"}, {"size", 2}}};
      const std::string body = listing.dump();
      out.write(http_answer(200, {{"Content-Length", std::to_string(body.size())}}, body));
      return;
    }
    const std::string prefix = "/org/model/resolve/main/";
    if (request.target == prefix + "m-00001-of-00002.safetensors") {
      return stguard_test::serve_bytes(shard1, request, out);
    }
    if (request.target == prefix + "m-00002-of-00002.safetensors") {
      return stguard_test::serve_bytes(shard2, request, out);
    }
    if (request.target == prefix + "m.safetensors.index.json") {
      return stguard_test::serve_bytes(kIndexText, request, out);
    }
    out.write(http_answer(404, {{"Content-Length", "0"}}));
  });
  const std::string secret = "hf_never_in_any_output";
  const auto run =
      run_cli({"verify", "hf://org/model"}, {{"HF_ENDPOINT", hub.url("")}, {"HF_TOKEN", secret}});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(
      run.out.find("m-00002-of-00002.safetensors: error shard_size_mismatch: the server "
                   "sends " +
                   std::to_string(shard2.size()) + " bytes, the repository's listing says 4096"),
      std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("tensor_missing"), std::string::npos);
  EXPECT_EQ(run.out.find(secret), std::string::npos);
  EXPECT_EQ(run.err.find(secret), std::string::npos);
  for (const HttpRequest& r : hub.requests()) {
    EXPECT_EQ(r.target.find("SHA256SUMS"), std::string::npos);  // contents are not fetched
    EXPECT_EQ(r.target.find("config.json"), std::string::npos);
  }
  const auto sarif_dir = TempDir();
  const std::string log = sarif_dir.file("v.sarif");
  run_cli({"verify", "--sarif", log, "hf://org/model"}, {{"HF_ENDPOINT", hub.url("")}});
  std::ifstream in(log);
  const nlohmann::json sarif = nlohmann::json::parse(in);
  // The repository is the results' base URI, as it is, with no working directory under it.
  const nlohmann::json base = sarif["runs"][0]["originalUriBaseIds"];
  ASSERT_FALSE(base.empty()) << sarif.dump();
  for (const auto& [id, location] : base.items()) {
    if (location.at("uri") != "hf://org/model@main/") continue;
    EXPECT_FALSE(location.contains("uriBaseId")) << base.dump();
    return;
  }
  ADD_FAILURE() << "no base hf://org/model@main/ in " << base.dump();
}

TEST(VerifyHub, AMissingRepositoryCannotRun) {
  TestServer hub([](const HttpRequest&, HttpConnection& out) {
    out.write(
        http_answer(404, {{"X-Error-Message", "Repository not found"}, {"Content-Length", "0"}}));
  });
  const auto run = run_cli({"verify", "hf://org/none"}, {{"HF_ENDPOINT", hub.url("")}});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("HTTP 404: not found (server: Repository not found)"), std::string::npos)
      << run.err;
}

}  // namespace
