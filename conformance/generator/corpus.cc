// conformance/generator/corpus.cc: recipes -> case bytes, manifest entries
// and the corpus directory (corpus.h).
#include "conformance/generator/corpus.h"

#include <stdlib.h>

#include <algorithm>
#include <array>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <string_view>

#include "base/file_io.h"
#include "base/output.h"
#include "base/owned_dir.h"
#include "base/sha256.h"
#include "conformance/generator/bytes.h"
#include "conformance/generator/readme.h"
#include "conformance/generator/recipe_error.h"
#include "conformance/model/manifest.h"
#include "conformance/writers/cases.h"

namespace stguard::conformance {
namespace {

// The format's dtype table, kept here independently of stguard::parser so
// that the generator's self-check is not the parser checking itself.
struct DtypeRow {
  std::string_view name;
  unsigned bits;
};
constexpr std::array<DtypeRow, 22> kDtypes = {{
    {"BOOL", 8},        {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},
    {"I8", 8},          {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8},
    {"F8_E5M2FNUZ", 8}, {"I16", 16},    {"U16", 16},    {"F16", 16},    {"BF16", 16},
    {"I32", 32},        {"U32", 32},    {"F32", 32},    {"C64", 64},    {"F64", 64},
    {"I64", 64},        {"U64", 64},
}};

std::optional<unsigned> dtype_bits_of(std::string_view name) {
  for (const DtypeRow& row : kDtypes) {
    if (row.name == name) return row.bits;
  }
  return std::nullopt;
}

std::string decode_string_literal(const std::string& literal, const SourceLine& at) {
  try {
    nlohmann::json j = nlohmann::json::parse(literal);
    if (!j.is_string()) fail(at, "not a JSON string: " + literal);
    return j.get<std::string>();
  } catch (const nlohmann::json::exception& e) {
    fail(at, "an accepted case needs a valid JSON string, not " + literal + " (" + e.what() + ")");
  }
}

std::vector<std::uint64_t> parse_shape(const std::string& text, const SourceLine& at) {
  if (text.size() < 2 || text.front() != '[' || text.back() != ']') {
    fail(at, "accepted shapes are written [d0,d1,...]: " + text);
  }
  std::vector<std::uint64_t> dims;
  const std::string_view inner = std::string_view(text).substr(1, text.size() - 2);
  if (inner.empty()) return dims;
  std::size_t start = 0;
  while (start <= inner.size()) {
    std::size_t comma = inner.find(',', start);
    if (comma == std::string_view::npos) comma = inner.size();
    const std::string_view dim = inner.substr(start, comma - start);
    if (dim.empty() || (dim.size() > 1 && dim.front() == '0') ||
        dim.find_first_not_of("0123456789") != std::string_view::npos) {
      fail(at, "accepted shapes hold plain decimal integers: " + text);
    }
    dims.push_back(parse_u64(dim, at));
    start = comma + 1;
  }
  return dims;
}

std::uint64_t parse_plain_u64(const std::string& text, const SourceLine& at) {
  if (text.empty() || (text.size() > 1 && text.front() == '0') ||
      text.find_first_not_of("0123456789") != std::string::npos) {
    fail(at, "accepted offsets are plain decimal integers: " + text);
  }
  return parse_u64(text, at);
}

// Name and metadata literals may use header `directives` too (e.g. `repeat`
// for a very long name).
std::string expand_literal(const std::string& text, const SourceLine& at) {
  return expand_header_text(text, at);
}

std::string render_header(const Recipe& r) {
  std::string h = "{";
  bool first = true;
  if (!r.meta.empty() || r.metadata_empty) {
    h += "\"__metadata__\":{";
    for (std::size_t i = 0; i < r.meta.size(); ++i) {
      if (i) h += ',';
      h += expand_literal(r.meta[i].key_literal, r.meta[i].source) + ":" +
           expand_literal(r.meta[i].value_literal, r.meta[i].source);
    }
    h += '}';
    first = false;
  }
  for (const TensorSpec& t : r.tensors) {
    if (!first) h += ',';
    first = false;
    h += expand_literal(t.name_literal, t.source) + ":{\"dtype\":\"" + t.dtype +
         "\",\"shape\":" + expand_literal(t.shape, t.source) + ",\"data_offsets\":[" + t.begin +
         "," + t.end + "]}";
  }
  h += '}';
  return h;
}

std::string build_header(const Recipe& r) {
  std::string header;
  if (r.has_raw_header()) {
    for (std::size_t i = 0; i < r.header_lines.size(); ++i) {
      header += expand_header_text(r.header_lines[i], r.header_sources[i]);
    }
  } else {
    header = render_header(r);
  }
  if (r.pad) {
    header.append(static_cast<std::size_t>(parse_u64(*r.pad, r.source)), ' ');
  } else if (r.pad_to) {
    const std::uint64_t target = parse_u64(*r.pad_to, r.source);
    if (target < header.size() || target > 200'000'000) {
      fail(r.source, "pad-to smaller than the header text, or absurd");
    }
    header.append(static_cast<std::size_t>(target) - header.size(), ' ');
  } else if (r.align) {
    const std::uint64_t a = parse_u64(*r.align, r.source);
    if (a == 0 || a > 4096) fail(r.source, "align: 1..4096");
    while (header.size() % a != 0) header.push_back(' ');
  }
  return header;
}

std::vector<std::uint8_t> build_bytes(const Recipe& r) {
  std::vector<std::uint8_t> bytes;
  if (!r.file.empty()) {
    for (const ByteSpec& spec : r.file) append_byte_spec(spec, bytes);
  } else {
    const std::string header = build_header(r);
    const std::uint64_t n = r.length ? parse_u64(*r.length, r.source) : header.size();
    for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
    bytes.insert(bytes.end(), header.begin(), header.end());
    for (const ByteSpec& spec : r.data) append_byte_spec(spec, bytes);
  }
  if (r.truncate) {
    const std::string& t = *r.truncate;
    const bool drop = !t.empty() && t.front() == '-';
    const std::uint64_t v = parse_u64(drop ? std::string_view(t).substr(1) : t, r.source);
    if (v > bytes.size()) fail(r.source, "truncate beyond the end of the file");
    const std::size_t keep = static_cast<std::size_t>(drop ? bytes.size() - v : v);
    bytes.resize(keep);
  }
  for (const ByteSpec& spec : r.append) append_byte_spec(spec, bytes);
  return bytes;
}

ExpectedOutcome resolve(const ProfileExpectation& e, const std::vector<std::uint8_t>& bytes,
                        const SourceLine& at) {
  ExpectedOutcome out;
  out.accept = e.accept;
  out.reason = e.reason;
  if (e.offset_expr) out.offset = evaluate_offset(*e.offset_expr, bytes, at);
  return out;
}

// Element count of a shape under one profile's rule, or nullopt on overflow.
// strict: every product of the non-zero dimensions must fit in u64;
// reference: left-to-right checked fold (a zero reached first hides what
// follows).
std::optional<std::uint64_t> element_count(const std::vector<std::uint64_t>& shape,
                                           bool strict_rule) {
  std::uint64_t fold = 1;
  bool zero = false;
  for (std::uint64_t d : shape) {
    if (strict_rule) {
      if (d == 0) {
        zero = true;
        continue;
      }
      if (__builtin_mul_overflow(fold, d, &fold)) return std::nullopt;
    } else if (__builtin_mul_overflow(fold, d, &fold)) {
      return std::nullopt;
    }
  }
  return zero ? 0 : fold;
}

// The recipe says a profile accepts: check its stated tensors describe a valid
// file (the same rules a conforming reader applies), independently of
// stguard::parser.
void self_check(const Recipe& r, const ExpectedContent& content, std::uint64_t data_len) {
  const bool strict_rule = r.strict.accept;
  std::set<std::string> names;
  struct Range {
    std::uint64_t begin, end;
    std::size_t index;
  };
  std::vector<Range> ranges;
  for (std::size_t i = 0; i < content.tensors.size(); ++i) {
    const ExpectedTensor& t = content.tensors[i];
    const SourceLine& at = r.tensors[i].source;
    if (!names.insert(t.name).second) fail(at, "tensor name listed twice");
    if (t.name == "__metadata__") fail(at, "a tensor cannot be named __metadata__");
    const std::optional<unsigned> bits = dtype_bits_of(t.dtype);
    if (!bits) fail(at, "accepted case with unknown dtype " + t.dtype);
    const std::optional<std::uint64_t> elements = element_count(t.shape, strict_rule);
    std::uint64_t total_bits = 0;
    if (!elements || __builtin_mul_overflow(*elements, std::uint64_t{*bits}, &total_bits)) {
      fail(at, "tensor size overflows u64");
    }
    if (total_bits % 8 != 0) fail(at, "tensor is not a whole number of bytes");
    if (t.begin > t.end || t.end - t.begin != total_bits / 8) {
      fail(at, "data_offsets [" + std::to_string(t.begin) + "," + std::to_string(t.end) +
                   ") do not hold " + std::to_string(total_bits / 8) + " bytes");
    }
    ranges.push_back({t.begin, t.end, i});
  }
  std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) {
    if (a.begin != b.begin) return a.begin < b.begin;
    if (a.end != b.end) return a.end < b.end;
    return a.index < b.index;
  });
  std::uint64_t prev_end = 0;
  for (const Range& range : ranges) {
    if (range.begin != prev_end || range.end > data_len) {
      fail(r.tensors[range.index].source,
           "tensors do not tile the data buffer (" + std::to_string(data_len) + " bytes)");
    }
    prev_end = range.end;
  }
  if (prev_end != data_len) {
    fail(r.source, r.id + ": tensors cover " + std::to_string(prev_end) + " of " +
                       std::to_string(data_len) + " data bytes");
  }
}

ExpectedContent expected_content(const Recipe& r, const std::vector<std::uint8_t>& bytes) {
  ExpectedContent content;
  if (!r.meta.empty() || r.metadata_empty) {
    content.metadata.emplace();
    std::set<std::string> keys;
    for (const MetaSpec& m : r.meta) {
      std::string key = decode_string_literal(expand_literal(m.key_literal, m.source), m.source);
      if (!keys.insert(key).second) fail(m.source, "expected metadata key listed twice");
      content.metadata->emplace_back(
          std::move(key),
          decode_string_literal(expand_literal(m.value_literal, m.source), m.source));
    }
  }
  std::uint64_t n = 0;
  if (bytes.size() < 8) fail(r.source, r.id + ": an accepted file has at least 8 bytes");
  for (int k = 7; k >= 0; --k) n = (n << 8) | bytes[static_cast<std::size_t>(k)];
  if (n > bytes.size() - 8) fail(r.source, r.id + ": accepted, but the header exceeds the file");
  const std::size_t data_start = static_cast<std::size_t>(8 + n);
  const std::uint64_t data_len = bytes.size() - data_start;
  for (const TensorSpec& spec : r.tensors) {
    ExpectedTensor t;
    t.name = decode_string_literal(expand_literal(spec.name_literal, spec.source), spec.source);
    t.dtype = spec.dtype;
    t.shape = parse_shape(expand_literal(spec.shape, spec.source), spec.source);
    t.begin = parse_plain_u64(spec.begin, spec.source);
    t.end = parse_plain_u64(spec.end, spec.source);
    if (t.begin <= t.end && t.end <= data_len) {
      const auto first = bytes.begin() + static_cast<std::ptrdiff_t>(data_start + t.begin);
      const std::vector<std::uint8_t> slice(first,
                                            first + static_cast<std::ptrdiff_t>(t.end - t.begin));
      t.sha256 = base::sha256_hex(slice);
    }
    content.tensors.push_back(std::move(t));
  }
  self_check(r, content, data_len);
  return content;
}

// Writes `bytes` to `relative` in the corpus folder unless it already holds
// exactly them, and records which it was.
base::Result<void> write_if_changed(base::OwnedDir& dir, const std::string& relative,
                                    std::string_view bytes, WriteReport& report) {
  const base::Result<base::OwnedDir::Wrote> wrote = dir.write(relative, bytes);
  if (!wrote) return wrote.error();
  (*wrote == base::OwnedDir::Wrote::kUnchanged ? report.unchanged : report.written)
      .push_back(relative);
  return {};
}

std::string_view as_text(std::span<const std::uint8_t> bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

// Writes each case file into its group directory.
base::Result<void> write_case_files(std::span<const BuiltCase> cases, base::OwnedDir& dir,
                                    WriteReport& report) {
  for (const BuiltCase& c : cases) {
    if (base::Result<void> w = write_if_changed(dir, c.entry.file, as_text(c.bytes), report); !w) {
      return w;
    }
  }
  return {};
}

// The manifest of `cases`, carrying the rules and `corpus_version`.
std::string manifest_text(const RecipeSet& set, std::span<const BuiltCase> cases,
                          const std::string& corpus_version) {
  Manifest manifest;
  manifest.corpus_version = corpus_version;
  manifest.rules = set.vocabulary.rules;
  manifest.cases.reserve(cases.size());
  for (const BuiltCase& c : cases) manifest.cases.push_back(c.entry);
  return write_manifest(manifest);
}

// Everything a corpus release promises, hashed: both manifests (rules,
// cases, their files' hashes, verdicts, reasons and expectations) and the
// writer cases, without the version itself.
}  // namespace

std::string corpus_fingerprint(const RecipeSet& set, const Corpus& corpus) {
  std::string text = manifest_text(set, corpus.cases, "");
  text += manifest_text(set, corpus.on_demand, "");
  for (const auto& [file, bytes] : writer_case_files()) {
    text += file;
    text += '\n';
    text += base::sha256_hex(bytes);
    text += '\n';
  }
  return base::sha256_hex(text);
}

namespace {

// The corpus README's section on the writer cases (its table rows follow).
constexpr std::string_view kWriterReadmeHead =
    "\n## Writer cases\n\n"
    "`writers/` holds the cases that grade writers (`stguard conform --writer`, see\n"
    "docs/writer-protocol.md): one JSON spec per case, and `writers/manifest.json`\n"
    "saying whether a conforming writer writes it or refuses it.\n\n"
    "| id | expect | reason | description |\n|---|---|---|---|\n";

}  // namespace

base::Result<BuiltCase> build_case(const Recipe& recipe) {
  return recipe_result<BuiltCase>([&] {
    BuiltCase c;
    c.recipe = &recipe;
    c.bytes = build_bytes(recipe);
    c.strict = resolve(recipe.strict, c.bytes, recipe.source);
    c.reference = resolve(recipe.reference, c.bytes, recipe.source);
    Case& e = c.entry;
    e.id = recipe.id;
    e.file = recipe.group + "/" + recipe.name + ".safetensors";
    e.sha256 = base::sha256_hex(c.bytes);
    e.size = c.bytes.size();
    e.description = recipe.description;
    e.rules = recipe.rules;
    e.verdict = recipe.verdict();
    e.strict = recipe.strict.verdict();
    e.reference = recipe.reference.verdict();
    e.reason = recipe.manifest_reason();
    e.tags = recipe.tags;
    e.since = recipe.since;
    if (recipe.accepted_by_any()) e.expected = expected_content(recipe, c.bytes);
    return c;
  });
}

base::Result<std::vector<std::uint8_t>> build_repaired(const Recipe& recipe) {
  base::Result<Recipe> repaired = repaired_recipe(recipe);
  if (!repaired) return repaired.error();
  return recipe_result<std::vector<std::uint8_t>>([&] { return build_bytes(*repaired); });
}

base::Result<Corpus> build_corpus(const RecipeSet& set, bool keep_on_demand_bytes) {
  Corpus corpus;
  for (const Recipe* r : set.all()) {
    base::Result<BuiltCase> built = build_case(*r);
    if (!built) return built.error();
    BuiltCase c = std::move(*built);
    if (r->on_demand()) {
      if (!keep_on_demand_bytes) {
        c.bytes.clear();
        c.bytes.shrink_to_fit();
      }
      corpus.on_demand.push_back(std::move(c));
    } else {
      corpus.cases.push_back(std::move(c));
    }
  }
  corpus.fingerprint = corpus_fingerprint(set, corpus);
  return corpus;
}

base::Result<std::string> corpus_version(const RecipeSet& set, const Corpus& corpus) {
  if (!set.corpus_version) return std::string();
  const CorpusVersion& recorded = *set.corpus_version;
  if (recorded.fingerprint == corpus.fingerprint) return recorded.version;
  return base::fail(std::string(kCorpusVersionFile) + ": the corpus changed since version " +
                    recorded.version + " (fingerprint " + corpus.fingerprint +
                    "): a new release needs a new version; run `stguard corpus build "
                    "--bump-version`");
}

base::Result<std::string> bump_corpus_version(const RecipeSet& set, const Corpus& corpus) {
  std::uint64_t next = 1;
  if (set.corpus_version) {
    if (set.corpus_version->fingerprint == corpus.fingerprint) return set.corpus_version->version;
    next = std::stoull(set.corpus_version->version) + 1;  // checked digits, at most 9
  }
  const std::string version = std::to_string(next);
  const std::string text =
      "# The corpus release (docs/manifest.md, \"Versions\"): `stguard corpus build\n"
      "# --bump-version` writes this file when the corpus changed. Do not edit it by hand.\n"
      "version: " +
      version + "\nfingerprint: " + corpus.fingerprint + "\n";
  if (base::Result<void> w = base::write_file(set.dir / kCorpusVersionFile, text); !w) {
    return w.error();
  }
  return version;
}

base::Result<WriteReport> write_corpus(const RecipeSet& set, const Corpus& corpus,
                                       const std::filesystem::path& out_dir) {
  const base::Result<std::string> tmpl = base::read_file(set.dir / "corpus_readme.md.in");
  if (!tmpl) return tmpl.error();
  const base::Result<std::string> version = corpus_version(set, corpus);
  if (!version) return version.error();
  base::Result<base::OwnedDir> dir = base::OwnedDir::claim(out_dir, kCorpusCommand);
  if (!dir) return dir.error();
  WriteReport report;
  if (base::Result<void> w = write_case_files(corpus.cases, *dir, report); !w) return w.error();
  std::set<std::string> produced;
  for (const BuiltCase& c : corpus.cases) produced.insert(c.entry.file);
  // The writer cases (conformance/writers/cases.h) live beside the reader
  // cases, in their own group directory with their own manifest.
  for (const auto& [file, bytes] : writer_case_files()) {
    if (base::Result<void> w = write_if_changed(*dir, file, bytes, report); !w) return w.error();
    produced.insert(file);
  }
  const std::pair<std::string, std::string> top_files[] = {
      {"manifest.json", manifest_text(set, corpus.cases, *version)},
      {"on-demand.json", manifest_text(set, corpus.on_demand, *version)},
      {"README.md",
       corpus_readme(set, corpus, *tmpl) + std::string(kWriterReadmeHead) + writer_cases_readme()},
  };
  for (const auto& [file, text] : top_files) {
    if (base::Result<void> w = write_if_changed(*dir, file, text, report); !w) return w.error();
    produced.insert(file);
  }
  // What an earlier build made and this one did not (a renamed or deleted
  // recipe) goes, if it still holds what was written.
  base::Result<base::OwnedDir::Stale> stale = dir->remove_stale(produced);
  if (!stale) return stale.error();
  report.removed = std::move(stale->removed);
  report.kept_changed = std::move(stale->kept_changed);
  return report;
}

base::Result<WriteReport> write_on_demand(const RecipeSet& set, const Corpus& corpus,
                                          const std::filesystem::path& dir) {
  for (const BuiltCase& c : corpus.on_demand) {
    if (c.bytes.size() != c.entry.size) {
      return base::fail(c.recipe->id + ": bytes not kept (build with keep_on_demand_bytes)");
    }
  }
  base::Result<base::OwnedDir> owned = base::OwnedDir::claim(dir, kOnDemandCommand);
  if (!owned) return owned.error();
  WriteReport report;
  if (base::Result<void> w = write_case_files(corpus.on_demand, *owned, report); !w) {
    return w.error();
  }
  if (base::Result<void> w = write_if_changed(*owned, "manifest.json",
                                              manifest_text(set, corpus.on_demand, ""), report);
      !w) {
    return w.error();
  }
  if (base::Result<void> saved = owned->save(); !saved) return saved.error();
  return report;
}

base::Result<std::vector<CorpusDifference>> compare_corpus(const RecipeSet& set,
                                                           const Corpus& corpus,
                                                           const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path tmp = fs::temp_directory_path(ec);
  std::string pattern = (tmp / "stguard-corpus-check-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return base::io_failure("cannot make a scratch folder in " + tmp.string() + ": " +
                            base::errno_text(errno));
  }
  const fs::path scratch = pattern;
  // The scratch folder is this call's own, made just now by mkdtemp.
  struct RemoveScratch {
    const fs::path& path;
    ~RemoveScratch() {
      std::error_code ignored;
      fs::remove_all(path, ignored);
    }
  } remove_scratch{scratch};
  const fs::path built = scratch / "corpus";
  if (const base::Result<WriteReport> w = write_corpus(set, corpus, built); !w) return w.error();
  std::vector<CorpusDifference> differences;
  std::set<std::string> expected_files;
  for (fs::recursive_directory_iterator it(built, ec), end; !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec)) continue;
    const std::string rel = fs::relative(it->path(), built).generic_string();
    expected_files.insert(rel);
    const fs::path committed = dir / rel;
    if (!fs::is_regular_file(committed, ec)) {
      differences.push_back({CorpusDifference::Kind::kMissing, rel});
      continue;
    }
    const base::Result<std::string> theirs = base::read_file(committed);
    const base::Result<std::string> ours = base::read_file(it->path());
    if (!ours) return ours.error();
    if (!theirs || *theirs != *ours) differences.push_back({CorpusDifference::Kind::kDiffers, rel});
  }
  if (ec) return base::io_failure("cannot list " + built.string() + ": " + ec.message());
  if (fs::is_directory(dir, ec)) {
    for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      // Reader cases, and the writer cases' specs in writers/.
      const bool writer_spec =
          it->path().extension() == ".json" && it->path().parent_path().filename() == kWriterGroup;
      if (!it->is_regular_file(ec) || (it->path().extension() != ".safetensors" && !writer_spec)) {
        continue;
      }
      const std::string rel = fs::relative(it->path(), dir).generic_string();
      if (!expected_files.count(rel)) differences.push_back({CorpusDifference::Kind::kStale, rel});
    }
    if (ec) return base::io_failure("cannot list " + dir.string() + ": " + ec.message());
  }
  return differences;
}

}  // namespace stguard::conformance
