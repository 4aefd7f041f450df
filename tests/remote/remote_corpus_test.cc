// tests/remote/remote_corpus_test.cc: every corpus file served by a real
// HTTP server (nginx, on the loopback address) gets the verdict, reason,
// offset and message over HTTP that it gets on disk, in both profiles, and
// costs the header plus at most one request's worth of bytes.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "nginx_server.h"
#include "remote/head.h"
#include "remote/http.h"
#include "stguard/file.h"
#include "stguard/header.h"
#include "stguard/parser.h"
#include "tests/support/file_builder.h"
#include "tests/support/files.h"
#include "tests/support/temp_dir.h"

namespace {

namespace fs = std::filesystem;
using stguard::ParseOptions;
using stguard::Parser;
using stguard::Profile;
using stguard::Reason;
using stguard::remote::HttpClient;

const fs::path kCorpusDir = fs::path(STGUARD_SOURCE_DIR) / "corpus";

std::vector<std::string> corpus_files() {
  const nlohmann::json manifest =
      nlohmann::json::parse(stguard_test::read_text(kCorpusDir / "manifest.json"));
  std::vector<std::string> files;
  for (const nlohmann::json& c : manifest.at("cases")) files.push_back(c.at("file"));
  return files;
}

std::string describe(const stguard::Result<stguard::HeaderSummary>& r) {
  if (r) {
    return "accept " + std::to_string(r->tensor_count) +
           " tensors, N=" + std::to_string(r->header_len) + ", size " +
           std::to_string(r->file_size);
  }
  return std::string(stguard::reason_name(r.error().reason)) + " at " +
         std::to_string(r.error().offset) + ": " + r.error().message;
}

TEST(RemoteCorpus, EveryCaseGetsItsLocalVerdictOverHttpInBothProfiles) {
  stguard_test::NginxServer nginx(kCorpusDir);
  const std::vector<std::string> files = corpus_files();
  ASSERT_GT(files.size(), 600U);
  HttpClient client;
  Parser local_parser;
  Parser remote_parser;
  std::size_t rejected = 0;
  for (const Profile profile : {Profile::kStrict, Profile::kReference}) {
    ParseOptions options;
    options.profile = profile;
    for (const std::string& file : files) {
      SCOPED_TRACE(file);
      const auto local = local_parser.validate_file((kCorpusDir / file).string(), options);
      ASSERT_TRUE(local || local.error().reason != Reason::kIoError) << describe(local);
      const std::uint64_t before = client.traffic().body_bytes;
      const auto head = stguard::remote::read_head(client, nginx.url("/" + file), options);
      ASSERT_TRUE(head) << head.error().message;
      const auto remote = stguard::remote::validate_head(remote_parser, *head, options);
      EXPECT_EQ(describe(remote), describe(local));
      if (!local) ++rejected;
      // The header and at most the first request's worth besides.
      const std::uint64_t moved = client.traffic().body_bytes - before;
      const std::uint64_t size = fs::file_size(kCorpusDir / file);
      EXPECT_LE(moved, std::min(size, stguard::remote::kFirstRequestBytes) +
                           (local ? local->header_len : 0));
      // parse_head gives parse_file's tensors too.
      const auto parsed = stguard::remote::parse_head(remote_parser, *head, options);
      const auto parsed_local = stguard::parse_file((kCorpusDir / file).string(), options);
      ASSERT_EQ(parsed.has_value(), parsed_local.has_value());
      if (parsed) {
        EXPECT_EQ(parsed->tensors.size(), parsed_local->tensors.size());
      }
    }
  }
  EXPECT_GT(rejected, 300U);  // the comparison saw both verdicts
}

// A header longer than the first request: a second request reads the rest,
// and the bytes moved are the header's (8 + N) and no more.
TEST(RemoteCorpus, AHeaderLongerThanTheFirstRequestTakesOneMoreRequest) {
  stguard_test::TempDir dir;
  std::string header = "{";
  const int tensors = 4'000;
  for (int i = 0; i < tensors; ++i) {
    if (i > 0) header += ",";
    header += stguard_test::entry("model.layers." + std::to_string(i) + ".weight", "F32", "2",
                                  static_cast<std::uint64_t>(i) * 8,
                                  static_cast<std::uint64_t>(i + 1) * 8);
  }
  header += "}";
  const auto bytes = stguard_test::FileBuilder(header).pad_to_8().data_size(tensors * 8).build();
  dir.write("big.safetensors", bytes);
  const std::uint64_t n = bytes.size() - tensors * 8 - 8;
  ASSERT_GT(n, stguard::remote::kFirstRequestBytes);

  stguard_test::NginxServer nginx(dir.path());
  HttpClient client;
  Parser parser;
  const auto head = stguard::remote::read_head(client, nginx.url("/big.safetensors"), {});
  ASSERT_TRUE(head) << head.error().message;
  const auto verdict = stguard::remote::validate_head(parser, *head, {});
  ASSERT_TRUE(verdict) << verdict.error().message;
  EXPECT_EQ(verdict->tensor_count, static_cast<std::uint64_t>(tensors));
  EXPECT_EQ(client.traffic().requests, 2U);
  EXPECT_EQ(client.traffic().body_bytes, 8 + n);
  EXPECT_NE(nginx.access_log().find("206 " + std::to_string(8 + n - 100'000)), std::string::npos)
      << nginx.access_log();
}

}  // namespace
