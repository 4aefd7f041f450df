// tests/remote/hostile_server_test.cc: servers that misbehave in the ways a
// real server will not (tests/remote/test_server.h). Each misbehaviour is an
// I/O error naming the URL and the reason, within its timeout and with
// bounded bytes; a server that ignores Range still gives the right verdict
// from the bytes it needs.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "remote/head.h"
#include "remote/http.h"
#include "stguard/header.h"
#include "stguard/parser.h"
#include "test_server.h"
#include "tests/support/file_builder.h"

namespace {

using namespace std::chrono_literals;
using stguard::Parser;
using stguard::Reason;
using stguard::remote::HttpClient;
using stguard::remote::HttpOptions;
using stguard_test::http_answer;
using stguard_test::HttpConnection;
using stguard_test::HttpRequest;
using stguard_test::TestServer;

// A valid file: two F32 tensors and `data_len` data bytes in all.
std::string valid_file(std::size_t data_len = 16) {
  const std::string header =
      "{" + stguard_test::entry("a", "F32", "2", 0, 8) + "," +
      stguard_test::entry("b", "F32", std::to_string((data_len - 8) / 4), 8, data_len) + "}";
  const auto bytes = stguard_test::FileBuilder(header).pad_to_8().data_size(data_len).build();
  return std::string(bytes.begin(), bytes.end());
}

// Short limits, so that each failure comes within a second or two.
HttpOptions quick() {
  HttpOptions options;
  options.connect_timeout = 2s;
  options.request_timeout = 5s;
  options.low_speed_bytes = 100;
  options.low_speed_time = 1s;
  options.max_retries = 2;
  options.first_backoff = 10ms;
  options.max_retry_wait = 3s;
  return options;
}

// The head of `url` read with `options`, and how long it took.
struct Outcome {
  stguard::Result<stguard::remote::RemoteHead> head;
  std::chrono::milliseconds took;
};

Outcome fetch(const std::string& url, const HttpOptions& options = quick(),
              HttpClient* client_out = nullptr) {
  HttpClient own(options);
  HttpClient& client = client_out != nullptr ? *client_out : own;
  const auto start = std::chrono::steady_clock::now();
  auto head = stguard::remote::read_head(client, url, {});
  return {std::move(head), std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::steady_clock::now() - start)};
}

// An I/O error naming the URL and containing `why`.
void expect_io_error(const Outcome& outcome, const std::string& url, const std::string& why) {
  ASSERT_FALSE(outcome.head) << "no error for " << url;
  EXPECT_EQ(outcome.head.error().reason, Reason::kIoError);
  EXPECT_EQ(outcome.head.error().message.rfind(url + ": ", 0), 0U) << outcome.head.error().message;
  EXPECT_NE(outcome.head.error().message.find(why), std::string::npos)
      << outcome.head.error().message;
}

TEST(HostileServer, RangeIgnoredIsReadOnlyAsFarAsTheHeaderNeeds) {
  const std::string file = valid_file(64 << 20);  // 64 MiB of data
  TestServer server([&](const HttpRequest&, HttpConnection& out) {
    out.write(http_answer(200, {{"Content-Length", std::to_string(file.size())}}, file));
  });
  HttpClient client(quick());
  const Outcome outcome = fetch(server.url("/m.safetensors"), quick(), &client);
  ASSERT_TRUE(outcome.head) << outcome.head.error().message;
  EXPECT_EQ(outcome.head->file_size, file.size());
  Parser parser;
  const auto verdict = stguard::remote::validate_head(parser, *outcome.head, {});
  ASSERT_TRUE(verdict) << verdict.error().message;
  EXPECT_EQ(verdict->tensor_count, 2U);
  // The first request's worth and one receive buffer, not 64 MiB.
  EXPECT_LT(client.traffic().body_bytes, 2 * stguard::remote::kFirstRequestBytes);
  EXPECT_LE(outcome.head->bytes.size(), stguard::remote::kFirstRequestBytes);
}

TEST(HostileServer, RangeIgnoredWithoutContentLengthIsAnError) {
  const std::string file = valid_file();
  TestServer server([&](const HttpRequest&, HttpConnection& out) {
    out.write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + file);
  });
  const std::string url = server.url("/m.safetensors");
  expect_io_error(fetch(url), url, "sent no Content-Length");
}

TEST(HostileServer, AContentRangeWithoutTotalIsAnError) {
  TestServer server([&](const HttpRequest&, HttpConnection& out) {
    out.write(http_answer(206, {{"Content-Range", "bytes 0-15/*"}, {"Content-Length", "16"}},
                          std::string(16, 'x')));
  });
  const std::string url = server.url("/m");
  expect_io_error(fetch(url), url, "does not give the file's size");
}

TEST(HostileServer, AWrongContentRangeIsAnError) {
  for (const std::string range : {"bytes 5-20/100", "bytes abc", "bytes 0-15/10", ""}) {
    SCOPED_TRACE(range);
    TestServer server([&](const HttpRequest&, HttpConnection& out) {
      std::vector<std::pair<std::string, std::string>> headers = {{"Content-Length", "16"}};
      if (!range.empty()) headers.emplace_back("Content-Range", range);
      out.write(http_answer(206, headers, std::string(16, 'x')));
    });
    const std::string url = server.url("/m");
    expect_io_error(fetch(url), url,
                    range.rfind("bytes 5", 0) == 0 ? "not from 0" : "Content-Range");
  }
}

TEST(HostileServer, ABodyThatNeverEndsIsCutAtWhatItAnnounced) {
  TestServer server([&](const HttpRequest&, HttpConnection& out) {
    out.write(
        "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-99999/1000000\r\n"
        "Connection: close\r\n\r\n");
    const std::string chunk(65'536, ' ');
    while (out.write(chunk)) {
    }
  });
  const std::string url = server.url("/m");
  const Outcome outcome = fetch(url);
  expect_io_error(outcome, url, "longer than its Content-Range announced");
  EXPECT_LT(outcome.took, 5s);
}

TEST(HostileServer, AListingThatNeverEndsIsCutAtItsCap) {
  TestServer server([&](const HttpRequest&, HttpConnection& out) {
    out.write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n[");
    const std::string chunk(65'536, ' ');
    while (out.write(chunk)) {
    }
  });
  HttpClient client(quick());
  const auto body = client.get(server.url("/api"), 1 << 20);
  ASSERT_FALSE(body);
  EXPECT_NE(body.error().message.find("longer than 1048576 bytes"), std::string::npos)
      << body.error().message;
  EXPECT_LT(client.traffic().body_bytes, (1 << 20) + (1 << 17));
}

TEST(HostileServer, ASlowDripTimesOut) {
  const std::string file = valid_file();
  TestServer server([&](const HttpRequest&, HttpConnection& out) {
    out.write("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-" +
              std::to_string(file.size() - 1) + "/" + std::to_string(file.size()) +
              "\r\nContent-Length: " + std::to_string(file.size()) + "\r\n\r\n");
    for (const char c : file) {
      if (!out.write(std::string(1, c)) || out.stopping()) return;
      std::this_thread::sleep_for(300ms);
    }
  });
  const std::string url = server.url("/m");
  const Outcome outcome = fetch(url);
  expect_io_error(outcome, url, "Timeout was reached");
  EXPECT_LT(outcome.took, 4s);
}

TEST(HostileServer, ARedirectLoopIsAnError) {
  TestServer* self = nullptr;
  TestServer server([&](const HttpRequest&, HttpConnection& out) {
    out.write(http_answer(302, {{"Location", self->url("/again")}, {"Content-Length", "0"}}));
  });
  self = &server;
  const std::string url = server.url("/m");
  expect_io_error(fetch(url), url, "more than 10 redirects");
  EXPECT_EQ(server.requests().size(), 11U);
}

TEST(HostileServer, AHundredGigabyteFileCostsItsHeader) {
  // The header claims 16 bytes of data; the server says the file is 100 GB.
  const std::string file = valid_file();
  const std::uint64_t announced = 100'000'000'000ULL;
  TestServer server([&](const HttpRequest& request, HttpConnection& out) {
    const auto first = static_cast<std::uint64_t>(request.range().first);
    const std::uint64_t end = std::min<std::uint64_t>(
        static_cast<std::uint64_t>(request.range().second) + 1, file.size());
    out.write(http_answer(
        206,
        {{"Content-Range", "bytes " + std::to_string(first) + "-" + std::to_string(end - 1) + "/" +
                               std::to_string(announced)},
         {"Content-Length", std::to_string(end - first)}},
        file.substr(first, end - first)));
  });
  const Outcome outcome = fetch(server.url("/m"));
  ASSERT_TRUE(outcome.head) << outcome.head.error().message;
  EXPECT_EQ(outcome.head->file_size, announced);
  Parser parser;
  const auto verdict = stguard::remote::validate_head(parser, *outcome.head, {});
  ASSERT_FALSE(verdict);
  // What a local file of that size gets: the data ends long before the file.
  EXPECT_EQ(verdict.error().reason, Reason::kTrailingData) << verdict.error().message;
  EXPECT_LE(server.requests().size(), 1U);
}

TEST(HostileServer, AHeaderLengthPastTheEndIsTheParsersVerdict) {
  auto bytes = stguard_test::FileBuilder("{}").length_prefix(5'000).build();
  const std::string file(bytes.begin(), bytes.end());
  TestServer server([&](const HttpRequest& request, HttpConnection& out) {
    stguard_test::serve_bytes(file, request, out);
  });
  const Outcome outcome = fetch(server.url("/m"));
  ASSERT_TRUE(outcome.head) << outcome.head.error().message;
  EXPECT_FALSE(outcome.head->complete);
  Parser parser;
  const auto verdict = stguard::remote::validate_head(parser, *outcome.head, {});
  ASSERT_FALSE(verdict);
  EXPECT_EQ(verdict.error().reason, Reason::kHeaderLengthExceedsFile);
  EXPECT_EQ(server.requests().size(), 1U);
}

TEST(HostileServer, AConnectionResetMidHeaderIsAnError) {
  const std::string file = valid_file();
  TestServer server([&](const HttpRequest&, HttpConnection& out) {
    out.write("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-" +
              std::to_string(file.size() - 1) + "/" + std::to_string(file.size()) +
              "\r\nContent-Length: " + std::to_string(file.size()) + "\r\n\r\n" +
              file.substr(0, 20));
    out.reset();
  });
  const std::string url = server.url("/m");
  const Outcome outcome = fetch(url);
  ASSERT_FALSE(outcome.head);
  EXPECT_EQ(outcome.head.error().reason, Reason::kIoError);
  EXPECT_EQ(outcome.head.error().message.rfind(url + ": ", 0), 0U);
}

TEST(HostileServer, ASecondRequestCutShortIsAnError) {
  // N = 200,000: the second request is answered with fewer bytes than its
  // Content-Range announces, then the connection closes.
  std::string header = "{\"__metadata__\":{\"pad\":\"" + std::string(199'950, 'p') + "\"}}";
  auto bytes = stguard_test::FileBuilder(header).pad_to_8().build();
  const std::string file(bytes.begin(), bytes.end());
  TestServer server([&](const HttpRequest& request, HttpConnection& out) {
    const auto [first, last] = request.range();
    if (first > 0) {
      out.write("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes " + std::to_string(first) +
                "-" + std::to_string(last) + "/" + std::to_string(file.size()) +
                "\r\nContent-Length: " + std::to_string(last - first + 1) + "\r\n\r\n" +
                file.substr(static_cast<std::size_t>(first), 1000));
      return;
    }
    stguard_test::serve_bytes(file, request, out);
  });
  const std::string url = server.url("/m");
  expect_io_error(fetch(url), url, "");
}

TEST(HostileServer, AFileThatChangesSizeBetweenRequestsIsAnError) {
  std::string header = "{\"__metadata__\":{\"pad\":\"" + std::string(199'950, 'p') + "\"}}";
  auto bytes = stguard_test::FileBuilder(header).pad_to_8().build();
  const std::string file(bytes.begin(), bytes.end());
  TestServer server([&](const HttpRequest& request, HttpConnection& out) {
    const auto [first, last] = request.range();
    std::string grown = file;
    if (first > 0) grown += "extra";
    stguard_test::serve_bytes(grown, request, out);
  });
  const std::string url = server.url("/m");
  expect_io_error(fetch(url), url, "size changed between two requests");
}

TEST(HostileServer, RetriesAfterA503HonouringRetryAfter) {
  const std::string file = valid_file();
  int answered = 0;
  TestServer server([&](const HttpRequest& request, HttpConnection& out) {
    if (answered++ == 0) {
      out.write(http_answer(503, {{"Retry-After", "1"}, {"Content-Length", "0"}}));
      return;
    }
    stguard_test::serve_bytes(file, request, out);
  });
  const Outcome outcome = fetch(server.url("/m"));
  ASSERT_TRUE(outcome.head) << outcome.head.error().message;
  EXPECT_EQ(server.requests().size(), 2U);
  EXPECT_GE(outcome.took, 900ms);
}

TEST(HostileServer, ARetryAfterLongerThanStguardWaitsIsAnError) {
  TestServer server([&](const HttpRequest&, HttpConnection& out) {
    out.write(http_answer(429, {{"Retry-After", "3600"}, {"Content-Length", "0"}}));
  });
  const std::string url = server.url("/m");
  const Outcome outcome = fetch(url);
  expect_io_error(outcome, url, "HTTP 429");
  EXPECT_EQ(server.requests().size(), 1U);
  EXPECT_LT(outcome.took, 2s);
}

TEST(HostileServer, AServerErrorThatPersistsIsAnErrorAfterTheRetries) {
  TestServer server([&](const HttpRequest&, HttpConnection& out) {
    out.write(http_answer(500, {{"Content-Length", "0"}}));
  });
  const std::string url = server.url("/m");
  expect_io_error(fetch(url), url, "HTTP 500");
  EXPECT_EQ(server.requests().size(), 3U);  // the first and max_retries = 2 more
}

TEST(HostileServer, AShortFirstAnswerIsFollowedByARequestForTheRest) {
  const std::string file = valid_file();
  TestServer server([&](const HttpRequest& request, HttpConnection& out) {
    const auto [first, last] = request.range();
    // Ten bytes at a time, whatever was asked (RFC 9110 lets a server send less).
    const std::int64_t end =
        std::min<std::int64_t>({last, first + 9, static_cast<std::int64_t>(file.size()) - 1});
    out.write(http_answer(
        206,
        {{"Content-Range", "bytes " + std::to_string(first) + "-" + std::to_string(end) + "/" +
                               std::to_string(file.size())},
         {"Content-Length", std::to_string(end - first + 1)}},
        file.substr(static_cast<std::size_t>(first), static_cast<std::size_t>(end - first + 1))));
  });
  const std::string url = server.url("/m");
  // The second request is answered with ten bytes too: fewer than the header needs.
  expect_io_error(fetch(url), url, "bytes of the header's remaining");
}

TEST(HostileServer, NothingListeningIsAnError) {
  int port = 0;
  {
    TestServer gone([](const HttpRequest&, HttpConnection&) {});
    port = gone.port();
  }
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/m";
  expect_io_error(fetch(url), url, "Couldn't connect");
}

TEST(HostileServer, AnEmptyFileIsTooSmallAsOnDisk) {
  TestServer server([&](const HttpRequest& request, HttpConnection& out) {
    stguard_test::serve_bytes("", request, out);
  });
  const Outcome outcome = fetch(server.url("/m"));
  ASSERT_TRUE(outcome.head) << outcome.head.error().message;
  Parser parser;
  const auto verdict = stguard::remote::validate_head(parser, *outcome.head, {});
  ASSERT_FALSE(verdict);
  EXPECT_EQ(verdict.error().reason, Reason::kHeaderTooSmall);
}

}  // namespace

namespace {

TEST(HostileServer, ARedirectToAnotherProtocolIsRefused) {
  TestServer server([](const HttpRequest&, HttpConnection& out) {
    out.write(http_answer(302, {{"Location", "file:///etc/passwd"}, {"Content-Length", "0"}}));
  });
  const std::string url = server.url("/m");
  expect_io_error(fetch(url), url, "");
  // Nothing was read from the file the redirect named.
  HttpClient client(quick());
  const auto body = client.get(url, 1 << 20);
  ASSERT_FALSE(body);
  EXPECT_EQ(client.traffic().body_bytes, 0U);
}

}  // namespace
