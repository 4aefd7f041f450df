// tests/remote/nginx_server.h: Debian's nginx (STGUARD_NGINX) started by a
// test on a free port of the loopback address, serving a folder, and
// stopped when the object goes: the real server the remote verdicts are
// compared through.
//
//   NginxServer nginx(corpus_dir);
//   std::string url = nginx.url("/layout/gap.safetensors");
#ifndef STGUARD_TESTS_REMOTE_NGINX_SERVER_H_
#define STGUARD_TESTS_REMOTE_NGINX_SERVER_H_

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <string_view>

#include "tests/support/temp_dir.h"

namespace stguard_test {

struct NginxOptions {
  // https with HTTP/2, on a self-signed certificate for 127.0.0.1 made for
  // the server (openssl req), at certificate().
  bool tls = false;
};

class NginxServer {
 public:
  // Throws std::runtime_error (with nginx's error log) when nginx cannot be
  // started.
  explicit NginxServer(const std::filesystem::path& root, NginxOptions options = {});
  ~NginxServer();
  NginxServer(const NginxServer&) = delete;
  NginxServer& operator=(const NginxServer&) = delete;

  std::string url(std::string_view path) const;
  // nginx's access log so far ("$status $body_bytes_sent $request_uri
  // $server_protocol" lines).
  std::string access_log() const;
  // With tls: the server's certificate (PEM), to trust it.
  std::filesystem::path certificate() const { return dir_.path() / "cert.pem"; }

 private:
  bool start(int port);

  TempDir dir_;
  std::filesystem::path root_;
  NginxOptions options_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace stguard_test

#endif  // STGUARD_TESTS_REMOTE_NGINX_SERVER_H_
