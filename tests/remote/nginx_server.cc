#include "nginx_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

extern char** environ;

namespace stguard_test {
namespace {

// A port no socket holds now: the kernel's choice for an ephemeral bind.
// Another process may take it before nginx does; start() then fails and the
// constructor tries another.
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t len = sizeof address;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &len);
  ::close(fd);
  return ntohs(address.sin_port);
}

bool accepts_connections(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  ::close(fd);
  return ok;
}

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Runs `args` to its end; true when it exited 0.
bool run(std::vector<std::string> args) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (::posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0) return false;
  int status = 0;
  return ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

NginxServer::NginxServer(const std::filesystem::path& root, NginxOptions options)
    : root_(std::filesystem::absolute(root)), options_(options) {
  if (options_.tls) {
    const std::string d = dir_.path().string();
    if (!run({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
              "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", d + "/key.pem",
              "-out", d + "/cert.pem"})) {
      throw std::runtime_error("openssl req could not make a certificate (install openssl)");
    }
  }
  for (int attempt = 0; attempt < 5; ++attempt) {
    if (start(free_port())) return;
  }
  throw std::runtime_error("nginx (" STGUARD_NGINX ") did not start; its log:\n" +
                           read_all(dir_.path() / "error.log") +
                           "\n(install it with: sudo bash ci/install-deps.sh)");
}

bool NginxServer::start(int port) {
  port_ = port;
  const std::filesystem::path conf = dir_.path() / "nginx.conf";
  {
    std::ofstream out(conf);
    const std::string d = dir_.path().string();
    // One process in the foreground, everything it writes in the test's
    // folder, no MIME guessing; keep-alive on, as on a real server.
    out << "daemon off;\nmaster_process off;\npid " << d << "/nginx.pid;\n"
        << "error_log " << d << "/error.log;\n"
        << "events { worker_connections 256; }\n"
        << "http {\n"
        << "  log_format sizes '$status $body_bytes_sent $request_uri $server_protocol';\n"
        << "  access_log " << d << "/access.log sizes;\n";
    for (const char* temp : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"}) {
      out << "  " << temp << "_temp_path " << d << "/" << temp << ";\n";
    }
    out << "  types { }\n  default_type application/octet-stream;\n"
        << "  server { listen 127.0.0.1:" << port << (options_.tls ? " ssl http2" : "") << "; root "
        << root_.string() << ";";
    if (options_.tls) {
      out << " ssl_certificate " << d << "/cert.pem; ssl_certificate_key " << d << "/key.pem;";
    }
    out << " }\n}\n";
  }
  std::vector<std::string> args = {STGUARD_NGINX,
                                   "-c",
                                   conf.string(),
                                   "-p",
                                   dir_.path().string(),
                                   "-e",
                                   (dir_.path() / "error.log").string()};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  if (::posix_spawn(&pid_, STGUARD_NGINX, nullptr, nullptr, argv.data(), environ) != 0) {
    pid_ = -1;
    return false;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (accepts_connections(port)) return true;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {  // it exited: the port was taken
      pid_ = -1;
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
  return false;
}

NginxServer::~NginxServer() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  ::waitpid(pid_, nullptr, 0);
}

std::string NginxServer::url(std::string_view path) const {
  return std::string(options_.tls ? "https" : "http") + "://127.0.0.1:" + std::to_string(port_) +
         std::string(path);
}

std::string NginxServer::access_log() const { return read_all(dir_.path() / "access.log"); }

}  // namespace stguard_test
