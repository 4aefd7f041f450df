#include "remote/http.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>
#include <thread>
#include <utility>

#include "base/decimal.h"
#include "base/libcurl.h"
#include "base/text.h"

namespace stguard::remote {

namespace detail {

// "bytes FIRST-LAST/TOTAL" (TOTAL may be "*"), or "bytes */TOTAL" (416).
struct ContentRange {
  bool has_range = false;
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  bool has_total = false;
  std::uint64_t total = 0;
};

}  // namespace detail

namespace {

using detail::ContentRange;

// How much of an error answer's body is kept (it is not shown; reading a
// little of it lets the connection be reused for a short page).
constexpr std::uint64_t kErrorBodyBytes = 4'096;
// The longest server-given text (X-Error-Message) put in a message.
constexpr std::size_t kServerTextChars = 200;

std::string lower(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trim(std::string_view text) {
  while (!text.empty() && base::is_blank(text.front())) text.remove_prefix(1);
  while (!text.empty() && base::is_blank(text.back())) text.remove_suffix(1);
  return text;
}

std::optional<ContentRange> parse_content_range(std::string_view text) {
  text = trim(text);
  constexpr std::string_view kUnit = "bytes ";
  if (text.substr(0, kUnit.size()) != kUnit) return std::nullopt;
  text.remove_prefix(kUnit.size());
  const std::size_t slash = text.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  const std::string_view range = text.substr(0, slash);
  const std::string_view total = text.substr(slash + 1);
  ContentRange out;
  if (range != "*") {
    const std::size_t dash = range.find('-');
    if (dash == std::string_view::npos) return std::nullopt;
    const auto first = base::parse_u64(range.substr(0, dash));
    const auto last = base::parse_u64(range.substr(dash + 1));
    if (!first || !last || *last < *first) return std::nullopt;
    out.has_range = true;
    out.first = *first;
    out.last = *last;
  }
  if (total != "*") {
    const auto size = base::parse_u64(total);
    if (!size) return std::nullopt;
    out.has_total = true;
    out.total = *size;
    if (out.has_range && out.last >= out.total) return std::nullopt;
  }
  return out;
}

// The URL of `<URL>; rel="next"` in a Link header, or empty.
std::string next_link(std::string_view link) {
  std::size_t pos = 0;
  while (pos < link.size()) {
    const std::size_t open = link.find('<', pos);
    if (open == std::string_view::npos) break;
    const std::size_t close = link.find('>', open);
    if (close == std::string_view::npos) break;
    const std::size_t end = std::min(link.find(',', close), link.size());
    const std::string params = lower(link.substr(close + 1, end - close - 1));
    if (params.find("rel=\"next\"") != std::string::npos ||
        params.find("rel=next") != std::string::npos) {
      return std::string(link.substr(open + 1, close - open - 1));
    }
    pos = end + 1;
  }
  return {};
}

bool is_retryable(long status) noexcept {
  return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
}

}  // namespace

bool is_http_url(std::string_view text) noexcept {
  const auto starts = [&](std::string_view prefix) {
    if (text.size() < prefix.size()) return false;
    for (std::size_t i = 0; i < prefix.size(); ++i) {
      if (std::tolower(static_cast<unsigned char>(text[i])) != prefix[i]) return false;
    }
    return true;
  };
  return starts("http://") || starts("https://");
}

std::string origin_of(std::string_view url) {
  if (!is_http_url(url)) return {};
  const std::size_t authority = url.find("://") + 3;
  const std::size_t end = std::min(url.find_first_of("/?#", authority), url.size());
  std::string_view host = url.substr(authority, end - authority);
  // Credentials in the URL are not part of the origin.
  if (const std::size_t at = host.rfind('@'); at != std::string_view::npos) {
    host.remove_prefix(at + 1);
  }
  return lower(url.substr(0, authority)) + lower(host);
}

struct HttpClient::Handle {
  const base::LibCurl* curl = nullptr;
  CURL* easy = nullptr;
  char error_buffer[CURL_ERROR_SIZE] = {};

  ~Handle() {
    if (easy != nullptr) curl->easy_cleanup(easy);
  }
};

namespace detail {

// One request and what its final answer (after redirects) said.
struct Transfer {
  // The request.
  std::string url;
  bool ranged = false;
  std::uint64_t first = 0;
  std::uint64_t last = 0;
  std::uint64_t max_body = 0;  // unranged: the most body bytes accepted

  // The final answer's status and headers: reset at each status line, so
  // that a redirect's headers are forgotten.
  long status = 0;
  std::string content_range;
  bool has_content_length = false;
  std::uint64_t content_length = 0;
  std::string retry_after;
  std::string error_message;
  std::string link;

  // The body.
  bool body_started = false;
  ContentRange range;         // a 206's Content-Range, parsed
  std::uint64_t skip = 0;     // bytes of a 200 before `first`, dropped
  std::uint64_t want = 0;     // body bytes still to keep
  bool more_follows = false;  // the server sends more than is wanted
  bool stopped_on_purpose = false;
  std::string fault;  // why the body was refused
  std::uint64_t received = 0;
  std::vector<std::uint8_t> bytes;

  void reset_answer() {
    status = 0;
    content_range.clear();
    has_content_length = false;
    content_length = 0;
    retry_after.clear();
    error_message.clear();
    link.clear();
  }

  void on_header_line(std::string_view line) {
    line = trim(line);
    if (line.substr(0, 5) == "HTTP/") {
      reset_answer();
      const std::size_t space = line.find(' ');
      if (space != std::string_view::npos) {
        const auto code = base::parse_u64(line.substr(space + 1, 3));
        status = code ? static_cast<long>(*code) : 0;
      }
      return;
    }
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return;
    const std::string name = lower(trim(line.substr(0, colon)));
    const std::string_view value = trim(line.substr(colon + 1));
    if (name == "content-range") {
      content_range = value;
    } else if (name == "content-length") {
      const auto n = base::parse_u64(value);
      has_content_length = n.has_value();
      content_length = n.value_or(0);
    } else if (name == "retry-after") {
      retry_after = value;
    } else if (name == "x-error-message") {
      error_message = base::terminal_safe(value.substr(0, kServerTextChars));
    } else if (name == "link") {
      link = value;
    }
  }

  // At the first body byte of the final answer: how much of it to keep.
  // False (and `fault`) when the answer cannot be what was asked for.
  bool begin_body() {
    body_started = true;
    if (status == 206) {
      const auto parsed = parse_content_range(content_range);
      if (!ranged || !parsed || !parsed->has_range) {
        fault = "a 206 answer without a valid Content-Range (\"" +
                base::terminal_safe(content_range.substr(0, kServerTextChars)) + "\")";
        return false;
      }
      if (!parsed->has_total) {
        fault = "the server does not give the file's size (Content-Range \"" +
                base::terminal_safe(content_range.substr(0, kServerTextChars)) + "\")";
        return false;
      }
      if (parsed->first != first) {
        fault = "the server sent bytes from " + std::to_string(parsed->first) + ", not from " +
                std::to_string(first) + " as asked";
        return false;
      }
      range = *parsed;
      want = std::min(range.last, last) - first + 1;
      more_follows = range.last > last;
      return true;
    }
    if (status == 200) {
      if (!ranged) {
        want = max_body;
        return true;
      }
      if (!has_content_length) {
        fault =
            "the server ignored the Range request and sent no Content-Length: the file's "
            "size is unknown";
        return false;
      }
      skip = first;
      want = content_length > first ? std::min(last, content_length - 1) - first + 1 : 0;
      more_follows = content_length > last + 1;
      return true;
    }
    want = kErrorBodyBytes;  // an error page: kept short, not used
    more_follows = true;
    return true;
  }

  // Takes body bytes; false stops the transfer (enough, or a fault).
  bool on_body(const std::uint8_t* data, std::uint64_t len) {
    received += len;
    if (!body_started && !begin_body()) return false;
    const std::uint64_t dropped = std::min(skip, len);
    skip -= dropped;
    data += dropped;
    len -= dropped;
    const std::uint64_t kept = std::min(len, want);
    if (status == 200 || status == 206) bytes.insert(bytes.end(), data, data + kept);
    want -= kept;
    if (kept < len) {  // more than wanted
      if (status == 206 && !more_follows) {
        fault = "the body is longer than its Content-Range announced";
      } else if (status == 200 && !ranged) {
        fault = "the body is longer than " + std::to_string(max_body) + " bytes";
      } else {
        stopped_on_purpose = true;
      }
      return false;
    }
    if (want == 0 && more_follows && (status == 200 || status == 206)) {
      stopped_on_purpose = true;  // the rest is not needed: the connection is dropped
      return false;
    }
    return true;
  }
};

}  // namespace detail

namespace {

using detail::Transfer;

std::size_t header_callback(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  transfer->on_header_line(std::string_view(data, size * count));
  return size * count;
}

std::size_t body_callback(char* data, std::size_t size, std::size_t count, void* user) {
  auto* transfer = static_cast<Transfer*>(user);
  const std::size_t len = size * count;
  if (!transfer->on_body(reinterpret_cast<const std::uint8_t*>(data), len)) return 0;
  return len;
}

// "HTTP 404: not found", with the server's own explanation when it gives one.
std::string status_text(const Transfer& t) {
  std::string text = "HTTP " + std::to_string(t.status);
  switch (t.status) {
    case 401:
      text += ": authentication required (a private or gated repository needs a token: HF_TOKEN)";
      break;
    case 403:
      text += ": access denied (for a gated repository, request access with this token's account)";
      break;
    case 404:
    case 410:
      text += ": not found";
      break;
    case 416:
      text += ": range not satisfiable";
      break;
    default:
      break;
  }
  if (!t.error_message.empty()) text += " (server: " + t.error_message + ")";
  return text;
}

// How long to wait before retrying a 429 or 5xx: the server's Retry-After
// in seconds, or the doubling backoff.
std::chrono::milliseconds retry_wait(const Transfer& t, const HttpOptions& options, int attempt) {
  if (const auto seconds = base::parse_u64(trim(t.retry_after))) {
    return std::chrono::milliseconds(std::min<std::uint64_t>(*seconds, 86'400) * 1000);
  }
  return options.first_backoff * (std::int64_t{1} << std::min(attempt, 10));
}

}  // namespace

HttpOptions http_options_from_environment() {
  HttpOptions options;
  for (const char* name : {"CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE", "SSL_CERT_FILE"}) {
    const char* value = std::getenv(name);
    if (value != nullptr && *value != '\0') {
      options.ca_file = value;
      break;
    }
  }
  return options;
}

HttpClient::HttpClient(HttpOptions options) : options_(std::move(options)) {}

HttpClient::~HttpClient() = default;

base::Result<void> HttpClient::perform(Transfer& t) {
  const auto fail = [&](const std::string& why) {
    return base::io_failure(base::terminal_safe(t.url) + ": " + why);
  };
  if (handle_ == nullptr) {
    const base::Result<const base::LibCurl*> curl = base::libcurl();
    if (!curl) return fail(curl.error().message);
    auto handle = std::make_unique<Handle>();
    handle->curl = *curl;
    handle->easy = handle->curl->easy_init();
    if (handle->easy == nullptr) return fail("curl_easy_init failed");
    handle_ = std::move(handle);
  }
  const base::LibCurl& curl = *handle_->curl;
  CURL* easy = handle_->easy;

  for (int attempt = 0;; ++attempt) {
    // Everything is set again for each request; the reset keeps the handle's
    // live connections, so a second request to the server reuses one.
    curl.easy_reset(easy);
    const std::string range = std::to_string(t.first) + "-" + std::to_string(t.last);
    curl_slist* headers = nullptr;
    std::string authorization;
    if (!options_.token.empty() && !options_.token_origin.empty() &&
        origin_of(t.url) == options_.token_origin) {
      authorization = "Authorization: Bearer " + options_.token;
      headers = curl.slist_append(headers, authorization.c_str());
    }
    const std::string user_agent = "stguard/" STGUARD_VERSION;
    curl.easy_setopt(easy, CURLOPT_URL, t.url.c_str());
    curl.easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
    curl.easy_setopt(easy, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl.easy_setopt(easy, CURLOPT_FOLLOWLOCATION, 1L);
    curl.easy_setopt(easy, CURLOPT_MAXREDIRS, options_.max_redirects);
    curl.easy_setopt(easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
    curl.easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
    curl.easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(options_.connect_timeout.count()));
    curl.easy_setopt(easy, CURLOPT_TIMEOUT_MS, static_cast<long>(options_.request_timeout.count()));
    curl.easy_setopt(easy, CURLOPT_LOW_SPEED_LIMIT, options_.low_speed_bytes);
    curl.easy_setopt(easy, CURLOPT_LOW_SPEED_TIME,
                     static_cast<long>(options_.low_speed_time.count()));
    curl.easy_setopt(easy, CURLOPT_USERAGENT, user_agent.c_str());
    if (!options_.ca_file.empty()) curl.easy_setopt(easy, CURLOPT_CAINFO, options_.ca_file.c_str());
    if (t.ranged) curl.easy_setopt(easy, CURLOPT_RANGE, range.c_str());
    if (headers != nullptr) curl.easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl.easy_setopt(easy, CURLOPT_HEADERFUNCTION, &header_callback);
    curl.easy_setopt(easy, CURLOPT_HEADERDATA, &t);
    curl.easy_setopt(easy, CURLOPT_WRITEFUNCTION, &body_callback);
    curl.easy_setopt(easy, CURLOPT_WRITEDATA, &t);
    handle_->error_buffer[0] = '\0';
    curl.easy_setopt(easy, CURLOPT_ERRORBUFFER, handle_->error_buffer);

    t.reset_answer();
    t.body_started = false;
    t.skip = 0;
    t.want = 0;
    t.more_follows = false;
    t.stopped_on_purpose = false;
    t.fault.clear();
    t.received = 0;
    t.bytes.clear();
    const CURLcode code = curl.easy_perform(easy);
    curl.slist_free_all(headers);

    long redirects = 0;
    curl.easy_getinfo(easy, CURLINFO_REDIRECT_COUNT, &redirects);
    traffic_.requests += 1 + static_cast<std::uint64_t>(std::max(0L, redirects));
    traffic_.body_bytes += t.received;

    if (!t.fault.empty()) return fail(t.fault);
    if (code == CURLE_TOO_MANY_REDIRECTS) {
      return fail("more than " + std::to_string(options_.max_redirects) +
                  " redirects (a redirect loop?)");
    }
    if (code != CURLE_OK && !(code == CURLE_WRITE_ERROR && t.stopped_on_purpose)) {
      std::string why = curl.easy_strerror(code);
      if (handle_->error_buffer[0] != '\0') why += " (" + std::string(handle_->error_buffer) + ")";
      return fail(why);
    }
    if (is_retryable(t.status) && attempt < options_.max_retries) {
      const std::chrono::milliseconds wait = retry_wait(t, options_, attempt);
      if (wait > options_.max_retry_wait) {
        return fail(status_text(t) + ", and it asks to retry after " +
                    std::to_string(wait.count() / 1000) + " s, longer than stguard waits");
      }
      std::this_thread::sleep_for(wait);
      continue;
    }
    return {};
  }
}

base::Result<RangeReply> HttpClient::get_range(const std::string& url, std::uint64_t first,
                                               std::uint64_t last) {
  Transfer t;
  t.url = url;
  t.ranged = true;
  t.first = first;
  t.last = last;
  if (base::Result<void> done = perform(t); !done) return done.error();
  const auto fail = [&](const std::string& why) {
    return base::io_failure(base::terminal_safe(url) + ": " + why);
  };
  if (t.status == 416) {
    const auto parsed = parse_content_range(t.content_range);
    if (!parsed || !parsed->has_total || parsed->total > first) return fail(status_text(t));
    return RangeReply{{}, parsed->total};
  }
  if (t.status != 200 && t.status != 206) return fail(status_text(t));
  if (!t.body_started && !t.begin_body()) return fail(t.fault);  // an empty body
  // Every byte wanted was promised, by the Content-Range or the Content-Length.
  if (t.want > 0) {
    return fail("the body ended after " + std::to_string(t.bytes.size()) + " of the " +
                std::to_string(t.bytes.size() + t.want) + " bytes announced");
  }
  const std::uint64_t size = t.status == 206 ? t.range.total : t.content_length;
  return RangeReply{std::move(t.bytes), size};
}

base::Result<BodyReply> HttpClient::get(const std::string& url, std::uint64_t max_bytes) {
  Transfer t;
  t.url = url;
  t.max_body = max_bytes;
  if (base::Result<void> done = perform(t); !done) return done.error();
  if (t.status != 200) {
    return base::io_failure(base::terminal_safe(url) + ": " + status_text(t));
  }
  BodyReply reply;
  reply.body.assign(t.bytes.begin(), t.bytes.end());
  reply.next_url = next_link(t.link);
  return reply;
}

}  // namespace stguard::remote
