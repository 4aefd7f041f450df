// cli/inspect.cc: `stguard inspect`, the header of one file as a table, its
// metadata, and lints.
//
// Both ranges are shown because safetensors offsets are relative to the data
// buffer, which starts at byte 8 + N: a tool that seeks to data_offsets[0]
// from the start of the file reads header bytes instead of tensor data.
//
// Lints are warnings about files that are valid but unusual; they never change
// the verdict or the exit status. --scan-values reads the tensor data too
// (verify/value_scan.h), and NaN or Inf found there does: exit status 1.
#include <algorithm>
#include <array>
#include <iostream>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/file_io.h"
#include "base/json.h"
#include "base/sha256.h"
#include "base/text.h"
#include "command.h"
#include "output.h"
#include "stguard/dtype.h"
#include "stguard/file.h"
#include "stguard/lint.h"
#include "verify/value_scan.h"

namespace stguard::cli {
namespace {

constexpr std::string_view kInspectUsage =
    "stguard inspect [--json] [--scan-values] [--profile strict|reference] [--max-... N] FILE";

constexpr std::string_view kInspectIntro =
    R"(Shows the header of a safetensors file: one row per tensor with its name, dtype,
shape, range relative to the data buffer [begin,end), absolute file range
[8+N+begin, 8+N+end) and size in bytes; then the __metadata__ pairs; then lints.
)";

constexpr std::string_view kInspectOutro =
    R"(Lints are warnings, not rejections (the exit status stays 0):
  HEADER_NOT_ALIGNED    header length N is not a multiple of 8, so the data
                        buffer (byte 8+N) is not 8-byte aligned
  DATA_MISALIGNED       a tensor's absolute start is not a multiple of its
                        element size (bytes per element; sub-byte dtypes and
                        empty tensors are not checked)
  NON_CANONICAL_ORDER   header order differs from the canonical writer order
                        (dtype rank U64, I64, F64, ..., BOOL, then name)
  OFFSETS_NOT_IN_ORDER  header order is not the order of the data offsets

A rejected file prints REASON, byte OFFSET and message and exits 1 (with what
the file really is when it is no safetensors file at all, as `stguard check`
says); a file that cannot be opened exits 2. JSON keys: file, verdict, profile,
reason, offset, message, then (accepted) header_len, data_offset, data_len,
file_size, tensors [{name, dtype, shape, data_offsets, absolute_offsets, bytes,
header_offset}], metadata (object or null), lints [{code, tensor, message}];
with --scan-values each tensor also has values ({values, nan, pos_inf, neg_inf,
all_zero}, or null for integer and BOOL tensors) and the record a values
summary.
)";

// Text mode shows at most this many lints of one code; JSON shows all.
constexpr std::size_t kMaxLintsShownPerCode = 20;
// Text mode shortens metadata values longer than this (code points).
constexpr std::size_t kMaxMetadataValueShown = 200;

struct InspectArgs {
  ParseFlags parse;
  bool json = false;
  bool scan_values = false;
  std::vector<std::string> files;
};

struct Lint {
  std::string_view code;
  std::optional<std::string> tensor;
  std::string message;
};

std::string quote_name(std::string_view name) { return "'" + base::terminal_safe(name) + "'"; }

std::string range_string(std::uint64_t begin, std::uint64_t end) {
  return "[" + std::to_string(begin) + "," + std::to_string(end) + ")";
}

// The parser's lints (stguard/lint.h), each with the sentence inspect shows.
std::vector<Lint> describe_lints(const Header& header) {
  std::vector<Lint> described;
  const std::vector<TensorInfo>& tensors = header.tensors;
  for (const stguard::Lint& lint : lint_header(header)) {
    const std::string_view code = lint_code_name(lint.code);
    switch (lint.code) {
      case LintCode::kHeaderNotAligned:
        described.push_back({code, std::nullopt,
                             "header length " + std::to_string(header.header_len) +
                                 " is not a multiple of 8; the data buffer starts at byte " +
                                 std::to_string(header.data_offset())});
        break;
      case LintCode::kDataMisaligned: {
        const TensorInfo& t = tensors[*lint.tensor];
        described.push_back({code, std::string(t.name),
                             "tensor " + quote_name(t.name) + " (" +
                                 std::string(dtype_name(t.dtype)) + ") starts at byte " +
                                 std::to_string(header.data_offset() + t.begin) +
                                 ", not a multiple of its element size " +
                                 std::to_string(dtype_bits(t.dtype) / 8)});
        break;
      }
      case LintCode::kNonCanonicalOrder: {
        const TensorInfo& here = tensors[*lint.tensor];
        const TensorInfo& expected = tensors[*lint.other];
        described.push_back({code, std::string(here.name),
                             "the data of " + quote_name(here.name) +
                                 " is where the canonical writer order (dtype rank, then "
                                 "name) puts " +
                                 quote_name(expected.name) + " (" +
                                 std::string(dtype_name(expected.dtype)) + ")"});
        break;
      }
      case LintCode::kOffsetsNotInOrder: {
        const TensorInfo& here = tensors[*lint.tensor];
        const TensorInfo& prev = tensors[*lint.other];
        described.push_back({code, std::string(here.name),
                             "tensor " + quote_name(here.name) + " at " +
                                 range_string(here.begin, here.end) + " comes after " +
                                 quote_name(prev.name) + " at " +
                                 range_string(prev.begin, prev.end) +
                                 " in the header; readers that assume offset order misread it"});
        break;
      }
    }
  }
  return described;
}

// The value scan of an accepted file: one read of the whole file.
struct ValueScan {
  std::vector<verify::TensorValues> tensors;  // the scanned ones, in header order
  std::string error;                          // why the file could not be read
};

// Reads the file open on `fd`, the descriptor its header was read from, so
// that the values are that file's even if another was renamed over it.
ValueScan scan_values(int fd, const Header& header) {
  ValueScan out;
  verify::ValueScanner scanner(header.tensors, header.data_offset());
  const base::StreamOutcome read = base::stream_fd(
      fd, {}, nullptr, [&](std::span<const std::uint8_t> chunk) { scanner.feed(chunk); });
  if (!read.ok()) {
    out.error = read.error;
  } else if (read.bytes != header.file_size) {
    out.error = "changed since its header was read: " + std::to_string(read.bytes) +
                " bytes, the header was read from a file of " + std::to_string(header.file_size);
  } else {
    out.tensors = scanner.finish();
  }
  return out;
}

bool any_nan_or_inf(const std::vector<verify::TensorValues>& tensors) {
  return std::any_of(tensors.begin(), tensors.end(),
                     [](const verify::TensorValues& t) { return t.has_nan_or_inf(); });
}

nlohmann::ordered_json values_summary_json(const std::vector<verify::TensorValues>& tensors) {
  std::uint64_t bytes = 0, nan = 0, pos_inf = 0, neg_inf = 0;
  std::uint64_t with_nan = 0, with_inf = 0, all_zero = 0;
  for (const verify::TensorValues& t : tensors) {
    bytes += t.bytes;
    nan += t.nan;
    pos_inf += t.pos_inf;
    neg_inf += t.neg_inf;
    with_nan += t.nan != 0 ? 1 : 0;
    with_inf += t.pos_inf != 0 || t.neg_inf != 0 ? 1 : 0;
    all_zero += t.all_zero ? 1 : 0;
  }
  nlohmann::ordered_json j;
  j["tensors_scanned"] = tensors.size();
  j["tensor_bytes"] = bytes;
  j["tensors_nan"] = with_nan;
  j["tensors_inf"] = with_inf;
  j["tensors_all_zero"] = all_zero;
  j["nan"] = nan;
  j["pos_inf"] = pos_inf;
  j["neg_inf"] = neg_inf;
  return j;
}

// Streamed rather than built as one tree: a shape may hold tens of millions
// of dimensions (base::JsonStream says what a tree would cost).
void write_inspect_json(std::ostream& out, const std::string& file, Profile profile,
                        const Header& header, const std::vector<Lint>& lints,
                        const std::vector<verify::TensorValues>* values) {
  base::JsonStream json(out);
  json.begin_object().members(verdict_record(file, profile, nullptr));
  json.key("header_len").value(header.header_len);
  json.key("data_offset").value(header.data_offset());
  json.key("data_len").value(header.data_len());
  json.key("file_size").value(header.file_size);
  json.key("tensors").begin_array();
  std::size_t next_scanned = 0;
  for (const TensorInfo& t : header.tensors) {
    json.begin_object();
    json.key("name").value(t.name);
    json.key("dtype").value(std::string(dtype_name(t.dtype)));
    json.key("shape").numbers(t.shape);
    json.key("data_offsets").numbers(std::array{t.begin, t.end});
    json.key("absolute_offsets")
        .numbers(std::array{header.data_offset() + t.begin, header.data_offset() + t.end});
    json.key("bytes").value(t.byte_size());
    json.key("header_offset").value(t.header_offset);
    if (values != nullptr) {
      // values holds the scanned tensors in header order.
      if (verify::dtype_is_scanned(t.dtype) && next_scanned < values->size()) {
        const verify::TensorValues& v = (*values)[next_scanned++];
        json.key("values").value({{"values", v.values},
                                  {"nan", v.nan},
                                  {"pos_inf", v.pos_inf},
                                  {"neg_inf", v.neg_inf},
                                  {"all_zero", v.all_zero}});
      } else {
        json.key("values").value(nullptr);
      }
    }
    json.end_object();
  }
  json.end_array();
  if (values != nullptr) json.key("values").value(values_summary_json(*values));
  // As a tree: the reference profile keeps a repeated key's last value at
  // its first place, which the object's assignment does.
  nlohmann::ordered_json metadata = nullptr;
  if (header.metadata) {
    metadata = nlohmann::ordered_json::object();
    for (const auto& [key, value] : *header.metadata) metadata[key] = value;
  }
  json.key("metadata").value(metadata);
  json.key("lints").begin_array();
  for (const Lint& lint : lints) {
    json.begin_object().key("code").value(std::string(lint.code));
    json.key("tensor");
    if (lint.tensor) {
      json.value(*lint.tensor);
    } else {
      json.value(nullptr);
    }
    json.key("message").value(lint.message).end_object();
  }
  json.end_array().end_object();
  json.flush();
}

// Left-aligned columns; the last column is not padded.
void print_table(const std::vector<std::vector<std::string>>& rows) {
  if (rows.empty()) return;
  std::vector<std::size_t> widths(rows[0].size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], base::code_point_count(row[c]));
    }
  }
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line.append(widths[c] - base::code_point_count(row[c]) + 2, ' ');
    }
    std::cout << line << "\n";
  }
}

std::string shortened(std::string_view value) {
  std::string shown = base::terminal_safe(value);
  if (base::code_point_count(shown) <= kMaxMetadataValueShown) return shown;
  // Cut at a code point boundary.
  std::size_t count = 0;
  std::size_t cut = 0;
  while (cut < shown.size()) {
    if ((static_cast<unsigned char>(shown[cut]) & 0xC0) != 0x80) {
      if (count == kMaxMetadataValueShown) break;
      ++count;
    }
    ++cut;
  }
  return shown.substr(0, cut) + "... (" + std::to_string(value.size()) + " bytes)";
}

void print_inspect_text(const std::string& file, Profile profile, const Header& header,
                        const std::vector<Lint>& lints) {
  std::cout << "file:     " << base::terminal_safe(file) << "\n"
            << "verdict:  accept (" << profile_name(profile) << ")\n"
            << "header:   " << header.header_len << " bytes at "
            << range_string(8, header.data_offset()) << "\n"
            << "data:     " << header.data_len() << " bytes at "
            << range_string(header.data_offset(), header.file_size) << "\n"
            << "tensors:  " << header.tensors.size() << "\n";

  if (!header.tensors.empty()) {
    std::vector<std::vector<std::string>> rows;
    rows.reserve(header.tensors.size() + 1);
    rows.push_back(
        {"NAME", "DTYPE", "SHAPE", "RELATIVE [begin,end)", "ABSOLUTE [begin,end)", "BYTES"});
    for (const TensorInfo& t : header.tensors) {
      rows.push_back({t.name.empty() ? std::string("\"\"") : base::terminal_safe(t.name),
                      std::string(dtype_name(t.dtype)), shape_string(t.shape),
                      range_string(t.begin, t.end),
                      range_string(header.data_offset() + t.begin, header.data_offset() + t.end),
                      std::to_string(t.byte_size())});
    }
    std::cout << "\n";
    print_table(rows);
  }

  std::cout << "\n";
  if (!header.metadata) {
    std::cout << "metadata: none\n";
  } else {
    std::cout << "metadata: " << header.metadata->size()
              << (header.metadata->size() == 1 ? " key" : " keys") << "\n";
    for (const auto& [key, value] : *header.metadata) {
      std::cout << "  " << base::terminal_safe(key) << " = " << shortened(value) << "\n";
    }
  }

  std::cout << "\n";
  if (lints.empty()) {
    std::cout << "lints: none\n";
    return;
  }
  std::cout << "lints (warnings; the file is accepted):\n";
  std::size_t shown_of_code = 0;
  for (std::size_t i = 0; i < lints.size(); ++i) {
    if (i == 0 || lints[i].code != lints[i - 1].code) shown_of_code = 0;
    if (shown_of_code < kMaxLintsShownPerCode) {
      std::cout << "  " << lints[i].code << ": " << lints[i].message << "\n";
    } else if (shown_of_code == kMaxLintsShownPerCode) {
      std::size_t rest = 0;
      for (std::size_t j = i; j < lints.size() && lints[j].code == lints[i].code; ++j) ++rest;
      std::cout << "  " << lints[i].code << ": ... and " << rest << " more (see --json)\n";
    }
    ++shown_of_code;
  }
}

// The tensors with NaN, Inf or only zeros, after a summary line.
void print_values_text(const std::vector<verify::TensorValues>& tensors) {
  std::uint64_t bytes = 0, with_nan = 0, with_inf = 0, all_zero = 0;
  std::vector<std::vector<std::string>> rows = {
      {"NAME", "DTYPE", "NAN", "+INF", "-INF", "ALL_ZERO"}};
  for (const verify::TensorValues& t : tensors) {
    bytes += t.bytes;
    with_nan += t.nan != 0 ? 1 : 0;
    with_inf += t.pos_inf != 0 || t.neg_inf != 0 ? 1 : 0;
    all_zero += t.all_zero ? 1 : 0;
    if (!t.noteworthy()) continue;
    rows.push_back({t.name.empty() ? std::string("\"\"") : base::terminal_safe(t.name),
                    std::string(dtype_name(t.dtype)), std::to_string(t.nan),
                    std::to_string(t.pos_inf), std::to_string(t.neg_inf),
                    t.all_zero ? "yes" : "no"});
  }
  std::cout << "\nvalues:   " << tensors.size() << " floating-point tensor"
            << (tensors.size() == 1 ? "" : "s") << " scanned (" << bytes << " bytes): " << with_nan
            << " with NaN, " << with_inf << " with Inf, " << all_zero << " all zero\n";
  if (rows.size() > 1) print_table(rows);
}

int run_inspect(const Command& command, const InspectArgs& args) {
  const base::Result<ParseOptions> options = to_parse_options(args.parse);
  if (!options) return usage_error(command, options.error().message);
  if (args.files.size() != 1) {
    return usage_error(command, args.files.empty() ? "no FILE given" : "exactly one FILE expected");
  }
  const std::string& file = args.files.front();
  const Profile profile = options->profile;
  // One descriptor for the header, the sniff and the values (output.h).
  base::UniqueFd fd;
  Parser parser;
  const Result<Header> result = check_path(parser, file, *options, &fd);
  if (!result) {
    if (result.error().reason != Reason::kIoError) pause_between_reads_for_test();
    const std::optional<base::Sniffed> sniffed = sniff_rejected_file(fd.get(), result.error());
    if (args.json) {
      nlohmann::ordered_json record = verdict_record(file, profile, &result.error());
      if (sniffed) add_sniff(record, *sniffed);
      std::cout << base::json_line(record) << "\n";
    } else {
      std::cout << base::terminal_safe(file) << ": " << error_text(result.error())
                << (sniffed ? sniff_text(*sniffed) : "") << "\n";
    }
    if (result.error().reason == Reason::kIoError) {
      std::cerr << "stguard inspect: could not read " << base::terminal_safe(file)
                << " (IO_ERROR, exit 2)\n";
    }
    return exit_code_for(&result.error());
  }
  const std::vector<Lint> lints = describe_lints(*result);
  std::optional<ValueScan> scan;
  if (args.scan_values) {
    pause_between_reads_for_test();
    scan = scan_values(fd.get(), *result);
    if (!scan->error.empty()) {
      std::cerr << "stguard inspect: " << base::terminal_safe(file) << ": "
                << base::terminal_safe(scan->error) << "\n";
      return kExitUsage;
    }
  }
  const std::vector<verify::TensorValues>* values = scan ? &scan->tensors : nullptr;
  if (args.json) {
    write_inspect_json(std::cout, file, profile, *result, lints, values);
    std::cout << "\n";
  } else {
    print_inspect_text(file, profile, *result, lints);
    if (values != nullptr) print_values_text(*values);
  }
  return values != nullptr && any_nan_or_inf(*values) ? kExitFailed : kExitOk;
}

}  // namespace

void add_inspect_command(CLI::App& root, Commands& commands) {
  Command& command = commands.add(
      root, "inspect",
      "show a file's header: tensors with relative and absolute ranges, metadata, lints",
      kInspectUsage, kInspectIntro, kInspectOutro);
  auto args = std::make_shared<InspectArgs>();
  command.app->add_flag("--json", args->json, "one JSON object instead of the table")
      ->disable_flag_override();
  command.app
      ->add_flag("--scan-values", args->scan_values,
                 "also read the tensor data: count NaN, +Inf and -Inf in each "
                 "floating-point tensor and find tensors that are all zeros; "
                 "exit status 1 when any NaN or Inf")
      ->disable_flag_override();
  add_parse_flags(command, args->parse);
  command.app->add_option("FILE", args->files)->check(role(ValueRole::kInputFile));
  command.positionals = &args->files;
  command.run = [&command, args] { return run_inspect(command, *args); };
}

}  // namespace stguard::cli
