// verify/index.cc: the index reader (nlohmann SAX with byte positions and
// duplicate-key detection).
#include "verify/index.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <nlohmann/json.hpp>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/sniff.h"
#include "verify/findings.h"

namespace stguard::verify {
namespace {

// Forward iterator over the index text that publishes how far the JSON lexer
// has read, so SAX events can be given byte positions.
class CountingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  CountingIterator() = default;
  CountingIterator(const char* p, const char** cursor) : p_(p), cursor_(cursor) {}
  reference operator*() const { return *p_; }
  CountingIterator& operator++() {
    ++p_;
    if (cursor_ != nullptr) *cursor_ = p_;
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  friend bool operator==(const CountingIterator& a, const CountingIterator& b) {
    return a.p_ == b.p_;
  }

 private:
  const char* p_ = nullptr;
  const char** cursor_ = nullptr;
};

// A fault as the SAX handler sees it: the position is spelled out later.
struct SaxFailure {
  FindingKind kind = FindingKind::kIndexMalformed;
  std::uint64_t offset = 0;
  std::string message;
};

// Streams the index through nlohmann's SAX parser: duplicate keys in any
// object are caught (a DOM would silently keep the last), and only what the
// checks need is kept (weight_map, metadata.total_size).
class IndexSax {
 public:
  IndexSax(std::string_view text, const char** cursor) : text_(text), cursor_(cursor) {}

  std::unordered_map<std::string, std::string> weight_map;  // tensor -> shard, as written
  bool saw_weight_map = false;
  std::optional<std::uint64_t> total_size;
  std::optional<SaxFailure> failure;

  bool null() { return scalar(Kind::kOther, nullptr); }
  bool boolean(bool /*value*/) { return scalar(Kind::kOther, nullptr); }
  bool number_integer(std::int64_t value) {
    if (value < 0) return scalar(Kind::kOther, nullptr);
    const auto u = static_cast<std::uint64_t>(value);
    return scalar(Kind::kSize, &u);
  }
  bool number_unsigned(std::uint64_t value) { return scalar(Kind::kSize, &value); }
  bool number_float(double value, const std::string& /*text*/) {
    // Some exporters write total_size as 123.0; accept it when exact.
    if (value >= 0 && value <= 9007199254740992.0 &&
        value == static_cast<double>(static_cast<std::uint64_t>(value))) {
      const auto u = static_cast<std::uint64_t>(value);
      return scalar(Kind::kSize, &u);
    }
    return scalar(Kind::kOther, nullptr);
  }
  bool string(std::string& value) {
    if (!check_value(Kind::kString)) return false;
    if (!stack_.empty() && stack_.back().frame == Frame::kWeightMap) {
      weight_map.emplace(std::move(stack_.back().key), std::move(value));
    }
    return true;
  }
  bool binary(nlohmann::json::binary_t& /*value*/) { return scalar(Kind::kOther, nullptr); }

  bool start_object(std::size_t /*elements*/) {
    if (stack_.empty()) {
      stack_.push_back(Level{Frame::kTop, {}, {}});
      return true;
    }
    if (!check_value(Kind::kObject)) return false;
    stack_.push_back(Level{child_frame(), {}, {}});
    return true;
  }
  bool key(std::string& name) {
    Level& level = stack_.back();
    const bool duplicate = level.frame == Frame::kWeightMap ? weight_map.count(name) != 0
                                                            : !level.keys.insert(name).second;
    if (duplicate) {
      fail(FindingKind::kIndexDuplicateKey, key_quote_offset(),
           "duplicate key " + in_quotes(name) + " in a JSON object" +
               (level.frame == Frame::kWeightMap ? " (weight_map lists this tensor twice)" : ""));
      return false;
    }
    level.key = name;
    return true;
  }
  bool end_object() {
    if (stack_.size() == 1 && !saw_weight_map) {
      fail(FindingKind::kIndexInvalid, position(), "no \"weight_map\" object in the index");
      return false;
    }
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t /*elements*/) {
    if (stack_.empty()) {
      fail(FindingKind::kIndexInvalid, 0, "the top level is a JSON array, not an object");
      return false;
    }
    if (!check_value(Kind::kArray)) return false;
    stack_.push_back(Level{Frame::kOther, {}, {}});
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::json::exception& ex) {
    if (failure) return false;
    std::string what = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax
    // error while parsing ..." -> keep the part after the location.
    const std::size_t colon = what.find(": ");
    if (colon != std::string::npos) what = what.substr(colon + 2);
    // The library quotes the last token it read, which can be megabytes.
    fail(FindingKind::kIndexMalformed, position > 0 ? position - 1 : 0, shown(what));
    return false;
  }

 private:
  enum class Frame : std::uint8_t { kTop, kWeightMap, kMetadata, kOther };
  enum class Kind : std::uint8_t { kObject, kArray, kString, kSize, kOther };
  struct Level {
    Frame frame;
    std::unordered_set<std::string> keys;
    std::string key;  // the key whose value comes next
  };

  std::uint64_t position() const { return static_cast<std::uint64_t>(*cursor_ - text_.data()); }

  // The cursor sits just past the key's closing quote: walk back to the
  // opening quote, skipping escaped quotes.
  std::uint64_t key_quote_offset() const {
    std::size_t close = static_cast<std::size_t>(position());
    if (close == 0 || close > text_.size()) return position();
    std::size_t i = close - 1;  // the closing quote
    while (i > 0) {
      --i;
      if (text_[i] != '"') continue;
      std::size_t backslashes = 0;
      while (backslashes < i && text_[i - 1 - backslashes] == '\\') ++backslashes;
      if (backslashes % 2 == 0) return i;
    }
    return 0;
  }

  void fail(FindingKind kind, std::uint64_t offset, std::string message) {
    if (!failure) failure = SaxFailure{kind, offset, std::move(message)};
  }

  Frame child_frame() const {
    const Level& parent = stack_.back();
    if (parent.frame == Frame::kTop) {
      if (parent.key == "weight_map") return Frame::kWeightMap;
      if (parent.key == "metadata") return Frame::kMetadata;
    }
    return Frame::kOther;
  }

  bool scalar(Kind kind, const std::uint64_t* size) {
    if (!check_value(kind)) return false;
    if (kind == Kind::kSize && size != nullptr && stack_.back().frame == Frame::kMetadata &&
        stack_.back().key == "total_size") {
      total_size = *size;
    }
    return true;
  }

  // Type rules for the values the checks rely on.
  bool check_value(Kind kind) {
    if (stack_.empty()) {
      fail(FindingKind::kIndexInvalid, 0, "the top level is not a JSON object");
      return false;
    }
    const Level& parent = stack_.back();
    if (parent.frame == Frame::kTop) {
      if (parent.key == "weight_map") {
        if (kind != Kind::kObject) {
          fail(FindingKind::kIndexInvalid, position(), "\"weight_map\" is not an object");
          return false;
        }
        saw_weight_map = true;
      } else if (parent.key == "metadata" && kind != Kind::kObject) {
        fail(FindingKind::kIndexInvalid, position(), "\"metadata\" is not an object");
        return false;
      }
    } else if (parent.frame == Frame::kWeightMap && kind != Kind::kString) {
      fail(FindingKind::kIndexInvalid, position(),
           "weight_map entry " + in_quotes(parent.key) + " is not a shard file name (string)");
      return false;
    } else if (parent.frame == Frame::kMetadata && parent.key == "total_size" &&
               kind != Kind::kSize) {
      fail(FindingKind::kIndexInvalid, position(),
           "metadata.total_size is not a non-negative integer");
      return false;
    }
    return true;
  }

  std::string_view text_;
  const char** cursor_;
  std::vector<Level> stack_;
};

// "byte 66, line 4, column 3" for a position in `text`.
std::string line_column(std::string_view text, std::uint64_t offset) {
  std::uint64_t line = 1;
  std::uint64_t column = 1;
  const std::size_t end = static_cast<std::size_t>(std::min<std::uint64_t>(offset, text.size()));
  for (std::size_t i = 0; i < end; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return "byte " + std::to_string(offset) + ", line " + std::to_string(line) + ", column " +
         std::to_string(column);
}

// A Git LFS pointer or an error page instead of the index: said plainly
// rather than as the JSON syntax error it would also be.
std::optional<std::string> not_json_text(std::string_view text) {
  const std::optional<base::Sniffed> sniffed = base::sniff_content(
      text.substr(0, base::kSniffBytes), text.size(), /*length_prefix_absurd=*/false);
  if (!sniffed) return std::nullopt;
  if (sniffed->kind == base::ContentKind::kGitLfsPointer) {
    return sniffed->what + ", not the index (run `git lfs pull`)";
  }
  if (sniffed->kind == base::ContentKind::kHtmlPage ||
      sniffed->kind == base::ContentKind::kXmlDocument) {
    return sniffed->what + ", not a JSON index";
  }
  // Anything else (empty, zeros, another binary format) fails as JSON at its
  // first byte: the parser's message and position say enough.
  return std::nullopt;
}

}  // namespace

stguard::Result<IndexContents, IndexFailure> parse_index(std::string_view text) {
  if (std::optional<std::string> what = not_json_text(text)) {
    return IndexFailure{FindingKind::kIndexMalformed, std::nullopt, std::move(*what)};
  }
  const char* cursor = text.data();
  IndexSax sax(text, &cursor);
  bool parsed = false;
  try {
    parsed = nlohmann::json::sax_parse(CountingIterator(text.data(), &cursor),
                                       CountingIterator(text.data() + text.size(), nullptr), &sax,
                                       nlohmann::json::input_format_t::json,
                                       /*strict=*/true);
  } catch (const nlohmann::json::exception& ex) {
    // Errors arrive through IndexSax::parse_error; this is insurance.
    parsed = false;
    if (!sax.failure) {
      sax.failure = SaxFailure{FindingKind::kIndexMalformed,
                               static_cast<std::uint64_t>(cursor - text.data()), ex.what()};
    }
  }
  if (!parsed || sax.failure) {
    const SaxFailure why =
        sax.failure ? *sax.failure : SaxFailure{FindingKind::kIndexMalformed, 0, "not valid JSON"};
    return IndexFailure{why.kind, why.offset,
                        why.message + " (" + line_column(text, why.offset) + ")"};
  }
  IndexContents out;
  out.weight_map = std::move(sax.weight_map);
  out.total_size = sax.total_size;
  return out;
}

}  // namespace stguard::verify
