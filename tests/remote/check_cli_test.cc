// tests/remote/check_cli_test.cc: `stguard check` on URLs and hf://
// addresses end to end: the lines, JSON records, SARIF locations and exit
// statuses of docs/cli.md, the Hub's token sent and never shown.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "test_server.h"
#include "tests/support/file_builder.h"
#include "tests/support/files.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

using stguard_test::http_answer;
using stguard_test::HttpConnection;
using stguard_test::HttpRequest;
using stguard_test::run_cli;
using stguard_test::TestServer;

std::string file_of(const std::vector<std::uint8_t>& bytes) {
  return std::string(bytes.begin(), bytes.end());
}

// /good: a valid file; /gap: a hole in its data; /lfs: a Git LFS pointer;
// anything else: 404.
TestServer files_server() {
  return TestServer([](const HttpRequest& request, HttpConnection& out) {
    const std::string good =
        file_of(stguard_test::FileBuilder("{" + stguard_test::entry("a", "F32", "2", 0, 8) + "}")
                    .pad_to_8()
                    .data_size(8)
                    .build());
    const std::string gap =
        file_of(stguard_test::FileBuilder("{" + stguard_test::entry("a", "F32", "2", 0, 8) + "," +
                                          stguard_test::entry("b", "F32", "1", 12, 16) + "}")
                    .pad_to_8()
                    .data_size(16)
                    .build());
    const std::string lfs =
        "version https://git-lfs.github.com/spec/v1\noid sha256:" + std::string(64, 'a') +
        "\nsize 123456\n";
    if (request.target == "/good") return stguard_test::serve_bytes(good, request, out);
    if (request.target == "/gap") return stguard_test::serve_bytes(gap, request, out);
    if (request.target == "/lfs") return stguard_test::serve_bytes(lfs, request, out);
    out.write(http_answer(404, {{"Content-Length", "0"}}));
  });
}

TEST(CheckUrl, PrintsVerdictsAsForLocalFiles) {
  TestServer server = files_server();
  const auto run = run_cli({"check", server.url("/good"), server.url("/gap"), server.url("/lfs")});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_NE(run.out.find(server.url("/good") + ": accept (1 tensor, header "), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find(server.url("/gap") + ": reject OFFSET_GAP at byte "), std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find(server.url("/lfs") + ": reject "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Git LFS pointer"), std::string::npos) << run.out;
}

TEST(CheckUrl, AnUnreadableUrlIsExitTwoWithItsReason) {
  TestServer server = files_server();
  const auto run = run_cli({"check", "--json", server.url("/good"), server.url("/missing")});
  EXPECT_EQ(run.exit_code, 2);
  std::istringstream lines(run.out);
  std::string line;
  ASSERT_TRUE(std::getline(lines, line));
  EXPECT_EQ(nlohmann::json::parse(line).at("verdict"), "accept");
  ASSERT_TRUE(std::getline(lines, line));
  const nlohmann::json record = nlohmann::json::parse(line);
  EXPECT_EQ(record.at("verdict"), "error");
  EXPECT_EQ(record.at("reason"), "IO_ERROR");
  EXPECT_NE(record.at("message").get<std::string>().find("HTTP 404: not found"), std::string::npos);
  EXPECT_NE(run.err.find("could not read " + server.url("/missing")), std::string::npos);
}

TEST(CheckUrl, SarifNamesTheUrlAsIs) {
  TestServer server = files_server();
  stguard_test::TempDir dir;
  const std::string log = dir.file("check.sarif");
  const auto run = run_cli({"check", "--sarif", log, server.url("/gap?x=1")});
  EXPECT_EQ(run.exit_code, 2);  // /gap?x=1 is not /gap: 404
  const auto run2 = run_cli({"check", "--sarif", log, server.url("/gap")});
  EXPECT_EQ(run2.exit_code, 1);
  const nlohmann::json sarif = nlohmann::json::parse(stguard_test::read_text(log));
  const nlohmann::json& location =
      sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
  EXPECT_EQ(location.at("uri"), server.url("/gap"));
  EXPECT_FALSE(location.contains("uriBaseId"));
}

TEST(CheckUrl, BadJobsAndTimeoutAreUsageErrors) {
  EXPECT_EQ(run_cli({"check", "--jobs", "0", "x"}).exit_code, 2);
  EXPECT_EQ(run_cli({"check", "--timeout", "soon", "x"}).exit_code, 2);
}

TEST(CheckHub, ARepositoryIsCheckedFileByFileAndTheTokenIsNeverShown) {
  TestServer cdn = files_server();
  TestServer hub([&](const HttpRequest& request, HttpConnection& out) {
    if (request.target == "/api/models/org/model/tree/main?recursive=true") {
      const std::string listing = R"([{"type":"file","path":"b.safetensors","size":1},)"
                                  R"({"type":"file","path":"a.safetensors","size":1},)"
                                  R"({"type":"file","path":"config.json","size":2}])";
      out.write(http_answer(200, {{"Content-Length", std::to_string(listing.size())}}, listing));
      return;
    }
    if (request.target == "/org/model/resolve/main/a.safetensors") {
      out.write(http_answer(302, {{"Location", cdn.url("/good")}, {"Content-Length", "0"}}));
      return;
    }
    if (request.target == "/org/model/resolve/main/b.safetensors") {
      out.write(http_answer(302, {{"Location", cdn.url("/gap")}, {"Content-Length", "0"}}));
      return;
    }
    out.write(http_answer(404, {{"Content-Length", "0"}}));
  });
  const std::string secret = "hf_do_not_print_me";
  const auto run =
      run_cli({"check", "hf://org/model"}, {{"HF_ENDPOINT", hub.url("")}, {"HF_TOKEN", secret}});
  // The listing's sizes (1 byte) are not the files' sizes: both are I/O errors.
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.out.find("hf://org/model@main/a.safetensors: error IO_ERROR: "
                         "hf://org/model@main/a.safetensors: the server gives the file "),
            std::string::npos)
      << run.out;
  EXPECT_LT(run.out.find("a.safetensors"), run.out.find("b.safetensors"));
  EXPECT_EQ(run.out.find(secret), std::string::npos);
  EXPECT_EQ(run.err.find(secret), std::string::npos);
  bool sent = false;
  for (const HttpRequest& r : hub.requests()) {
    sent = sent || (r.has("authorization") && r.headers.at("authorization") == "Bearer " + secret);
  }
  EXPECT_TRUE(sent);
  for (const HttpRequest& r : cdn.requests()) EXPECT_FALSE(r.has("authorization"));

  // One file by its address: its own verdict.
  const auto one =
      run_cli({"check", "hf://org/model/b.safetensors"}, {{"HF_ENDPOINT", hub.url("")}});
  EXPECT_EQ(one.exit_code, 1) << one.out << one.err;
  EXPECT_NE(one.out.find("hf://org/model/b.safetensors: reject OFFSET_GAP"), std::string::npos)
      << one.out;
}

TEST(CheckHub, AMalformedAddressIsAnErrorForThatArgumentAlone) {
  const auto run = run_cli({"check", "hf://org", "hf://org/model/../x"},
                           {{"HF_ENDPOINT", "http://127.0.0.1:9"}});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.out.find("hf://org: error IO_ERROR: hf://org: expected hf://ORG/NAME"),
            std::string::npos)
      << run.out;
}

}  // namespace

namespace {

// --files-from LIST: paths and URLs one per line, after the FILEs given;
// "-" reads the list from standard input.
TEST(CheckUrl, FilesFromAListOrStandardInput) {
  TestServer server = files_server();
  stguard_test::TempDir dir;
  const std::string local =
      dir.write("local.safetensors",
                stguard_test::FileBuilder("{" + stguard_test::entry("x", "U8", "1", 0, 1) + "}")
                    .pad_to_8()
                    .data_size(1)
                    .build());
  const std::string list = dir.file("list.txt");
  std::ofstream(list) << server.url("/good") << "\r\n\n" << local << "\n" << server.url("/gap");
  const auto run = run_cli({"check", server.url("/good"), "--files-from", list});
  EXPECT_EQ(run.exit_code, 1) << run.err;
  std::istringstream lines(run.out);
  std::vector<std::string> firsts;
  for (std::string line; std::getline(lines, line);)
    firsts.push_back(line.substr(0, line.find(": ")));
  EXPECT_EQ(firsts, (std::vector<std::string>{server.url("/good"), server.url("/good"), local,
                                              server.url("/gap")}));

  const int fd = ::open(list.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  const auto piped = stguard_test::StartedCli({"check", "--files-from", "-"}, {}, {fd, 0}).wait();
  ::close(fd);
  EXPECT_EQ(piped.exit_code, 1) << piped.err;
  EXPECT_EQ(std::count(piped.out.begin(), piped.out.end(), '\n'), 3);

  const auto missing = run_cli({"check", "--files-from", dir.file("none.txt")});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("none.txt"), std::string::npos) << missing.err;
}

}  // namespace
