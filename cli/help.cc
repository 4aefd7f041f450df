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

// Text for roff: a backslash is \e, and a line that would start with a
// control character ('.' or '\'') starts with the zero-width \& instead.
std::string roff_escape(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (const char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";  // a minus sign, not a hyphen that man may break at
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

// Preformatted text (the intro, notes, the outro), line breaks kept.
void append_roff_block(std::string& out, std::string_view text) {
  if (text.empty()) return;
  out += ".nf\n";
  out += roff_escape(text);
  if (text.back() != '\n') out += '\n';
  out += ".fi\n";
}

// A description as one filled paragraph: its line breaks are blanks.
std::string roff_paragraph(std::string_view text) {
  std::string joined(text);
  std::replace(joined.begin(), joined.end(), '\n', ' ');
  return roff_escape(joined) + "\n";
}

std::string upper(std::string text) {
  for (char& c : text) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return text;
}

}  // namespace

std::string man_page_name(const Command& command) {
  std::string name = "stguard";
  for (const char c : command.path) name += c == ' ' ? '-' : c;
  if (!command.path.empty()) name.insert(7, "-");
  return name + ".1";
}

std::string render_man_page(const Command& command, const Commands& commands,
                            std::string_view version) {
  const std::string page = man_page_name(command);
  const std::string title = page.substr(0, page.size() - 2);
  std::string out = ".TH " + upper(title) + " 1 \"\" \"stguard " + std::string(version) +
                    "\" \"User Commands\"\n";
  out += ".SH NAME\n" + roff_escape(title) + " \\- ";
  out += roff_paragraph(command.path.empty() ? "check safetensors files and the readers that "
                                               "load them"
                                             : command.description);
  out += ".SH SYNOPSIS\n";
  append_roff_block(out, command.usage);
  if (!command.intro.empty()) {
    out += ".SH DESCRIPTION\n";
    append_roff_block(out, command.intro);
  }
  std::vector<const Command*> subcommands;
  for (const auto& other : commands.all()) {
    if (other->app->get_parent() == command.app) subcommands.push_back(other.get());
  }
  if (!subcommands.empty()) {
    out += ".SH COMMANDS\n";
    for (const Command* sub : subcommands) {
      out += ".TP\n\\fB" + roff_escape(sub->app->get_name()) + "\\fR\n";
      out += roff_paragraph(sub->description);
      if (sub->path == "help") continue;  // no page of its own: this one
      const std::string sub_page = man_page_name(*sub);
      out += ".br\n\\fB" + roff_escape(sub_page.substr(0, sub_page.size() - 2)) + "\\fR(1)\n";
    }
  }
  // The groups in the order --help shows them, -h/--help last.
  std::vector<std::string> groups;
  for (const CLI::Option* option : command.app->get_options()) {
    if (is_positional(*option) || is_help_flag(*option)) continue;
    if (std::find(groups.begin(), groups.end(), option->get_group()) == groups.end()) {
      groups.push_back(option->get_group());
    }
  }
  out += ".SH OPTIONS\n";
  auto append_option = [&out](const CLI::Option& option) {
    std::string label;
    for (const std::string& name : option.get_snames()) {
      label += (label.empty() ? "\\fB\\-" : ", \\fB\\-") + roff_escape(name) + "\\fR";
    }
    for (const std::string& name : option.get_lnames()) {
      label += (label.empty() ? "\\fB\\-\\-" : ", \\fB\\-\\-") + roff_escape(name) + "\\fR";
    }
    const std::string placeholder = option_placeholder(option);
    if (!placeholder.empty()) label += " \\fI" + roff_escape(placeholder) + "\\fR";
    out += ".TP\n" + label + "\n" + roff_paragraph(option.get_description());
  };
  for (const std::string& group : groups) {
    if (groups.size() > 1 || group != kDefaultGroup) out += ".SS " + roff_escape(group) + "\n";
    for (const CLI::Option* option : command.app->get_options()) {
      if (!is_positional(*option) && !is_help_flag(*option) && option->get_group() == group) {
        append_option(*option);
      }
    }
    for (const auto& [noted_group, note] : command.group_notes) {
      if (noted_group == group) {
        out += ".PP\n";
        append_roff_block(out, note);
      }
    }
  }
  if (groups.size() > 1) out += ".SS Other\n";
  for (const CLI::Option* option : command.app->get_options()) {
    if (is_help_flag(*option)) append_option(*option);
  }
  if (command.positionals != nullptr) {
    out += ".TP\n\\fB\\-\\-\\fR\nend of options (for arguments that start with '\\-')\n";
  }
  if (!command.outro.empty()) {
    out += ".SH DETAILS\n";
    append_roff_block(out, command.outro);
  }
  out += ".SH SEE ALSO\n";
  out += command.path.empty() ? std::string() : "\\fBstguard\\fR(1), ";
  out += "the documentation in /usr/share/doc/stguard/ (docs/cli.md is the command's contract)\n";
  return out;
}

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
