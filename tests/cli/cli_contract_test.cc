// tests/cli/cli_contract_test.cc: the command's contract is written once, in
// the options each command registers with CLI11, and held to it here: every
// registered option is explained by its command's --help and documented in
// docs/cli.md under that command. An option added without its help line or
// its documentation fails this test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/run_cli.h"
#include "tests/support/temp_dir.h"

namespace {

using stguard_test::run_cli;

// One option as `stguard help --options` lists it.
struct Registered {
  std::string command;      // "conform report"
  std::string option;       // "--jobs"
  std::string value;        // "N", "" for a flag, "?" when undeclared
  std::string description;  // its lines joined by blanks
};

// The fields of a line of `stguard help --options` or `--arguments`, an
// empty last one included.
std::vector<std::string> tab_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::istringstream columns(line);
  for (std::string field; std::getline(columns, field, '\t');) fields.push_back(field);
  if (!line.empty() && line.back() == '\t') fields.emplace_back();
  return fields;
}

std::vector<Registered> registered_options() {
  const stguard_test::CliRun run = run_cli({"help", "--options"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::vector<Registered> options;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> fields = tab_fields(line);
    if (fields.size() != 4) {
      ADD_FAILURE() << "not COMMAND<TAB>OPTION<TAB>VALUE<TAB>DESCRIPTION: " << line;
      continue;
    }
    options.push_back({fields[0], fields[1], fields[2], fields[3]});
  }
  return options;
}

// docs/cli.md's text under each "## `stguard PATH`" or "### `stguard PATH`"
// heading, up to the next heading of the same or a higher level.
std::map<std::string, std::string> documented_commands() {
  std::ifstream in(std::filesystem::path(STGUARD_SOURCE_DIR) / "docs" / "cli.md");
  static const std::regex kHeading(R"(^(##+) `stguard ([a-z ]+)`\s*$)");
  std::map<std::string, std::string> sections;
  std::string current;
  std::size_t level = 0;
  for (std::string line; std::getline(in, line);) {
    std::smatch match;
    if (std::regex_match(line, match, kHeading)) {
      current = match[2];
      level = match[1].str().size();
      continue;
    }
    const std::size_t hashes = line.find_first_not_of('#');
    if (!current.empty() && hashes > 0 && hashes != std::string::npos && line[hashes] == ' ' &&
        hashes <= level) {
      current.clear();  // a heading that is not a command's ends its section
    }
    if (!current.empty()) sections[current] += line + "\n";
  }
  return sections;
}

// True when `text` names `option` as a whole word ("--out" is not "--out-dir").
bool names_option(const std::string& text, const std::string& option) {
  for (std::size_t at = text.find(option); at != std::string::npos;
       at = text.find(option, at + 1)) {
    const std::size_t end = at + option.size();
    const bool word_ends =
        end == text.size() || !(std::isalnum(static_cast<unsigned char>(text[end])) ||
                                text[end] == '-' || text[end] == '_');
    if (word_ends) return true;
  }
  return false;
}

TEST(CliContract, EveryRegisteredOptionIsInItsHelp) {
  const auto options = registered_options();
  ASSERT_GE(options.size(), 50u);
  std::map<std::string, std::string> help_of;
  for (const auto& [command, option, value, description] : options) {
    if (option == "--help") continue;  // every command's, documented once
    if (!help_of.count(command)) {
      std::vector<std::string> args;
      std::istringstream words(command);
      for (std::string word; words >> word;) args.push_back(word);
      args.emplace_back("--help");
      help_of[command] = run_cli(args).out;
    }
    EXPECT_TRUE(names_option(help_of[command], option))
        << "`stguard " << command << " --help` does not explain " << option;
  }
}

// --help is rendered from the registration: an option registered without a
// description, or taking a value without naming it, would show as a bare name.
TEST(CliContract, EveryRegisteredOptionHasADescriptionAndNamesItsValue) {
  const auto options = registered_options();
  ASSERT_GE(options.size(), 50u);
  for (const auto& [command, option, value, description] : options) {
    EXPECT_FALSE(description.empty()) << "`stguard " << command << "` " << option;
    EXPECT_NE(value, "?") << "`stguard " << command << "` " << option
                          << " takes a value but declares no placeholder (option_text)";
  }
}

// What --help says about an option is its registered description, word for word.
TEST(CliContract, HelpShowsTheRegisteredDescriptions) {
  std::map<std::string, std::string> help_of;
  for (const auto& [command, option, value, description] : registered_options()) {
    if (!help_of.count(command)) {
      std::vector<std::string> args;
      std::istringstream words(command);
      for (std::string word; words >> word;) args.push_back(word);
      args.emplace_back("--help");
      std::string flowed;  // the help with its layout taken out
      std::istringstream help(run_cli(args).out);
      for (std::string word; help >> word;) flowed += word + " ";
      help_of[command] = flowed;
    }
    std::string words;
    std::istringstream described(description);
    for (std::string word; described >> word;) words += word + " ";
    EXPECT_NE(help_of[command].find(words), std::string::npos)
        << "`stguard " << command << " --help` does not show the description of " << option;
  }
}

// The man pages come from the same declarations: each command's page names
// every option it registers, with its description.
TEST(CliContract, EveryRegisteredOptionIsInItsManPage) {
  const stguard_test::TempDir dir;
  const stguard_test::CliRun run = run_cli({"help", "--man-pages", dir.path().string()});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // roff writes a minus sign as \- (cli/help.cc).
  const auto roff = [](const std::string& text) {
    std::string out;
    for (const char c : text) out += c == '-' ? std::string("\\-") : std::string(1, c);
    return out;
  };
  for (const auto& [command, option, value, description] : registered_options()) {
    if (command == "help") continue;  // its page is stguard(1)
    std::string page_name = "stguard-" + command + ".1";
    std::replace(page_name.begin(), page_name.end(), ' ', '-');
    std::ifstream in(dir.path() / page_name);
    ASSERT_TRUE(in) << "no man page " << page_name;
    const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string name = option.rfind("--", 0) == 0 ? "\\fB\\-\\-" + roff(option.substr(2))
                                                        : "\\fB\\-" + roff(option.substr(1));
    EXPECT_NE(page.find(name + "\\fR"), std::string::npos) << page_name << " lacks " << option;
    EXPECT_NE(page.find(roff(description.substr(0, 20))), std::string::npos)
        << page_name << " lacks the description of " << option;
  }
}

TEST(CliContract, EveryRegisteredOptionIsInDocsCliMd) {
  const auto options = registered_options();
  const std::map<std::string, std::string> sections = documented_commands();
  for (const auto& [command, option, value, description] : options) {
    if (option == "--help" || command == "help") continue;
    // A subcommand without a section of its own ("corpus build") is
    // documented in its parent's ("corpus").
    std::string documented = command;
    while (!sections.count(documented) && documented.find(' ') != std::string::npos) {
      documented = documented.substr(0, documented.rfind(' '));
    }
    const auto section = sections.find(documented);
    ASSERT_NE(section, sections.end())
        << "docs/cli.md has no section for `stguard " << command << "`";
    EXPECT_TRUE(names_option(section->second, option))
        << "docs/cli.md, `stguard " << documented << "`, does not document " << option
        << " of `stguard " << command << "`";
  }
}

// One argument as `stguard help --arguments` lists it.
struct Listed {
  std::string command;  // "conform report"
  std::string names;    // "-j,--jobs", or a positional's name ("FILE")
  std::string value;    // "N", "" for a flag and a positional
  std::string roles;    // "output", "input output"
};

std::vector<Listed> listed_arguments() {
  const stguard_test::CliRun run = run_cli({"help", "--arguments"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  std::vector<Listed> out;
  std::istringstream lines(run.out);
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> fields = tab_fields(line);
    if (fields.size() != 5) {
      ADD_FAILURE() << "not COMMAND<TAB>NAMES<TAB>VALUE<TAB>ROLE<TAB>COUNT: " << line;
      continue;
    }
    out.push_back({fields[0], fields[1], fields[2], fields[3]});
  }
  return out;
}

// The fuzzer of tests/hostile knows a command line's outputs from the roles
// declared where the options are: every value that is a path or a command
// declares what it is, so that a new option writing a file cannot go unseen.
TEST(CliContract, EveryPathOrCommandArgumentDeclaresItsRole) {
  static const std::set<std::string> kRoles = {"flag",    "text",      "number", "choice",
                                               "input",   "input-dir", "output", "output-dir",
                                               "command", "reader"};
  const std::vector<Listed> listed = listed_arguments();
  ASSERT_GE(listed.size(), 90u);
  std::set<std::string> commands;
  for (const Listed& a : listed) {
    commands.insert(a.command);
    std::istringstream words(a.roles);
    std::vector<std::string> roles;
    for (std::string role; words >> role;) {
      EXPECT_TRUE(kRoles.count(role)) << a.command << " " << a.names << ": role " << role;
      roles.push_back(role);
    }
    const bool positional = a.names[0] != '-';
    const bool names_a_path = positional || a.value.find("FILE") != std::string::npos ||
                              a.value.find("DIR") != std::string::npos || a.value == "CMD";
    if (names_a_path && !(a.command == "help" && positional)) {
      for (const std::string& role : roles) {
        EXPECT_TRUE(role != "text" && role != "flag")
            << "`stguard " << a.command << "` " << a.names << " " << a.value
            << " names a path or a command but declares no role (cli/command.h, declare_roles)";
      }
    }
  }
  // Every command is listed, with the outputs the docs promise.
  for (const char* command :
       {"check", "inspect", "verify", "corpus build", "corpus list", "corpus export", "conform",
        "conform report", "adapter", "hunt", "hunt promote", "write", "help"}) {
    EXPECT_TRUE(commands.count(command)) << command;
  }
  const auto role_of = [&](const std::string& command, const std::string& names) {
    for (const Listed& a : listed) {
      if (a.command == command && a.names == names) return a.roles;
    }
    return std::string("(not listed)");
  };
  EXPECT_EQ(role_of("check", "--sarif"), "output");
  EXPECT_EQ(role_of("write", "FILE"), "input output");
  EXPECT_EQ(role_of("conform", "--out-dir"), "output-dir");
  EXPECT_EQ(role_of("help", "--man-pages"), "output-dir");
}

// `--x=` once took the next word as its value (`check --sarif= a b` wrote
// the SARIF log over the model `a`). For every option of every command that
// takes a value, `--x=` is refused as `--x ""` is, and the word after it is
// left alone.
TEST(CliContract, AnEmptyEqualsValueIsRefusedForEveryOption) {
  const stguard_test::TempDir dir;
  const std::string victim = dir.file("victim.safetensors");
  std::ofstream(victim) << "not to be touched";
  std::size_t tried = 0;
  for (const Listed& a : listed_arguments()) {
    if (a.names[0] != '-' || a.value.empty() || a.command == "help") continue;
    const std::string name = a.names.substr(a.names.rfind(',') + 1);
    if (name.rfind("--", 0) != 0) continue;
    std::vector<std::string> args;
    std::istringstream words(a.command);
    for (std::string word; words >> word;) args.push_back(word);
    args.push_back(name + "=");
    args.push_back(victim);
    const stguard_test::CliRun r = run_cli(args);
    ++tried;
    EXPECT_EQ(r.exit_code, 2) << a.command << " " << name << "=: " << r.out << r.err;
    EXPECT_NE(r.err.find(name + " needs a value, not an empty one"), std::string::npos)
        << a.command << " " << name << "=: " << r.err;
    EXPECT_EQ(stguard_test::read_text(victim), "not to be touched") << a.command << " " << name;
  }
  EXPECT_GE(tried, 50u);
}

}  // namespace
