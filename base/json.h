// base/json.h: the one way stguard writes JSON text.
//
//   std::cout << stguard::base::json_line(record) << "\n";
//
// Outputs are compact, one object per line, keys in insertion order
// (nlohmann::ordered_json), and always valid UTF-8: a string holding bytes that
// are not UTF-8 (a file name from argv, a reader's message) has each such byte
// replaced by U+FFFD rather than making the dump throw.
//
// Names that must stay tell-apart-able (file names, symlink targets) go in
// through set_name(), which adds the raw bytes in hex beside a name that is
// not UTF-8, since two different such names can show the same after U+FFFD:
//
//   base::set_name(record, "file", path);  // "file":"a\uFFFD" and "file_hex":"61ff"
#ifndef STGUARD_BASE_JSON_H_
#define STGUARD_BASE_JSON_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace stguard::base {

std::string json_line(const nlohmann::ordered_json& value);

// Sets object[field] to `name` (shown with U+FFFD for bytes that are not
// UTF-8, as json_line does), and, only when `name` is not valid UTF-8,
// object[field + "_hex"] to its bytes as lower-case hex, so that the exact
// name is always recoverable. `object` must be an object (or null).
void set_name(nlohmann::ordered_json& object, std::string_view field, std::string_view name);

}  // namespace stguard::base

#endif  // STGUARD_BASE_JSON_H_
