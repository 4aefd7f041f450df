// cli/corpus.cc: `stguard corpus build|list|export`, the command-line face of
// the conformance corpus (conformance/generator/, conformance/model/).
//
// `build` writes into the stguard checkout it is run in (or --recipes/--out);
// `list` and `export` read the data directory (cli/data_dir.h). Exit status:
// 0 on success, 1 when the work failed (a malformed recipe, a corpus that
// differs from its recipes, a file that does not match the manifest), 2 for
// usage errors, data that cannot be found, read or written, and an output
// folder that is not the command's own.
#include "conformance/generator/corpus.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/file_io.h"
#include "base/json.h"
#include "base/output.h"
#include "base/owned_dir.h"
#include "base/sha256.h"
#include "base/text.h"
#include "command.h"
#include "conformance/generator/recipe.h"
#include "conformance/generator/rule_coverage.h"
#include "conformance/model/manifest.h"
#include "conformance/writers/cases.h"
#include "data_dir.h"
#include "tarball.h"

namespace stguard::cli {
namespace {

namespace conf = stguard::conformance;
namespace fs = std::filesystem;

constexpr std::string_view kCorpusUsage = "stguard corpus build|list|export [options]";
constexpr std::string_view kCorpusIntro =
    R"(The conformance corpus: safetensors files, valid and deliberately broken, with
expected verdicts in corpus/manifest.json, generated from the hand-written
recipes in conformance/cases/.
)";
constexpr std::string_view kCorpusOutro = "`stguard corpus <command> --help` describes each.\n";

constexpr std::string_view kBuildUsage =
    "stguard corpus build [--recipes DIR] [--out DIR] [--check] [--bump-version] [--huge DIR]";
constexpr std::string_view kBuildIntro =
    R"(Generates every committed case file, manifest.json, on-demand.json and
README.md from the recipes, byte for byte reproducibly. Files already
identical are not rewritten. The output folder must be new, empty, or a
corpus an earlier build made (it holds .stguard-owned.json, the list of the
files it made): a file an earlier build made that no recipe produces now is
removed while it still holds what was written; nothing else is ever touched.
Without --recipes and --out it works on the stguard checkout that holds the
current directory, never on an installed copy. The manifest carries the
corpus version recorded in conformance/corpus-version.txt with a fingerprint
of every case; when a case, its bytes or its verdict changed, the build fails
until --bump-version records the next version.
)";

constexpr std::string_view kListUsage = "stguard corpus list [--recipes DIR] [--rules] [--json]";
constexpr std::string_view kListIntro =
    R"(Prints every case: id, verdict (accept, reject, or either when the strict
and reference profiles differ), the expected reason and the description.
Cases generated only on demand are marked. With --rules, prints instead each
rule of docs/spec.md with the number of cases that test it, and exits 1 when
a rule lacks a case a reader breaking only that rule would fail.
)";

constexpr std::string_view kExportUsage =
    "stguard corpus export --flat DIR | --tarball DIR [--corpus DIR]";
constexpr std::string_view kExportIntro =
    R"(With --flat, copies every case of the corpus into DIR as
y_<group>_<name>.safetensors (must be accepted), n_... (must be rejected) or
i_... (implementation defined: the strict and reference profiles differ), for
test suites that expect that naming. With --tarball, writes the corpus
release, DIR/stguard-corpus-VERSION.tar.gz (VERSION: the manifest's
corpus_version), reproducibly. Each file is checked against the manifest's
sha256 first.
)";

struct CorpusArgs {
  std::optional<std::string> data_dir;
  std::optional<std::string> recipes;
  std::optional<std::string> out;
  std::optional<std::string> huge;
  std::optional<std::string> corpus;
  std::optional<std::string> flat;
  std::optional<std::string> tarball;
  bool check = false;
  bool bump_version = false;
  bool json = false;
  bool rules = false;
};

// The recipes directory: --recipes, else the data directory's.
base::Result<fs::path> recipes_dir(const CorpusArgs& args) {
  if (args.recipes) return fs::path(*args.recipes);
  const base::Result<DataDir> data = find_data_dir(args.data_dir);
  if (!data) return data.error();
  return data->recipes();
}

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

// "stguard corpus build: WHY" on stderr. A file that could not be read or
// written, or a folder that is not the command's, is the work not done
// (exit 2); recipes that were read and found wrong, the work failing (1).
int failed(const Command& command, const base::Failure& failure, int exit_code) {
  std::cerr << "stguard " << command.path << ": " << base::terminal_safe(failure.message) << "\n";
  return exit_code;
}
int recipes_failed(const Command& command, const base::Failure& failure) {
  return failed(command, failure, failure.io ? kExitUsage : kExitFailed);
}
int not_done(const Command& command, const base::Failure& failure) {
  return failed(command, failure, kExitUsage);
}

int run_build(const Command& command, const CorpusArgs& args) {
  if (args.huge && (args.check || args.out || args.bump_version)) {
    return usage_error(command,
                       "--huge DIR writes only the on-demand cases; it does not combine with "
                       "--out, --check or --bump-version");
  }
  if (args.check && args.bump_version) {
    return usage_error(command, "--check writes nothing; it does not combine with --bump-version");
  }
  // The checkout the command runs in, for the defaults of --recipes and --out.
  std::error_code ec;
  const std::optional<fs::path> checkout = find_checkout(fs::current_path(ec));
  std::optional<fs::path> recipes;
  std::string why_none =
      "not inside a stguard checkout (no conformance/vocabulary.txt above the current "
      "directory): give --recipes DIR and --out DIR";
  if (args.recipes) {
    recipes = *args.recipes;
  } else if (checkout) {
    recipes = *checkout / "conformance";
  } else if (args.huge) {
    const base::Result<fs::path> found = recipes_dir(args);
    if (found) recipes = *found;
    if (!found) why_none = found.error().message;
  }
  if (!recipes) return usage_error(command, why_none);
  base::Result<conf::RecipeSet> set = conf::load_recipes(*recipes);
  if (!set) return recipes_failed(command, set.error());
  const base::Result<conf::Corpus> corpus = conf::build_corpus(*set, args.huge.has_value());
  if (!corpus) return recipes_failed(command, corpus.error());
  if (args.bump_version) {
    const base::Result<std::string> version = conf::bump_corpus_version(*set, *corpus);
    if (!version) return not_done(command, version.error());
    if (!set->corpus_version || set->corpus_version->version != *version) {
      std::cout << "corpus version " << *version << " recorded in "
                << base::terminal_safe((*recipes / conf::kCorpusVersionFile).string()) << "\n";
    }
    set->corpus_version = conf::CorpusVersion{*version, corpus->fingerprint};
  }
  if (args.huge) {
    const fs::path dir = *args.huge;
    const base::Result<conf::WriteReport> report = conf::write_on_demand(*set, *corpus, dir);
    if (!report) return not_done(command, report.error());
    std::cout << "on-demand corpus: " << corpus->on_demand.size() << " cases, "
              << report->written.size() << " files written, " << report->unchanged.size()
              << " unchanged -> " << base::terminal_safe(dir.string()) << "\n";
    return kExitOk;
  }
  if (!args.out && !checkout) {
    return usage_error(command, "not inside a stguard checkout: give --out DIR");
  }
  const fs::path out = args.out ? fs::path(*args.out) : *checkout / "corpus";
  if (args.check) {
    const base::Result<std::vector<conf::CorpusDifference>> differences =
        conf::compare_corpus(*set, *corpus, out);
    if (!differences) return not_done(command, differences.error());
    if (differences->empty()) {
      std::cout << "corpus up to date: " << summary(*corpus) << " (" << out.string() << ")\n";
      return kExitOk;
    }
    for (const conf::CorpusDifference& d : *differences) {
      std::cout << (d.kind == conf::CorpusDifference::Kind::kMissing   ? "missing: "
                    : d.kind == conf::CorpusDifference::Kind::kDiffers ? "differs: "
                                                                       : "stale: ")
                << d.file << "\n";
    }
    std::cout << "corpus differs from the recipes; run `stguard corpus build`\n";
    return kExitFailed;
  }
  const base::Result<conf::WriteReport> report = conf::write_corpus(*set, *corpus, out);
  if (!report) return not_done(command, report.error());
  for (const std::string& f : report->written) std::cout << "wrote " << f << "\n";
  for (const std::string& f : report->removed) {
    std::cout << "removed stale " << base::terminal_safe(f) << "\n";
  }
  for (const std::string& f : report->kept_changed) {
    std::cout << "kept " << base::terminal_safe(f)
              << ": an earlier build made it, but it changed since (not deleted)\n";
  }
  std::cout << "corpus: " << summary(*corpus) << "; " << report->written.size() << " written, "
            << report->unchanged.size() << " unchanged, " << report->removed.size()
            << " removed -> " << base::terminal_safe(out.string()) << "\n";
  return kExitOk;
}

// `corpus list --rules`: docs/spec.md's rules with the cases that test them.
// Exit 1 when a rule is not covered (rule_coverage.h).
int list_rules(const conf::RecipeSet& set, bool json) {
  bool covered = true;
  for (const conf::RuleCoverage& row : conf::rule_coverage(set)) {
    covered = covered && row.gap.empty();
    if (json) {
      nlohmann::ordered_json j;
      j["rule"] = row.rule->id;
      j["enforcement"] = conf::rule_enforcement_name(row.rule->enforcement);
      j["reasons"] = row.rule->reasons;
      j["accept"] = row.accepted;
      j["reject"] = row.rejected;
      j["either"] = row.contested;
      j["only_fault"] = row.only_fault;
      j["gap"] =
          row.gap.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(row.gap);
      j["summary"] = row.rule->summary;
      std::cout << base::json_line(j) << "\n";
      continue;
    }
    char counts[96];
    std::snprintf(counts, sizeof counts, "%-11s %-11s %4d accept %4d reject %4d either  ",
                  row.rule->id.c_str(),
                  std::string(conf::rule_enforcement_name(row.rule->enforcement)).c_str(),
                  row.accepted, row.rejected, row.contested);
    std::cout << counts << (row.gap.empty() ? row.rule->summary : "NOT COVERED: " + row.gap)
              << "\n";
  }
  return covered ? kExitOk : kExitFailed;
}

int run_list(const Command& command, const CorpusArgs& args) {
  const base::Result<fs::path> recipes = recipes_dir(args);
  if (!recipes) return usage_error(command, recipes.error().message);
  const base::Result<conf::RecipeSet> set = conf::load_recipes(*recipes);
  if (!set) return recipes_failed(command, set.error());
  if (args.rules) return list_rules(*set, args.json);
  std::size_t width = 0;
  for (const conf::Recipe* r : set->all()) width = std::max(width, r->id.size());
  for (const conf::Recipe* r : set->all()) {
    const std::string reason = r->manifest_reason();
    if (args.json) {
      nlohmann::ordered_json j;
      j["id"] = r->id;
      j["file"] = r->group + "/" + r->name + ".safetensors";
      j["verdict"] = conf::verdict_name(r->verdict());
      j["strict"] = conf::verdict_name(r->strict.verdict());
      j["reference"] = conf::verdict_name(r->reference.verdict());
      j["reason"] =
          reason.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(reason);
      j["rules"] = r->rules;
      j["since"] = r->since ? nlohmann::ordered_json(*r->since) : nlohmann::ordered_json(nullptr);
      j["on_demand"] = r->on_demand();
      j["tags"] = r->tags;
      j["description"] = r->description;
      std::cout << base::json_line(j) << "\n";
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
  return kExitOk;
}

// The corpus release: DIR/stguard-corpus-VERSION.tar.gz holding, under
// stguard-corpus-VERSION/, every case file, both manifests, the README, the
// writer cases, docs/spec.md, the licence and SHA256SUMS of them all.
int export_tarball(const Command& command, const CorpusArgs& args, const fs::path& corpus,
                   const conf::Manifest& manifest) {
  if (manifest.corpus_version.empty()) {
    return usage_error(command, (corpus / "manifest.json").string() +
                                    " names no corpus_version (built before corpus versions, "
                                    "or from a scratch recipe folder)");
  }
  const base::Result<DataDir> data = find_data_dir(args.data_dir);
  if (!data) return usage_error(command, data.error().message);
  const std::string top = "stguard-corpus-" + manifest.corpus_version;
  std::vector<std::pair<std::string, fs::path>> sources;  // archive path, file
  for (const conf::Case& c : manifest.cases) sources.emplace_back(c.file, corpus / c.file);
  for (const char* name : {"manifest.json", "on-demand.json", "README.md"}) {
    sources.emplace_back(name, corpus / name);
  }
  std::error_code ec;
  std::vector<std::string> writer_files;
  for (const auto& entry : fs::directory_iterator(corpus / conf::kWriterGroup, ec)) {
    if (entry.path().extension() == ".json") {
      writer_files.push_back(std::string(conf::kWriterGroup) + "/" +
                             entry.path().filename().string());
    }
  }
  if (ec) return not_done(command, base::Failure{"cannot list the writer cases: " + ec.message()});
  std::sort(writer_files.begin(), writer_files.end());
  for (const std::string& name : writer_files) sources.emplace_back(name, corpus / name);
  sources.emplace_back("spec.md", data->root / "docs" / "spec.md");
  sources.emplace_back("LICENSE", data->root / "LICENSE");

  std::vector<TarFile> files;
  std::string sums;
  for (const auto& [name, path] : sources) {
    base::Result<std::string> bytes = base::read_file(path);
    if (!bytes) return not_done(command, bytes.error());
    sums += base::sha256_hex(*bytes) + "  " + name + "\n";
    files.push_back({top + "/" + name, std::move(*bytes)});
  }
  for (const conf::Case& c : manifest.cases) {
    const auto it = std::find_if(files.begin(), files.end(),
                                 [&](const TarFile& f) { return f.path == top + "/" + c.file; });
    if (base::sha256_hex(it->bytes) != c.sha256) {
      std::cerr << "stguard corpus export: " << base::terminal_safe(c.id)
                << ": file does not match the manifest's sha256 (run `stguard corpus build`)\n";
      return kExitFailed;
    }
  }
  files.push_back({top + "/SHA256SUMS", sums});
  const base::Result<std::string> archive = tar_gz(files);
  if (!archive) return not_done(command, archive.error());
  const fs::path out = fs::path(*args.tarball) / (top + ".tar.gz");
  if (const base::Result<void> wrote = base::write_file(out, *archive); !wrote) {
    return not_done(command, wrote.error());
  }
  std::cout << "exported corpus " << manifest.corpus_version << " (" << manifest.cases.size()
            << " cases, " << files.size() << " files, " << archive->size() << " bytes) -> "
            << base::terminal_safe(out.string()) << "\n";
  return kExitOk;
}

int run_export(const Command& command, const CorpusArgs& args) {
  if (args.flat.has_value() == args.tarball.has_value()) {
    return usage_error(command, "give one of --flat DIR and --tarball DIR");
  }
  fs::path corpus;
  if (args.corpus) {
    corpus = *args.corpus;
  } else if (const base::Result<DataDir> data = find_data_dir(args.data_dir)) {
    corpus = data->corpus();
  } else {
    return usage_error(command, data.error().message);
  }
  const conf::ManifestResult<conf::Manifest> manifest =
      conf::read_manifest(corpus / "manifest.json");
  if (!manifest) return not_done(command, manifest.error().failure());
  if (args.tarball) return export_tarball(command, args, corpus, *manifest);
  const fs::path out = *args.flat;
  base::Result<base::OwnedDir> dir = base::OwnedDir::claim(out, "corpus export");
  if (!dir) return not_done(command, dir.error());
  std::set<std::string> exported;
  for (const conf::Case& c : manifest->cases) {
    const base::Result<std::string> bytes = base::read_file(corpus / c.file);
    if (!bytes) return not_done(command, bytes.error());
    if (base::sha256_hex(*bytes) != c.sha256) {
      std::cerr << "stguard corpus export: " << base::terminal_safe(c.id)
                << ": file does not match the manifest's sha256 (run `stguard corpus build`)\n";
      return kExitFailed;
    }
    const char prefix = c.verdict == conf::Verdict::kAccept   ? 'y'
                        : c.verdict == conf::Verdict::kReject ? 'n'
                                                              : 'i';
    std::string flat = c.id;
    std::replace(flat.begin(), flat.end(), '/', '_');
    const std::string name = std::string(1, prefix) + "_" + flat + ".safetensors";
    if (const auto wrote = dir->write(name, *bytes); !wrote)
      return not_done(command, wrote.error());
    exported.insert(name);
  }
  // Files of an earlier export that name cases no longer in the corpus.
  const base::Result<base::OwnedDir::Stale> stale = dir->remove_stale(exported);
  if (!stale) return not_done(command, stale.error());
  for (const std::string& f : stale->removed) {
    std::cout << "removed stale " << base::terminal_safe(f) << "\n";
  }
  for (const std::string& f : stale->kept_changed) {
    std::cout << "kept " << base::terminal_safe(f)
              << ": an earlier export made it, but it changed since (not deleted)\n";
  }
  std::cout << "exported " << exported.size() << " cases -> " << base::terminal_safe(out.string())
            << "\n";
  return kExitOk;
}

}  // namespace

void add_corpus_command(CLI::App& root, Commands& commands) {
  Command& corpus = commands.add(root, "corpus", "build, list or export the conformance corpus",
                                 kCorpusUsage, kCorpusIntro, kCorpusOutro);
  auto args = std::make_shared<CorpusArgs>();

  Command& build = commands.add(*corpus.app, "build",
                                "regenerate corpus/ from the recipes (or check it, or make the "
                                "on-demand cases)",
                                kBuildUsage, kBuildIntro);
  build.app
      ->add_option("--recipes", args->recipes,
                   "the conformance directory (vocabulary.txt, cases/) "
                   "[default: the checkout's conformance/; for --huge, also the "
                   "data directory's]")
      ->option_text("DIR")
      ->check(role(ValueRole::kInputDir));
  build.app->add_option("--out", args->out, "where to write [default: the checkout's corpus/]")
      ->option_text("DIR")
      ->check(role(ValueRole::kOutputDir));
  build.app
      ->add_flag("--check", args->check, "write nothing; exit 1 if DIR differs from the recipes")
      ->disable_flag_override();
  build.app
      ->add_flag("--bump-version", args->bump_version,
                 "when the corpus changed since the version recorded in "
                 "conformance/corpus-version.txt, record the next version first (a build "
                 "of a changed corpus fails without it)")
      ->disable_flag_override();
  build.app
      ->add_option("--huge", args->huge,
                   "instead, write only the on-demand cases (too large to "
                   "commit, e.g. a 100,000,000-byte header) and their "
                   "manifest.json into DIR (new, empty, or an earlier --huge's)")
      ->option_text("DIR")
      ->check(role(ValueRole::kOutputDir));
  add_data_dir_option(*build.app, args->data_dir);
  build.run = [&build, args] { return run_build(build, *args); };

  Command& list = commands.add(*corpus.app, "list", "print the cases", kListUsage, kListIntro);
  list.app
      ->add_option("--recipes", args->recipes,
                   "the conformance directory [default: the data directory's]")
      ->option_text("DIR")
      ->check(role(ValueRole::kInputDir));
  list.app
      ->add_flag("--json", args->json,
                 "one JSON object per line: id, file, verdict, strict, "
                 "reference, reason, rules, since, on_demand, tags, description (with "
                 "--rules: rule, enforcement, reasons, accept, reject, either, only_fault, "
                 "gap, summary)")
      ->disable_flag_override();
  list.app
      ->add_flag("--rules", args->rules,
                 "list docs/spec.md's rules with their case counts instead; exit 1 when a "
                 "rule is not covered")
      ->disable_flag_override();
  add_data_dir_option(*list.app, args->data_dir);
  list.run = [&list, args] { return run_list(list, *args); };

  Command& exported = commands.add(*corpus.app, "export",
                                   "copy the case files under y_/n_/i_ names into one directory, "
                                   "or write the corpus release as a tarball",
                                   kExportUsage, kExportIntro);
  exported.app
      ->add_option("--flat", args->flat,
                   "the output directory: new, empty, or made by an earlier "
                   "export (files of cases no longer in the corpus are removed "
                   "from it; nothing else is ever touched)")
      ->option_text("DIR")
      ->check(role(ValueRole::kOutputDir));
  exported.app
      ->add_option("--tarball", args->tarball,
                   "instead, write DIR/stguard-corpus-VERSION.tar.gz (an existing folder): the "
                   "case files, manifests, README, writer cases, docs/spec.md, the licence and "
                   "SHA256SUMS, under stguard-corpus-VERSION/, the same bytes every time")
      ->option_text("DIR")
      ->check(role(ValueRole::kOutputDir));
  exported.app
      ->add_option("--corpus", args->corpus, "the corpus to export [default: the data directory's]")
      ->option_text("DIR")
      ->check(role(ValueRole::kInputDir));
  add_data_dir_option(*exported.app, args->data_dir);
  exported.run = [&exported, args] { return run_export(exported, *args); };
}

}  // namespace stguard::cli
