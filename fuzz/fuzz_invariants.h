// Invariants shared by the harnesses: what must hold for any input, accepted
// or rejected, in both profiles. Two levels:
//   check_profiles  one parse per profile and the checks that cost next to
//                   nothing beside it, and one more parse with a profile
//                   and a combination of fast paths drawn from the input,
//                   which must answer alike (fuzz_parse, kept lean for
//                   throughput);
//   check_all       check_profiles' checks plus the cross-checks that parse
//                   again: validate_header agrees with parse_header, the
//                   first 8 + N bytes alone give the same answer, and so does
//                   the header read a window at a time (fuzz_mutator,
//                   fuzz_structured).
// A broken invariant prints what broke and aborts, which every engine reports
// as a crash with the input saved.
#ifndef STGUARD_FUZZ_FUZZ_INVARIANTS_H_
#define STGUARD_FUZZ_FUZZ_INVARIANTS_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "conformance/mutate/format_math.h"
#include "parser/src/header_window.h"
#include "parser/src/layers.h"
#include "parser/src/scanned_header.h"
#include "stguard/stguard.h"

namespace stguard_fuzz {

[[noreturn]] inline void fail(const char* what) {
  std::fprintf(stderr, "stguard fuzz invariant broken: %s\n", what);
  std::fflush(stderr);
  std::abort();
}

inline void check(bool ok, const char* what) {
  if (!ok) fail(what);
}

// The length prefix and a tensor's byte size, read with the generators' own
// arithmetic (conformance/mutate/format_math.h), which is written apart
// from the parser's on purpose: an oracle that shared the parser's code
// would share its bugs. It checks only what an accepted header must satisfy.
using stguard::mutate::expected_bytes;
using stguard::mutate::load_le64;

// An accepted header describes exactly the input it came from.
inline void check_accepted(const stguard::Header& h, const std::uint8_t* data, std::size_t size) {
  check(h.file_size == size, "accepted: file_size is not the input size");
  check(h.header_len <= size && 8 <= size - h.header_len, "accepted: header beyond the input");
  const std::uint64_t data_len = h.data_len();
  // Reused between runs: a fresh vector per accepted input is an allocation
  // that, under ASan, costs about as much as the parse it checks.
  thread_local std::vector<const stguard::TensorInfo*> sorted;
  sorted.clear();
  for (const stguard::TensorInfo& t : h.tensors) {
    check(!stguard::dtype_name(t.dtype).empty(), "accepted: tensor with an invalid dtype");
    check(t.begin <= t.end, "accepted: begin > end");
    check(t.end <= data_len, "accepted: tensor ends beyond the data buffer");
    check(t.header_offset >= 8 && t.header_offset < h.data_offset(),
          "accepted: header_offset outside the header");
    check(data[t.header_offset] == '"', "accepted: header_offset does not point at a quote");
    const std::optional<std::uint64_t> bytes = expected_bytes(t);
    check(bytes.has_value(), "accepted: dtype x shape overflows or is not whole bytes");
    check(*bytes == t.byte_size(), "accepted: byte size differs from dtype x shape");
    sorted.push_back(&t);
  }
  std::sort(sorted.begin(), sorted.end(),
            [](const stguard::TensorInfo* a, const stguard::TensorInfo* b) {
              return a->begin != b->begin ? a->begin < b->begin : a->end < b->end;
            });
  std::uint64_t prev_end = 0;
  for (const stguard::TensorInfo* t : sorted) {
    check(t->begin == prev_end, "accepted: tensors leave a gap or overlap");
    prev_end = t->end;
  }
  check(prev_end == data_len, "accepted: tensors do not cover the data buffer");
}

inline void check_error(const stguard::Error& e, std::size_t size) {
  check(!stguard::reason_name(e.reason).empty(), "error: unknown reason");
  check(e.reason != stguard::Reason::kIoError, "error: kIoError from a complete in-memory input");
  // With the whole file in memory every documented offset is at most the file
  // size (kOffsetOutOfBounds and an unexpected end of the header point at it).
  check(e.offset <= size, "error: offset beyond the input");
  check(!e.message.empty(), "error: empty message");
}

inline bool same_error(const stguard::Error& a, const stguard::Error& b) {
  return a.reason == b.reason && a.offset == b.offset;
}

inline bool same_header(const stguard::Header& a, const stguard::Header& b) {
  return a.tensors == b.tensors && a.metadata == b.metadata && a.header_len == b.header_len &&
         a.file_size == b.file_size;
}

// The harnesses' own parses run on one Parser per thread (stguard/parser.h),
// which keeps its scratch memory from input to input as a program checking
// many files does; the comparative tester's extra parse (check_layers) is a
// one-shot call, with fresh memory. So every input also checks that nothing
// a parse leaves in the scratch changes the next one's answer.
inline stguard::Parser& kept_parser() {
  thread_local stguard::Parser parser;
  return parser;
}

// One parse in one profile; the verdict is checked on its own (an accepted
// header describes the input, an error is well-formed).
inline stguard::Result<stguard::Header> parse_checked(const std::uint8_t* data, std::size_t size,
                                                      stguard::Profile profile) {
  stguard::ParseOptions options;
  options.profile = profile;
  stguard::Result<stguard::Header> parsed =
      kept_parser().parse(std::span<const std::uint8_t>(data, size), options);
  if (parsed) {
    check_accepted(*parsed, data, size);
  } else {
    check_error(parsed.error(), size);
  }
  return parsed;
}

// Strict accepts => reference accepts the same header.
inline void check_strict_implies_reference(const stguard::Result<stguard::Header>& strict,
                                           const stguard::Result<stguard::Header>& reference) {
  if (!strict) return;
  check(reference.has_value(), "strict accepts but reference rejects");
  check(same_header(*strict, *reference), "strict and reference read different headers");
}

// The same answer to the last byte: the same header, or the same reason,
// offset and message.
inline bool same_result(const stguard::Result<stguard::Header>& a,
                        const stguard::Result<stguard::Header>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (a) return same_header(*a, *b);
  return same_error(a.error(), b.error()) && a.error().message == b.error().message;
}

// The combination of fast paths drawn for an input: from its size and a few
// of its bytes, so that a saved input replays with the same layers. One in
// four inputs gets the plain path alone.
inline stguard::detail::Layers drawn_layers(const std::uint8_t* data, std::size_t size) {
  std::uint64_t h = 0x9E3779B97F4A7C15ULL * (size + 1);
  if (size > 0)
    h ^= (std::uint64_t{data[0]} << 8) ^ (std::uint64_t{data[size / 2]} << 24) ^
         (std::uint64_t{data[size - 1]} << 40);
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 32;
  if ((h & 3) == 0) return stguard::detail::Layers::plain();
  return stguard::detail::Layers::from_bits(static_cast<std::uint32_t>(h >> 2));
}

// The comparative tester (parser/src/layers.h): every fast path is a layer
// over the plain path that must never change an answer. With the layers
// `layers` in force, parse reads the input exactly as with all of them
// (`parsed`): the same header, or the same reason, offset and message; and
// with `also_validate`, so does validate_header.
inline void check_layers(const std::uint8_t* data, std::size_t size, stguard::Profile profile,
                         const stguard::Result<stguard::Header>& parsed,
                         const stguard::detail::Layers& layers, bool also_validate = true) {
  stguard::ParseOptions options;
  options.profile = profile;
  const std::span<const std::uint8_t> bytes(data, size);
  const stguard::detail::LayersInForce in_force(layers);
  // One-shot: fresh scratch memory (kept_parser).
  const stguard::Result<stguard::Header> other = stguard::parse(bytes, options);
  if (!same_result(other, parsed)) {
    std::fprintf(stderr, "layers on: %s; all layers: %s; these: %s\n", layers.names().c_str(),
                 parsed ? "accept" : parsed.error().to_string().c_str(),
                 other ? "accept" : other.error().to_string().c_str());
    fail("a combination of fast paths reads the input otherwise than all of them");
  }
  if (!also_validate) return;
  const stguard::Result<stguard::HeaderSummary> summary =
      stguard::validate_header(bytes, size, options);
  check(summary.has_value() == parsed.has_value() &&
            (parsed ? summary->tensor_count == parsed->tensors.size()
                    : same_error(summary.error(), parsed.error()) &&
                          summary.error().message == parsed.error().message),
        "validate_header with a combination of fast paths gives another answer");
}

// The layers fuzz_parse's own two parses run with: all of them, or those
// STGUARD_FUZZ_LAYERS names (a spec of Layers::parse: "-syntax_resume" is
// all but that one), so that a campaign can measure what a layer earns under
// the fuzzer's instrumentation (docs/performance.md) or search one
// combination alone. A spec that names no layer stops the run.
inline const stguard::detail::Layers& baseline_layers() {
  static const stguard::detail::Layers layers = [] {
    const char* spec = std::getenv("STGUARD_FUZZ_LAYERS");
    if (spec == nullptr) return stguard::detail::Layers{};
    const auto parsed = stguard::detail::Layers::parse(spec);
    if (!parsed) {
      std::fprintf(stderr, "STGUARD_FUZZ_LAYERS=%s: not a spec of parser/src/layers.h\n", spec);
      std::abort();
    }
    return *parsed;
  }();
  return layers;
}

// The lean level: one parse per profile, and the comparative tester: one
// more parse, in a profile and with a combination of fast paths both drawn
// from the input (a third more work per input, not twice as much; the
// harnesses of check_all compare both profiles and validate_header too).
inline void check_profiles(const std::uint8_t* data, std::size_t size) {
  const stguard::detail::LayersInForce baseline(baseline_layers());
  const stguard::Result<stguard::Header> strict =
      parse_checked(data, size, stguard::Profile::kStrict);
  const stguard::Result<stguard::Header> reference =
      parse_checked(data, size, stguard::Profile::kReference);
  check_strict_implies_reference(strict, reference);
  const stguard::detail::Layers layers = drawn_layers(data, size);
  const bool in_strict = size == 0 || (data[size / 3] & 1) == 0;
  check_layers(data, size, in_strict ? stguard::Profile::kStrict : stguard::Profile::kReference,
               in_strict ? strict : reference, layers, /*also_validate=*/false);
}

// Where an error's offset may point, per reason (error.h): the length prefix
// for length faults, inside the header text for header faults, inside the
// data buffer (or at its end) for layout faults.
inline void check_error_offset(const stguard::Error& e, const std::uint8_t* data,
                               std::size_t size) {
  using stguard::Reason;
  switch (e.reason) {
    case Reason::kHeaderTooSmall:
    case Reason::kHeaderTooLarge:
    case Reason::kHeaderLengthExceedsFile:
      check(e.offset == 0, "error: a length fault does not point at the prefix");
      return;
    case Reason::kOffsetOutOfBounds:
    case Reason::kOffsetGap:
    case Reason::kOffsetOverlap:
    case Reason::kTrailingData: {
      const std::uint64_t data_offset = 8 + load_le64(data);
      check(data_offset <= e.offset && e.offset <= size,
            "error: a layout fault does not point into the data buffer");
      return;
    }
    case Reason::kIoError:
      return;  // check_error: never from a complete in-memory input
    default: {
      // The header's own faults, including kLimitExceeded.
      const std::uint64_t end = 8 + load_le64(data);
      check(8 <= e.offset && e.offset <= end, "error: a header fault points outside the header");
      return;
    }
  }
}

// The public helpers around a verdict agree with it: reason and dtype names
// round-trip, to_string says "<NAME> at byte <offset>", Header::find finds
// every tensor.
inline void check_api(const stguard::Result<stguard::Header>& parsed, stguard::Profile profile) {
  check(stguard::profile_from_name(stguard::profile_name(profile)) == profile,
        "profile_from_name(profile_name(p)) != p");
  if (parsed) {
    for (const stguard::TensorInfo& t : parsed->tensors) {
      check(parsed->find(t.name) == &t, "Header::find does not find a tensor by its name");
      check(stguard::dtype_from_name(stguard::dtype_name(t.dtype)) == t.dtype,
            "dtype_from_name(dtype_name(d)) != d");
    }
    return;
  }
  const stguard::Error& e = parsed.error();
  const std::span<const stguard::Reason> all = stguard::all_reasons();
  check(std::find(all.begin(), all.end(), e.reason) != all.end(), "all_reasons misses a reason");
  check(stguard::reason_from_name(stguard::reason_name(e.reason)) == e.reason,
        "reason_from_name(reason_name(r)) != r");
  const std::string text = e.to_string();
  const std::string head =
      std::string(stguard::reason_name(e.reason)) + " at byte " + std::to_string(e.offset);
  check(text.compare(0, head.size(), head) == 0,
        "Error::to_string does not start with NAME at byte N");
}

// Tight limits only ever add rejections: a file the tight limits accept is
// accepted the same way with the defaults, a file the defaults reject is
// rejected, and a file only the tight limits reject is rejected for a limit.
inline void check_tight_limits(const std::uint8_t* data, std::size_t size, stguard::Profile profile,
                               const stguard::Result<stguard::Header>& parsed) {
  stguard::ParseOptions tight;
  tight.profile = profile;
  tight.limits.max_header_bytes = 512;
  tight.limits.max_tensors = 3;
  tight.limits.max_rank = 2;
  tight.limits.max_name_bytes = 6;
  const std::span<const std::uint8_t> bytes(data, size);
  const stguard::Result<stguard::Header> limited = stguard::parse(bytes, tight);
  const stguard::Result<stguard::HeaderSummary> limited_summary =
      stguard::validate_header(bytes, size, tight);
  check(limited.has_value() == limited_summary.has_value(),
        "tight limits: validate_header and parse_header disagree");
  if (limited) {
    check(parsed.has_value(), "a file within tight limits is rejected with the default limits");
    check(same_header(*limited, *parsed), "tight limits change the header");
    return;
  }
  check_error(limited.error(), size);
  check(same_error(limited.error(), limited_summary.error()),
        "tight limits: validate_header and parse_header give different reason/offset");
  if (parsed) {
    check(limited.error().reason == stguard::Reason::kLimitExceeded ||
              limited.error().reason == stguard::Reason::kHeaderTooLarge,
          "tight limits reject a valid file for something other than a limit");
  }
}

// The header read a window at a time (parser/src/header_window.h), as
// `stguard check` reads a large one, answers only with the whole header's
// answer: the same header, or it declines. The window is a few hundred bytes
// (its size drawn from the input), so that it moves on many times.
inline void check_window(const std::uint8_t* data, std::size_t size, stguard::Profile profile,
                         const stguard::Result<stguard::Header>& parsed) {
  if (size < 8) return;
  stguard::ParseOptions options;
  options.profile = profile;
  const stguard::Result<std::uint64_t> n =
      stguard::parse_header_length(std::span<const std::uint8_t>(data, size), size);
  if (!n) return;  // the caller reads no window then
  const std::span<const std::uint8_t> header(data + 8, static_cast<std::size_t>(*n));
  const std::size_t capacity = 64 + size % 449;
  // Kept from input to input, as kept_parser's.
  thread_local stguard::detail::Scratch scratch;
  stguard::detail::BytesHeaderWindow for_parse(header, capacity, capacity / 4);
  if (auto got = stguard::detail::parse_header_in_window(size, options, for_parse, scratch)) {
    check(parsed.has_value() && same_header(*got, *parsed),
          "a window accepts what the whole header does not, or another header");
  }
  stguard::detail::BytesHeaderWindow for_validate(header, capacity, capacity / 4);
  if (auto got = stguard::detail::validate_header_in_window(size, options, for_validate, scratch)) {
    check(parsed.has_value() && got->tensor_count == parsed->tensors.size() &&
              got->metadata_count == (parsed->metadata ? parsed->metadata->size() : 0) &&
              got->has_metadata == parsed->metadata.has_value(),
          "validate in a window accepts what the whole header does not, or another summary");
  }
}

// Every other SIMD path the CPU has (stguard/simd.h) reads the input exactly
// as the path in use did: the same header, or the same error, message too.
inline void check_simd_paths(const std::uint8_t* data, std::size_t size, stguard::Profile profile,
                             const stguard::Result<stguard::Header>& parsed) {
  stguard::ParseOptions options;
  options.profile = profile;
  const stguard::SimdPath in_use = stguard::simd_path_in_use();
  for (stguard::SimdPath path : stguard::supported_simd_paths()) {
    if (path == in_use) continue;
    options.simd = path;
    const stguard::Result<stguard::Header> other =
        stguard::parse(std::span<const std::uint8_t>(data, size), options);
    check(other.has_value() == parsed.has_value(), "SIMD paths disagree on the verdict");
    if (parsed) {
      check(same_header(*other, *parsed), "SIMD paths read different headers");
    } else {
      check(same_error(other.error(), parsed.error()) &&
                other.error().message == parsed.error().message,
            "SIMD paths give different errors");
    }
  }
}

// The cross-checks for one profile, given parse_checked's result:
// validate_header and parse_header_length agree with parse_header, the data
// part is never read, a span shorter than the header it claims is kIoError
// (never a read past it), error offsets follow error.h, the helpers agree,
// tighter limits only add rejections, and every SIMD path agrees.
inline void check_cross(const std::uint8_t* data, std::size_t size, stguard::Profile profile,
                        const stguard::Result<stguard::Header>& parsed) {
  stguard::ParseOptions options;
  options.profile = profile;
  const std::span<const std::uint8_t> bytes(data, size);
  const stguard::Result<stguard::HeaderSummary> summary =
      stguard::validate_header(bytes, size, options);
  check(parsed.has_value() == summary.has_value(), "validate_header and parse_header disagree");
  if (parsed) {
    check(summary->tensor_count == parsed->tensors.size(), "validate_header: tensor_count");
    check(summary->has_metadata == parsed->metadata.has_value(), "validate_header: has_metadata");
    check(summary->metadata_count == (parsed->metadata ? parsed->metadata->size() : 0),
          "validate_header: metadata_count");
    check(summary->header_len == parsed->header_len, "validate_header: header_len");
    check(summary->file_size == parsed->file_size, "validate_header: file_size");
  } else {
    check(same_error(parsed.error(), summary.error()),
          "validate_header and parse_header give different reason/offset");
    check_error_offset(parsed.error(), data, size);
  }
  check_api(parsed, profile);

  // parse_header_length alone: the same N, or the same length fault.
  const stguard::Result<std::uint64_t> length = stguard::parse_header_length(bytes, size);
  if (parsed) {
    check(length.has_value() && *length == parsed->header_len, "parse_header_length: another N");
  } else if (!length) {
    check(same_error(length.error(), parsed.error()), "parse_header_length: another error");
  }

  // Fewer bytes than the claimed header while file_size says they exist:
  // kIoError at the end of what was given, from an exact-size copy so that
  // ASan sees any read past it. Also for a cut inside the length prefix.
  if (size >= 8) {
    const std::size_t cut = length ? static_cast<std::size_t>(8 + *length / 2) : 4;
    if (cut < size && (!length || cut < 8 + *length)) {
      auto head = std::make_unique<std::uint8_t[]>(cut);
      std::copy(data, data + cut, head.get());
      const stguard::Result<stguard::Header> truncated =
          stguard::parse_header(std::span<const std::uint8_t>(head.get(), cut), size, options);
      check(!truncated.has_value() && truncated.error().reason == stguard::Reason::kIoError &&
                truncated.error().offset == cut,
            "a span shorter than the header is not kIoError at its end");
    }
  }

  // The data part is never read: the first 8 + N bytes alone, in a buffer of
  // exactly that size (so ASan sees any read past it), give the same answer.
  if (size >= 8) {
    const std::uint64_t n = load_le64(data);
    if (n <= size - 8 && n + 8 < size) {
      const std::size_t prefix = static_cast<std::size_t>(n) + 8;
      auto copy = std::make_unique<std::uint8_t[]>(prefix);
      std::copy(data, data + prefix, copy.get());
      const stguard::Result<stguard::Header> again =
          stguard::parse_header(std::span<const std::uint8_t>(copy.get(), prefix), size, options);
      check(again.has_value() == parsed.has_value(), "prefix-only parse changes the verdict");
      if (parsed) {
        check(same_header(*again, *parsed), "prefix-only parse changes the header");
      } else {
        check(same_error(again.error(), parsed.error()), "prefix-only parse changes the error");
      }
    }
  }

  check_tight_limits(data, size, profile, parsed);
  check_simd_paths(data, size, profile, parsed);
  check_window(data, size, profile, parsed);
  // The plain path alone, and a combination drawn from the input.
  check_layers(data, size, profile, parsed, stguard::detail::Layers::plain());
  check_layers(data, size, profile, parsed, drawn_layers(data, size));
}

// Everything: check_profiles plus check_cross in both profiles.
inline void check_all(const std::uint8_t* data, std::size_t size) {
  const stguard::Result<stguard::Header> strict =
      parse_checked(data, size, stguard::Profile::kStrict);
  check_cross(data, size, stguard::Profile::kStrict, strict);
  const stguard::Result<stguard::Header> reference =
      parse_checked(data, size, stguard::Profile::kReference);
  check_cross(data, size, stguard::Profile::kReference, reference);
  check_strict_implies_reference(strict, reference);
}

}  // namespace stguard_fuzz

#endif  // STGUARD_FUZZ_FUZZ_INVARIANTS_H_
