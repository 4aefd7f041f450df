// base/json.h: the one way stguard writes JSON text.
//
//   std::cout << stguard::base::json_line(record) << "\n";
//
// Outputs are compact, one object per line, keys in insertion order
// (nlohmann::ordered_json), and always valid UTF-8: a string holding bytes that
// are not UTF-8 (a file name from argv, a reader's message) has each such byte
// replaced by U+FFFD rather than making the dump throw.
#ifndef STGUARD_BASE_JSON_H_
#define STGUARD_BASE_JSON_H_

#include <nlohmann/json.hpp>
#include <string>

namespace stguard::base {

std::string json_line(const nlohmann::ordered_json& value);

}  // namespace stguard::base

#endif  // STGUARD_BASE_JSON_H_
