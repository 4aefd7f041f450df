// cli/adapter.cc: `stguard adapter`, stguard itself as a reader under the
// adapter protocol (docs/adapter-protocol.md). The bundled readers
// stguard-strict and stguard-reference (conformance/adapters/) run it, so the
// conformance matrix grades stguard exactly the way it grades every other
// reader: through a separate process and the same JSON.
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

constexpr std::string_view kUsage =
    "stguard adapter [--profile strict|reference] [--max-... N] FILE";

// A static string (Command keeps a view of it): the limit options are
// written once, in output.h.
const std::string kHelp =
    std::string(R"(Reads FILE into memory with stguard (every check of the profile) and prints one
JSON object on stdout, the adapter protocol `stguard conform` grades readers by:
  {"verdict":"accept","error":null,"tensors":[{"name","dtype","shape",
   "data_offsets","sha256"}]}      sha256 of each tensor's bytes, header order
  {"verdict":"reject","error":"REASON at byte OFFSET: MESSAGE"}
A file that cannot be opened or read (it shrank while being read) is a reject
with reason IO_ERROR.

Options:
  --profile strict|reference  as for `stguard check` (default strict)
)") +
    std::string(kLimitOptionsHelp) + R"(  -h, --help                  show this help

Exit status: 0 for accept and reject alike, 2 for usage errors.
)";

struct AdapterArgs {
  ParseFlags parse;
  std::vector<std::string> files;
};

int run_adapter(const Command& command, const AdapterArgs& args) {
  std::string error;
  const std::optional<ParseOptions> options = to_parse_options(args.parse, &error);
  if (!options) return usage_error(command, error);
  if (args.files.size() != 1) return usage_error(command, "expected one FILE");

  nlohmann::ordered_json out;
  // Read, not mapped: the tensor bytes are all hashed, and a file truncated
  // meanwhile must give an IO_ERROR reject, not a SIGBUS.
  Result<File> file = File::open(args.files.front(), *options, File::Access::kRead);
  if (!file) {
    out["verdict"] = "reject";
    out["error"] = file.error().to_string();
  } else {
    out["verdict"] = "accept";
    out["error"] = nullptr;
    nlohmann::ordered_json tensors = nlohmann::ordered_json::array();
    for (const TensorInfo& tensor : file->header().tensors) {
      tensors.push_back({{"name", tensor.name},
                         {"dtype", dtype_name(tensor.dtype)},
                         {"shape", tensor.shape},
                         {"data_offsets", {tensor.begin, tensor.end}},
                         {"sha256", base::sha256_hex(file->tensor_data(tensor))}});
    }
    out["tensors"] = std::move(tensors);
  }
  std::cout << base::json_line(out) << "\n";
  return kExitOk;
}

}  // namespace

void add_adapter_command(CLI::App& root, Commands& commands) {
  Command& command =
      commands.add(root, "adapter", "stguard's verdict in the adapter protocol", kUsage, kHelp);
  auto args = std::make_shared<AdapterArgs>();
  add_parse_flags(*command.app, args->parse);
  command.app->add_option("FILE", args->files);
  command.positionals = &args->files;
  command.run = [&command, args] { return run_adapter(command, *args); };
}

}  // namespace stguard::cli
