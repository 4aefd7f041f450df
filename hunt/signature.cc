// hunt/signature.cc: divergence kinds, signatures, buckets (signature.h).
#include "hunt/signature.h"

#include <algorithm>

#include "base/sha256.h"

namespace stguard::hunt {
namespace {

constexpr std::size_t kMaxNormalisedBytes = 120;
constexpr std::size_t kMaxInputBytes = 4096;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
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
  return is_blank(before) || before == '(' || before == '[' || before == '{' || before == ':' ||
         before == '=' || before == ',';
}

bool closes_quote(std::string_view text, std::size_t at) {
  if (at + 1 == text.size()) return true;
  const char after = text[at + 1];
  return is_blank(after) || after == ':' || after == ',' || after == '.' || after == ';' ||
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
    case Grade::kPass:
    // The writer grades: a hunt grades readers only.
    case Grade::kFailInvalidOutput:
    case Grade::kFailShouldRefuse:
    case Grade::kFailShouldWrite:
      return std::nullopt;
  }
  return std::nullopt;
}

std::string normalise_reader_error(std::string_view message) {
  // Quoted text first, so that a name holding '/' or a blank is one '_'; then
  // words: a word holding '/' is a path (file names differ per run).
  const std::string unquoted = without_quoted_text(message);
  const std::string_view text = unquoted;
  std::string words;
  std::size_t i = 0;
  while (i < text.size()) {
    if (is_blank(text[i])) {
      words += ' ';
      ++i;
      continue;
    }
    std::size_t end = i;
    while (end < text.size() && !is_blank(text[end])) ++end;
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

std::string Signature::bucket() const {
  std::string text(divergence_name(kind));
  for (const std::string* field :
       {&strict_reason, &reference_reason, &reader_verdict, &reader_error}) {
    text += '\0';
    text += *field;
  }
  return base::sha256_hex(text).substr(0, 12);
}

Signature make_signature(Divergence kind, const Oracle& oracle,
                         const conformance::CaseResult& result) {
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
      s.reader_error = normalise_reader_error(result.reader_error);
      break;
    case Divergence::kWrongTensors:
    case Divergence::kCrash:
    case Divergence::kTimeout:
    case Divergence::kProtocolError:
      s.reader_error = normalise_reader_error(result.detail);
      break;
  }
  return s;
}

bool Buckets::add(const Signature& signature, std::span<const std::uint8_t> file, std::uint64_t run,
                  const std::string& detail) {
  const std::string name = signature.bucket();
  auto [it, inserted] = by_name_.try_emplace(name);
  Bucket& b = it->second;
  ++b.hits;
  if (inserted || file.size() < b.file.size()) {
    if (inserted) {
      b.signature = signature;
      b.first_run = run;
    }
    b.file.assign(file.begin(), file.end());
    b.detail = detail;
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
