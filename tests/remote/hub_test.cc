// tests/remote/hub_test.cc: hf:// addresses, the token's scope, and a fake
// Hub (tests/remote/test_server.h) answering the listing and resolve URLs,
// its files redirected to a second server as the real Hub sends them to its
// CDN.
#include "remote/hub.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "remote/head.h"
#include "remote/http.h"
#include "test_server.h"
#include "tests/support/file_builder.h"

namespace {

using stguard::remote::HubAddress;
using stguard::remote::parse_hub_address;
using stguard_test::http_answer;
using stguard_test::HttpConnection;
using stguard_test::HttpRequest;
using stguard_test::TestServer;

TEST(HubAddress, ParsesRepositoryRevisionAndPath) {
  const auto a = parse_hub_address("hf://org/model");
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->repo, "org/model");
  EXPECT_EQ(a->revision, "main");
  EXPECT_EQ(a->path, "");
  const auto b = parse_hub_address("hf://org/model@v1.0/sub/x.safetensors");
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(b->revision, "v1.0");
  EXPECT_EQ(b->path, "sub/x.safetensors");
  const auto c = parse_hub_address("hf://org/model@refs/pr/12/x.safetensors");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_EQ(c->revision, "refs/pr/12");
  EXPECT_EQ(c->path, "x.safetensors");
  const auto d = parse_hub_address("hf://org/model/");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->path, "");
}

TEST(HubAddress, RefusesMalformedAddresses) {
  for (const char* bad :
       {"hf://", "hf://org", "hf:///model", "hf://org/", "hf://org/mo del", "hf://org/model@",
        "hf://org/model@/x", "hf://org/model/../x", "hf://org/model/a//b", "hf://org/model/a\\b",
        "hf://../model", "hf://org/model/x\x01y"}) {
    SCOPED_TRACE(bad);
    EXPECT_FALSE(parse_hub_address(bad));
  }
}

TEST(HubAddress, ResolveUrlsAreEncoded) {
  stguard::remote::HubSettings hub;
  hub.endpoint = "https://hub.example";
  const auto a = parse_hub_address("hf://org/model@refs/pr/1/dir/a b.safetensors");
  ASSERT_TRUE(a);
  EXPECT_EQ(stguard::remote::resolve_url(hub, *a, a->path),
            "https://hub.example/org/model/resolve/refs%2Fpr%2F1/dir/a%20b.safetensors");
}

TEST(HubAddress, OriginsCompareSchemeHostAndPort) {
  EXPECT_EQ(stguard::remote::origin_of("https://HuggingFace.co/org/x"), "https://huggingface.co");
  EXPECT_EQ(stguard::remote::origin_of("http://user:pw@h:8080/x?y"), "http://h:8080");
  EXPECT_EQ(stguard::remote::origin_of("hf://org/x"), "");
}

// The valid file each shard of the fake repository holds.
std::string shard(const std::string& name) {
  const auto bytes =
      stguard_test::FileBuilder("{" + stguard_test::entry(name, "F32", "2", 0, 8) + "}")
          .pad_to_8()
          .data_size(8)
          .build();
  return std::string(bytes.begin(), bytes.end());
}

// A Hub with one repository, org/model: two shards, an index and a README,
// listed over two pages; files redirected to `cdn`. org/gated answers 401
// with the Hub's error headers.
struct FakeHub {
  FakeHub()
      : cdn([](const HttpRequest& request, HttpConnection& out) {
          const std::string name = request.target.substr(1);
          stguard_test::serve_bytes(shard(name), request, out);
        }),
        hub([this](const HttpRequest& request, HttpConnection& out) { answer(request, out); }) {}

  void answer(const HttpRequest& request, HttpConnection& out) {
    const std::string& t = request.target;
    if (t == "/api/models/org/model/tree/main?recursive=true") {
      const nlohmann::json page = {{{"type", "file"}, {"path", "README.md"}, {"size", 10}},
                                   {{"type", "directory"}, {"path", "sub"}, {"size", 0}},
                                   {{"type", "file"},
                                    {"path", "model-00002-of-00002.safetensors"},
                                    {"size", 134},
                                    {"lfs", {{"size", shard("b").size()}, {"oid", "x"}}}}};
      out.write(http_answer(
          200,
          {{"Link", "<" + hub.url("/api/models/org/model/tree/main?recursive=true&cursor=2") +
                        ">; rel=\"next\""},
           {"Content-Length", std::to_string(page.dump().size())}},
          page.dump()));
      return;
    }
    if (t == "/api/models/org/model/tree/main?recursive=true&cursor=2") {
      const nlohmann::json page = {
          {{"type", "file"},
           {"path", "model-00001-of-00002.safetensors"},
           {"size", shard("a").size()}},
          {{"type", "file"}, {"path", "model.safetensors.index.json"}, {"size", 99}}};
      out.write(
          http_answer(200, {{"Content-Length", std::to_string(page.dump().size())}}, page.dump()));
      return;
    }
    const std::string prefix = "/org/model/resolve/main/model-0000";
    if (t.rfind(prefix, 0) == 0) {
      const std::string name = t[prefix.size()] == '1' ? "/a" : "/b";
      out.write(http_answer(302, {{"Location", cdn.url(name)}, {"Content-Length", "0"}}));
      return;
    }
    if (t.rfind("/api/models/org/gated/", 0) == 0 || t.rfind("/org/gated/", 0) == 0) {
      out.write(http_answer(401, {{"X-Error-Code", "GatedRepo"},
                                  {"X-Error-Message", "Access to model org/gated is restricted."},
                                  {"Content-Length", "0"}}));
      return;
    }
    out.write(http_answer(404, {{"X-Error-Code", "RepoNotFound"},
                                {"X-Error-Message", "Repository not found"},
                                {"Content-Length", "0"}}));
  }

  stguard::remote::HubSettings settings() const {
    stguard::remote::HubSettings s;
    s.endpoint = hub.url("");
    s.token = "hf_secret_token";
    return s;
  }

  TestServer cdn;
  TestServer hub;
};

TEST(FakeHub, ARepositoryExpandsToItsSafetensorsFilesOverEveryPage) {
  FakeHub fake;
  stguard::remote::HttpOptions options;
  stguard::remote::add_token(fake.settings(), options);
  stguard::remote::HttpClient client(options);
  const auto files =
      stguard::remote::expand_address(client, fake.settings(), "hf://org/model", ".safetensors");
  ASSERT_TRUE(files) << files.error().message;
  ASSERT_EQ(files->size(), 2U);
  EXPECT_EQ((*files)[0].shown, "hf://org/model@main/model-00001-of-00002.safetensors");
  EXPECT_EQ((*files)[1].shown, "hf://org/model@main/model-00002-of-00002.safetensors");
  EXPECT_EQ((*files)[1].listed_size, shard("b").size());  // the LFS size, not the pointer's
  stguard::Parser parser;
  for (const auto& file : *files) {
    const auto head = stguard::remote::read_head(client, file.url, {});
    ASSERT_TRUE(head) << head.error().message;
    EXPECT_TRUE(stguard::remote::validate_head(parser, *head, {}));
  }
}

TEST(FakeHub, TheTokenGoesToTheEndpointAndNotWhereItRedirects) {
  FakeHub fake;
  stguard::remote::HttpOptions options;
  stguard::remote::add_token(fake.settings(), options);
  stguard::remote::HttpClient client(options);
  const auto head = stguard::remote::read_head(
      client, fake.hub.url("/org/model/resolve/main/model-00001-of-00002.safetensors"), {});
  ASSERT_TRUE(head) << head.error().message;
  ASSERT_FALSE(fake.hub.requests().empty());
  for (const HttpRequest& r : fake.hub.requests()) {
    EXPECT_EQ(r.headers.at("authorization"), "Bearer hf_secret_token");
  }
  ASSERT_FALSE(fake.cdn.requests().empty());
  for (const HttpRequest& r : fake.cdn.requests()) EXPECT_FALSE(r.has("authorization"));
}

TEST(FakeHub, GatedAndMissingRepositoriesAreClearErrors) {
  FakeHub fake;
  stguard::remote::HttpClient client;
  const auto gated =
      stguard::remote::expand_address(client, fake.settings(), "hf://org/gated", ".safetensors");
  ASSERT_FALSE(gated);
  EXPECT_NE(gated.error().message.find("HTTP 401"), std::string::npos) << gated.error().message;
  EXPECT_NE(gated.error().message.find("Access to model org/gated is restricted"),
            std::string::npos);
  const auto missing =
      stguard::remote::expand_address(client, fake.settings(), "hf://org/none", ".safetensors");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("HTTP 404: not found (server: Repository not found)"),
            std::string::npos)
      << missing.error().message;
}

}  // namespace

namespace {

TEST(HubSettings, ATokenWithABlankOrControlCharacterIsRefusedUnshown) {
  ::setenv("HF_TOKEN", "hf_abc\r\nX-Injected: 1", 1);
  const auto settings = stguard::remote::hub_settings_from_environment();
  ::unsetenv("HF_TOKEN");
  ASSERT_FALSE(settings);
  EXPECT_NE(settings.error().message.find("HF_TOKEN holds a blank or control character"),
            std::string::npos);
  EXPECT_EQ(settings.error().message.find("hf_abc"), std::string::npos);
}

TEST(HubSettings, TheTokenComesFromHfTokenThenTheTokenFile) {
  const std::string dir = ::testing::TempDir() + "/stguard-hf-home";
  ::mkdir(dir.c_str(), 0700);
  { std::ofstream(dir + "/token") << "hf_from_file\n"; }
  ::setenv("HF_HOME", dir.c_str(), 1);
  ::unsetenv("HF_TOKEN");
  ::unsetenv("HF_TOKEN_PATH");
  auto settings = stguard::remote::hub_settings_from_environment();
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->token, "hf_from_file");
  ::setenv("HF_TOKEN", " hf_from_env ", 1);
  settings = stguard::remote::hub_settings_from_environment();
  ::unsetenv("HF_TOKEN");
  ::unsetenv("HF_HOME");
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->token, "hf_from_env");
}

}  // namespace
