// conformance/hunt/signature.cc: divergence kinds, signatures, buckets (signature.h).
#include "conformance/hunt/signature.h"

#include <algorithm>
#include <set>

#include "base/sha256.h"
#include "base/text.h"

namespace stguard::hunt {
namespace {

constexpr std::size_t kMaxNormalisedBytes = 120;
constexpr std::size_t kMaxInputBytes = 4096;
constexpr std::size_t kMaxHeaderBytes = 64 << 10;  // of a header searched for names
constexpr std::size_t kCrashFrames = 3;
constexpr std::size_t kMaxFrameBytes = 200;
constexpr std::size_t kMaxCrashStateBytes = 600;
// A sanitizer's stack starts within this many lines of its report's first
// line; further down a stack belongs to something else.
constexpr std::size_t kMaxLinesToStack = 20;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_quote(char c) { return c == '"' || c == '\'' || c == '`'; }

// Readers differ in how they quote a tensor name: JSON-escaped ("a\"b"), or, as
// the JavaScript ones do, printed raw ("a"b"), so the name may itself hold the
// quote. A quote opens only where a word starts (after a blank or an opening
// bracket: "can't" opens nothing) and closes only where one ends (before a
// blank, the end or punctuation: the '"' in "]^#V"1[o" is part of the name).
// A name holding, say, '" ' stays ambiguous; that costs a bucket, not a miss.
bool opens_quote(std::string_view text, std::size_t at) {
  if (at == 0) return true;
  const char before = text[at - 1];
  return base::is_blank(before) || before == '(' || before == '[' || before == '{' ||
         before == ':' || before == '=' || before == ',';
}

bool closes_quote(std::string_view text, std::size_t at) {
  if (at + 1 == text.size()) return true;
  const char after = text[at + 1];
  return base::is_blank(after) || after == ':' || after == ',' || after == '.' || after == ';' ||
         after == ')' || after == ']' || after == '}';
}

// Where the quoted text opened at `open` closes, or npos. A backslash escapes
// the next byte first (JSON-escaped names, the runner's own detail); failing
// that, a raw name ending in a backslash ("a\") closes at its quote.
std::size_t closing_quote(std::string_view text, std::size_t open) {
  const char quote = text[open];
  for (const bool honour_escapes : {true, false}) {
    for (std::size_t k = open + 1; k < text.size(); ++k) {
      if (honour_escapes && text[k] == '\\') {
        ++k;
        continue;
      }
      if (text[k] == quote && closes_quote(text, k)) return k;
    }
  }
  return std::string_view::npos;
}

// The text with each quoted part replaced by '_'. The input is cut first (the
// result is cut to kMaxNormalisedBytes anyway): a message full of unclosed
// quotes makes the search above quadratic, so its length must be bounded.
std::string without_quoted_text(std::string_view text) {
  text = text.substr(0, kMaxInputBytes);
  std::string out;
  for (std::size_t k = 0; k < text.size(); ++k) {
    if (is_quote(text[k]) && opens_quote(text, k)) {
      const std::size_t close = closing_quote(text, k);
      if (close != std::string_view::npos) {
        out += '_';
        k = close;
        continue;
      }
    }
    out += text[k];
  }
  return out;
}

// A byte that continues a word: a name standing as a whole word ends where
// none follows.
bool is_word_byte(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x80 || c == '_' || is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool has_letter(std::string_view name) {
  return std::any_of(name.begin(), name.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x80 || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  });
}

// `text` with each whole-word occurrence of each name (longest first, so
// that "wq" is not blanked inside "wqkv") as '_'. A name without a letter
// would blank punctuation or digits any message has ("." or "0"): those are
// left to the digit and quote rules.
std::string without_names(std::string_view text, std::span<const std::string> names) {
  std::string out(text);
  std::vector<const std::string*> longest_first;
  for (const std::string& name : names) {
    if (has_letter(name) && name.size() <= out.size()) longest_first.push_back(&name);
  }
  std::stable_sort(
      longest_first.begin(), longest_first.end(),
      [](const std::string* a, const std::string* b) { return a->size() > b->size(); });
  for (const std::string* name : longest_first) {
    const bool word_start = is_word_byte(name->front());
    const bool word_end = is_word_byte(name->back());
    std::size_t from = 0;
    while (true) {
      const std::size_t at = out.find(*name, from);
      if (at == std::string::npos) break;
      const std::size_t end = at + name->size();
      const bool starts_word = !word_start || at == 0 || !is_word_byte(out[at - 1]);
      const bool ends_word = !word_end || end == out.size() || !is_word_byte(out[end]);
      if (starts_word && ends_word) {
        out.replace(at, name->size(), "_");
        from = at + 1;
      } else {
        from = at + 1;
      }
    }
  }
  return out;
}

// The JSON string body `raw` (escapes as written) decoded; escapes that do
// not decode (a lone surrogate, a bad escape) stay as written.
std::string json_decoded(std::string_view raw) {
  std::string out;
  const auto hex4 = [&](std::size_t at) -> std::optional<std::uint32_t> {
    if (at + 4 > raw.size()) return std::nullopt;
    std::uint32_t value = 0;
    for (std::size_t k = at; k < at + 4; ++k) {
      const char c = raw[k];
      if (!is_hex(c)) return std::nullopt;
      value = value * 16 + static_cast<std::uint32_t>(is_digit(c) ? c - '0'
                                                      : c >= 'a'  ? c - 'a' + 10
                                                                  : c - 'A' + 10);
    }
    return value;
  };
  for (std::size_t k = 0; k < raw.size(); ++k) {
    if (raw[k] != '\\' || k + 1 == raw.size()) {
      out += raw[k];
      continue;
    }
    const char e = raw[k + 1];
    const std::string_view simple = "\"\\/bfnrt";
    const std::string_view meaning = "\"\\/\b\f\n\r\t";
    if (const std::size_t i = simple.find(e); i != std::string_view::npos) {
      out += meaning[i];
      ++k;
      continue;
    }
    const std::optional<std::uint32_t> unit = e == 'u' ? hex4(k + 2) : std::nullopt;
    if (!unit) {
      out += raw[k];
      continue;
    }
    char32_t code_point = *unit;
    std::size_t length = 6;
    if (*unit >= 0xD800 && *unit <= 0xDBFF && k + 7 < raw.size() && raw[k + 6] == '\\' &&
        raw[k + 7] == 'u') {
      const std::optional<std::uint32_t> low = hex4(k + 8);
      if (low && *low >= 0xDC00 && *low <= 0xDFFF) {
        code_point = 0x10000 + ((*unit - 0xD800) << 10) + (*low - 0xDC00);
        length = 12;
      }
    }
    if (code_point >= 0xD800 && code_point <= 0xDFFF) {
      out += raw[k];  // a lone surrogate: kept as written
      continue;
    }
    base::append_utf8(out, code_point);
    k += length - 1;
  }
  return out;
}

// The function name of a sanitizer stack frame line ("    #1 0x55d3 in
// read_entry(json const&) /src/r.cc:88:7"), without its parameter list; ""
// for a frame without a symbol ("#2 0x7f3a (/lib/libc.so.6+0x29d90)").
std::string frame_function(std::string_view line) {
  const std::size_t in = line.find(" in ");
  if (in == std::string_view::npos) return {};
  std::string_view rest = line.substr(in + 4);
  // The location starts at the first " /" or " (" outside parentheses:
  // "(anonymous namespace)::f(int) const /src/a.cc:3" ends before " /".
  int depth = 0;
  std::size_t end = rest.size();
  for (std::size_t k = 0; k < rest.size(); ++k) {
    if (rest[k] == '(') ++depth;
    if (rest[k] == ')' && depth > 0) --depth;
    if (depth == 0 && rest[k] == ' ' && k + 1 < rest.size() &&
        (rest[k + 1] == '/' || rest[k + 1] == '(')) {
      end = k;
      break;
    }
  }
  std::string_view function = rest.substr(0, end);
  while (!function.empty() && function.back() == ' ') function.remove_suffix(1);
  for (const std::string_view qualifier : {" const", " volatile", " &&", " &"}) {
    if (function.size() > qualifier.size() &&
        function.substr(function.size() - qualifier.size()) == qualifier) {
      function.remove_suffix(qualifier.size());
    }
  }
  if (!function.empty() && function.back() == ')') {
    depth = 0;
    for (std::size_t k = function.size(); k-- > 0;) {
      if (function[k] == ')') ++depth;
      if (function[k] == '(' && --depth == 0) {
        if (k > 0) function = function.substr(0, k);
        break;
      }
    }
  }
  return std::string(function.substr(0, kMaxFrameBytes));
}

// Frames that say where the sanitizer or libc caught the fault, not where the
// reader made it.
bool is_runtime_frame(std::string_view function) {
  for (const std::string_view prefix :
       {"__asan", "__interceptor_", "___interceptor_", "__sanitizer", "__ubsan", "__msan", "__tsan",
        "__lsan", "__hwasan", "__GI_", "__libc_", "__memcpy", "__memmove", "__memset", "__strlen",
        "__pthread_kill", "__assert_", "operator new", "operator delete"}) {
    if (function.substr(0, prefix.size()) == prefix) return true;
  }
  for (const std::string_view name :
       {"_start", "abort", "raise", "gsignal", "pthread_kill", "malloc", "calloc", "realloc",
        "free", "memcpy", "memmove", "memset", "memcmp", "strlen", "strcmp", "strncmp", "strcpy",
        "strncpy"}) {
    if (function == name) return true;
  }
  return false;
}

// A stack frame line: blanks, '#', digits, a blank, "0x".
bool is_frame_line(std::string_view line) {
  std::size_t k = 0;
  while (k < line.size() && base::is_blank(line[k])) ++k;
  if (k == line.size() || line[k] != '#') return false;
  const std::size_t digits = ++k;
  while (k < line.size() && is_digit(line[k])) ++k;
  return k > digits && line.substr(k, 3) == " 0x";
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    lines.push_back(text.substr(0, newline));
    if (newline == std::string_view::npos) break;
    text.remove_prefix(newline + 1);
  }
  return lines;
}

// Printable ASCII of `text`, digit runs as '#', at most `limit` bytes.
std::string printable(std::string_view text, std::size_t limit, bool hide_digits) {
  std::string out;
  for (std::size_t k = 0; k < text.size() && out.size() < limit; ++k) {
    const char c = text[k];
    if (hide_digits && is_digit(c)) {
      while (k + 1 < text.size() && is_digit(text[k + 1])) ++k;
      out += '#';
    } else if (c >= 0x20 && c <= 0x7e) {
      out += c;
    }
  }
  return out;
}

// Where a sanitizer's report starts: a line holding "ERROR: <X>Sanitizer: ",
// "WARNING: <X>Sanitizer: " or (UndefinedBehaviorSanitizer) "runtime error: ".
struct ReportStart {
  std::size_t line = 0;
  std::string bug;       // the bug type
  std::string location;  // UBSan: "reader.cc:12" of "/src/reader.cc:12:5: runtime error: ..."
};

std::optional<ReportStart> find_report(const std::vector<std::string_view>& lines) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const std::string_view line = lines[i];
    if (const std::size_t at = line.find("Sanitizer: "); at != std::string_view::npos) {
      std::size_t word = at;
      while (word > 0 && line[word - 1] != ' ' && line[word - 1] != '=') --word;
      const std::string_view before = line.substr(0, word);
      if (!(before.ends_with("ERROR: ") || before.ends_with("WARNING: "))) continue;
      std::string_view bug = line.substr(at + 11);
      for (const std::string_view stop : {" on ", " at ", ": ", " 0x", " (", " for "}) {
        bug = bug.substr(0, bug.find(stop));
      }
      return ReportStart{i, printable(bug, 100, true), {}};
    }
    if (const std::size_t at = line.find("runtime error: "); at != std::string_view::npos) {
      std::string_view bug = line.substr(at + 15);
      bug = bug.substr(0, bug.find(": "));
      ReportStart start{i, normalise_reader_error(bug), {}};
      // "/src/reader.cc:12:5: runtime error": the file's name and line.
      std::string_view where = line.substr(0, at);
      while (!where.empty() && (where.back() == ' ' || where.back() == ':')) where.remove_suffix(1);
      if (const std::size_t column = where.rfind(':'); column != std::string_view::npos) {
        where = where.substr(0, column);  // drop the column
      }
      if (const std::size_t slash = where.rfind('/'); slash != std::string_view::npos) {
        where.remove_prefix(slash + 1);
      }
      start.location = printable(where, 200, false);
      return start;
    }
  }
  return std::nullopt;
}

}  // namespace

std::string_view divergence_name(Divergence kind) noexcept {
  switch (kind) {
    case Divergence::kAcceptsInvalid:
      return "accepts-invalid";
    case Divergence::kRejectsValid:
      return "rejects-valid";
    case Divergence::kWrongTensors:
      return "wrong-tensors";
    case Divergence::kCrash:
      return "crash";
    case Divergence::kTimeout:
      return "timeout";
    case Divergence::kProtocolError:
      return "protocol-error";
  }
  return "crash";
}

std::optional<Divergence> divergence_of(conformance::Grade grade) noexcept {
  using conformance::Grade;
  switch (grade) {
    case Grade::kFailShouldReject:
      return Divergence::kAcceptsInvalid;
    case Grade::kFailShouldAccept:
      return Divergence::kRejectsValid;
    case Grade::kFailWrongContent:
      return Divergence::kWrongTensors;
    case Grade::kCrash:
      return Divergence::kCrash;
    case Grade::kTimeout:
      return Divergence::kTimeout;
    case Grade::kProtocolError:
      return Divergence::kProtocolError;
    case Grade::kImplAccept:
    case Grade::kImplReject:
    case Grade::kNotApplicable:
    case Grade::kPass:
    // The writer grades: a hunt grades readers only.
    case Grade::kFailInvalidOutput:
    case Grade::kFailShouldRefuse:
    case Grade::kFailShouldWrite:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string normalise_reader_error(std::string_view message, std::span<const std::string> names) {
  // The file's names first, wherever they stand (a reader may print them
  // without quotes); then quoted text, so that a name holding '/' or a blank
  // is one '_'; then words: a word holding '/' is a path (file names differ
  // per run).
  message = message.substr(0, kMaxInputBytes);
  const std::string named = names.empty() ? std::string(message) : without_names(message, names);
  const std::string unquoted = without_quoted_text(named);
  const std::string_view text = unquoted;
  std::string words;
  std::size_t i = 0;
  while (i < text.size()) {
    if (base::is_blank(text[i])) {
      words += ' ';
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && !base::is_blank(text[end])) ++end;
    const std::string_view word = text.substr(i, end - i);
    words += word.find('/') != std::string_view::npos ? std::string_view("_path_") : word;
    i = end;
  }
  std::string out;
  for (std::size_t k = 0; k < words.size() && out.size() < kMaxNormalisedBytes; ++k) {
    const char c = words[k];
    if (c == '0' && k + 1 < words.size() && (words[k + 1] == 'x' || words[k + 1] == 'X')) {
      std::size_t end = k + 2;
      while (end < words.size() && is_hex(words[end])) ++end;
      if (end > k + 2) {
        out += '#';
        k = end - 1;
        continue;
      }
    }
    if (is_digit(c)) {
      while (k + 1 < words.size() && is_digit(words[k + 1])) ++k;
      out += '#';
      continue;
    }
    if (c == ' ') {
      if (!out.empty() && out.back() != ' ') out += ' ';
      continue;
    }
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e) continue;
    out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::vector<std::string> header_names(std::span<const std::uint8_t> file) {
  if (file.size() < 8) return {};
  std::uint64_t length = 0;
  for (std::size_t i = 8; i-- > 0;) length = (length << 8) | file[i];
  const std::size_t available = std::min<std::size_t>(file.size() - 8, kMaxHeaderBytes);
  const std::string_view header(
      reinterpret_cast<const char*>(file.data()) + 8,
      static_cast<std::size_t>(std::min<std::uint64_t>(length, available)));
  // Where each object sits: the header itself, the object under its
  // "__metadata__", or anything else. Past kMaxDepth levels only the depth is
  // counted.
  enum class Place { kTop, kMetadata, kOther };
  constexpr std::size_t kMaxDepth = 64;
  std::vector<Place> open;  // objects and arrays ('[' as kOther)
  std::size_t depth = 0;
  Place next_value = Place::kOther;  // of the value after the last key
  std::set<std::string> seen;
  std::vector<std::string> names;
  const auto add = [&](std::string name) {
    if (names.size() < kMaxHeaderNames && !name.empty() && seen.insert(name).second) {
      names.push_back(std::move(name));
    }
  };
  for (std::size_t k = 0; k < header.size() && names.size() < kMaxHeaderNames; ++k) {
    const char c = header[k];
    if (c == '{' || c == '[') {
      const Place place = c == '[' ? Place::kOther : depth == 0 ? Place::kTop : next_value;
      if (open.size() < kMaxDepth) open.push_back(place);
      ++depth;
      next_value = Place::kOther;
      continue;
    }
    if (c == '}' || c == ']') {
      if (depth > 0 && depth <= open.size()) open.pop_back();
      if (depth > 0) --depth;
      continue;
    }
    if (c != '"') continue;
    std::size_t close = k + 1;
    while (close < header.size() && header[close] != '"') {
      close += header[close] == '\\' ? std::size_t{2} : std::size_t{1};
    }
    if (close >= header.size()) break;  // an unterminated string ends the search
    const std::string_view raw = header.substr(k + 1, close - k - 1);
    k = close;
    std::size_t after = close + 1;
    while (after < header.size() && base::is_blank(header[after])) ++after;
    if (after == header.size() || header[after] != ':') continue;  // a value, not a key
    const Place here = depth == open.size() && !open.empty() ? open.back() : Place::kOther;
    const std::string decoded = json_decoded(raw);
    next_value =
        here == Place::kTop && decoded == "__metadata__" ? Place::kMetadata : Place::kOther;
    if (here == Place::kTop && decoded == "__metadata__") continue;
    if (here != Place::kTop && here != Place::kMetadata) continue;
    add(std::string(raw));
    add(decoded);
  }
  std::stable_sort(names.begin(), names.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  return names;
}

std::string sanitizer_crash_state(std::string_view stderr_text) {
  const std::vector<std::string_view> lines = lines_of(stderr_text);
  const std::optional<ReportStart> report = find_report(lines);
  if (!report) return {};
  std::string state = report->bug;
  // The access of an AddressSanitizer report ("READ of size 4 at ...", "The
  // signal is caused by a WRITE memory access."), before its stack.
  std::size_t first_frame = lines.size();
  for (std::size_t i = report->line + 1; i < lines.size() && i <= report->line + kMaxLinesToStack;
       ++i) {
    if (is_frame_line(lines[i])) {
      first_frame = i;
      break;
    }
    for (const std::string_view access : {"READ", "WRITE"}) {
      if (lines[i].starts_with(std::string(access) + " of size ") ||
          lines[i].find("caused by a " + std::string(access) + " memory access") !=
              std::string_view::npos) {
        state += " " + std::string(access);
      }
    }
  }
  std::vector<std::string> frames;
  for (std::size_t i = first_frame; i < lines.size() && is_frame_line(lines[i]); ++i) {
    // A new stack ("#0" again) is another thread's or the allocation's.
    if (i > first_frame && lines[i].find("#0 ") != std::string_view::npos &&
        lines[i].find_first_not_of(" \t") == lines[i].find("#0 ")) {
      break;
    }
    std::string function = frame_function(lines[i]);
    if (function.empty() || is_runtime_frame(function)) continue;
    frames.push_back(printable(function, kMaxFrameBytes, false));
    if (frames.size() == kCrashFrames) break;
  }
  if (!frames.empty()) {
    state += " in ";
    for (std::size_t i = 0; i < frames.size(); ++i) state += (i == 0 ? "" : ", ") + frames[i];
  } else if (!report->location.empty()) {
    state += " at " + report->location;
  }
  return printable(state, kMaxCrashStateBytes, false);
}

std::string crash_state_of(const conformance::CaseResult& result) {
  std::string state = sanitizer_crash_state(result.reader_error);
  if (!state.empty()) return state;
  std::string_view detail = result.detail;
  detail = detail.substr(0, detail.find(" ("));
  detail = detail.substr(0, detail.find(';'));
  return printable(detail, kMaxCrashStateBytes, false);
}

std::string kept_stderr(Divergence kind, const conformance::CaseResult& result) {
  return kind == Divergence::kCrash || kind == Divergence::kTimeout ? result.reader_error
                                                                    : std::string();
}

std::string Signature::bucket() const {
  // A crash's place is its key; stguard's reasons and the (absent) verdict
  // are left empty, so that one root cause makes one bucket.
  const bool crash = kind == Divergence::kCrash;
  const std::string empty;
  std::string text(divergence_name(kind));
  for (const std::string* field :
       {crash ? &empty : &strict_reason, crash ? &empty : &reference_reason,
        crash ? &empty : &reader_verdict, &reader_error}) {
    text += '\0';
    text += *field;
  }
  return base::sha256_hex(text).substr(0, 12);
}

Signature make_signature(Divergence kind, const Oracle& oracle,
                         const conformance::CaseResult& result,
                         std::span<const std::uint8_t> file) {
  Signature s;
  s.kind = kind;
  s.strict_reason = oracle.strict.reason;
  s.reference_reason = oracle.reference.reason;
  if (result.verdict) {
    s.reader_verdict = *result.verdict == conformance::Verdict::kAccept ? "accept" : "reject";
  }
  switch (kind) {
    case Divergence::kAcceptsInvalid:
      break;
    case Divergence::kRejectsValid:
      s.reader_error = normalise_reader_error(result.reader_error, header_names(file));
      break;
    case Divergence::kWrongTensors:
    case Divergence::kTimeout:
    case Divergence::kProtocolError:
      s.reader_error = normalise_reader_error(result.detail, header_names(file));
      break;
    case Divergence::kCrash:
      s.reader_error = crash_state_of(result);
      break;
  }
  return s;
}

bool Buckets::add(const Signature& signature, std::span<const std::uint8_t> file, std::uint64_t run,
                  const conformance::CaseResult& result) {
  const std::string name = signature.bucket();
  auto [it, inserted] = by_name_.try_emplace(name);
  Bucket& b = it->second;
  ++b.hits;
  if (inserted || file.size() < b.file.size()) {
    if (inserted) b.first_run = run;
    b.signature = signature;
    b.file.assign(file.begin(), file.end());
    b.detail = result.detail;
    b.stderr_text = kept_stderr(signature.kind, result);
  }
  return inserted;
}

std::vector<Bucket*> Buckets::ordered() {
  std::vector<Bucket*> out;
  for (auto& [name, bucket] : by_name_) out.push_back(&bucket);
  std::sort(out.begin(), out.end(),
            [](const Bucket* a, const Bucket* b) { return a->first_run < b->first_run; });
  return out;
}

}  // namespace stguard::hunt
