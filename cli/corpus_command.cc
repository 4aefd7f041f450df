// cli/corpus_command.cc: `stguard corpus build|list|export`, the command-line
// face of the conformance corpus (conformance/generator/). Exit status: 0 on
// success, 1 when the work failed (a malformed recipe, a corpus that differs
// from its recipes, a file that does not match the manifest), 2 for usage
// errors.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "base/sha256.h"
#include "base/text.h"
#include "commands.h"
#include "conformance/generator/corpus.h"
#include "conformance/generator/recipe.h"
#include "conformance/model/manifest.h"

namespace stguard::cli {
namespace {

namespace conf = stguard::conformance;
namespace fs = std::filesystem;

constexpr int kOk = 0;
constexpr int kFailed = 1;
constexpr int kUsage = 2;

constexpr std::string_view kCorpusHelp =
    "usage: stguard corpus <command> [options]\n"
    "\n"
    "The conformance corpus: safetensors files, valid and deliberately broken, with\n"
    "expected verdicts in corpus/manifest.json, generated from the hand-written\n"
    "recipes in conformance/cases/.\n"
    "\n"
    "commands:\n"
    "  build    regenerate corpus/ from the recipes (or check it, or make the\n"
    "           on-demand cases)\n"
    "  list     print the cases\n"
    "  export   copy the case files under y_/n_/i_ names into one directory\n"
    "\n"
    "`stguard corpus <command> --help` describes each.\n";

constexpr std::string_view kBuildHelp =
    "usage: stguard corpus build [--recipes DIR] [--out DIR] [--check] [--huge DIR]\n"
    "\n"
    "Generates every committed case file, manifest.json, on-demand.json and\n"
    "README.md from the recipes, byte for byte reproducibly. Files already\n"
    "identical are not rewritten; stale case files in an existing corpus are\n"
    "removed.\n"
    "\n"
    "  --recipes DIR  the conformance directory (vocabulary.txt, cases/)\n"
    "                 [default: the source tree's conformance/]\n"
    "  --out DIR      where to write [default: the source tree's corpus/]\n"
    "  --check        write nothing; exit 1 if DIR differs from the recipes\n"
    "  --huge DIR     instead, write only the on-demand cases (too large to\n"
    "                 commit, e.g. a 100,000,000-byte header) and their\n"
    "                 manifest.json into DIR\n";

constexpr std::string_view kListHelp =
    "usage: stguard corpus list [--recipes DIR] [--json]\n"
    "\n"
    "Prints every case: id, verdict (accept, reject, or either when the strict\n"
    "and reference profiles differ), the expected reason and the description.\n"
    "Cases generated only on demand are marked.\n"
    "\n"
    "  --recipes DIR  the conformance directory [default: the source tree's]\n"
    "  --json         one JSON object per line: id, file, verdict, strict,\n"
    "                 reference, reason, on_demand, tags, description\n";

constexpr std::string_view kExportHelp =
    "usage: stguard corpus export --flat DIR [--corpus DIR]\n"
    "\n"
    "Copies every case of the corpus into DIR as y_<group>_<name>.safetensors\n"
    "(must be accepted), n_... (must be rejected) or i_... (implementation\n"
    "defined: the strict and reference profiles differ), for test suites that\n"
    "expect that naming. Each file is checked against the manifest's sha256\n"
    "first.\n"
    "\n"
    "  --flat DIR     the output directory (created if needed)\n"
    "  --corpus DIR   the corpus to export [default: the source tree's corpus/]\n";

// Options of the form `--name VALUE` or `--flag`, nothing positional.
struct Parsed {
  enum class Status { kRun, kHelpShown, kUsageError };
  Status status = Status::kRun;
  std::map<std::string, std::string, std::less<>> values;
  std::set<std::string, std::less<>> flags;
};

Parsed parse_options(Args args, const std::set<std::string_view>& with_value,
                     const std::set<std::string_view>& flags, std::string_view help) {
  Parsed p;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string_view a = args[i];
    if (a == "--help" || a == "-h") {
      std::cout << help;
      p.status = Parsed::Status::kHelpShown;
      return p;
    }
    if (with_value.count(a)) {
      if (i + 1 >= args.size()) {
        std::cerr << "stguard corpus: " << a << " needs a value\n" << help;
        p.status = Parsed::Status::kUsageError;
        return p;
      }
      p.values[std::string(a)] = std::string(args[++i]);
    } else if (flags.count(a)) {
      p.flags.insert(std::string(a));
    } else {
      std::cerr << "stguard corpus: unexpected argument `" << a << "`\n" << help;
      p.status = Parsed::Status::kUsageError;
      return p;
    }
  }
  return p;
}

fs::path value_or(const Parsed& p, std::string_view key, const fs::path& fallback) {
  auto it = p.values.find(key);
  return it == p.values.end() ? fallback : fs::path(it->second);
}

// The defaults of --recipes and --out/--corpus (cli/CMakeLists.txt).
const fs::path kRecipesDir = STGUARD_RECIPES_DIR;
const fs::path kCorpusDir = STGUARD_CORPUS_DIR;

std::string summary(const conf::Corpus& corpus) {
  int accept = 0, reject = 0, either = 0;
  for (const conf::BuiltCase& c : corpus.cases) {
    const conf::Verdict v = c.entry.verdict;
    (v == conf::Verdict::kAccept ? accept : v == conf::Verdict::kReject ? reject : either)++;
  }
  return std::to_string(corpus.cases.size()) + " cases (" + std::to_string(accept) + " accept, " +
         std::to_string(reject) + " reject, " + std::to_string(either) + " either), " +
         std::to_string(corpus.on_demand.size()) + " on demand";
}

// Compares what the recipes produce with a corpus directory; prints every
// difference. True when identical.
bool check_corpus(const conf::RecipeSet& set, const conf::Corpus& corpus, const fs::path& dir) {
  // Build into a scratch directory with the same writer, then compare trees,
  // so --check and build can never disagree about what "identical" means.
  std::error_code ec;
  const fs::path scratch =
      fs::temp_directory_path(ec) / ("stguard-corpus-check-" + std::to_string(::getpid()));
  fs::remove_all(scratch, ec);
  conf::write_corpus(set, corpus, scratch);
  bool same = true;
  std::set<std::string> expected_files;
  for (const auto& entry : fs::recursive_directory_iterator(scratch)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = fs::relative(entry.path(), scratch).generic_string();
    expected_files.insert(rel);
    const fs::path committed = dir / rel;
    if (!fs::is_regular_file(committed, ec)) {
      std::cout << "missing: " << rel << "\n";
      same = false;
    } else if (base::read_file(committed, nullptr) != base::read_file(entry.path(), nullptr)) {
      std::cout << "differs: " << rel << "\n";
      same = false;
    }
  }
  if (fs::is_directory(dir, ec)) {
    for (const auto& entry : fs::recursive_directory_iterator(dir)) {
      if (!entry.is_regular_file() || entry.path().extension() != ".safetensors") continue;
      const std::string rel = fs::relative(entry.path(), dir).generic_string();
      if (!expected_files.count(rel)) {
        std::cout << "stale: " << rel << "\n";
        same = false;
      }
    }
  }
  fs::remove_all(scratch, ec);
  return same;
}

int run_build(Args args) {
  const auto parsed =
      parse_options(args, {"--recipes", "--out", "--huge"}, {"--check"}, kBuildHelp);
  if (parsed.status == Parsed::Status::kHelpShown) return kOk;
  if (parsed.status == Parsed::Status::kUsageError) return kUsage;
  const bool huge = parsed.values.count("--huge") != 0;
  if (huge && (parsed.flags.count("--check") || parsed.values.count("--out"))) {
    std::cerr << "stguard corpus build: --huge DIR writes only the on-demand cases; it does not "
                 "combine with --out or --check\n";
    return kUsage;
  }
  const fs::path recipes = value_or(parsed, "--recipes", kRecipesDir);
  const conf::RecipeSet set = conf::load_recipes(recipes);
  const conf::Corpus corpus = conf::build_corpus(set, huge);
  if (huge) {
    const fs::path dir = parsed.values.at("--huge");
    const conf::WriteReport report = conf::write_on_demand(corpus, dir);
    std::cout << "on-demand corpus: " << corpus.on_demand.size() << " cases, "
              << report.written.size() << " files written, " << report.unchanged.size()
              << " unchanged -> " << dir.string() << "\n";
    return kOk;
  }
  const fs::path out = value_or(parsed, "--out", kCorpusDir);
  if (parsed.flags.count("--check")) {
    if (check_corpus(set, corpus, out)) {
      std::cout << "corpus up to date: " << summary(corpus) << " (" << out.string() << ")\n";
      return kOk;
    }
    std::cout << "corpus differs from the recipes; run `stguard corpus build`\n";
    return kFailed;
  }
  const conf::WriteReport report = conf::write_corpus(set, corpus, out);
  for (const std::string& f : report.written) std::cout << "wrote " << f << "\n";
  for (const std::string& f : report.removed) std::cout << "removed stale " << f << "\n";
  std::cout << "corpus: " << summary(corpus) << "; " << report.written.size() << " written, "
            << report.unchanged.size() << " unchanged, " << report.removed.size() << " removed -> "
            << out.string() << "\n";
  return kOk;
}

int run_list(Args args) {
  const auto parsed = parse_options(args, {"--recipes"}, {"--json"}, kListHelp);
  if (parsed.status == Parsed::Status::kHelpShown) return kOk;
  if (parsed.status == Parsed::Status::kUsageError) return kUsage;
  const conf::RecipeSet set = conf::load_recipes(value_or(parsed, "--recipes", kRecipesDir));
  const bool json = parsed.flags.count("--json") != 0;
  std::size_t width = 0;
  for (const conf::Recipe* r : set.all()) width = std::max(width, r->id.size());
  for (const conf::Recipe* r : set.all()) {
    const std::string reason = r->manifest_reason();
    if (json) {
      nlohmann::ordered_json j;
      j["id"] = r->id;
      j["file"] = r->group + "/" + r->name + ".safetensors";
      j["verdict"] = conf::verdict_name(r->verdict());
      j["strict"] = conf::verdict_name(r->strict.verdict());
      j["reference"] = conf::verdict_name(r->reference.verdict());
      j["reason"] =
          reason.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(reason);
      j["on_demand"] = r->on_demand();
      j["tags"] = r->tags;
      j["description"] = r->description;
      std::cout << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    } else {
      std::string line = r->id;
      line.append(width + 2 - r->id.size(), ' ');
      std::string verdict(conf::verdict_name(r->verdict()));
      verdict.append(8 - verdict.size(), ' ');
      std::string why = reason.empty() ? "-" : reason;
      if (why.size() < 27) why.append(27 - why.size(), ' ');
      std::cout << line << verdict << why << " " << r->description
                << (r->on_demand() ? " [on demand: corpus build --huge DIR]" : "") << "\n";
    }
  }
  return kOk;
}

int run_export(Args args) {
  const auto parsed = parse_options(args, {"--flat", "--corpus"}, {}, kExportHelp);
  if (parsed.status == Parsed::Status::kHelpShown) return kOk;
  if (parsed.status == Parsed::Status::kUsageError) return kUsage;
  if (!parsed.values.count("--flat")) {
    std::cerr << "stguard corpus export: --flat DIR is required\n" << kExportHelp;
    return kUsage;
  }
  const fs::path corpus = value_or(parsed, "--corpus", kCorpusDir);
  const fs::path out = parsed.values.at("--flat");
  conf::ManifestError manifest_error;
  const std::optional<conf::Manifest> manifest =
      conf::read_manifest(corpus / "manifest.json", &manifest_error);
  if (!manifest) {
    std::cerr << "stguard corpus export: " << base::terminal_safe(manifest_error.message()) << "\n";
    return kFailed;
  }
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) {
    std::cerr << "stguard corpus export: " << out.string() << ": " << ec.message() << "\n";
    return kFailed;
  }
  int written = 0;
  for (const conf::Case& c : manifest->cases) {
    std::string error;
    const std::optional<std::string> bytes = base::read_file(corpus / c.file, &error);
    if (!bytes) {
      std::cerr << "stguard corpus export: " << base::terminal_safe(error) << "\n";
      return kFailed;
    }
    if (base::sha256_hex(*bytes) != c.sha256) {
      std::cerr << "stguard corpus export: " << base::terminal_safe(c.id)
                << ": file does not match the manifest's sha256 (run `stguard corpus build`)\n";
      return kFailed;
    }
    const char prefix = c.verdict == conf::Verdict::kAccept   ? 'y'
                        : c.verdict == conf::Verdict::kReject ? 'n'
                                                              : 'i';
    std::string flat = c.id;
    std::replace(flat.begin(), flat.end(), '/', '_');
    const fs::path target = out / (std::string(1, prefix) + "_" + flat + ".safetensors");
    if (!base::write_file(target, *bytes, &error)) {
      std::cerr << "stguard corpus export: " << base::terminal_safe(error) << "\n";
      return kFailed;
    }
    ++written;
  }
  std::cout << "exported " << written << " cases -> " << out.string() << "\n";
  return kOk;
}

}  // namespace

int run_corpus(Args args) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    std::cout << kCorpusHelp;
    return args.empty() ? kUsage : kOk;
  }
  const std::string_view command = args[0];
  const Args rest = args.subspan(1);
  try {
    if (command == "build") return run_build(rest);
    if (command == "list") return run_list(rest);
    if (command == "export") return run_export(rest);
  } catch (const conf::RecipeError& e) {
    std::cerr << "stguard corpus " << command << ": " << e.what() << "\n";
    return kFailed;
  } catch (const nlohmann::json::exception& e) {
    std::cerr << "stguard corpus " << command << ": manifest: " << e.what() << "\n";
    return kFailed;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "stguard corpus " << command << ": " << e.what() << "\n";
    return kFailed;
  }
  std::cerr << "stguard corpus: unknown command `" << command << "`\n" << kCorpusHelp;
  return kUsage;
}

}  // namespace stguard::cli
