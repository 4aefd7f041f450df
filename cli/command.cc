#include "command.h"

#include <iostream>
#include <sstream>

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

namespace {

// The name of the validators that carry roles; their description holds the
// role names, separated by blanks.
constexpr const char* kRoleValidator = "stguard-role";

}  // namespace

std::string_view value_role_name(ValueRole role) noexcept {
  switch (role) {
    case ValueRole::kText:
      return "text";
    case ValueRole::kNumber:
      return "number";
    case ValueRole::kChoice:
      return "choice";
    case ValueRole::kInputFile:
      return "input";
    case ValueRole::kInputDir:
      return "input-dir";
    case ValueRole::kOutputFile:
      return "output";
    case ValueRole::kOutputDir:
      return "output-dir";
    case ValueRole::kCommand:
      return "command";
    case ValueRole::kReader:
      return "reader";
  }
  return "text";
}

CLI::Validator role(ValueRole role) { return roles({role}); }

CLI::Validator roles(const std::vector<ValueRole>& roles) {
  std::string names;
  for (const ValueRole r : roles)
    names += (names.empty() ? "" : " ") + std::string(value_role_name(r));
  CLI::Validator carrier([](const std::string&) { return std::string(); }, names, kRoleValidator);
  return carrier;
}

std::vector<ValueRole> declared_roles(CLI::Option& option) {
  CLI::Validator* carrier = nullptr;
  try {
    carrier = option.get_validator(kRoleValidator);
  } catch (const CLI::OptionNotFound&) {
    return {};
  }
  std::vector<ValueRole> out;
  std::istringstream names(carrier->get_description());
  for (std::string name; names >> name;) {
    for (const ValueRole r : {ValueRole::kText, ValueRole::kNumber, ValueRole::kChoice,
                              ValueRole::kInputFile, ValueRole::kInputDir, ValueRole::kOutputFile,
                              ValueRole::kOutputDir, ValueRole::kCommand, ValueRole::kReader}) {
      if (value_role_name(r) == name) out.push_back(r);
    }
  }
  return out;
}

int usage_error(const Command& command, std::string_view error) {
  std::cerr << "stguard " << command.path << ": " << base::terminal_safe(error) << "\n"
            << "usage: " << command.usage << "\n"
            << "Try 'stguard " << command.path << " --help'.\n";
  return kExitUsage;
}

}  // namespace stguard::cli
