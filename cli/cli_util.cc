#include "cli_util.h"

#include <iostream>

namespace stguard::cli {

int usage_error(std::string_view command, std::string_view usage, std::string_view error) {
  std::cerr << "stguard " << command << ": " << printable(error) << "\n"
            << "usage: " << usage << "\n"
            << "Try 'stguard " << command << " --help'.\n";
  return kExitUsage;
}

}  // namespace stguard::cli
