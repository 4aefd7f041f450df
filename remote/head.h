// remote/head.h: the head of a remote safetensors file (its length prefix and
// header) read with ranged GETs, and the verdict on it.
//
//   remote::HttpClient client;
//   Result<remote::RemoteHead> head = remote::read_head(client, url, options);
//   if (!head) ...;                                    // kIoError "URL: why"
//   Result<HeaderSummary> verdict = remote::validate_head(parser, *head, options);
//
// The first request asks for kFirstRequestBytes, which hold the whole header
// of most files; the file's size is the total of its Content-Range. When the
// length prefix says the header goes further (and the limits and the size
// allow it), a second request reads the rest, and must give the same size.
// The verdict is then the parser's on exactly the bytes, and with exactly the
// file size, that parse_fd would read from a local copy of the file: remote
// and local verdicts, reasons, offsets and messages are the same.
#ifndef STGUARD_REMOTE_HEAD_H_
#define STGUARD_REMOTE_HEAD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "remote/http.h"
#include "stguard/header.h"
#include "stguard/parser.h"
#include "stguard/result.h"

namespace stguard::remote {

// The Hub's own helper asks for this much first: most headers fit in it.
inline constexpr std::uint64_t kFirstRequestBytes = 100'000;

struct RemoteHead {
  std::string url;
  // The file's first bytes: at least min(file_size, 8 + N) of them when
  // `complete` (all the first request gave, when that is more); otherwise
  // those of the first request, whose length prefix the parser rejects (too
  // small, too large, past the end of the file).
  std::vector<std::uint8_t> bytes;
  std::uint64_t file_size = 0;
  bool complete = false;
};

// Reads the head of the file at `url` (http or https). kIoError (offset 0,
// message "URL: why") when it cannot be read; a header the parser will
// reject is not an error here.
Result<RemoteHead> read_head(HttpClient& client, const std::string& url,
                             const ParseOptions& options);

// The verdict parse_fd and validate_fd give on a local copy of the file.
Result<HeaderSummary> validate_head(Parser& parser, const RemoteHead& head,
                                    const ParseOptions& options);
Result<Header> parse_head(Parser& parser, const RemoteHead& head, const ParseOptions& options);

}  // namespace stguard::remote

#endif  // STGUARD_REMOTE_HEAD_H_
