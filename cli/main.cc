// cli/main.cc: the stguard command. Registers every subcommand (command.h),
// parses the command line once with CLI11, and runs the chosen command.
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/output.h"
#include "base/text.h"
#include "command.h"
#include "data_dir.h"
#include "help.h"
#include "parse_error.h"
#include "stguard/simd.h"

namespace stguard::cli {
namespace {

constexpr std::string_view kRootUsage = "stguard <command> [options] [args]";

constexpr std::string_view kRootOutro =
    "Environment:\n"
    "  STGUARD_SIMD   the parser's vector instructions: auto (the CPU's best,\n"
    "                 the default), baseline, avx2 or avx512; every path gives\n"
    "                 the same results\n"
    "\n"
    "Exit status: 0 accepted, 1 rejected, 2 usage error or unreadable file.\n"
    "Run `stguard <command> --help` for the options of a command.\n";

constexpr std::string_view kHelpUsage =
    "stguard help [COMMAND [SUBCOMMAND] | --options | --arguments | --man-pages DIR]";
constexpr std::string_view kHelpHelp =
    "Shows the help of stguard, or of one command (`stguard help conform report`).\n"
    "\n"
    "  --options   list every command's options as registered, one per line:\n"
    "              COMMAND<TAB>OPTION<TAB>VALUE<TAB>DESCRIPTION (OPTION the\n"
    "              long name, else the short one; VALUE empty for a flag;\n"
    "              the lines of the description joined by blanks); the\n"
    "              test suite holds docs/cli.md to this list\n"
    "  --arguments list every option and positional argument, one per line:\n"
    "              COMMAND<TAB>NAMES<TAB>VALUE<TAB>ROLE<TAB>COUNT (NAMES\n"
    "              \"-j,--jobs\", or a positional's name such as FILE;\n"
    "              ROLE what the values name: flag, text, number, choice,\n"
    "              input, input-dir, output, output-dir, command or reader,\n"
    "              one word per value for a positional whose values differ;\n"
    "              COUNT 1, or * when it may be given several times)\n"
    "  --man-pages DIR  write the man pages, stguard.1 and one per command\n"
    "              (stguard-conform-report.1), into the existing DIR; made\n"
    "              from the same declarations as --help\n";

// `stguard help --options`: the options each command registered with CLI11,
// the one list --help is rendered from and docs/cli.md is checked against.
void print_options(const Commands& commands) {
  for (const auto& command : commands.all()) {
    for (const CLI::Option* option : command->app->get_options()) {
      std::string name;
      if (!option->get_lnames().empty()) {
        name = "--" + option->get_lnames().front();
      } else if (!option->get_snames().empty()) {
        name = "-" + option->get_snames().front();
      } else {
        continue;  // a positional argument
      }
      std::string description = option->get_description();
      std::replace(description.begin(), description.end(), '\n', ' ');
      std::cout << command->path << "\t" << name << "\t" << option_placeholder(*option) << "\t"
                << description << "\n";
    }
  }
}

// The role of an argument that declares none: told from its placeholder.
ValueRole role_from_placeholder(const CLI::Option& option) {
  const std::string placeholder = option_placeholder(option);
  if (placeholder == "N" || placeholder == "S" || placeholder == "SECONDS")
    return ValueRole::kNumber;
  if (placeholder.find('|') != std::string::npos) return ValueRole::kChoice;
  return ValueRole::kText;
}

// `stguard help --arguments`: every option and positional argument with what
// its values name, for tools (command.h, ValueRole).
void print_arguments(const Commands& commands) {
  for (const auto& command : commands.all()) {
    for (CLI::Option* option : command->app->get_options()) {
      std::string names;
      for (const std::string& name : option->get_snames()) {
        names += (names.empty() ? "-" : ",-") + name;
      }
      for (const std::string& name : option->get_lnames()) {
        names += (names.empty() ? "--" : ",--") + name;
      }
      if (option->get_positional()) names = option->get_name();
      std::string roles;
      if (option->get_items_expected_max() == 0) {
        roles = "flag";
      } else if (declared_roles(*option).empty()) {
        roles = value_role_name(role_from_placeholder(*option));
      } else {
        for (const ValueRole role : declared_roles(*option)) {
          roles += (roles.empty() ? "" : " ") + std::string(value_role_name(role));
        }
      }
      // How many times a value may be given: once, or any number of times.
      const bool several = option->get_items_expected_max() > 1 ||
                           option->get_multi_option_policy() == CLI::MultiOptionPolicy::TakeAll;
      std::cout << command->path << "\t" << names << "\t"
                << (option->get_positional() ? "" : option_placeholder(*option)) << "\t" << roles
                << "\t" << (several ? "*" : "1") << "\n";
    }
  }
  // Not a CLI11 option: `help` reads its words itself.
  std::cout << "help\t--man-pages\tDIR\toutput-dir\t1\n";
}

// `stguard help --man-pages DIR`: every page, or exit 2 naming the one that
// could not be written.
int write_man_pages(const std::filesystem::path& dir, const Command& root,
                    const Commands& commands) {
  std::vector<const Command*> pages = {&root};
  for (const auto& command : commands.all()) {
    if (command->path != "help") pages.push_back(command.get());
  }
  for (const Command* page : pages) {
    const base::Result<void> wrote = base::write_file(
        dir / man_page_name(*page), render_man_page(*page, commands, STGUARD_VERSION));
    if (!wrote) {
      std::cerr << "stguard help: " << base::terminal_safe(wrote.error().message) << "\n";
      return kExitUsage;
    }
  }
  return kExitOk;
}

// The innermost command named on the command line (nullptr: none).
Command* chosen_command(CLI::App& root, const Commands& commands) {
  Command* chosen = nullptr;
  CLI::App* app = &root;
  while (true) {
    const std::vector<CLI::App*> parsed = app->get_subcommands();
    if (parsed.empty()) return chosen;
    app = parsed.front();
    if (Command* command = commands.find(app)) chosen = command;
  }
}

// The top-level command names, for "did you mean".
std::vector<std::string> command_names(const Commands& commands) {
  std::vector<std::string> names;
  for (const auto& command : commands.all()) {
    if (command->path.find(' ') == std::string::npos) names.push_back(command->path);
  }
  return names;
}

// The command the words name before any option ("conform report" for
// `conform report --html x`), or nullptr.
const Command* named_command(const Commands& commands, const std::vector<std::string>& words) {
  const Command* named = nullptr;
  std::string path;
  for (const std::string& word : words) {
    if (word.empty() || word[0] == '-') break;
    path += (path.empty() ? "" : " ") + word;
    const Command* command = commands.find(path);
    if (command == nullptr) break;
    named = command;
  }
  return named;
}

// `--name=` with nothing after the '=': CLI11 2.1 takes the next word as the
// value then, so `check --sarif= a.safetensors b.safetensors` wrote the SARIF
// log over a.safetensors. Such a word is refused before parsing, as
// `--name ""` is after it. nullopt when no word is one.
std::optional<std::string> empty_equals_value(const CLI::App& app,
                                              const std::vector<std::string>& words) {
  for (const std::string& word : words) {
    if (word.size() < 4 || word.rfind("--", 0) != 0 || word.find('=') != word.size() - 1) continue;
    const std::string name = word.substr(0, word.size() - 1);
    const CLI::Option* option = app.get_option_no_throw(name);
    if (option == nullptr) continue;  // an unknown option: the parse names it
    if (option->get_items_expected_max() == 0) return name + " is a flag: it takes no value";
    return name + " needs a value, not an empty one ('" + word + "' gives none)";
  }
  return std::nullopt;
}

std::string first_word(std::string_view text) {
  const std::size_t colon = text.find(": ");
  std::string_view rest = colon == std::string_view::npos ? text : text.substr(colon + 2);
  return std::string(rest.substr(0, rest.find(' ')));
}

int run(int argc, char** argv) {
  // The parser takes an unknown STGUARD_SIMD as auto; a command line user
  // who set it wants to hear that it did nothing.
  if (const char* simd = std::getenv("STGUARD_SIMD");
      simd != nullptr && *simd != '\0' && !simd_path_from_name(simd)) {
    std::cerr << "stguard: STGUARD_SIMD must be auto, baseline, avx2 or avx512, not '"
              << base::terminal_safe(simd) << "'\n";
    return kExitUsage;
  }
  CLI::App root{"stguard"};
  root.set_help_flag();
  // One command per invocation: after it, a word that is also a command's
  // name is an argument (`stguard help check`, a file named "inspect").
  root.require_subcommand(0, 1);
  bool help = false;
  bool version = false;
  root.add_flag("-h,--help", help, "show this help")->disable_flag_override();
  root.add_flag("--version", version, "show the version and the parser's SIMD path")
      ->disable_flag_override();
  // The root's help, rendered like every command's; not a command itself.
  Command root_command;
  root_command.usage = kRootUsage;
  root_command.outro = kRootOutro;
  root_command.app = &root;

  Commands commands;
  add_check_command(root, commands);
  add_inspect_command(root, commands);
  add_verify_command(root, commands);
  add_corpus_command(root, commands);
  add_conform_command(root, commands);
  add_adapter_command(root, commands);
  add_hunt_command(root, commands);
  add_write_command(root, commands);
  Command& help_command =
      commands.add(root, "help", "show this help, or `stguard help <command>` for a command's help",
                   kHelpUsage, kHelpHelp);
  // Everything after `help` names the topic, even words that are command
  // names themselves (CLI11 would otherwise take them as commands).
  help_command.app->prefix_command();
  std::vector<std::string> topic;
  help_command.positionals = &topic;
  help_command.run = [&]() {
    for (const std::string& word : help_command.app->remaining()) {
      if (word != "-h" && word != "--help") topic.push_back(word);
    }
    if (topic.empty()) {
      std::cout << render_help(root_command, commands);
      return kExitOk;
    }
    if (topic == std::vector<std::string>{"--options"}) {
      print_options(commands);
      return kExitOk;
    }
    if (topic == std::vector<std::string>{"--arguments"}) {
      print_arguments(commands);
      return kExitOk;
    }
    if (topic.front() == "--man-pages") {
      if (topic.size() != 2) return usage_error(help_command, "--man-pages needs one DIR");
      return write_man_pages(topic[1], root_command, commands);
    }
    std::string path;
    for (const std::string& word : topic) path += (path.empty() ? "" : " ") + word;
    const Command* command = commands.find(path);
    if (command == nullptr) {
      return usage_error(help_command, "unknown command '" + path + "'" +
                                           did_you_mean(path, command_names(commands)));
    }
    std::cout << render_help(*command, commands);
    return kExitOk;
  };

  // Everything after the first "--" is positional, for the chosen command.
  // CLI11 2.1 would hand those words back to the parent command once the
  // command's positional argument holds one value, so they are kept apart.
  std::vector<std::string> words;
  std::vector<std::string> after_dashes;
  bool dashes = false;
  for (int i = 1; i < argc; ++i) {
    if (!dashes && std::string_view(argv[i]) == "--") {
      dashes = true;
    } else {
      (dashes ? after_dashes : words).emplace_back(argv[i]);
    }
  }
  if (const Command* named = named_command(commands, words)) {
    if (const std::optional<std::string> empty = empty_equals_value(*named->app, words)) {
      return usage_error(*named, *empty);
    }
  } else if (const std::optional<std::string> empty = empty_equals_value(root, words)) {
    std::cerr << "stguard: " << base::terminal_safe(*empty) << "\n";
    return kExitUsage;
  }
  std::vector<std::string> reversed(words.rbegin(), words.rend());  // as CLI11 wants them
  try {
    root.parse(reversed);
  } catch (const CLI::ParseError& e) {
    if (Command* command = chosen_command(root, commands)) {
      return usage_error(*command, explain_parse_error(e, *command->app, words));
    }
    const std::optional<std::string> extra = first_unexpected(root, words);
    const std::string word = extra ? *extra : first_word(e.what());
    std::cerr << "stguard: "
              << base::terminal_safe(!word.empty() && word[0] != '-'
                                         ? "unknown command '" + word + "'" +
                                               did_you_mean(word, command_names(commands))
                                         : explain_parse_error(e, root, words))
              << "\n"
              << render_help(root_command, commands);
    return kExitUsage;
  }

  Command* command = chosen_command(root, commands);
  if (command == nullptr) {
    if (!after_dashes.empty()) {
      std::cerr << "stguard: unknown command '" << base::terminal_safe(after_dashes[0]) << "'\n"
                << render_help(root_command, commands);
      return kExitUsage;
    }
    if (version) {
      std::cout << "stguard " << STGUARD_VERSION
                << "\nSIMD path: " << simd_path_name(simd_path_in_use()) << " (this CPU has";
      for (SimdPath path : supported_simd_paths()) std::cout << " " << simd_path_name(path);
      std::cout << ")\n";
      // Where the corpus and the bundled readers come from, as conform, hunt
      // and corpus would find them: a stale copy is a common surprise.
      const base::Result<DataDir> data = find_data_dir(std::nullopt);
      std::cout << "data: "
                << base::terminal_safe(data ? data->root.string() + " (" + data->found_by + ")"
                                            : "none: " + data.error().message)
                << "\n";
      return kExitOk;
    }
    (help ? std::cout : std::cerr) << render_help(root_command, commands);
    return help ? kExitOk : kExitUsage;
  }
  if (!after_dashes.empty()) {
    if (command->positionals == nullptr) {
      return usage_error(*command, "unexpected argument '" + after_dashes[0] + "'");
    }
    command->positionals->insert(command->positionals->end(), after_dashes.begin(),
                                 after_dashes.end());
  }
  if (command->help_requested && command != &help_command) {
    std::cout << render_help(*command, commands);
    return kExitOk;
  }
  if (const std::optional<std::string> empty = empty_option_value(*command->app)) {
    return usage_error(*command, *empty);
  }
  // A --data-dir given is checked even where the command turns out not to
  // need it (every reader and the corpus given): a folder the user named
  // that holds no data is a mistake to report, not to ignore.
  if (const CLI::Option* data = command->app->get_option_no_throw("--data-dir");
      data != nullptr && data->count() > 0) {
    if (const base::Result<DataDir> found = find_data_dir(data->as<std::string>()); !found) {
      return usage_error(*command, found.error().message);
    }
  }
  if (!command->run) return usage_error(*command, "which command? (see --help)");
  return command->run();
}

}  // namespace
}  // namespace stguard::cli

int main(int argc, char** argv) {
  // A closed pipe on stdout (`stguard check ... | head -1`) and a file size
  // limit (`ulimit -f`) are write failures to report, exit 2 with the
  // reports of the work already done written, not signals that end the
  // process silently with a temporary file left behind. Adapters get the
  // default dispositions back (conformance/runner/process.cc).
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGXFSZ, SIG_IGN);
  try {
    const int code = stguard::cli::run(argc, argv);
    std::cout.flush();
    if (!std::cout) {
      // A verdict that never reached its reader (full disk, closed pipe) must
      // not look like success.
      std::cerr << "stguard: error writing to standard output\n";
      return stguard::cli::kExitUsage;
    }
    return code;
  } catch (const std::exception& e) {
    // The libraries never throw on bad input; this is memory exhaustion or a
    // bug, and still must not end in std::terminate's abort.
    std::cerr << "stguard: internal error: " << e.what() << "\n";
    return stguard::cli::kExitUsage;
  }
}
