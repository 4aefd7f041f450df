// A set of names (tensor names, metadata keys) for duplicate detection, stored
// as indices into the caller's own container so names are not copied.
//
// Open addressing with linear probing over a power-of-two table. The hash is
// keyed with a per-process secret so that a header crafted to collide cannot
// make parsing quadratic (time stays linear in the header size).
#ifndef STGUARD_SRC_NAME_INDEX_H_
#define STGUARD_SRC_NAME_INDEX_H_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "little_endian.h"

namespace stguard::detail {

// The hash's keys, drawn once per process (name_index.cc).
struct HashSecrets {
  std::uint64_t words[3];
};
extern const HashSecrets kHashSecrets;

__extension__ typedef unsigned __int128 HashU128;  // NOLINT: a GCC/Clang extension, on purpose

// The 128-bit product of a and b, folded to 64 bits.
inline std::uint64_t fold_multiply(std::uint64_t a, std::uint64_t b) noexcept {
  const HashU128 product = static_cast<HashU128>(a) * b;
  return static_cast<std::uint64_t>(product) ^ static_cast<std::uint64_t>(product >> 64);
}

// Inline: the scanner hashes every tensor name of a header whose names are
// not in ascending order, and a call per name showed in profiles of small
// headers.
inline std::uint64_t hash_name(std::string_view name) noexcept {
  // Every load lies inside the name: short names are read as two
  // overlapping words (which together cover every byte), longer ones 16 bytes
  // per step and then their last 16 bytes. The length is mixed in, so names
  // of different lengths read the same way still differ.
  const auto* p = reinterpret_cast<const unsigned char*>(name.data());
  const std::size_t n = name.size();
  const std::uint64_t* const key = kHashSecrets.words;
  std::uint64_t h = key[0] ^ n;
  std::uint64_t a = 0;
  std::uint64_t b = 0;
  if (n > 16) {
    const unsigned char* last = p + n - 16;
    for (; p < last; p += 16) h = fold_multiply(load_le<8>(p) ^ key[1], load_le<8>(p + 8) ^ h);
    a = load_le<8>(last);
    b = load_le<8>(last + 8);
  } else if (n >= 8) {
    a = load_le<8>(p);
    b = load_le<8>(p + n - 8);
  } else if (n >= 4) {
    a = load_le<4>(p);
    b = load_le<4>(p + n - 4);
  } else if (n > 0) {
    a = (std::uint64_t{p[0]} << 16) | (std::uint64_t{p[n / 2]} << 8) | p[n - 1];
  }
  h = fold_multiply(a ^ key[1], b ^ h);
  return fold_multiply(h ^ key[2], n ^ key[0]);
}

class NameIndex {
 public:
  static constexpr std::uint32_t kAbsent = 0xFFFFFFFFu;

  // Returns the index stored for a name equal to `name` (compared through
  // `name_of(index)`), or inserts `index` and returns kAbsent.
  // Sizes the table for `count` names without regrowth.
  void reserve(std::size_t count) {
    std::size_t size = 16;
    while (size < count * 2) size *= 2;
    if (size > slots_.size() && count_ == 0) slots_.assign(size, Slot{});
  }

  // Hashes a name and starts loading its slot into the cache. The table is
  // large and probed at random, so a caller that has other work to do (parse
  // the tensor entry) between this and find_or_insert hides the memory latency.
  std::uint32_t hash_and_prefetch(std::string_view name) const noexcept {
    const auto hash = static_cast<std::uint32_t>(hash_name(name));
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash & (slots_.size() - 1)]);
    return hash;
  }

  template <class NameOf>
  std::uint32_t find_or_insert(std::string_view name, std::uint32_t index, NameOf&& name_of) {
    return find_or_insert(hash_and_prefetch(name), name, index, name_of);
  }

  // As above with the hash from hash_and_prefetch(name).
  template <class NameOf>
  std::uint32_t find_or_insert(std::uint32_t hash, std::string_view name, std::uint32_t index,
                               NameOf&& name_of) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.index == kAbsent) {
        s = Slot{index, hash};
        ++count_;
        return kAbsent;
      }
      if (s.hash == hash && name_of(s.index) == name) return s.index;
    }
  }

  struct Slot {
    std::uint32_t index = kAbsent;
    std::uint32_t hash = 0;  // kept so growing never rehashes names, and most
                             // mismatches skip the string compare
  };

  // The table, for reuse between parses (Scratch, scanned_header.h): its
  // owner may swap in an empty vector with capacity before the first insert
  // and take it back after the last lookup.
  std::vector<Slot>& storage() noexcept { return slots_; }

 private:
  void grow() {
    if (slots_.empty()) {
      slots_.assign(16, Slot{});  // into capacity kept from an earlier parse
      return;
    }
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.size() * 2, Slot{});
    const std::size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.index == kAbsent) continue;
      std::size_t i = s.hash & mask;
      while (slots_[i].index != kAbsent) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  std::vector<Slot> slots_;
  std::size_t count_ = 0;
};

// The first name (in document order) equal to an earlier one, as the pair
// (index of the earlier one, index of the repeat), or nullopt. `hashes[i]` is
// hash_name of name i, whole or its low 32 bits; `same(i, j)` compares names
// i and j, and is asked only when their hashes are equal. `table` is
// scratch memory for its table, left empty with its capacity.
//
// Deciding this after the scan, rather than probing a table per name while
// scanning, keeps the probes out of the scan's loop. The hash is keyed, so a
// crafted header cannot pile names into one probe chain.
template <class Hash, class Same>
std::optional<std::pair<std::uint32_t, std::uint32_t>> first_repeated_name(
    std::span<const Hash> hashes, std::vector<std::uint32_t>& table, Same&& same) {
  const std::size_t n = hashes.size();
  if (n < 2) return std::nullopt;
  // One open-addressing table of indices, at least twice as many slots as
  // names, probed from each name's hash. Names are inserted in document
  // order, so the first hit is the first repeat, and the name it hits is the
  // earliest of its equals. Spreading the names into partitions small enough
  // for L1 first, each with a table of its own, was slower on large
  // headers: the one table's probes are independent of each other, and
  // their misses overlap. A slot holds the index alone (its
  // hash is read from `hashes`): 4 bytes, not 8 with the hash, which in a
  // process that checks one 100,000-tensor header is 1 MB less memory to
  // fault in.
  constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;  // no name has that index
  const std::size_t mask = std::bit_ceil(std::max<std::size_t>(32, n * 2)) - 1;
  table.assign(mask + 1, kEmpty);
  std::optional<std::pair<std::uint32_t, std::uint32_t>> found;
  for (std::uint32_t j = 0; j < n && !found; ++j) {
    const Hash hash = hashes[j];
    for (std::size_t slot = static_cast<std::size_t>(hash) & mask;; slot = (slot + 1) & mask) {
      const std::uint32_t held = table[slot];
      if (held == kEmpty) {
        table[slot] = j;
        break;
      }
      if (hashes[held] == hash && same(held, j)) {
        found = std::pair(held, j);
        break;
      }
    }
  }
  table.clear();
  return found;
}

}  // namespace stguard::detail

#endif  // STGUARD_SRC_NAME_INDEX_H_
