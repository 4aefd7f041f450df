// The dtype table behind stguard/dtype.h, with inline lookups for the
// scanner and the size check, which do one per tensor.
#ifndef STGUARD_SRC_DTYPE_TABLE_H_
#define STGUARD_SRC_DTYPE_TABLE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "little_endian.h"
#include "stguard/dtype.h"

namespace stguard::detail {

struct DtypeEntry {
  Dtype dtype;
  std::string_view name;
  unsigned bits;
  int writer_rank;  // upstream writer order: larger element types first
};

// Indexed by the enumerator's value.
inline constexpr std::array<DtypeEntry, kDtypeCount> kDtypeTable = {{
    {Dtype::kBool, "BOOL", 8, 21},
    {Dtype::kF4, "F4", 4, 20},
    {Dtype::kF6E2M3, "F6_E2M3", 6, 19},
    {Dtype::kF6E3M2, "F6_E3M2", 6, 18},
    {Dtype::kU8, "U8", 8, 17},
    {Dtype::kI8, "I8", 8, 16},
    {Dtype::kF8E5M2, "F8_E5M2", 8, 15},
    {Dtype::kF8E4M3, "F8_E4M3", 8, 14},
    {Dtype::kF8E8M0, "F8_E8M0", 8, 13},
    {Dtype::kF8E4M3Fnuz, "F8_E4M3FNUZ", 8, 12},
    {Dtype::kF8E5M2Fnuz, "F8_E5M2FNUZ", 8, 11},
    {Dtype::kI16, "I16", 16, 10},
    {Dtype::kU16, "U16", 16, 9},
    {Dtype::kF16, "F16", 16, 8},
    {Dtype::kBF16, "BF16", 16, 7},
    {Dtype::kI32, "I32", 32, 6},
    {Dtype::kU32, "U32", 32, 5},
    {Dtype::kF32, "F32", 32, 4},
    {Dtype::kC64, "C64", 64, 3},
    {Dtype::kF64, "F64", 64, 2},
    {Dtype::kI64, "I64", 64, 1},
    {Dtype::kU64, "U64", 64, 0},
}};

inline const DtypeEntry& dtype_entry(Dtype dtype) noexcept {
  const auto index = static_cast<std::size_t>(dtype);
  // Out-of-range values can only come from a cast by the caller; map them to
  // U8 rather than read outside the table.
  return index < kDtypeTable.size() ? kDtypeTable[index] : kDtypeTable[4];
}

// Name lookup in one probe and two compares. A name of n bytes (2 to 11) is
// read as two little-endian words of the same width that overlap and
// together cover every byte, so (n, first, last) equals a table entry's
// exactly when the names are equal. A multiplicative hash of the words picks
// one of 64 slots; the multiplier is found at compile time so that the 22
// names land in distinct slots.
namespace dtype_lookup {

struct NameWords {
  std::uint64_t first = 0;
  std::uint64_t last = 0;
};

// Precondition: 2 <= name.size() <= 11.
constexpr NameWords words_of(std::string_view name) noexcept {
  const char* p = name.data();
  const std::size_t n = name.size();
  if (n >= 8) return {load_le<8>(p), load_le<8>(p + n - 8)};
  if (n >= 4) return {load_le<4>(p), load_le<4>(p + n - 4)};
  return {load_le<2>(p), load_le<2>(p + n - 2)};
}

constexpr int kSlotBits = 6;

constexpr std::size_t slot_of(const NameWords& w, std::size_t size,
                              std::uint64_t multiplier) noexcept {
  return static_cast<std::size_t>(((w.first ^ (w.last << 1) ^ size) * multiplier) >>
                                  (64 - kSlotBits));
}

constexpr bool distinct_slots(std::uint64_t multiplier) {
  bool used[1 << kSlotBits] = {};
  for (const DtypeEntry& e : kDtypeTable) {
    const std::size_t slot = slot_of(words_of(e.name), e.name.size(), multiplier);
    if (used[slot]) return false;
    used[slot] = true;
  }
  return true;
}

constexpr std::uint64_t find_multiplier() {
  std::uint64_t multiplier = 0x9E3779B97F4A7C15ULL;  // odd; adding an even step keeps it odd
  for (int attempt = 0; attempt < 10'000; ++attempt) {
    if (distinct_slots(multiplier)) return multiplier;
    multiplier += 0x2545F4914F6CDD1CULL;
  }
  return 0;
}

inline constexpr std::uint64_t kMultiplier = find_multiplier();
static_assert(kMultiplier != 0, "no multiplier separates the dtype names");

struct Slot {
  NameWords words;
  std::uint8_t size = 0;  // 0: empty
  Dtype dtype = Dtype::kU8;
};

constexpr std::array<Slot, 1 << kSlotBits> make_slots() {
  std::array<Slot, 1 << kSlotBits> slots{};
  for (const DtypeEntry& e : kDtypeTable) {
    const NameWords w = words_of(e.name);
    slots[slot_of(w, e.name.size(), kMultiplier)] =
        Slot{w, static_cast<std::uint8_t>(e.name.size()), e.dtype};
  }
  return slots;
}

inline constexpr std::array<Slot, 1 << kSlotBits> kSlots = make_slots();

}  // namespace dtype_lookup

// Exact, case-sensitive lookup of an on-disk name.
inline std::optional<Dtype> find_dtype(std::string_view name) noexcept {
  if (name.size() < 2 || name.size() > 11) return std::nullopt;
  const dtype_lookup::NameWords w = dtype_lookup::words_of(name);
  const dtype_lookup::Slot& slot =
      dtype_lookup::kSlots[dtype_lookup::slot_of(w, name.size(), dtype_lookup::kMultiplier)];
  if (slot.size != name.size() || slot.words.first != w.first || slot.words.last != w.last) {
    return std::nullopt;
  }
  return slot.dtype;
}

}  // namespace stguard::detail

#endif  // STGUARD_SRC_DTYPE_TABLE_H_
