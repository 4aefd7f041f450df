// tests/remote/test_server.h: a small HTTP/1.1 server of the tests' own on
// the loopback address, for what a real server will not do: ignore Range,
// lie in Content-Range, drip, never end, loop redirects, reset the
// connection. Each connection gets one request; the handler writes the raw
// answer (status line, headers, body) and the connection is closed after it.
//
//   TestServer server([](const HttpRequest& request, HttpConnection& out) {
//     out.write(http_answer(200, {{"Content-Length", "2"}}, "hi"));
//   });
//   std::string url = server.url("/model.safetensors");
#ifndef STGUARD_TESTS_REMOTE_TEST_SERVER_H_
#define STGUARD_TESTS_REMOTE_TEST_SERVER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace stguard_test {

struct HttpRequest {
  std::string method;
  std::string target;                          // "/path?query"
  std::map<std::string, std::string> headers;  // names lower-cased

  // The Range header's "bytes=FIRST-LAST", or {-1, -1} without one.
  std::pair<std::int64_t, std::int64_t> range() const;
  bool has(const std::string& name) const { return headers.count(name) != 0; }
};

class HttpConnection {
 public:
  HttpConnection(int fd, const std::atomic<bool>& stopping) : fd_(fd), stopping_(stopping) {}
  // False once the client is gone or the server stops.
  bool write(std::string_view bytes);
  // Closes with a TCP reset instead of an orderly close.
  void reset();
  bool stopping() const { return stopping_.load(); }
  std::uint64_t bytes_written() const { return written_; }

 private:
  int fd_;
  const std::atomic<bool>& stopping_;
  std::uint64_t written_ = 0;
  bool reset_ = false;
  friend class TestServer;
};

class TestServer {
 public:
  using Handler = std::function<void(const HttpRequest&, HttpConnection&)>;

  explicit TestServer(Handler handler);
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  int port() const { return port_; }
  // "http://127.0.0.1:PORT" + path.
  std::string url(std::string_view path) const;
  // The requests received so far, in order.
  std::vector<HttpRequest> requests() const;
  // Body bytes and headers written over all connections.
  std::uint64_t bytes_written() const { return bytes_written_.load(); }

 private:
  void accept_loop();
  void serve(int fd);

  Handler handler_;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> bytes_written_{0};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::vector<std::thread> connections_;
  std::vector<HttpRequest> requests_;
};

// "HTTP/1.1 STATUS REASON\r\n" + headers + "Connection: close\r\n\r\n" + body.
std::string http_answer(int status, const std::vector<std::pair<std::string, std::string>>& headers,
                        std::string_view body = {});

// A plain server of `file`'s bytes honouring Range as RFC 9110 asks (206
// with Content-Range, 416 past the end, 200 without Range).
void serve_bytes(const std::string& file, const HttpRequest& request, HttpConnection& out);

}  // namespace stguard_test

#endif  // STGUARD_TESTS_REMOTE_TEST_SERVER_H_
