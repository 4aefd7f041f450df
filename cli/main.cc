// cli/main.cc: the stguard command. Parses the subcommand name and hands the
// remaining arguments to run_* (commands.h).
#include <exception>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cli_util.h"
#include "commands.h"

namespace {

using stguard::cli::Args;
using stguard::cli::kExitOk;
using stguard::cli::kExitUsage;

std::string usage() {
  std::string out =
      "usage: stguard <command> [options] [args]\n"
      "\n"
      "Commands:\n"
      "  check    validate safetensors files (verdict, reason, byte offset)\n"
      "  inspect  show a file's header: tensors with relative and absolute ranges,\n"
      "           metadata, lints\n";
  out += "  verify   check a sharded model folder against its index and SHA256SUMS\n";
  out += "  corpus   build, list or export the conformance corpus\n";
  out += "  conform  grade safetensors readers against the corpus (matrix, reports)\n";
  out += "  adapter  print stguard's own verdict on a file in the adapter protocol";
  out +=
      "\n"
      "  help     show this help, or `stguard help <command>` for a command's help\n"
      "\n"
      "Options:\n"
      "  -h, --help     show this help\n"
      "  --version      show the version\n"
      "\n"
      "Exit status: 0 accepted, 1 rejected, 2 usage error or unreadable file.\n"
      "Run `stguard <command> --help` for the options of a command.\n";
  return out;
}

int dispatch(std::string_view command, Args args) {
  if (command == "check") return stguard::cli::run_check(args);
  if (command == "inspect") return stguard::cli::run_inspect(args);
  if (command == "verify") return stguard::cli::run_verify(args);
  if (command == "corpus") return stguard::cli::run_corpus(args);
  if (command == "conform") return stguard::cli::run_conform(args);
  if (command == "adapter") return stguard::cli::run_adapter(args);
  std::cerr << "stguard: unknown command '" << stguard::cli::printable(command) << "'\n" << usage();
  return kExitUsage;
}

int run(const std::vector<std::string_view>& argv) {
  if (argv.size() < 2) {
    std::cerr << usage();
    return kExitUsage;
  }
  const std::string_view command = argv[1];
  const Args rest = Args(argv).subspan(2);
  if (command == "--help" || command == "-h") {
    std::cout << usage();
    return kExitOk;
  }
  if (command == "help") {
    if (rest.empty()) {
      std::cout << usage();
      return kExitOk;
    }
    if (rest.size() > 1) {
      std::cerr << "stguard help: expected at most one command name\n";
      return kExitUsage;
    }
    static constexpr std::string_view kHelpArg[] = {"--help"};
    return dispatch(rest[0], Args(kHelpArg));
  }
  if (command == "--version") {
    std::cout << "stguard " << STGUARD_VERSION << "\n";
    return kExitOk;
  }
  if (!command.empty() && command[0] == '-') {
    std::cerr << "stguard: unknown option '" << stguard::cli::printable(command) << "'\n"
              << usage();
    return kExitUsage;
  }
  return dispatch(command, rest);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::vector<std::string_view> args(argv, argv + argc);
    const int code = run(args);
    std::cout.flush();
    if (!std::cout) {
      // A verdict that never reached its reader (full disk, closed pipe) must
      // not look like success.
      std::cerr << "stguard: error writing to standard output\n";
      return kExitUsage;
    }
    return code;
  } catch (const std::exception& e) {
    // The library never throws on bad input; this is memory exhaustion or a
    // bug, and still must not end in std::terminate's abort.
    std::cerr << "stguard: internal error: " << e.what() << "\n";
    return kExitUsage;
  }
}
