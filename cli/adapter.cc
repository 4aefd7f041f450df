// cli/adapter.cc: `stguard adapter`, stguard itself as a reader under the
// adapter protocol (docs/adapter-protocol.md). The bundled readers
// stguard-strict and stguard-reference (conformance/adapters/) run it, so the
// conformance matrix grades stguard exactly the way it grades every other
// reader: through a separate process and the same JSON.
#include <array>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "base/json.h"
#include "base/sha256.h"
#include "command.h"
#include "output.h"
#include "stguard/file.h"

namespace stguard::cli {
namespace {

constexpr std::string_view kAdapterUsage =
    "stguard adapter [--profile strict|reference] [--max-... N] (FILE | --persistent)";

constexpr std::string_view kAdapterIntro =
    R"(Reads FILE into memory with stguard (every check of the profile) and prints one
JSON object on stdout, the adapter protocol `stguard conform` grades readers by:
  {"verdict":"accept","error":null,"tensors":[{"name","dtype","shape",
   "data_offsets","sha256"}]}      sha256 of each tensor's bytes, header order
  {"verdict":"reject","error":"REASON at byte OFFSET: MESSAGE"}
A file that cannot be opened or read (it shrank while being read) is a reject
with reason IO_ERROR. With --persistent, the paths come on stdin, one per line,
and each gets its answer as one line on stdout, until end of file (the
persistent mode of the adapter protocol).
)";

constexpr std::string_view kAdapterOutro =
    "Exit status: 0 for accept and reject alike, 2 for usage errors.\n";

struct AdapterArgs {
  ParseFlags parse;
  std::vector<std::string> files;
  bool persistent = false;
};

// Prints the answer for `path` as one line, flushed.
void answer(const std::string& path, const ParseOptions& options) {
  // Read, not mapped: the tensor bytes are all hashed, and a file truncated
  // meanwhile must give an IO_ERROR reject, not a SIGBUS.
  Result<File> file = File::open(path, options, File::Access::kRead);
  // Streamed: a shape may hold tens of millions of dimensions.
  base::JsonStream json(std::cout);
  json.begin_object();
  if (!file) {
    json.key("verdict").value("reject").key("error").value(file.error().to_string());
  } else {
    json.key("verdict").value("accept").key("error").value(nullptr);
    json.key("tensors").begin_array();
    for (const TensorInfo& tensor : file->header().tensors) {
      json.begin_object().key("name").value(tensor.name);
      json.key("dtype").value(std::string(dtype_name(tensor.dtype)));
      json.key("shape").numbers(tensor.shape);
      json.key("data_offsets").numbers(std::array{tensor.begin, tensor.end});
      json.key("sha256").value(base::sha256_hex(file->tensor_data(tensor))).end_object();
    }
    json.end_array();
  }
  json.end_object().flush();
  std::cout << "\n" << std::flush;
}

int run_adapter(const Command& command, const AdapterArgs& args) {
  const base::Result<ParseOptions> options = to_parse_options(args.parse);
  if (!options) return usage_error(command, options.error().message);
  if (args.persistent) {
    if (!args.files.empty()) return usage_error(command, "--persistent reads its paths on stdin");
    for (std::string path; std::getline(std::cin, path) && std::cout;) answer(path, *options);
    return kExitOk;
  }
  if (args.files.size() != 1) return usage_error(command, "expected one FILE");
  answer(args.files.front(), *options);
  return kExitOk;
}

}  // namespace

void add_adapter_command(CLI::App& root, Commands& commands) {
  Command& command =
      commands.add(root, "adapter", "print stguard's own verdict on a file in the adapter protocol",
                   kAdapterUsage, kAdapterIntro, kAdapterOutro);
  auto args = std::make_shared<AdapterArgs>();
  add_parse_flags(command, args->parse);
  command.app->add_option("FILE", args->files)->check(role(ValueRole::kInputFile));
  command.app
      ->add_flag("--persistent", args->persistent,
                 "answer the paths read on stdin, one per line, each with one line on "
                 "stdout (the adapter protocol's persistent mode)")
      ->disable_flag_override();
  command.positionals = &args->files;
  command.run = [&command, args] { return run_adapter(command, *args); };
}

}  // namespace stguard::cli
