// cli/legacy_commands.cc: a bridge for `corpus` and `conform` while their
// option parsing moves to CLI11 (transitional; removed by that move). The
// words after the command name are handed to the old parsers unchanged.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "command.h"
#include "commands.h"

namespace stguard::cli {
namespace {

void add_legacy(CLI::App& root, Commands& commands, std::string name, std::string_view usage,
                int (*run)(Args)) {
  Command& command = commands.add(root, name, "", usage, "");
  command.app->remove_option(command.app->get_option("--help"));
  command.app->prefix_command();
  auto dashes = std::make_shared<std::vector<std::string>>();
  command.positionals = dashes.get();
  CLI::App* app = command.app;
  command.run = [app, dashes, run] {
    std::vector<std::string> words = app->remaining();
    if (!dashes->empty()) {
      words.emplace_back("--");
      words.insert(words.end(), dashes->begin(), dashes->end());
    }
    const std::vector<std::string_view> views(words.begin(), words.end());
    return run(Args(views));
  };
}

}  // namespace

void add_corpus_command(CLI::App& root, Commands& commands) {
  add_legacy(root, commands, "corpus", "stguard corpus build|list|export ...", run_corpus);
}

void add_conform_command(CLI::App& root, Commands& commands) {
  add_legacy(root, commands, "conform", "stguard conform ...", run_conform);
}

}  // namespace stguard::cli
