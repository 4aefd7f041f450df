// tests/remote/tls_test.cc: https through nginx on a self-signed certificate:
// untrusted, an I/O error naming the certificate problem; trusted (the
// options' ca_file, or CURL_CA_BUNDLE as curl and the Hub's tools read it),
// the verdict of the local file, over HTTP/2.
#include <gtest/gtest.h>

#include <string>

#include "nginx_server.h"
#include "remote/head.h"
#include "remote/http.h"
#include "stguard/file.h"
#include "stguard/parser.h"
#include "tests/support/file_builder.h"
#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

using stguard_test::run_cli;
using stguard_test::TempDir;

std::string write_file(const TempDir& dir) {
  return dir.write("m.safetensors",
                   stguard_test::FileBuilder("{" + stguard_test::entry("a", "F32", "2", 0, 8) + "}")
                       .pad_to_8()
                       .data_size(8)
                       .build());
}

TEST(Tls, AnUntrustedCertificateIsAnIoError) {
  const TempDir dir;
  write_file(dir);
  stguard_test::NginxServer nginx(dir.path(), {.tls = true});
  stguard::remote::HttpClient client;
  const auto head = stguard::remote::read_head(client, nginx.url("/m.safetensors"), {});
  ASSERT_FALSE(head);
  EXPECT_EQ(head.error().reason, stguard::Reason::kIoError);
  EXPECT_NE(head.error().message.find("certificate"), std::string::npos) << head.error().message;
}

TEST(Tls, ATrustedCertificateGivesTheLocalVerdictOverHttp2) {
  const TempDir dir;
  const std::string file = write_file(dir);
  stguard_test::NginxServer nginx(dir.path(), {.tls = true});
  stguard::remote::HttpOptions options;
  options.ca_file = nginx.certificate().string();
  stguard::remote::HttpClient client(options);
  const auto head = stguard::remote::read_head(client, nginx.url("/m.safetensors"), {});
  ASSERT_TRUE(head) << head.error().message;
  stguard::Parser parser;
  const auto verdict = stguard::remote::validate_head(parser, *head, {});
  ASSERT_TRUE(verdict) << verdict.error().message;
  EXPECT_EQ(verdict->tensor_count, stguard::validate_file(file)->tensor_count);
  EXPECT_NE(nginx.access_log().find("HTTP/2.0"), std::string::npos) << nginx.access_log();
}

TEST(Tls, CheckTrustsTheBundleCurlCaBundleNames) {
  const TempDir dir;
  write_file(dir);
  stguard_test::NginxServer nginx(dir.path(), {.tls = true});
  const std::string url = nginx.url("/m.safetensors");
  const auto untrusted = run_cli({"check", url});
  EXPECT_EQ(untrusted.exit_code, 2);
  EXPECT_NE(untrusted.out.find("certificate"), std::string::npos) << untrusted.out;
  const auto trusted = run_cli({"check", url}, {{"CURL_CA_BUNDLE", nginx.certificate().string()}});
  EXPECT_EQ(trusted.exit_code, 0) << trusted.out << trusted.err;
  EXPECT_NE(trusted.out.find(url + ": accept (1 tensor"), std::string::npos) << trusted.out;
}

}  // namespace
