// cli/write.cc: `stguard write SPEC.json OUT.safetensors`, stguard's canonical
// writer driven by a writer spec (conformance/writers/spec.h): test fixtures,
// reproducing a bug report, and the first writer `stguard conform --writer`
// grades (conformance/writers/stguard-write/).
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "base/json.h"
#include "base/output.h"
#include "base/text.h"
#include "command.h"
#include "conformance/writers/spec.h"
#include "stguard/error.h"

namespace stguard::cli {
namespace {

constexpr std::string_view kWriteUsage = "stguard write [--protocol] SPEC.json OUT.safetensors";

constexpr std::string_view kWriteIntro =
    R"(Writes the safetensors file a JSON spec describes, canonically: tensors in
the upstream writer's order, contiguous data, compact JSON, the header padded
with spaces to a multiple of 8, "__metadata__" first with its keys sorted. The
spec (docs/writer-protocol.md):

  {"tensors": [{"name": "w", "dtype": "F32", "shape": [2],
                "data_hex": "0000803f00000040"}],    (or "data_base64")
   "metadata": {"format": "pt"}}                    (optional)

What the strict profile would reject is refused, and nothing is written: two
tensors of one name (DUPLICATE_KEY), a tensor named "__metadata__" or a name or
key holding U+0000 (NAME_INVALID), an unknown dtype (DTYPE_INVALID), data whose
size does not match dtype and shape (SIZE_MISMATCH), sub-byte elements that are
not whole bytes (SUBBYTE_MISALIGNED), a metadata value that is not a string or
holds U+0000 (METADATA_INVALID), sizes past 64 bits (SIZE_OVERFLOW).

OUT is written through a temporary file in its directory and renamed into
place once complete: it is never left half written (not even when the command
is stopped by a signal), and an existing OUT stays as it was when the spec is
refused. A replaced OUT keeps its permissions; a symbolic link is written
through; a device or FIFO (/dev/stdout) is written in place. New files get
permissions 0644 (less what the umask removes).
)";

constexpr std::string_view kWriteOutro =
    R"(Exit status: 0 written, 1 refused (with the reason on stderr), 2 usage error,
or a spec or output that cannot be read or written.
)";

struct WriteArgs {
  std::vector<std::string> files;
  bool protocol = false;
};

int run_write(const Command& command, const WriteArgs& args) {
  if (args.files.size() != 2) {
    return usage_error(command, "needs SPEC.json and OUT.safetensors");
  }
  const std::string& spec_path = args.files[0];
  const std::string& out_path = args.files[1];
  const base::Result<std::string> text = base::read_file(spec_path);
  if (!text) {
    std::cerr << "stguard write: " << base::terminal_safe(text.error().message) << "\n";
    return kExitUsage;
  }
  const base::Result<conformance::WriterSpec> spec = conformance::parse_writer_spec(*text);
  if (!spec) {
    std::cerr << "stguard write: " << base::terminal_safe(spec_path)
              << ": not a writer spec: " << base::terminal_safe(spec.error().message) << "\n";
    return kExitUsage;
  }
  const Result<std::vector<std::uint8_t>> file = conformance::write_spec(*spec);
  if (!file) {
    if (args.protocol) {
      nlohmann::ordered_json answer;
      answer["outcome"] = "refused";
      answer["reason"] = reason_name(file.error().reason);
      answer["error"] = file.error().message;
      std::cout << base::json_line(answer) << "\n";
      return kExitOk;
    }
    std::cerr << "stguard write: refused: " << reason_name(file.error().reason) << ": "
              << base::terminal_safe(file.error().message) << "\n";
    return kExitFailed;
  }
  const std::string_view bytes(reinterpret_cast<const char*>(file->data()), file->size());
  if (const base::Result<void> wrote = base::write_file(out_path, bytes, 0644); !wrote) {
    std::cerr << "stguard write: " << base::terminal_safe(wrote.error().message) << "\n";
    return kExitUsage;
  }
  if (args.protocol) std::cout << "{\"outcome\":\"written\"}\n";
  return kExitOk;
}

}  // namespace

void add_write_command(CLI::App& root, Commands& commands) {
  Command& command = commands.add(root, "write",
                                  "write a safetensors file from a JSON spec (canonical; refuses "
                                  "what the format forbids)",
                                  kWriteUsage, kWriteIntro, kWriteOutro);
  auto args = std::make_shared<WriteArgs>();
  // SPEC is read, OUT written.
  command.app->add_option("FILE", args->files)
      ->check(roles({ValueRole::kInputFile, ValueRole::kOutputFile}));
  command.app
      ->add_flag("--protocol", args->protocol,
                 "answer as a writer adapter (docs/writer-protocol.md): one JSON "
                 "line on stdout, {\"outcome\":\"written\"} or {\"outcome\":\"refused\", "
                 "\"reason\":\"...\",\"error\":\"...\"}, and exit 0 either way")
      ->disable_flag_override();
  command.positionals = &args->files;
  command.run = [&command, args] { return run_write(command, *args); };
}

}  // namespace stguard::cli
