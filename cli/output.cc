#include "output.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <iostream>
#include <tuple>
#include <utility>

#include "base/decimal.h"
#include "base/file_io.h"
#include "base/json.h"
#include "base/text.h"
#include "command.h"
#include "stguard/file.h"

namespace stguard::cli {

void add_parse_flags(Command& command, ParseFlags& flags) {
  CLI::App& app = *command.app;
  app.add_option("--profile", flags.profile,
                 "strict (default): the hardened reading of the format.\n"
                 "reference: what the upstream Rust reader accepts, no more.")
      ->option_text("strict|reference");
  app.add_option("--max-header-bytes", flags.max_header_bytes,
                 "largest accepted header length N\n"
                 "(default: 100000000, upstream's cap, in both profiles)")
      ->option_text("N")
      ->group(kLimitsGroup);
  app.add_option("--max-tensors", flags.max_tensors,
                 "most tensors in one header\n(default: strict 10000000, reference none)")
      ->option_text("N")
      ->group(kLimitsGroup);
  app.add_option("--max-rank", flags.max_rank,
                 "most dimensions in one shape\n(default: strict 1024, reference none)")
      ->option_text("N")
      ->group(kLimitsGroup);
  app.add_option("--max-name-bytes", flags.max_name_bytes,
                 "longest tensor name or metadata key (bytes, unescaped)\n"
                 "(default: strict 65536, reference none)")
      ->option_text("N")
      ->group(kLimitsGroup);
  command.group_notes.emplace_back(
      kLimitsGroup,
      "  Each limit N is a decimal in [0, 18446744073709551615] or \"none\"; a file\n"
      "  beyond one is rejected with LIMIT_EXCEEDED (HEADER_TOO_LARGE for the header).\n");
}

namespace {

// One limit flag's value into `out`: a decimal u64, or "none" for kNoLimit;
// nothing when the flag was not given.
base::Result<void> parse_limit(std::string_view flag, const std::optional<std::string>& text,
                               std::optional<std::uint64_t>& out) {
  if (!text) return {};
  if (*text == "none") {
    out = kNoLimit;
    return {};
  }
  const std::optional<std::uint64_t> n = base::parse_u64(*text);
  if (!n) {
    return base::fail(std::string(flag) +
                      " needs a decimal number in [0, 18446744073709551615] or 'none', got '" +
                      *text + "'");
  }
  out = *n;
  return {};
}

}  // namespace

base::Result<ParseOptions> to_parse_options(const ParseFlags& flags) {
  ParseOptions options;
  const std::optional<Profile> profile = profile_from_name(flags.profile);
  if (!profile) {
    return base::fail("unknown profile '" + flags.profile + "' (use strict or reference)");
  }
  options.profile = *profile;
  Limits& limits = options.limits;
  for (auto [flag, text, out] :
       {std::tuple{"--max-header-bytes", &flags.max_header_bytes, &limits.max_header_bytes},
        std::tuple{"--max-tensors", &flags.max_tensors, &limits.max_tensors},
        std::tuple{"--max-rank", &flags.max_rank, &limits.max_rank},
        std::tuple{"--max-name-bytes", &flags.max_name_bytes, &limits.max_name_bytes}}) {
    if (base::Result<void> parsed = parse_limit(flag, *text, *out); !parsed) return parsed.error();
  }
  return options;
}

nlohmann::ordered_json verdict_record(std::string_view file, Profile profile, const Error* error) {
  nlohmann::ordered_json record;
  base::set_name(record, "file", file);
  if (error == nullptr) {
    record["verdict"] = "accept";
  } else if (error->reason == Reason::kIoError) {
    record["verdict"] = "error";
  } else {
    record["verdict"] = "reject";
  }
  record["profile"] = std::string(profile_name(profile));
  if (error == nullptr) {
    record["reason"] = nullptr;
    record["offset"] = nullptr;
    record["message"] = nullptr;
  } else {
    record["reason"] = std::string(reason_name(error->reason));
    if (error->reason == Reason::kIoError) {
      record["offset"] = nullptr;
    } else {
      record["offset"] = error->offset;
    }
    record["message"] = error->message;
  }
  return record;
}

int exit_code_for(const Error* error) noexcept {
  if (error == nullptr) return kExitOk;
  return error->reason == Reason::kIoError ? kExitUsage : kExitFailed;
}

std::string error_text(const Error& error) {
  std::string out;
  if (error.reason == Reason::kIoError) {
    out = "error " + std::string(reason_name(error.reason));
  } else {
    out = "reject " + std::string(reason_name(error.reason)) + " at byte " +
          std::to_string(error.offset);
  }
  // The parser's messages already show names escaped; keep their backslashes.
  if (!error.message.empty()) {
    out += ": " + base::terminal_safe(error.message, {.keep_backslash = true});
  }
  return out;
}

namespace {

// Opens `path` as parse_file does (read-only; opening a FIFO does not wait
// for a writer), runs `check` on the descriptor and keeps it in *fd; errors
// as parse_file gives them, "<path>: " before an IO_ERROR's message.
template <class Check>
auto check_opened(const std::string& path, base::UniqueFd* fd, Check&& check)
    -> decltype(check(0)) {
  *fd = base::UniqueFd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY));
  if (!*fd) {
    return Error{Reason::kIoError, 0, path + ": cannot open: " + base::errno_text(errno)};
  }
  auto result = check(fd->get());
  if (!result && result.error().reason == Reason::kIoError) {
    Error error = std::move(result).error();
    error.message = path + ": " + error.message;
    return error;
  }
  return result;
}

}  // namespace

Result<Header> check_path(Parser& parser, const std::string& path, const ParseOptions& options,
                          base::UniqueFd* fd) {
  return check_opened(path, fd, [&](int opened) { return parser.parse_fd(opened, options); });
}

Result<HeaderSummary> validate_path(Parser& parser, const std::string& path,
                                    const ParseOptions& options, base::UniqueFd* fd) {
  return check_opened(path, fd, [&](int opened) { return parser.validate_fd(opened, options); });
}

std::optional<base::Sniffed> sniff_rejected_file(int fd, const Error& error) {
  if (error.reason == Reason::kIoError) return std::nullopt;
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  std::string head(base::kSniffBytes, '\0');
  int err = 0;
  head.resize(base::read_at(fd, head.data(), head.size(), 0, &err));
  if (err != 0) return std::nullopt;
  return sniff_rejected_head(head, static_cast<std::uint64_t>(st.st_size), error);
}

std::optional<base::Sniffed> sniff_rejected_head(std::string_view head, std::uint64_t file_size,
                                                 const Error& error) {
  if (error.reason == Reason::kIoError) return std::nullopt;
  const bool absurd_length =
      error.reason == Reason::kHeaderTooLarge || error.reason == Reason::kHeaderLengthExceedsFile;
  return base::sniff_content(head.substr(0, base::kSniffBytes), file_size, absurd_length);
}

void pause_between_reads_for_test() {
  const char* text = std::getenv("STGUARD_TEST_PAUSE_FD");
  if (text == nullptr) return;
  const std::optional<std::uint64_t> fd = base::parse_u64(text);
  if (!fd || *fd > INT_MAX) return;
  const char paused = 'p';
  ssize_t n = 0;
  do {
    n = ::write(static_cast<int>(*fd), &paused, 1);
  } while (n < 0 && errno == EINTR);
  if (n != 1) return;
  char go = 0;
  do {
    n = ::read(static_cast<int>(*fd), &go, 1);
  } while (n < 0 && errno == EINTR);
}

void add_sniff(nlohmann::ordered_json& record, const base::Sniffed& sniffed) {
  record["content"] = std::string(base::content_kind_name(sniffed.kind));
  record["hint"] = sniffed.description;
}

std::string sniff_text(const base::Sniffed& sniffed) {
  return "; this is " + base::terminal_safe(sniffed.description);
}

std::string shape_string(std::span<const std::uint64_t> shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) out += ',';
    out += std::to_string(shape[i]);
  }
  out += ']';
  return out;
}

ProgressLine::ProgressLine(std::string prefix, std::string what)
    : prefix_(std::move(prefix)), what_(std::move(what)), terminal_(::isatty(STDERR_FILENO) == 1) {}

std::function<void(std::size_t, std::size_t)> ProgressLine::callback() {
  if (!terminal_) return {};
  return [this](std::size_t done, std::size_t total) {
    std::cerr << "\r" << prefix_ << " " << done << " of " << total << " " << what_ << std::flush;
    drawn_ = true;
  };
}

void ProgressLine::erase() {
  if (drawn_) std::cerr << "\r\x1b[K" << std::flush;
  drawn_ = false;
}

}  // namespace stguard::cli
