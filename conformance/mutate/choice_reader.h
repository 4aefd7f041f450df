// conformance/mutate/choice_reader.h: reads a byte string of choices as the
// structured generator's decisions (structured.h).
//
//   stguard::mutate::ChoiceReader choices(bytes);
//   const int pick = choices.integer_in_range(0, 10);
//   const std::string text = choices.string_up_to(12);
//   const std::vector<std::uint8_t> fill = choices.rest();
//
// The generator used to read its choices with libFuzzer's FuzzedDataProvider,
// and fuzz inputs, fuzz regressions and `stguard hunt --seed N` files are
// all choices written for that reading. This class reads them exactly the
// same way, call for call, so every one of them still makes the same file,
// without the generator needing a fuzzer's header to build:
//   - integers come from the END of the choices, one byte at a time (the
//     last byte first, as the most significant), as many bytes as the range
//     needs and the type holds; the value is then taken modulo range + 1,
//     except for a range spanning all 64 bits, which takes it as it is. With
//     no byte left an integer is the range's minimum;
//   - a boolean is the low bit of a one-byte integer;
//   - a string comes from the FRONT: a backslash followed by a byte other
//     than a backslash ends it (both consumed), two backslashes give one;
//   - rest() is whatever is left, from the front.
// Integers from the end and contents from the front keep a fuzzer's edits to
// one from shifting the other. tests/hunt/choice_reader_test.cc checks the
// equivalence against the real header wherever that header is installed.
#ifndef STGUARD_CONFORMANCE_MUTATE_CHOICE_READER_H_
#define STGUARD_CONFORMANCE_MUTATE_CHOICE_READER_H_

#include <climits>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <span>
#include <string>
#include <vector>

namespace stguard::mutate {

class ChoiceReader {
 public:
  explicit ChoiceReader(std::span<const std::uint8_t> choices) noexcept : left_(choices) {}

  // A value in [min, max] (min <= max; anything else is a caller's bug and
  // aborts, as it did before). Not uniform: see above for the reading.
  template <std::integral T>
  T integer_in_range(T min, T max) noexcept {
    if (min > max) std::abort();
    // Two's complement arithmetic in 64 bits, so that a signed range such as
    // [-3, 5] is 8 and min + value wraps back into T.
    const std::uint64_t range = static_cast<std::uint64_t>(max) - static_cast<std::uint64_t>(min);
    std::uint64_t value = 0;
    for (std::size_t bits = 0;
         bits < sizeof(T) * CHAR_BIT && (range >> bits) != 0 && !left_.empty(); bits += CHAR_BIT) {
      value = (value << CHAR_BIT) | left_.back();
      left_ = left_.first(left_.size() - 1);
    }
    // range + 1 would be 0 for the whole 64-bit span.
    if (range != std::numeric_limits<std::uint64_t>::max()) value %= range + 1;
    return static_cast<T>(static_cast<std::uint64_t>(min) + value);
  }

  // Any value of T.
  template <std::integral T>
  T integer() noexcept {
    return integer_in_range(std::numeric_limits<T>::min(), std::numeric_limits<T>::max());
  }

  bool boolean() noexcept { return (integer<std::uint8_t>() & 1) != 0; }

  // Up to max_length characters from the front, ended early by a backslash
  // and any other byte (see above).
  std::string string_up_to(std::size_t max_length) {
    std::string out;
    for (std::size_t i = 0; i < max_length && !left_.empty(); ++i) {
      char next = static_cast<char>(take_front());
      if (next == '\\' && !left_.empty()) {
        next = static_cast<char>(take_front());
        if (next != '\\') break;
      }
      out += next;
    }
    return out;
  }

  // Everything not read yet; nothing is left after it.
  std::vector<std::uint8_t> rest() {
    std::vector<std::uint8_t> out(left_.begin(), left_.end());
    left_ = {};
    return out;
  }

  std::size_t remaining() const noexcept { return left_.size(); }

 private:
  std::uint8_t take_front() noexcept {
    const std::uint8_t byte = left_.front();
    left_ = left_.subspan(1);
    return byte;
  }

  std::span<const std::uint8_t> left_;
};

}  // namespace stguard::mutate

#endif  // STGUARD_CONFORMANCE_MUTATE_CHOICE_READER_H_
