#include "command.h"

#include <iostream>

#include "base/text.h"

namespace stguard::cli {

Command& Commands::add(CLI::App& parent, std::string name, std::string_view description,
                       std::string_view usage, std::string_view help) {
  auto command = std::make_unique<Command>();
  const Command* parent_command = find(&parent);
  command->path = parent_command != nullptr ? parent_command->path + " " + name : name;
  command->usage = usage;
  command->help = help;
  command->app = parent.add_subcommand(std::move(name), std::string(description));
  command->app->set_help_flag();  // the hand-written help instead
  command->app->add_flag("-h,--help", command->help_requested)->disable_flag_override();
  commands_.push_back(std::move(command));
  return *commands_.back();
}

Command* Commands::find(const CLI::App* app) const {
  for (const auto& command : commands_) {
    if (command->app == app) return command.get();
  }
  return nullptr;
}

Command* Commands::find(std::string_view path) const {
  for (const auto& command : commands_) {
    if (command->path == path) return command.get();
  }
  return nullptr;
}

int usage_error(const Command& command, std::string_view error) {
  std::cerr << "stguard " << command.path << ": " << base::terminal_safe(error) << "\n"
            << "usage: " << command.usage << "\n"
            << "Try 'stguard " << command.path << " --help'.\n";
  return kExitUsage;
}

}  // namespace stguard::cli
