#include "command.h"

#include <iostream>

#include "base/text.h"

namespace stguard::cli {

Command& Commands::add(CLI::App& parent, std::string name, std::string description,
                       std::string_view usage, std::string_view intro, std::string_view outro) {
  auto command = std::make_unique<Command>();
  const Command* parent_command = find(&parent);
  command->path = parent_command != nullptr ? parent_command->path + " " + name : name;
  command->description = description;
  command->usage = usage;
  command->intro = intro;
  command->outro = outro;
  command->app = parent.add_subcommand(std::move(name), std::move(description));
  command->app->set_help_flag();  // help.h renders it instead
  command->app->add_flag("-h,--help", command->help_requested, "show this help")
      ->disable_flag_override();
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
