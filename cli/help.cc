#include "help.h"

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <utility>
#include <vector>

namespace stguard::cli {
namespace {

// Help lines stay within 79 columns, the width of a terminal less its last.
constexpr std::size_t kWidth = 79;
// A label longer than this gets a line of its own, its description starting
// on the next line in the column the shorter labels set, as in man pages.
constexpr std::size_t kMaxLabel = 20;
// What CLI11 calls an option with no group of its own.
constexpr std::string_view kDefaultGroup = "Options";

struct Row {
  std::string label;
  std::string_view description;
};

bool is_help_flag(const CLI::Option& option) {
  const std::vector<std::string>& names = option.get_lnames();
  return std::find(names.begin(), names.end(), "help") != names.end();
}

bool is_positional(const CLI::Option& option) {
  return option.get_lnames().empty() && option.get_snames().empty();
}

// Appends `text` to `out`, one line per line of text, each wrapped at a blank
// to fit kWidth; the first line continues `out`'s current line, the others
// start with `indent` blanks (plus the line's own leading blanks when wrapped).
void append_wrapped(std::string& out, std::string_view text, std::size_t indent) {
  bool first_line = true;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);
    if (!first_line) out.append(indent, ' ');
    first_line = false;
    const std::size_t own_indent = std::min(line.find_first_not_of(' '), line.size());
    const std::size_t room = kWidth > indent + own_indent + 20 ? kWidth - indent : 20 + own_indent;
    while (line.size() > room) {
      std::size_t cut = line.rfind(' ', room);
      if (cut == std::string_view::npos || cut <= own_indent) cut = line.find(' ', room);
      if (cut == std::string_view::npos) break;
      out.append(line.substr(0, cut));
      out += '\n';
      out.append(indent + own_indent, ' ');
      line = line.substr(cut + 1);
    }
    out.append(line);
    out += '\n';
  }
}

void append_rows(std::string& out, const std::vector<Row>& rows, std::size_t column) {
  for (const Row& row : rows) {
    out += "  ";
    out += row.label;
    if (row.description.empty()) {
      out += '\n';
      continue;
    }
    const std::size_t used = 2 + row.label.size();
    if (used + 2 <= column) {
      out.append(column - used, ' ');
    } else {
      out += '\n';
      out.append(column, ' ');
    }
    append_wrapped(out, row.description, column);
  }
}

// Two blanks, the widest label that is not too long, two blanks.
std::size_t column_for(const std::vector<Row>& rows) {
  std::size_t widest = 0;
  for (const Row& row : rows) {
    if (row.label.size() <= kMaxLabel) widest = std::max(widest, row.label.size());
  }
  return 2 + widest + 2;
}

// Text as written, ending in a newline.
void append_text(std::string& out, std::string_view text) {
  out.append(text);
  if (!text.empty() && text.back() != '\n') out += '\n';
}

}  // namespace

std::string option_placeholder(const CLI::Option& option) {
  if (option.get_items_expected_max() == 0) return "";
  const std::string& text = option.get_option_text();
  return text.empty() ? "?" : text;
}

std::string option_label(const CLI::Option& option) {
  std::string label;
  for (const std::string& name : option.get_snames()) {
    label += (label.empty() ? "-" : ", -") + name;
  }
  for (const std::string& name : option.get_lnames()) {
    label += (label.empty() ? "--" : ", --") + name;
  }
  const std::string placeholder = option_placeholder(option);
  if (!placeholder.empty()) label += " " + placeholder;
  return label;
}

std::string render_help(const Command& command, const Commands& commands) {
  std::string out = "usage: " + std::string(command.usage) + "\n";
  if (!command.intro.empty()) {
    out += '\n';
    append_text(out, command.intro);
  }

  std::vector<Row> subcommands;
  for (const auto& other : commands.all()) {
    if (other->app->get_parent() == command.app) {
      subcommands.push_back({other->app->get_name(), other->description});
    }
  }

  // Option groups in the order of their first option; --help (and "--") last
  // in the default group.
  std::vector<std::pair<std::string, std::vector<Row>>> groups;
  auto group_rows = [&groups](const std::string& name) -> std::vector<Row>& {
    for (auto& [group, rows] : groups) {
      if (group == name) return rows;
    }
    return groups.emplace_back(name, std::vector<Row>()).second;
  };
  const CLI::Option* help_flag = nullptr;
  for (const CLI::Option* option : command.app->get_options()) {
    if (is_positional(*option)) continue;
    if (is_help_flag(*option)) {
      help_flag = option;
      continue;
    }
    group_rows(option->get_group()).push_back({option_label(*option), option->get_description()});
  }
  if (help_flag != nullptr) {
    group_rows(std::string(kDefaultGroup))
        .push_back({option_label(*help_flag), help_flag->get_description()});
  }
  if (command.positionals != nullptr) {
    group_rows(std::string(kDefaultGroup))
        .push_back({"--", "end of options (for arguments that start with '-')"});
  }

  std::vector<Row> all_rows = subcommands;
  for (const auto& [group, rows] : groups)
    all_rows.insert(all_rows.end(), rows.begin(), rows.end());
  const std::size_t column = column_for(all_rows);

  if (!subcommands.empty()) {
    out += "\nCommands:\n";
    append_rows(out, subcommands, column);
  }
  for (const auto& [group, rows] : groups) {
    out += '\n';
    out += group;
    out += ":\n";
    append_rows(out, rows, column);
    for (const auto& [noted_group, note] : command.group_notes) {
      if (noted_group == group) append_text(out, note);
    }
  }
  if (!command.outro.empty()) {
    out += '\n';
    append_text(out, command.outro);
  }
  return out;
}

}  // namespace stguard::cli
