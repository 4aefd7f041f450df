// tests/hostile/cli_fuzz/argument_table.cc: read_argument_table and the
// table's lookups (argument_table.h).
#include "tests/hostile/cli_fuzz/argument_table.h"

#include <stdio.h>

#include <algorithm>
#include <sstream>

namespace stguard_cli_fuzz {
namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(text);
  while (std::getline(in, field, separator)) fields.push_back(field);
  if (!text.empty() && text.back() == separator) fields.emplace_back();
  return fields;
}

}  // namespace

const std::string& Argument::role(std::size_t index) const {
  static const std::string kText = "text";
  if (roles.empty()) return kText;
  return roles[std::min(index, roles.size() - 1)];
}

const std::string& Argument::name() const {
  if (!positional.empty()) return positional;
  for (const std::string& n : names) {
    if (n.rfind("--", 0) == 0) return n;
  }
  return names.front();
}

std::string Argument::short_name() const {
  for (const std::string& n : names) {
    if (n.size() == 2 && n[0] == '-' && n[1] != '-') return n;
  }
  return "";
}

std::vector<const Argument*> ArgumentTable::of(const std::string& command) const {
  std::vector<const Argument*> out;
  for (const Argument& a : arguments) {
    if (a.command == command) out.push_back(&a);
  }
  return out;
}

const Argument* ArgumentTable::option(const std::string& command, const std::string& name) const {
  for (const Argument& a : arguments) {
    if (a.command == command && std::find(a.names.begin(), a.names.end(), name) != a.names.end()) {
      return &a;
    }
  }
  return nullptr;
}

const Argument* ArgumentTable::positional(const std::string& command) const {
  for (const Argument& a : arguments) {
    if (a.command == command && !a.positional.empty()) return &a;
  }
  return nullptr;
}

ArgumentTable read_argument_table(const std::string& stguard, std::string* error) {
  ArgumentTable table;
  const std::string command = "'" + stguard + "' help --arguments";
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    *error = "cannot run " + command;
    return {};
  }
  std::string text;
  char buffer[4096];
  for (std::size_t n; (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) text.append(buffer, n);
  if (::pclose(pipe) != 0) {
    *error = command + " failed";
    return {};
  }
  for (const std::string& line : split(text, '\n')) {
    if (line.empty()) continue;
    const std::vector<std::string> f = split(line, '\t');
    if (f.size() != 5 || f[0].empty() || f[1].empty() || f[3].empty()) {
      *error = "not COMMAND<TAB>NAMES<TAB>VALUE<TAB>ROLE<TAB>COUNT: " + line;
      return {};
    }
    Argument a;
    a.command = f[0];
    if (f[1][0] == '-') {
      a.names = split(f[1], ',');
    } else {
      a.positional = f[1];
    }
    a.placeholder = f[2];
    a.roles = split(f[3], ' ');
    a.several = f[4] == "*";
    if (std::find(table.commands.begin(), table.commands.end(), a.command) ==
        table.commands.end()) {
      table.commands.push_back(a.command);
    }
    table.arguments.push_back(std::move(a));
  }
  if (table.arguments.empty()) *error = command + " printed nothing";
  return table;
}

}  // namespace stguard_cli_fuzz
