// Helpers for error messages. Names in a hostile header may hold terminal
// escape sequences, newlines or megabytes of text; messages quote them with
// non-printable bytes escaped and long names shortened.
#ifndef STGUARD_SRC_MESSAGE_H_
#define STGUARD_SRC_MESSAGE_H_

#include <string>
#include <string_view>

namespace stguard::detail {

// "name" with \n, \xNN escapes, cut to about 80 bytes with "..." after it.
std::string quoted(std::string_view name);

}  // namespace stguard::detail

#endif  // STGUARD_SRC_MESSAGE_H_
