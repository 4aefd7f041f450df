#include "stguard/dtype.h"

#include <array>
#include <cstddef>
#include <cstdint>

namespace stguard {
namespace {

struct DtypeEntry {
  Dtype dtype;
  std::string_view name;
  unsigned bits;
  int writer_rank;  // upstream writer order: larger element types first
};

// Indexed by the enumerator's value.
constexpr std::array<DtypeEntry, kDtypeCount> kDtypes = {{
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

constexpr std::array<Dtype, kDtypeCount> make_dtype_list() {
  std::array<Dtype, kDtypeCount> out{};
  for (std::size_t i = 0; i < kDtypes.size(); ++i) out[i] = kDtypes[i].dtype;
  return out;
}
constexpr std::array<Dtype, kDtypeCount> kDtypeList = make_dtype_list();

// Name lookup in one probe: every name differs from the others in its length
// or its first 8 bytes, so a multiplicative hash of those picks a slot of a
// 64-entry table; the multiplier is found at compile time so that the 22
// names land in distinct slots. The caller compares the name found.
constexpr std::uint64_t name_key(std::string_view name) noexcept {
  std::uint64_t key = name.size();
  for (std::size_t i = 0; i < name.size() && i < 8; ++i) {
    key ^= static_cast<std::uint64_t>(static_cast<unsigned char>(name[i])) << (8 * i);
  }
  return key;
}

constexpr int kSlotBits = 6;

constexpr bool distinct_slots(std::uint64_t multiplier) {
  bool used[1 << kSlotBits] = {};
  for (const DtypeEntry& e : kDtypes) {
    const std::uint64_t slot = (name_key(e.name) * multiplier) >> (64 - kSlotBits);
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

constexpr std::uint64_t kMultiplier = find_multiplier();
static_assert(kMultiplier != 0, "no multiplier separates the dtype names");

std::size_t slot_of(std::string_view name) noexcept {
  return static_cast<std::size_t>((name_key(name) * kMultiplier) >> (64 - kSlotBits));
}

constexpr std::uint8_t kNoSlot = 0xFF;

constexpr std::array<std::uint8_t, 1 << kSlotBits> make_name_slots() {
  std::array<std::uint8_t, 1 << kSlotBits> slots{};
  for (std::uint8_t& s : slots) s = kNoSlot;
  for (std::size_t i = 0; i < kDtypes.size(); ++i) {
    slots[(name_key(kDtypes[i].name) * kMultiplier) >> (64 - kSlotBits)] =
        static_cast<std::uint8_t>(i);
  }
  return slots;
}
constexpr std::array<std::uint8_t, 1 << kSlotBits> kNameSlots = make_name_slots();

const DtypeEntry& entry(Dtype dtype) noexcept {
  const auto index = static_cast<std::size_t>(dtype);
  // Out-of-range values can only come from a cast by the caller; map them to
  // U8 rather than read outside the table.
  return index < kDtypes.size() ? kDtypes[index] : kDtypes[4];
}

}  // namespace

std::span<const Dtype> all_dtypes() noexcept { return kDtypeList; }
std::string_view dtype_name(Dtype dtype) noexcept { return entry(dtype).name; }
unsigned dtype_bits(Dtype dtype) noexcept { return entry(dtype).bits; }
int dtype_writer_rank(Dtype dtype) noexcept { return entry(dtype).writer_rank; }

std::optional<Dtype> dtype_from_name(std::string_view name) noexcept {
  if (name.size() < 2 || name.size() > 11) return std::nullopt;
  const std::uint8_t slot = kNameSlots[slot_of(name)];
  if (slot == kNoSlot || kDtypes[slot].name != name) return std::nullopt;
  return kDtypes[slot].dtype;
}

}  // namespace stguard
