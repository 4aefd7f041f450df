// A set of names (tensor names, metadata keys) for duplicate detection, stored
// as indices into the caller's own container so names are not copied.
//
// Open addressing with linear probing over a power-of-two table. The hash is
// keyed with a per-process secret so that a header crafted to collide cannot
// make parsing quadratic (time stays linear in the header size).
#ifndef STGUARD_SRC_NAME_INDEX_H_
#define STGUARD_SRC_NAME_INDEX_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace stguard::detail {

std::uint64_t hash_name(std::string_view name) noexcept;

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

  // The index stored for `name` (hash from hash_and_prefetch), or kAbsent.
  template <class NameOf>
  std::uint32_t find(std::uint32_t hash, std::string_view name, NameOf&& name_of) const {
    if (slots_.empty()) return kAbsent;
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = hash & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (s.index == kAbsent) return kAbsent;
      if (s.hash == hash && name_of(s.index) == name) return s.index;
    }
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

 private:
  struct Slot {
    std::uint32_t index = kAbsent;
    std::uint32_t hash = 0;  // kept so growing never rehashes names, and most
                             // mismatches skip the string compare
  };

  void grow() {
    std::vector<Slot> old;
    old.swap(slots_);
    slots_.assign(old.empty() ? 16 : old.size() * 2, Slot{});
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

}  // namespace stguard::detail

#endif  // STGUARD_SRC_NAME_INDEX_H_
