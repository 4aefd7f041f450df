#include "header_scanner.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checks.h"
#include "huge_pages.h"
#include "message.h"

namespace stguard::detail {
namespace {

constexpr std::string_view kMetadataKey = "__metadata__";
constexpr std::uint64_t kFileBase = 8;  // the header's offset in the file
constexpr std::size_t kUsualMetadataEntries = 4;

ResolvedLimits scanner_limits(const ParseOptions& options) noexcept {
  ResolvedLimits limits = resolve_limits(options.profile, options.limits);
  // A cap left out (checks.h) is a reader without it.
  if (STGUARD_LET_THROUGH(kTooManyTensors, {})) limits.max_tensors = kNoLimit;
  if (STGUARD_LET_THROUGH(kRankTooHigh, {})) limits.max_rank = kNoLimit;
  if (STGUARD_LET_THROUGH(kNameTooLong, {})) limits.max_name_bytes = kNoLimit;
  limits.max_tensors = std::min(limits.max_tensors, kMaxTensorsSupported);
  return limits;
}

}  // namespace

HeaderScanner::HeaderScanner(const std::uint8_t* begin, const std::uint8_t* end,
                             std::uint64_t file_base, const ParseOptions& options,
                             Scratch& scratch) noexcept
    : lex_(begin, end, file_base, kernels_for(options.simd)),
      window_(nullptr),
      header_size_(static_cast<std::uint64_t>(end - begin)),
      move_on_at_(end),
      options_(options),
      limits_(scanner_limits(options)),
      scratch_(scratch) {}

HeaderScanner::HeaderScanner(HeaderWindow& window, const ParseOptions& options,
                             Scratch& scratch) noexcept
    : lex_(nullptr, nullptr, kFileBase, kernels_for(options.simd)),
      window_(&window),
      header_size_(window.header_size()),
      move_on_at_(nullptr),
      options_(options),
      limits_(scanner_limits(options)),
      scratch_(scratch) {}

HeaderScanner::~HeaderScanner() {
  if (!borrowed_scratch_) return;
  give_back(name_hashes_, scratch_.name_hashes);
  give_back(tensor_names_.storage(), scratch_.tensor_names);
  give_back(metadata_keys_.storage(), scratch_.metadata_keys);
}

bool HeaderScanner::name_fault(const StringValue& name, const std::uint8_t* at,
                               bool is_metadata_key) {
  if (name.text.size() > limits_.max_name_bytes) {
    return lex_.fail(Reason::kLimitExceeded, at,
                     message(is_metadata_key ? "metadata key" : "tensor name", " of ",
                             std::uint64_t{name.text.size()}, " bytes exceeds max_name_bytes ",
                             limits_.max_name_bytes));
  }
  if (strict() && name.has_nul && !STGUARD_LET_THROUGH(kNulInName, {})) {
    return lex_.fail(Reason::kNameInvalid, at,
                     message(is_metadata_key ? "metadata key " : "tensor name ", Quoted{name.text},
                             " contains U+0000 (C-string readers would see a different name)"));
  }
  return true;
}

bool HeaderScanner::scan(ScannedHeader& out) {
  out_ = &out;
  if (window_ != nullptr) {
    show_window(window_->move_to(0));
  } else {
    out.header_begin = lex_.begin();
    out.header_end = lex_.end();
    out.file_base = lex_.file_base();
  }
  lend(name_hashes_, scratch_.name_hashes);
  lend(tensor_names_.storage(), scratch_.tensor_names);
  lend(metadata_keys_.storage(), scratch_.metadata_keys);
  borrowed_scratch_ = true;
  // Real entries take 60 to 150 header bytes; reserving for one per 64 bytes
  // avoids most regrowth copies while staying within ~1x the header size.
  const auto header_size = static_cast<std::size_t>(header_size_);
  const std::size_t expected_tensors = header_size / 64;
  if (expected_tensors <= limits_.max_tensors) {
    // Fresh memory for a large header faults in as huge pages
    // (huge_pages.h).
    auto reserve = [](auto& container, std::size_t count) {
      if (container.capacity() >= count) return;
      container.reserve(count);
      advise_huge_pages(container.data(), container.capacity() * sizeof(container[0]));
    };
    reserve(out.tensors, expected_tensors);
    if (out.keep_details) {
      reserve(out.details, expected_tensors);
      reserve(out.dims, expected_tensors * 2);
      // Names (quotes included) are well under half of a checkpoint's
      // header: room for half the header means no regrowth, each of which
      // would copy every name so far. Pages not written to are never
      // touched.
      reserve(out.name_arena, header_size / 2);
    }
  }
  const bool scanned = read_document(out);
  // In a window, any fault declines, and so does invalid UTF-8 (whose
  // offset the check of the whole header gives).
  if (window_ != nullptr && (!scanned || !window_is_utf8(lex_.end()))) return decline();
  if (names_ascending_ || merging_while_scanning_) return scanned;
  // Every name recorded so far precedes the scan's fault, if any (a name is
  // recorded before its entry is read). The first repeat among them is the
  // one a lookup at each name would have met first.
  std::string scratch;
  // In a window the hashes are whole (64 bits), so a pair of names gone with
  // the window is called the same only when their whole hashes are: a likely
  // repeat, where the scan declines.
  auto same = [&](std::uint32_t i, std::uint32_t j) {
    if (!name_readable(i) || !name_readable(j)) {  // gone with the window
      declined_ = true;
      return false;
    }
    return out.name(i, compare_scratch_) == out.name(j, scratch);
  };
  const auto repeat = window_ != nullptr
                          ? first_repeated_name(std::span<const std::uint64_t>(wide_hashes_),
                                                scratch_.repeat_table, same)
                          : first_repeated_name(std::span<const std::uint32_t>(name_hashes_),
                                                scratch_.repeat_table, same);
  if (declined_) return false;
  if (!repeat) return scanned;
  if (!strict()) {
    // Nothing but the tensor cap depends on the merge while scanning (and the
    // cap merged as it was reached, read_document), so a failed scan's fault
    // stands, and a whole header's records are merged now. (The merge
    // compares names: in a window, only names kept or still in memory.)
    if (window_ != nullptr && !names_readable()) return decline();
    if (scanned) merge_repeated_names();
    return scanned;
  }
  // Strict: a repeated tensor name is a fault at the repeat, so it wins over
  // any fault the scan found later, and over every check after the scan. (In
  // a window, where the repeat may be in bytes let go, a fault declines.)
  if (STGUARD_LET_THROUGH(kRepeatedTensorName, {})) return scanned;  // both kept
  if (window_ != nullptr) return decline();
  const auto [first, second] = *repeat;
  const TensorRecord& t = out.tensors[second];
  return lex_.fail(
      Reason::kDuplicateKey, lex_.begin() + (t.header_offset - lex_.file_base()),
      message("tensor name ", Quoted{out.name(second, scratch)}, " appears twice (first at byte ",
              out.tensors[first].header_offset, ")"));
}

bool HeaderScanner::names_still_ascending(std::string_view name, bool decoded) {
  if (!layers_.ascending_names) names_ascending_ = false;
  if (!names_ascending_) return false;
  if (out_->tensors.size() == 1 || previous_name_ < name) {  // the first, or after the last
    if (decoded) {
      // Decoded names live in buffers that the next name reuses.
      previous_name_copy_.assign(name);
      previous_name_ = previous_name_copy_;
    } else {
      previous_name_ = name;  // in the header
    }
    return true;
  }
  names_ascending_ = false;
  return false;
}

bool HeaderScanner::note_name_while_ordered(std::string_view name, bool decoded) {
  const std::size_t index = out_->tensors.size() - 1;  // the record just added
  if (names_ascending_) {
    if (names_still_ascending(name, decoded)) {
      // In a window each name is hashed as it is read, while it is at hand:
      // the window lets names go, and once one is out of order every name's
      // hash is needed (writers order by dtype, then name, so names ascend up
      // to the next dtype). Rereading them as the window moves on cost more.
      if (window_ != nullptr && !out_->keep_details) note_hash(name);
      return true;
    }
    // Out of order: hash every name so far (in a window they were hashed as
    // they were read, or are kept), and from now on each one.
    if (!hash_names_before(index)) return decline();
  }
  note_hash(name);
  hash_every_name_ = window_ == nullptr;
  return true;
}

void HeaderScanner::note_hash(std::string_view name) {
  const std::uint64_t hash = hash_name(name);
  if (window_ != nullptr) {
    if (wide_hashes_.empty()) wide_hashes_.reserve(out_->tensors.capacity());
    wide_hashes_.push_back(hash);
    return;
  }
  if (name_hashes_.empty()) name_hashes_.reserve(out_->tensors.capacity());
  name_hashes_.push_back(static_cast<std::uint32_t>(hash));
}

bool HeaderScanner::hash_names_before(std::size_t end) {
  std::string scratch;
  for (std::size_t i = window_ != nullptr ? wide_hashes_.size() : name_hashes_.size(); i < end;
       ++i) {
    if (!name_readable(i)) return false;
    note_hash(out_->name(i, scratch));
  }
  return true;
}

void HeaderScanner::show_window(const HeaderWindow::View& view) noexcept {
  lex_.rebase(view.begin, view.end, kFileBase + view.offset);
  out_->header_begin = view.begin;
  out_->header_end = view.end;
  out_->file_base = kFileBase + view.offset;
  window_at_end_ = window_->reaches_end(view);
  const auto in = static_cast<std::size_t>(view.end - view.begin);
  const std::size_t lookahead = window_->lookahead();
  if (window_at_end_) {
    move_on_at_ = view.end;
  } else {
    // From where fewer than `lookahead` bytes would be left ahead.
    move_on_at_ = view.begin + (in >= lookahead ? in - lookahead + 1 : 0);
  }
}

bool HeaderScanner::move_window() {
  if (window_ == nullptr || window_at_end_) return true;
  if (!window_is_utf8(lex_.pos())) return decline();
  // What needs the names before the cursor declines: the merge while
  // scanning compares each new name with them.
  if (merging_while_scanning_ && !out_->keep_details) return decline();
  // Views into the bytes let go: the previous name is copied, the compact
  // reader's texts forgotten (it reads the next entries in full).
  if (names_ascending_ && previous_name_.data() != previous_name_copy_.data()) {
    previous_name_copy_.assign(previous_name_);
    previous_name_ = previous_name_copy_;
  }
  repeats_ = CompactRepeats{};
  show_window(window_->move_to(lex_.offset_of(lex_.pos()) - kFileBase));
  return true;
}

bool HeaderScanner::window_is_utf8(const std::uint8_t* upto) const noexcept {
  // Until a string held a non-ASCII byte, every byte read was ASCII (outside
  // strings the grammar is).
  if (!lex_.saw_non_ascii()) return true;
  const auto size = static_cast<std::size_t>(upto - lex_.begin());
  return kernels_for(options_.simd).find_invalid_utf8(lex_.begin(), size) == size;
}

bool HeaderScanner::window_to_end() {
  if (window_ == nullptr || window_at_end_) return true;
  if (!move_window()) return false;
  return window_at_end_ || decline();
}

void HeaderScanner::merge_repeated_names() {
  std::vector<TensorRecord>& tensors = out_->tensors;
  // The table is probed at random, so it is sized for typical entries (~128
  // header bytes) rather than the worst case: growing it re-inserts every
  // name, but an oversized table misses the cache on every probe.
  const auto header_size = static_cast<std::size_t>(header_size_);
  if (header_size / 64 <= limits_.max_tensors) tensor_names_.reserve(header_size / 128);
  const auto name_of = [this](std::uint32_t j) { return out_->name(j, compare_scratch_); };
  // The hashes, when every record has one (names were out of order from the
  // second on), are the table's own (NameIndex::hash_and_prefetch).
  const bool hashed = name_hashes_.size() == tensors.size();
  std::string scratch;
  std::size_t kept = 0;
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const std::string_view name = out_->name(i, scratch);
    const std::uint32_t hash =
        hashed ? name_hashes_[i] : static_cast<std::uint32_t>(hash_name(name));
    // Records move only down (kept <= i), and a record replaced keeps its
    // name, so name_of reads the right name at every merged index.
    const std::uint32_t existing =
        tensor_names_.find_or_insert(hash, name, static_cast<std::uint32_t>(kept), name_of);
    const std::size_t to = existing != NameIndex::kAbsent ? existing : kept++;
    if (to == i) continue;
    // Upstream collects entries into a HashMap: the last one wins, in the
    // place of the first. The earlier entry had to be well-typed all the same.
    tensors[to] = tensors[i];
    if (out_->keep_details) out_->details[to] = out_->details[i];
  }
  tensors.resize(kept);
  if (out_->keep_details) out_->details.resize(kept);
}

std::string_view ScannedHeader::name_read_again(std::size_t index, std::string& scratch) const {
  if (keep_details) {
    const TensorDetail& d = details[index];
    return {name_arena.data() + d.name_pos, static_cast<std::size_t>(d.name_len)};
  }
  if (tensors[index].header_offset < file_base) return {};
  const std::uint8_t* quote = header_begin + (tensors[index].header_offset - file_base);
  return JsonLexer::string_at(header_begin, header_end, quote, scratch);
}

bool HeaderScanner::fail_too_many(const std::uint8_t* key_at) {
  return lex_.fail(Reason::kLimitExceeded, key_at,
                   message("more than max_tensors (", limits_.max_tensors, ") tensors"));
}

bool HeaderScanner::read_document(ScannedHeader& out) {
  std::vector<TensorRecord>& tensors = out.tensors;
  if (lex_.begin() == lex_.end()) {
    return lex_.fail(Reason::kHeaderNotJson, lex_.pos(),
                     "invalid JSON: the header is empty (N = 0)");
  }
  if (strict() && !STGUARD_LET_THROUGH(kLeadingWhitespace, {})) {
    if (lex_.peek() != '{') {  // not the end: the header is not empty
      return lex_.fail(Reason::kHeaderBadStart, lex_.pos(),
                       "the header must begin with '{' (no leading whitespace or BOM)");
    }
  } else {
    lex_.skip_whitespace();
    if (lex_.peek() != '{') {
      lex_.fail_syntax(lex_.pos(), "'{' (the header must be a JSON object)");
      // Another JSON value is refused, not malformed: a syntax error further
      // on still wins.
      if (starts_value(lex_.peek())) lex_.mark_fault_not_syntax();
      return false;
    }
  }
  lex_.advance();
  bool metadata_seen = false;
  lex_.skip_whitespace();
  if (lex_.peek() == '}') {
    lex_.advance();
  } else {
    for (;;) {
      if (!keep_ahead()) return false;
      if (lex_.peek() != '"') return lex_.fail_syntax(lex_.pos(), "a tensor name string");
      const std::uint8_t* key_at = lex_.pos();
      member_in_progress_ = key_at;
      StringValue key;
      if (!(layers_.plain_strings && lex_.read_plain_string(key)) &&
          !lex_.read_string(key_scratch_, key)) {
        return false;
      }
      lex_.skip_whitespace();
      if (!lex_.expect(':', "':' after a key")) return false;
      lex_.skip_whitespace();
      if (key.text == kMetadataKey) {
        if (metadata_seen && !STGUARD_LET_THROUGH(kRepeatedMetadata, {})) {
          return lex_.fail(Reason::kDuplicateKey, key_at, "\"__metadata__\" appears twice");
        }
        metadata_seen = true;
        if (!read_metadata(out.metadata)) return false;
      } else {
        if (!check_name(key, key_at, false)) return false;
        // Strict refuses repeated names, so every entry is a new tensor and the
        // cap is decided at the key. The reference profile counts tensors after
        // last-one-wins merging: a repeat at the cap is not a tensor more, so
        // there the cap is decided once the name is known to be new (below).
        if (strict() && tensors.size() >= limits_.max_tensors) return fail_too_many(key_at);
        const auto new_index = static_cast<std::uint32_t>(tensors.size());
        TensorRecord& tensor = tensors.emplace_back();
        tensor.header_offset = lex_.offset_of(key_at);
        // (A name of 4 GiB, under a raised max_header_bytes, is read again.)
        if (key.text.size() < 0xFFFFFFFFu) [[likely]] {
          tensor.name_len_plus_one =
              key.decoded ? 0 : static_cast<std::uint32_t>(key.text.size() + 1);
        }
        // A stable view of the name for the rest of this entry: in the header,
        // or copied when decoded from escapes (key_scratch_ is reused below).
        std::string_view name = key.text;
        if (key.decoded) {
          name_scratch_.assign(key.text);
          name = name_scratch_;
        }
        if (out.keep_details) {
          // Copied while the bytes are in cache; parse_header's names are
          // this buffer. (Not `name` for the rest of the entry: the buffer
          // moves as it grows.)
          TensorDetail& detail = out.details.emplace_back();
          detail_ = &detail;
          detail.name_len = key.text.size();
          detail.name_pos = out.name_arena.size();
          out.name_arena.append(key.text);
        }
        if (strict()) {
          // Repeated names are found after the scan (see scan()).
          if (!note_name_for_repeats(name, key.decoded) || !read_tensor_entry(tensor, name)) {
            return false;
          }
        } else if (!merging_while_scanning_) {
          // Repeated names are merged after the scan (see scan()), so the
          // scan probes no table of every name.
          if (!note_name_for_repeats(name, key.decoded) || !read_tensor_entry(tensor, name)) {
            return false;
          }
          if (tensors.size() > limits_.max_tensors) {
            if (names_ascending_) return fail_too_many(key_at);  // no repeats
            // The cap counts merged tensors, and records count repeats too:
            // merge them now, and from here on as each name is read.
            if (!names_readable()) return decline();
            merge_repeated_names();
            merging_while_scanning_ = true;
            if (tensors.size() > limits_.max_tensors) return fail_too_many(key_at);
          }
        } else {
          // The lookup comes after the entry is read so that the prefetched
          // hash slot has arrived by then (see NameIndex).
          const std::uint32_t hash = tensor_names_.hash_and_prefetch(name);
          if (!read_tensor_entry(tensor, name)) return false;
          const std::uint32_t existing = tensor_names_.find_or_insert(
              hash, name, new_index,
              [&out, this](std::uint32_t i) { return out.name(i, compare_scratch_); });
          if (existing != NameIndex::kAbsent) {
            // Upstream collects entries into a HashMap, so the last one wins;
            // the earlier entry had to be well-typed all the same.
            tensors[existing] = tensors.back();
            tensors.pop_back();
            if (out.keep_details) {
              out.details[existing] = out.details.back();
              out.details.pop_back();
            }
          } else if (tensors.size() > limits_.max_tensors) {
            return fail_too_many(key_at);
          }
        }
        detail_ = nullptr;
      }
      const AfterElement next = lex_.after_element('}', "',' or '}' after a header entry");
      if (next == AfterElement::kNext) continue;
      if (next == AfterElement::kFault) return false;
      lex_.advance();  // '}'
      break;
    }
  }
  // After the top-level object.
  value_read_whole_ = true;
  if (!window_to_end()) return false;
  if (strict()) {
    const std::uint8_t* p = lex_.pos();
    while (p < lex_.end() && *p == ' ') ++p;
    if (p != lex_.end() && !STGUARD_LET_THROUGH(kPaddingNotSpace, {})) {
      // Bytes that are not JSON whitespace make the header not JSON; header.cc
      // then finds that syntax error, which wins (docs/reasons.md).
      return lex_.fail_after_end(Reason::kHeaderBadPadding, p);
    }
    if (p != lex_.end()) p = lex_.end();  // left out (checks.h): ignored
    lex_.set_pos(p);
    return true;
  }
  lex_.skip_whitespace();
  if (lex_.pos() != lex_.end() && !STGUARD_LET_THROUGH(kSecondValue, {})) {
    return lex_.fail_after_end(Reason::kHeaderNotJson, lex_.pos());
  }
  return true;
}

bool HeaderScanner::read_metadata(
    std::optional<std::vector<std::pair<std::string, std::string>>>& metadata) {
  const std::uint8_t* value_at = lex_.pos();
  const int c = lex_.peek();
  if (c == 'n') {
    if (!lex_.read_literal("null")) return false;
    if (strict() && !STGUARD_LET_THROUGH(kMetadataNotObject, {})) {
      return lex_.fail(Reason::kMetadataInvalid, value_at,
                       "\"__metadata__\" is null (must be an object of strings)");
    }
    metadata.reset();  // upstream treats null as absent
    return true;
  }
  if (c != '{') {
    if (!starts_value(c)) return lex_.fail_syntax(lex_.pos(), "a JSON value");
    if (STGUARD_LET_THROUGH(kMetadataNotObject, {})) {
      metadata.reset();  // left out (checks.h): no metadata
      return lex_.skip_value(1);
    }
    return lex_.fail(Reason::kMetadataInvalid, value_at,
                     "\"__metadata__\" must be an object of string values");
  }
  lex_.advance();  // depth 2; only strings inside, so no nesting check is needed
  auto& pairs = metadata.emplace();
  lex_.skip_whitespace();
  if (lex_.peek() == '}') {
    lex_.advance();
    return true;
  }
  // Files carry a handful of metadata entries ("format": "pt" and a few
  // more): room for them in one allocation instead of regrowing at 1, 2, 4.
  pairs.reserve(kUsualMetadataEntries);
  for (;;) {
    if (!keep_ahead()) return false;
    if (lex_.peek() != '"') return lex_.fail_syntax(lex_.pos(), "a metadata key string");
    const std::uint8_t* key_at = lex_.pos();
    StringValue key;
    if (!lex_.read_string(key_scratch_, key)) return false;
    if (!check_name(key, key_at, true)) return false;
    // Duplicates are decided at the key, before its value, as for tensor names.
    pairs.emplace_back(std::string(key.text), std::string());
    const auto new_index = static_cast<std::uint32_t>(pairs.size() - 1);
    const std::uint32_t existing = metadata_keys_.find_or_insert(
        pairs.back().first, new_index,
        [&pairs](std::uint32_t i) -> std::string_view { return pairs[i].first; });
    if (existing != NameIndex::kAbsent && strict() &&
        !STGUARD_LET_THROUGH(kRepeatedMetadataKey, {})) {
      return lex_.fail(Reason::kDuplicateKey, key_at,
                       message("metadata key ", Quoted{pairs.back().first}, " appears twice"));
    }
    lex_.skip_whitespace();
    if (!lex_.expect(':', "':' after a metadata key")) return false;
    lex_.skip_whitespace();
    const std::uint8_t* string_at = lex_.pos();
    StringValue value;
    if (lex_.peek() != '"') {
      if (!starts_value(lex_.peek())) return lex_.fail_syntax(lex_.pos(), "a JSON value");
      if (!STGUARD_LET_THROUGH(kMetadataValueNotString, {})) {
        return lex_.fail(
            Reason::kMetadataInvalid, string_at,
            message("metadata value for ", Quoted{pairs.back().first}, " is not a string"));
      }
      if (!lex_.skip_value(2)) return false;  // left out (checks.h): an empty value
    } else if (!lex_.read_string(value_scratch_, value)) {
      return false;
    }
    if (strict() && value.has_nul && !STGUARD_LET_THROUGH(kNulInMetadataValue, {})) {
      return lex_.fail(
          Reason::kMetadataInvalid, string_at,
          message("metadata value for ", Quoted{pairs.back().first}, " contains U+0000"));
    }
    pairs.back().second.assign(value.text);
    if (existing != NameIndex::kAbsent) {
      pairs[existing].second = std::move(pairs.back().second);  // reference: last wins
      pairs.pop_back();
    }
    const AfterElement next = lex_.after_element('}', "',' or '}' in \"__metadata__\"");
    if (next == AfterElement::kNext) continue;
    if (next == AfterElement::kFault) return false;
    lex_.advance();  // '}'
    return true;
  }
}

}  // namespace stguard::detail
