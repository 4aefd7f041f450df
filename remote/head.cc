#include "remote/head.h"

#include <algorithm>
#include <span>
#include <utility>

namespace stguard::remote {
namespace {

Error io_error(std::string message) { return Error{Reason::kIoError, 0, std::move(message)}; }

std::span<const std::uint8_t> prefix_of(const RemoteHead& head) {
  return {head.bytes.data(), std::min<std::size_t>(head.bytes.size(), 8)};
}

}  // namespace

Result<RemoteHead> read_head(HttpClient& client, const std::string& url,
                             const ParseOptions& options) {
  base::Result<RangeReply> first = client.get_range(url, 0, kFirstRequestBytes - 1);
  if (!first) return io_error(first.error().message);
  RemoteHead head;
  head.url = url;
  head.file_size = first->file_size;
  head.bytes = std::move(first->bytes);
  if (head.bytes.size() < std::min<std::uint64_t>(head.file_size, 8)) {
    return io_error(url + ": the server sent " + std::to_string(head.bytes.size()) +
                    " bytes, too few for the length prefix");
  }
  const Result<std::uint64_t> n =
      parse_header_length(prefix_of(head), head.file_size, options.limits);
  if (!n) return head;  // the verdict is the prefix's
  // parse_header_length bounds N by the limit and 8 + N by the file size.
  const std::uint64_t head_len = 8 + *n;
  if (head.bytes.size() < head_len) {
    const std::uint64_t have = head.bytes.size();
    base::Result<RangeReply> rest = client.get_range(url, have, head_len - 1);
    if (!rest) return io_error(rest.error().message);
    if (rest->file_size != head.file_size) {
      return io_error(url + ": the file's size changed between two requests, from " +
                      std::to_string(head.file_size) + " to " + std::to_string(rest->file_size) +
                      " bytes");
    }
    if (rest->bytes.size() != head_len - have) {
      return io_error(url + ": the server sent " + std::to_string(rest->bytes.size()) +
                      " bytes of the header's remaining " + std::to_string(head_len - have));
    }
    head.bytes.insert(head.bytes.end(), rest->bytes.begin(), rest->bytes.end());
  }
  head.complete = true;
  return head;
}

Result<HeaderSummary> validate_head(Parser& parser, const RemoteHead& head,
                                    const ParseOptions& options) {
  if (!head.complete) {
    return parse_header_length(prefix_of(head), head.file_size, options.limits).error();
  }
  // Bytes past the header, when the first request held them, are never read.
  return parser.validate_header(head.bytes, head.file_size, options);
}

Result<Header> parse_head(Parser& parser, const RemoteHead& head, const ParseOptions& options) {
  if (!head.complete) {
    return parse_header_length(prefix_of(head), head.file_size, options.limits).error();
  }
  return parser.parse_header(head.bytes, head.file_size, options);
}

}  // namespace stguard::remote
