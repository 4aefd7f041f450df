// cli/adapter_command.cc: `stguard adapter`, stguard itself as a reader under
// the adapter protocol (DESIGN.md, "Adapter protocol"). The bundled readers
// stguard-strict and stguard-reference (conformance/adapters/) run it, so the
// conformance matrix grades stguard exactly the way it grades every other
// reader: through a separate process and the same JSON.
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "base/sha256.h"
#include "cli_util.h"
#include "commands.h"
#include "stguard/file.h"

namespace stguard::cli {
namespace {

constexpr std::string_view kUsage = "stguard adapter [--profile strict|reference] FILE";

constexpr std::string_view kHelp =
    R"(Reads FILE with stguard (mmap, every check of the profile) and prints one JSON
object on stdout, the adapter protocol `stguard conform` grades readers by:
  {"verdict":"accept","error":null,"tensors":[{"name","dtype","shape",
   "data_offsets","sha256"}]}      sha256 of each tensor's bytes, header order
  {"verdict":"reject","error":"REASON at byte OFFSET: MESSAGE"}
A file that cannot be opened is a reject with reason IO_ERROR.

Options:
  --profile strict|reference  as for `stguard check` (default strict)
  --max-header-bytes N        largest accepted header length N (default 100000000)
  -h, --help                  show this help

Exit status: 0 for accept and reject alike, 2 for usage errors.
)";

}  // namespace

int run_adapter(Args args) {
  std::string error;
  std::optional<CommonOptions> options = parse_common_options(args, &error);
  if (!options) return usage_error("adapter", kUsage, error);
  if (options->help) {
    std::cout << "usage: " << kUsage << "\n\n" << kHelp;
    return kExitOk;
  }
  if (options->json) return usage_error("adapter", kUsage, "--json: the output is always JSON");
  if (options->files.size() != 1) return usage_error("adapter", kUsage, "expected one FILE");

  nlohmann::ordered_json out;
  Result<File> file = File::open(options->files.front(), options->parse);
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
  std::cout << json_line(out) << "\n";
  return kExitOk;
}

}  // namespace stguard::cli
