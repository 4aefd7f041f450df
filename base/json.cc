#include "base/json.h"

#include <cstdint>
#include <span>
#include <string>

#include "base/hex.h"
#include "base/text.h"

namespace stguard::base {

std::string json_line(const nlohmann::ordered_json& value) {
  return value.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

void set_name(nlohmann::ordered_json& object, std::string_view field, std::string_view name) {
  const std::string key(field);
  if (is_valid_utf8(name)) {
    object[key] = std::string(name);
    return;
  }
  object[key] = lossy_utf8(name);
  object[key + "_hex"] =
      to_hex(std::span(reinterpret_cast<const std::uint8_t*>(name.data()), name.size()));
}

}  // namespace stguard::base
