// remote/http.h: the HTTP client stguard reads remote files with: ranged
// GETs and small whole bodies over libcurl (base/libcurl.h), bounded in
// time, redirects, retries and bytes.
//
//   remote::HttpClient client;                       // one per thread
//   base::Result<remote::RangeReply> head = client.get_range(url, 0, 99'999);
//   if (!head) return fail(head.error().message);    // "URL: why", io = true
//   // head->bytes: bytes [0, head->bytes.size()) of the file; head->file_size
//
// A client keeps one libcurl handle, so consecutive requests to one server
// reuse its connection (and HTTP/2 where an https server offers it). Every
// failure is an I/O failure whose message starts with the URL asked for
// (never with a token): the server's status and, for the Hub, its
// X-Error-Message; a redirect loop; a missing or inconsistent Content-Range;
// a body longer or shorter than announced; a timeout; a TLS failure.
//
// Bounds. No request reads more body bytes than it asked for: a server that
// ignores Range (200 and the whole file) is read up to the last byte wanted
// and the transfer is then abandoned, so a 100 GB file costs what its head
// costs. Each request has a connect timeout, a total timeout and a minimum
// speed; at most max_redirects redirects are followed (http and https only);
// 429 and 5xx answers are retried max_retries times, after the server's
// Retry-After (in seconds) when it sends one and otherwise after a doubling
// backoff. Proxies come from the environment as for curl (http_proxy,
// https_proxy, no_proxy; the upper-case HTTP_PROXY is ignored, as curl does).
#ifndef STGUARD_REMOTE_HTTP_H_
#define STGUARD_REMOTE_HTTP_H_

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/failure.h"

namespace stguard::remote {

namespace detail {
struct Transfer;  // one request and its answer (http.cc)
}  // namespace detail

struct HttpOptions {
  std::chrono::milliseconds connect_timeout{10'000};
  // The whole of one request, redirects included.
  std::chrono::milliseconds request_timeout{120'000};
  // A transfer slower than low_speed_bytes a second for low_speed_time is
  // abandoned (a server that drips).
  long low_speed_bytes = 1'000;
  std::chrono::seconds low_speed_time{15};
  long max_redirects = 10;
  int max_retries = 3;
  std::chrono::milliseconds first_backoff{1'000};
  // A Retry-After longer than this is not waited for: the request fails.
  std::chrono::milliseconds max_retry_wait{60'000};
  // "Authorization: Bearer TOKEN" on requests to URLs of this origin
  // ("https://huggingface.co") and no other. libcurl drops the header when a
  // redirect leaves the origin (another host or port), as curl does.
  std::string token;
  std::string token_origin;
  // The certificate authorities https servers are checked against (a PEM
  // bundle); empty: the system's (Debian's ca-certificates).
  std::string ca_file;
};

// The defaults, with what the environment sets as curl and the Hub's tools
// read it: ca_file from CURL_CA_BUNDLE, else REQUESTS_CA_BUNDLE, else
// SSL_CERT_FILE. (Proxies need nothing here: libcurl reads http_proxy,
// https_proxy and no_proxy itself.)
HttpOptions http_options_from_environment();

// Bytes [first, first + bytes.size()) of a remote file, and its size.
struct RangeReply {
  std::vector<std::uint8_t> bytes;
  std::uint64_t file_size = 0;
};

// A whole (small) body, and the next page's URL when the server paginates
// with a Link: <URL>; rel="next" header (the Hub's listings do).
struct BodyReply {
  std::string body;
  std::string next_url;
};

// What a client has moved: body bytes received, requests made (each retry
// and each redirect followed counts).
struct Traffic {
  std::uint64_t body_bytes = 0;
  std::uint64_t requests = 0;
};

class HttpClient {
 public:
  explicit HttpClient(HttpOptions options = {});
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Bytes [first, last] of the file at `url` (fewer when the file ends
  // before `last`; none for a file of `first` bytes or fewer) and the
  // file's size: the total of the 206 answer's Content-Range, or the
  // Content-Length of a 200 (a server ignoring Range). A 416 answer with
  // Content-Range "bytes */SIZE" is a file that ends before `first`.
  base::Result<RangeReply> get_range(const std::string& url, std::uint64_t first,
                                     std::uint64_t last);

  // The whole body of `url`, refused when it is longer than max_bytes.
  base::Result<BodyReply> get(const std::string& url, std::uint64_t max_bytes);

  const Traffic& traffic() const noexcept { return traffic_; }

 private:
  struct Handle;
  base::Result<void> perform(detail::Transfer& transfer);

  HttpOptions options_;
  std::unique_ptr<Handle> handle_;
  Traffic traffic_;
};

// scheme://host[:port] of an http or https URL, lower-cased; empty for
// anything else.
std::string origin_of(std::string_view url);

// True for the URLs the client reads: http:// and https://.
bool is_http_url(std::string_view text) noexcept;

}  // namespace stguard::remote

#endif  // STGUARD_REMOTE_HTTP_H_
