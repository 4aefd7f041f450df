// The switches of the parser's fast paths (layers.h).
#include "layers.h"

namespace stguard::detail {
namespace {

thread_local Layers t_layers;

// The fields in the order of from_bits and names().
constexpr bool Layers::*kFields[Layers::kCount] = {
    &Layers::compact_entries, &Layers::u64_words,       &Layers::plain_strings,
    &Layers::ascending_names, &Layers::utf8_after_scan, &Layers::syntax_shortcuts,
    &Layers::syntax_resume,   &Layers::in_order_walk,   &Layers::tiles_exactly,
    &Layers::packed_walk,     &Layers::window,
};
constexpr const char* kNames[Layers::kCount] = {
    "compact_entries", "u64_words",        "plain_strings", "ascending_names",
    "utf8_after_scan", "syntax_shortcuts", "syntax_resume", "in_order_walk",
    "tiles_exactly",   "packed_walk",      "window",
};

}  // namespace

Layers Layers::from_bits(std::uint32_t bits) noexcept {
  Layers l;
  for (int i = 0; i < kCount; ++i) l.*kFields[i] = ((bits >> i) & 1) != 0;
  return l;
}

std::string Layers::names() const {
  std::string out;
  int on = 0;
  for (int i = 0; i < kCount; ++i) {
    if (!(this->*kFields[i])) continue;
    out += (out.empty() ? "" : ",") + std::string(kNames[i]);
    ++on;
  }
  if (on == 0) return "none";
  if (on == kCount) return "all";
  return out;
}

std::optional<Layers> Layers::parse(std::string_view spec) {
  if (spec == "all") return Layers{};
  if (spec == "none") return plain();
  if (spec.empty()) return std::nullopt;
  const bool all_but = !spec.empty() && spec.front() == '-';
  Layers out = all_but ? Layers{} : plain();
  while (!spec.empty()) {
    const std::size_t comma = spec.find(',');
    std::string_view name = spec.substr(0, comma);
    spec = comma == std::string_view::npos ? std::string_view{} : spec.substr(comma + 1);
    if (all_but != (!name.empty() && name.front() == '-')) return std::nullopt;  // mixed
    if (all_but) name.remove_prefix(1);
    int i = 0;
    while (i < kCount && name != kNames[i]) ++i;
    if (i == kCount) return std::nullopt;
    out.*kFields[i] = !all_but;
  }
  return out;
}

const Layers& layers() noexcept { return t_layers; }

LayersInForce::LayersInForce(const Layers& layers) noexcept : previous_(t_layers) {
  t_layers = layers;
}

LayersInForce::~LayersInForce() { t_layers = previous_; }

}  // namespace stguard::detail
