// stguard/parser.h: a parser that keeps its scratch memory between calls.
//
// Checking a header needs working memory besides its result: a compact
// record per tensor, hash tables for repeated names, the arrays of the
// layout check. A Parser owns that memory and keeps it from one call to the
// next, so a program that checks many headers allocates it once, for the
// largest; the one-shot functions of stguard/header.h and stguard/file.h
// make a fresh Parser for each call and pay for the allocation every time
// (for a 100,000-tensor header, several megabytes to fault in).
//
//   stguard::Parser parser;  // one per thread: it is not thread-safe
//   for (const std::string& path : paths) {
//     auto verdict = parser.validate_file(path, options);
//     ...
//   }
//
// Every call gives exactly what the one-shot function of the same name
// gives, whatever the parser read before: its memory holds no state that
// the next call reads. A Header returned by parse_header owns its names and
// shapes (stguard/header.h) and outlives the Parser.
//
// The memory kept is about 40 bytes per tensor of the largest header read
// (more in the reference profile and for parse_header); scratch_bytes() says
// how much it is and release() frees it.
#ifndef STGUARD_PARSER_H_
#define STGUARD_PARSER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "stguard/header.h"
#include "stguard/result.h"

namespace stguard {

namespace detail {
struct Scratch;
}  // namespace detail

class Parser {
 public:
  Parser() noexcept;
  ~Parser();
  Parser(Parser&&) noexcept;
  Parser& operator=(Parser&&) noexcept;
  Parser(const Parser&) = delete;
  Parser& operator=(const Parser&) = delete;

  // As stguard::parse_header, stguard::validate_header and stguard::parse
  // (stguard/header.h).
  Result<Header> parse_header(std::span<const std::uint8_t> bytes, std::uint64_t file_size,
                              const ParseOptions& options = {});
  Result<HeaderSummary> validate_header(std::span<const std::uint8_t> bytes,
                                        std::uint64_t file_size, const ParseOptions& options = {});
  Result<Header> parse(std::span<const std::uint8_t> bytes, const ParseOptions& options = {}) {
    return parse_header(bytes, bytes.size(), options);
  }

  // As stguard::parse_fd, validate_fd, parse_file and validate_file
  // (stguard/file.h).
  Result<Header> parse_fd(int fd, const ParseOptions& options = {});
  Result<HeaderSummary> validate_fd(int fd, const ParseOptions& options = {});
  Result<Header> parse_file(const std::string& path, const ParseOptions& options = {});
  Result<HeaderSummary> validate_file(const std::string& path, const ParseOptions& options = {});

  // The bytes of scratch memory the parser holds now.
  std::size_t scratch_bytes() const noexcept;
  // Frees them; the next call allocates afresh.
  void release();

 private:
  // The scratch, made on first use (and after release or a move).
  detail::Scratch& scratch();

  std::unique_ptr<detail::Scratch> scratch_;
};

}  // namespace stguard

#endif  // STGUARD_PARSER_H_
