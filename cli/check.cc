// cli/check.cc: `stguard check`, the structural verdict on one or more files.
//
// Each file is checked with Parser::validate_fd (one Parser for the run): only the first 8 + N
// bytes are read (pread), tensor data never is, and no tensor list is built,
// so checking a 100 GB shard costs about as much as parsing its header. The
// sniff of a rejected file reads the same descriptor (output.h).
//
// A URL or hf:// address is read the same way over HTTP (remote/head.h): two
// ranged GETs at most, the file's size from the server, the same parser on
// the same bytes, so the verdict is the one a downloaded copy would get.
// Remote files are fetched a few at a time (--jobs); verdicts are printed in
// argument order.
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "base/decimal.h"
#include "base/file_io.h"
#include "base/json.h"
#include "base/sniff.h"
#include "base/text.h"
#include "command.h"
#include "output.h"
#include "remote/batch.h"
#include "remote/head.h"
#include "remote/http.h"
#include "remote/hub.h"
#include "sarif.h"
#include "stguard/file.h"

namespace stguard::cli {
namespace {

constexpr std::string_view kCheckUsage =
    "stguard check [--profile strict|reference] [--json] [--sarif FILE] [--max-... N] "
    "[--files-from LIST] FILE|URL|hf://ORG/NAME[@REV][/PATH]...";

constexpr std::string_view kCheckIntro =
    "Validates the structure of safetensors files without reading tensor data.\n"
    "A URL (http://, https://) or hf:// address is checked over HTTP without downloading\n"
    "the file: its header is fetched with Range requests and its size is the server's.\n"
    "hf://ORG/NAME[@REV] checks every .safetensors file of a Hub repository (HF_ENDPOINT,\n"
    "HF_TOKEN or the Hub tools' token file; the token goes to that endpoint alone).\n";

constexpr std::string_view kCheckOutro =
    R"(Output (one line per file, in argument order):
  FILE: accept (T tensors, header N bytes, data D bytes, PROFILE)
  FILE: reject REASON at byte OFFSET: MESSAGE
  FILE: error IO_ERROR: MESSAGE            (cannot be opened or fetched, or is a directory)
A rejected file that is no safetensors file at all (a Git LFS pointer, an HTML
or JSON error page, a PyTorch checkpoint, a GGUF file, a file of zeros) gets
"; this is ..." after the message, saying what it is and what to do.
With --json:
  {"file","verdict":"accept"|"reject"|"error","profile","reason":null|"REASON",
   "offset":null|N,"message":null|"..."} and, when accepted, "tensors","header_len",
  "data_len"; such a rejected file also "content" (its kind) and "hint". OFFSET is
  the absolute file byte where the fault was found; it is null for "error"
  (IO_ERROR), which is not a verdict about the file's format.

Exit status: 0 every file accepted, 1 some file rejected, 2 usage error or some
file could not be opened (the other files are still checked).
)";

struct CheckArgs {
  ParseFlags parse;
  bool json = false;
  std::optional<std::string> sarif;
  std::string jobs = "8";
  std::string timeout = "120";
  std::optional<std::string> files_from;
  std::vector<std::string> files;
};

// The most a --files-from list may hold: far more names than any run needs.
constexpr std::uint64_t kMaxListBytes = std::uint64_t{64} << 20;

// The FILE arguments a --files-from list holds, one per line ("-": standard
// input); blank lines are skipped and a trailing CR dropped, nothing else
// is interpreted (a name may start with '#' or a blank).
base::Result<std::vector<std::string>> read_file_list(const std::string& list) {
  std::string text;
  if (list == "-") {
    char buffer[65536];
    while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
      text.append(buffer, static_cast<std::size_t>(std::cin.gcount()));
      if (text.size() > kMaxListBytes) break;
    }
  } else {
    base::Result<std::string> read = base::read_file(list, kMaxListBytes + 1);
    if (!read) return read.error();
    text = std::move(*read);
  }
  if (text.size() > kMaxListBytes) {
    return base::io_failure("--files-from " + list + ": longer than " +
                            std::to_string(kMaxListBytes) + " bytes");
  }
  std::vector<std::string> files;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) files.push_back(std::move(line));
    start = end + 1;
  }
  return files;
}

// One file to check: a local path, or a remote file an argument named (an
// argument naming a Hub repository gives one per .safetensors file).
struct Item {
  std::string shown;
  bool remote = false;
  std::string url;
  std::optional<std::uint64_t> listed_size;
  // A remote argument that could not be expanded: its I/O error.
  std::optional<Error> failed;
  // A remote file's outcome, and its first bytes for the sniff.
  std::optional<Result<HeaderSummary>> result;
  std::vector<std::uint8_t> head;
  std::uint64_t file_size = 0;
};

// The size of the file open at `fd`, when it can be had.
std::optional<std::uint64_t> size_of(int fd) {
  struct stat st {};
  if (fd < 0 || ::fstat(fd, &st) != 0) return std::nullopt;
  return static_cast<std::uint64_t>(st.st_size);
}

Error io_error(std::string message) { return Error{Reason::kIoError, 0, std::move(message)}; }

// Judges one remote file's fetched head into `item`.
void judge_remote(Parser& parser, const ParseOptions& options, Result<remote::RemoteHead> head,
                  Item& item) {
  if (!head) {
    Error error = std::move(head).error();
    // The message names the URL fetched; an hf:// file is shown by its address.
    if (item.url != item.shown) error.message = item.shown + ": " + error.message;
    item.result = std::move(error);
    return;
  }
  if (item.listed_size && *item.listed_size != head->file_size) {
    item.result =
        io_error(item.shown + ": the server gives the file " + std::to_string(head->file_size) +
                 " bytes, the repository's listing " + std::to_string(*item.listed_size));
    return;
  }
  item.result = remote::validate_head(parser, *head, options);
  item.file_size = head->file_size;
  // Only the sniff of a rejected file reads them later: its first bytes.
  const std::size_t kept = std::min(head->bytes.size(), base::kSniffBytes);
  item.head.assign(head->bytes.begin(), head->bytes.begin() + static_cast<std::ptrdiff_t>(kept));
}

// Fetches the remote files `jobs` at a time (a progress line on a terminal)
// and judges them.
void check_remote_items(std::vector<Item>& items, const ParseOptions& options, unsigned jobs,
                        const remote::HttpOptions& http) {
  std::vector<std::size_t> todo;
  std::vector<std::string> urls;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (!items[i].remote || items[i].failed) continue;
    todo.push_back(i);
    urls.push_back(items[i].url);
  }
  ProgressLine progress("stguard check: fetched", "remote files");
  remote::BatchOptions batch;
  batch.jobs = jobs;
  if (urls.size() > 4) batch.on_tick = progress.callback();
  std::vector<Result<remote::RemoteHead>> heads = remote::read_heads(urls, options, http, batch);
  progress.erase();
  Parser parser;
  for (std::size_t k = 0; k < todo.size(); ++k) {
    judge_remote(parser, options, std::move(heads[k]), items[todo[k]]);
  }
}

// The arguments as items, hf:// repositories expanded through their listings.
std::vector<Item> items_of(const std::vector<std::string>& files, const remote::HttpOptions& http,
                           const remote::HubSettings& hub) {
  std::vector<Item> items;
  std::optional<remote::HttpClient> lister;
  for (const std::string& file : files) {
    if (!remote::is_remote_address(file)) {
      Item item;
      item.shown = file;
      items.push_back(std::move(item));
      continue;
    }
    if (!lister) lister.emplace(http);
    base::Result<std::vector<remote::RemoteFile>> expanded =
        remote::expand_address(*lister, hub, file, ".safetensors");
    if (!expanded) {
      Item item;
      item.shown = file;
      item.remote = true;
      item.failed = io_error(expanded.error().message);
      items.push_back(std::move(item));
      continue;
    }
    for (remote::RemoteFile& one : *expanded) {
      Item item;
      item.shown = std::move(one.shown);
      item.remote = true;
      item.url = std::move(one.url);
      item.listed_size = one.listed_size;
      items.push_back(std::move(item));
    }
  }
  return items;
}

void print_text(const std::string& file, Profile profile, const Result<HeaderSummary>& result,
                const std::optional<base::Sniffed>& sniffed) {
  std::cout << base::terminal_safe(file) << ": ";
  if (result) {
    const HeaderSummary& header = *result;
    std::cout << "accept (" << base::plural(header.tensor_count, "tensor") << ", header "
              << header.header_len << " bytes, data " << header.data_len() << " bytes, "
              << profile_name(profile) << ")\n";
    return;
  }
  std::cout << error_text(result.error());
  if (sniffed) std::cout << sniff_text(*sniffed);
  std::cout << "\n";
}

void print_json(const std::string& file, Profile profile, const Result<HeaderSummary>& result,
                const std::optional<base::Sniffed>& sniffed) {
  nlohmann::ordered_json record = verdict_record(file, profile, result ? nullptr : &result.error());
  if (result) {
    record["tensors"] = result->tensor_count;
    record["header_len"] = result->header_len;
    record["data_len"] = result->data_len();
  } else if (sniffed) {
    add_sniff(record, *sniffed);
  }
  std::cout << base::json_line(record) << "\n";
}

int run_check(const Command& command, const CheckArgs& args) {
  const base::Result<ParseOptions> options = to_parse_options(args.parse);
  if (!options) return usage_error(command, options.error().message);
  std::vector<std::string> files = args.files;
  if (args.files_from) {
    base::Result<std::vector<std::string>> listed = read_file_list(*args.files_from);
    if (!listed) {
      std::cerr << "stguard check: " << base::terminal_safe(listed.error().message) << "\n";
      return kExitUsage;
    }
    files.insert(files.end(), listed->begin(), listed->end());
  }
  if (files.empty()) return usage_error(command, "no FILE given");

  const std::optional<std::uint64_t> jobs = base::parse_u64(args.jobs);
  if (!jobs || *jobs == 0 || *jobs > 64) {
    return usage_error(command, "--jobs must be a whole number from 1 to 64");
  }
  const std::optional<std::uint64_t> timeout = base::parse_u64(args.timeout);
  if (!timeout || *timeout == 0 || *timeout > 86'400) {
    return usage_error(command, "--timeout must be a whole number of seconds from 1 to 86400");
  }
  // The Hub's settings (and the token file) are read only when an argument
  // is remote: a check of local files reads nothing else.
  const bool any_remote = std::any_of(files.begin(), files.end(), [](const std::string& file) {
    return remote::is_remote_address(file);
  });
  remote::HubSettings hub;
  if (any_remote) {
    base::Result<remote::HubSettings> settings = remote::hub_settings_from_environment();
    if (!settings) {
      std::cerr << "stguard check: " << base::terminal_safe(settings.error().message) << "\n";
      return kExitUsage;
    }
    hub = std::move(*settings);
  }
  remote::HttpOptions http = remote::http_options_from_environment();
  http.request_timeout = std::chrono::seconds(*timeout);
  remote::add_token(hub, http);

  std::vector<Item> items = items_of(files, http, hub);
  check_remote_items(items, *options, static_cast<unsigned>(*jobs), http);

  int exit_code = kExitOk;
  std::vector<std::string> unreadable;
  std::optional<sarif::CheckLog> log;
  if (args.sarif) log.emplace();
  Parser parser;  // its scratch memory kept from file to file
  for (Item& item : items) {
    const std::string& file = item.shown;
    base::UniqueFd fd;
    std::optional<base::Sniffed> sniffed;
    std::optional<std::uint64_t> file_size;
    Result<HeaderSummary> result = io_error("");
    if (item.failed) {
      result = std::move(*item.failed);
    } else if (item.remote) {
      result = std::move(*item.result);
      file_size = item.file_size;
      if (!result) {
        sniffed = sniff_rejected_head(
            std::string_view(reinterpret_cast<const char*>(item.head.data()), item.head.size()),
            item.file_size, result.error());
      }
    } else {
      result = validate_path(parser, file, *options, &fd);
      if (!result && result.error().reason != Reason::kIoError) {
        pause_between_reads_for_test();
        sniffed = sniff_rejected_file(fd.get(), result.error());
      }
      file_size = size_of(fd.get());
    }
    if (args.json) {
      print_json(file, options->profile, result, sniffed);
    } else {
      print_text(file, options->profile, result, sniffed);
    }
    exit_code = std::max(exit_code, exit_code_for(result ? nullptr : &result.error()));
    if (log) log->add(file, result, file_size);
    if (!result && result.error().reason == Reason::kIoError) unreadable.push_back(file);
  }
  // The verdicts are on stdout, which a script may be reading; why the exit
  // status is 2 goes to stderr as well, where people and CI logs look.
  for (const std::string& file : unreadable) {
    std::cerr << "stguard check: could not read " << base::terminal_safe(file)
              << " (IO_ERROR, exit 2)\n";
  }
  if (log) {
    if (const base::Result<void> wrote = log->write(*args.sarif, exit_code); !wrote) {
      std::cerr << "stguard check: " << base::terminal_safe(wrote.error().message) << "\n";
      return kExitUsage;
    }
  }
  return exit_code;
}

}  // namespace

void add_check_command(CLI::App& root, Commands& commands) {
  Command& command =
      commands.add(root, "check", "validate safetensors files (verdict, reason, byte offset)",
                   kCheckUsage, kCheckIntro, kCheckOutro);
  auto args = std::make_shared<CheckArgs>();
  add_parse_flags(command, args->parse);
  command.app->add_flag("--json", args->json, "one JSON object per file, one per line, on stdout")
      ->disable_flag_override();
  command.app
      ->add_option("--sarif", args->sarif,
                   "also write a SARIF 2.1.0 log to FILE: a result per rejected or "
                   "unreadable file, at the byte of the fault")
      ->option_text("FILE")
      ->check(role(ValueRole::kOutputFile));
  command.app
      ->add_option("--jobs", args->jobs, "remote files fetched at once (default 8, at most 64)")
      ->option_text("N")
      ->check(role(ValueRole::kNumber));
  command.app
      ->add_option("--timeout", args->timeout,
                   "seconds one HTTP request may take, redirects included (default 120)")
      ->option_text("SECONDS")
      ->check(role(ValueRole::kNumber));
  command.app
      ->add_option("--files-from", args->files_from,
                   "also check the paths and URLs LIST names, one per line, after the FILEs "
                   "given (- for standard input)")
      ->option_text("LIST")
      ->check(role(ValueRole::kInputFile));
  command.app->add_option("FILE", args->files)->check(role(ValueRole::kInputFile));
  command.positionals = &args->files;
  command.run = [&command, args] { return run_check(command, *args); };
}

}  // namespace stguard::cli
