#include "test_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <stdexcept>

namespace stguard_test {
namespace {

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

const char* reason_phrase(int status) {
  switch (status) {
    case 200:
      return "OK";
    case 206:
      return "Partial Content";
    case 302:
      return "Found";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 416:
      return "Range Not Satisfiable";
    case 429:
      return "Too Many Requests";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

}  // namespace

std::pair<std::int64_t, std::int64_t> HttpRequest::range() const {
  const auto it = headers.find("range");
  if (it == headers.end() || it->second.rfind("bytes=", 0) != 0) return {-1, -1};
  const std::string spec = it->second.substr(6);
  const std::size_t dash = spec.find('-');
  if (dash == std::string::npos) return {-1, -1};
  return {std::stoll(spec.substr(0, dash)), std::stoll(spec.substr(dash + 1))};
}

bool HttpConnection::write(std::string_view bytes) {
  while (!bytes.empty()) {
    if (stopping_.load()) return false;
    const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) continue;  // the send timeout (EWOULDBLOCK on Linux): check stopping
      return false;
    }
    written_ += static_cast<std::uint64_t>(n);
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void HttpConnection::reset() { reset_ = true; }

TestServer::TestServer(Handler handler) : handler_(std::move(handler)) {
  listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error("socket failed");
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  if (::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::listen(listen_fd_, 64) != 0) {
    throw std::runtime_error("bind or listen failed");
  }
  socklen_t len = sizeof address;
  ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &len);
  port_ = ntohs(address.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

TestServer::~TestServer() {
  stopping_ = true;
  acceptor_.join();
  ::close(listen_fd_);
  std::vector<std::thread> threads;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    threads.swap(connections_);
  }
  for (std::thread& t : threads) t.join();
}

std::string TestServer::url(std::string_view path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + std::string(path);
}

std::vector<HttpRequest> TestServer::requests() const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return requests_;
}

void TestServer::accept_loop() {
  while (!stopping_.load()) {
    pollfd p{listen_fd_, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    const std::lock_guard<std::mutex> lock(mutex_);
    connections_.emplace_back([this, fd] { serve(fd); });
  }
}

void TestServer::serve(int fd) {
  // A send gives up at this timeout to look at `stopping_`.
  timeval timeout{0, 100'000};
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
  std::string head;
  char buffer[4096];
  while (head.find("\r\n\r\n") == std::string::npos && head.size() < 65'536) {
    pollfd p{fd, POLLIN, 0};
    if (stopping_.load()) break;
    if (::poll(&p, 1, 50) <= 0) continue;
    const ssize_t n = ::recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) break;
    head.append(buffer, static_cast<std::size_t>(n));
  }
  const std::size_t end = head.find("\r\n\r\n");
  if (end == std::string::npos) {
    ::close(fd);
    return;
  }
  HttpRequest request;
  std::size_t line_start = 0;
  bool first = true;
  while (line_start < end) {
    std::size_t line_end = head.find("\r\n", line_start);
    if (line_end == std::string::npos || line_end > end) line_end = end;
    const std::string_view line(head.data() + line_start, line_end - line_start);
    if (first) {
      const std::size_t a = line.find(' ');
      const std::size_t b = line.find(' ', a + 1);
      request.method = std::string(line.substr(0, a));
      request.target = std::string(line.substr(a + 1, b - a - 1));
      first = false;
    } else if (const std::size_t colon = line.find(':'); colon != std::string_view::npos) {
      request.headers[lower(std::string(trim(line.substr(0, colon))))] =
          std::string(trim(line.substr(colon + 1)));
    }
    line_start = line_end + 2;
  }
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    requests_.push_back(request);
  }
  HttpConnection connection(fd, stopping_);
  handler_(request, connection);
  bytes_written_ += connection.written_;
  if (connection.reset_) {
    linger hard{1, 0};  // close() then sends RST, not FIN
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
  } else {
    ::shutdown(fd, SHUT_WR);
  }
  ::close(fd);
}

std::string http_answer(int status, const std::vector<std::pair<std::string, std::string>>& headers,
                        std::string_view body) {
  std::string out = "HTTP/1.1 " + std::to_string(status) + " " + reason_phrase(status) + "\r\n";
  for (const auto& [name, value] : headers) out += name + ": " + value + "\r\n";
  out += "Connection: close\r\n\r\n";
  out += body;
  return out;
}

void serve_bytes(const std::string& file, const HttpRequest& request, HttpConnection& out) {
  const auto [first, last_asked] = request.range();
  if (first < 0) {
    out.write(http_answer(200, {{"Content-Length", std::to_string(file.size())}}, file));
    return;
  }
  const auto size = static_cast<std::int64_t>(file.size());
  if (first >= size) {
    out.write(http_answer(
        416, {{"Content-Range", "bytes */" + std::to_string(size)}, {"Content-Length", "0"}}));
    return;
  }
  const std::int64_t last = std::min(last_asked, size - 1);
  const std::string body =
      file.substr(static_cast<std::size_t>(first), static_cast<std::size_t>(last - first + 1));
  out.write(http_answer(206,
                        {{"Content-Range", "bytes " + std::to_string(first) + "-" +
                                               std::to_string(last) + "/" + std::to_string(size)},
                         {"Content-Length", std::to_string(body.size())}},
                        body));
}

}  // namespace stguard_test
