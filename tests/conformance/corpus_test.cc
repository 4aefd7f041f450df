// tests/conformance/corpus_test.cc: the conformance corpus, held against its
// recipes and against stguard (ctest label `corpus`; every suite here is
// named Corpus*).
//
//   CorpusBuild      the recipes regenerate the committed corpus/ byte for
//                    byte (so CI fails when recipes and corpus drift), and the
//                    manifest reads back through conformance/model/ and keeps
//                    the rules a reader cannot check alone (sorted ids, file
//                    names, the sizes and hashes of the committed files).
//   CorpusCase/*     one test per manifest case: the committed file parsed in
//                    both profiles (parse, validate_header and File::open) must
//                    give the recipe's verdict, reason and offset; accepted
//                    cases must yield exactly the expected tensors, metadata
//                    and per-tensor sha256 (read through File::tensor_data).
//   CorpusOnDemand/* the cases too large to commit, generated in memory.
//
// Hashes are base::sha256_hex, as in the generator; tests/base checks it
// against the published SHA-256 test vectors.
#include "conformance/generator/corpus.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "base/sha256.h"
#include "conformance/generator/recipe.h"
#include "conformance/model/manifest.h"
#include "stguard/stguard.h"
#include "tests/conformance/source_paths.h"
#include "tests/support/temp_dir.h"
#include "tests/support/test_util.h"

namespace {

namespace conf = stguard::conformance;
namespace fs = std::filesystem;

constexpr std::size_t kMinimumCases = 200;
using conformance_test::kCorpusDir;
using conformance_test::kRecipesDir;

std::span<const std::uint8_t> bytes_of(const std::string& text) {
  return {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()};
}

// A whole file; nullopt (and a test failure naming it) when unreadable.
std::optional<std::string> contents(const fs::path& path) {
  stguard::base::Result<std::string> text = stguard::base::read_file(path);
  if (!text) {
    ADD_FAILURE() << text.error().message;
    return std::nullopt;
  }
  return std::move(*text);
}

fs::path manifest_path() { return kCorpusDir / "manifest.json"; }
fs::path on_demand_path() { return kCorpusDir / "on-demand.json"; }

// Loaded once per process: when the Corpus* tests run in one process (see the
// ctest registration) the whole replay takes seconds, not minutes. nullopt
// when unreadable; CorpusBuild then says why.
std::optional<conf::Manifest> manifest_or_nothing(const fs::path& path) {
  conf::ManifestResult<conf::Manifest> manifest = conf::read_manifest(path);
  if (!manifest) return std::nullopt;
  return std::move(*manifest);
}

const std::optional<conf::Manifest>& committed_manifest() {
  static const std::optional<conf::Manifest> manifest = manifest_or_nothing(manifest_path());
  return manifest;
}

const std::optional<conf::Manifest>& on_demand_manifest() {
  static const std::optional<conf::Manifest> manifest = manifest_or_nothing(on_demand_path());
  return manifest;
}

// The ids of a manifest, for parameterising tests at registration time.
std::vector<std::string> ids_of(const std::optional<conf::Manifest>& manifest) {
  std::vector<std::string> ids;
  if (manifest) {
    for (const conf::Case& c : manifest->cases) ids.push_back(c.id);
  }
  return ids;
}

// The committed recipes, loaded once per process.
const stguard::base::Result<conf::RecipeSet>& recipes() {
  static const stguard::base::Result<conf::RecipeSet> set = conf::load_recipes(kRecipesDir);
  return set;
}

const conf::Case* find_case(const conf::Manifest& manifest, const std::string& id) {
  for (const conf::Case& c : manifest.cases) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

const conf::Recipe* find_recipe(const conf::RecipeSet& set, const std::string& id) {
  for (const conf::Recipe* r : set.all()) {
    if (r->id == id) return r;
  }
  return nullptr;
}

std::string test_name(const testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  std::replace_if(
      name.begin(), name.end(), [](char c) { return !std::isalnum(static_cast<unsigned char>(c)); },
      '_');
  return name;
}

stguard::ParseOptions options_for(stguard::Profile profile) {
  return stguard_test::WithProfile(profile);
}

// One profile's verdict on `bytes` (and on the same bytes as a file) against
// the recipe's expectation: same verdict, reason and, where the recipe gives
// one, offset. validate_header must agree with parse_header exactly.
void check_verdict(stguard::Profile profile, const conf::ExpectedOutcome& expected,
                   std::span<const std::uint8_t> bytes, const std::string& path) {
  SCOPED_TRACE(std::string("profile ") + std::string(stguard::profile_name(profile)));
  const stguard::ParseOptions options = options_for(profile);
  const stguard::Result<stguard::Header> parsed = stguard::parse(bytes, options);
  const stguard::Result<stguard::HeaderSummary> validated =
      stguard::validate_header(bytes, bytes.size(), options);
  const stguard::Result<stguard::File> file = stguard::File::open(path, options);
  if (expected.accept) {
    EXPECT_TRUE(stguard_test::Accepts(parsed));
    EXPECT_TRUE(stguard_test::Accepts(validated));
    EXPECT_TRUE(stguard_test::Accepts(file));
    return;
  }
  const std::optional<stguard::Reason> reason = stguard::reason_from_name(expected.reason);
  ASSERT_TRUE(reason.has_value()) << expected.reason;
  EXPECT_TRUE(stguard_test::Rejects(parsed, *reason, expected.offset));
  EXPECT_TRUE(stguard_test::Rejects(validated, *reason, expected.offset));
  EXPECT_TRUE(stguard_test::Rejects(file, *reason, expected.offset));
}

// An accepting profile must report exactly the manifest's content, and the
// bytes File::tensor_data hands out must hash to the manifest's sha256.
void check_content(stguard::Profile profile, const conf::ExpectedContent& expected,
                   const std::string& path) {
  SCOPED_TRACE(std::string("content, profile ") + std::string(stguard::profile_name(profile)));
  const stguard::Result<stguard::File> file = stguard::File::open(path, options_for(profile));
  ASSERT_TRUE(stguard_test::Accepts(file));
  const stguard::Header& header = file->header();

  ASSERT_EQ(header.tensors.size(), expected.tensors.size());
  for (std::size_t i = 0; i < expected.tensors.size(); ++i) {
    const stguard::TensorInfo& got = header.tensors[i];
    const conf::ExpectedTensor& want = expected.tensors[i];
    SCOPED_TRACE("tensor #" + std::to_string(i));
    EXPECT_EQ(got.name, want.name);
    EXPECT_EQ(stguard::dtype_name(got.dtype), want.dtype);
    EXPECT_EQ(got.shape, want.shape);
    EXPECT_EQ(got.begin, want.begin);
    EXPECT_EQ(got.end, want.end);
    EXPECT_EQ(stguard::base::sha256_hex(file->tensor_data(got)), want.sha256);
  }
  EXPECT_EQ(header.metadata, expected.metadata);
}

// The whole replay of one case whose bytes are `bytes`, stored at `path`.
void replay(const conf::Case& entry, const conf::BuiltCase& built, const std::string& bytes,
            const std::string& path) {
  // The manifest entry is exactly what the recipe builds; the per-profile
  // reasons and offsets live in the recipe (the manifest keeps one reason).
  EXPECT_TRUE(entry == built.entry) << "the manifest entry of " << entry.id
                                    << " is not what its recipe builds; run `stguard corpus build`";
  ASSERT_EQ(stguard::base::sha256_hex(bytes), entry.sha256);
  ASSERT_EQ(bytes.size(), entry.size);
  check_verdict(stguard::Profile::kStrict, built.strict, bytes_of(bytes), path);
  check_verdict(stguard::Profile::kReference, built.reference, bytes_of(bytes), path);
  if (built.strict.accept || built.reference.accept) {
    ASSERT_TRUE(entry.expected.has_value());
  }
  if (built.strict.accept) check_content(stguard::Profile::kStrict, *entry.expected, path);
  if (built.reference.accept) check_content(stguard::Profile::kReference, *entry.expected, path);
}

// ---------------------------------------------------------------------------
// The committed corpus against its recipes.

TEST(CorpusBuild, RecipesLoadAndCoverEnoughCases) {
  const stguard::base::Result<conf::RecipeSet>& set = recipes();
  ASSERT_TRUE(set) << set.error().message;
  std::size_t committed = 0;
  for (const conf::Recipe* r : set->all()) {
    committed += r->on_demand() ? std::size_t{0} : std::size_t{1};
  }
  EXPECT_GE(committed, kMinimumCases);
}

TEST(CorpusBuild, RegeneratesCommittedCorpusByteForByte) {
  const stguard::base::Result<conf::RecipeSet>& set = recipes();
  ASSERT_TRUE(set) << set.error().message;
  const stguard::base::Result<conf::Corpus> corpus = conf::build_corpus(*set);
  ASSERT_TRUE(corpus) << corpus.error().message;
  stguard_test::TempDir out;
  const auto written = conf::write_corpus(*set, *corpus, out.path());
  ASSERT_TRUE(written) << written.error().message;

  std::set<std::string> generated;
  for (const auto& entry : fs::recursive_directory_iterator(out.path())) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = fs::relative(entry.path(), out.path()).generic_string();
    generated.insert(rel);
    ASSERT_TRUE(fs::is_regular_file(kCorpusDir / rel))
        << rel << " is not committed; run `stguard corpus build`";
    EXPECT_TRUE(contents(kCorpusDir / rel) == contents(entry.path()))
        << "corpus/" << rel << " differs from what the recipes produce; run `stguard corpus build`";
  }
  for (const auto& entry : fs::recursive_directory_iterator(kCorpusDir)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = fs::relative(entry.path(), kCorpusDir).generic_string();
    EXPECT_TRUE(generated.count(rel)) << "corpus/" << rel << " is produced by no recipe";
  }
}

TEST(CorpusBuild, ManifestReadsBackAndKeepsItsRules) {
  const auto manifest = conf::read_manifest(manifest_path());
  ASSERT_TRUE(manifest.has_value()) << manifest.error().message();
  EXPECT_EQ(manifest->version, conf::kManifestVersion);
  EXPECT_GE(manifest->cases.size(), kMinimumCases);
  // What was read writes back to the same bytes: the schema's key order and
  // layout, and nothing the reader dropped.
  EXPECT_TRUE(conf::write_manifest(*manifest) == contents(manifest_path()));

  std::string previous_id;
  for (const conf::Case& c : manifest->cases) {
    SCOPED_TRACE(c.id);
    EXPECT_LT(previous_id, c.id) << "cases sorted by id, ids unique";
    previous_id = c.id;
    EXPECT_EQ(c.file, c.id + ".safetensors");
    EXPECT_FALSE(c.rules.empty());
    EXPECT_EQ(std::count(c.tags.begin(), c.tags.end(), "contested"),
              c.verdict == conf::Verdict::kEither ? 1 : 0);
    const std::optional<std::string> bytes = contents(kCorpusDir / c.file);
    ASSERT_TRUE(bytes.has_value());
    EXPECT_EQ(c.size, bytes->size());
    EXPECT_EQ(c.sha256, stguard::base::sha256_hex(*bytes));
  }
}

// ---------------------------------------------------------------------------
// Every committed case through stguard.

class CorpusCase : public testing::TestWithParam<std::string> {};

TEST_P(CorpusCase, Replay) {
  const std::string& id = GetParam();
  const std::optional<conf::Manifest>& manifest = committed_manifest();
  ASSERT_TRUE(manifest.has_value());
  const conf::Case* entry = find_case(*manifest, id);
  ASSERT_NE(entry, nullptr);
  ASSERT_TRUE(recipes()) << recipes().error().message;
  const conf::Recipe* recipe = find_recipe(*recipes(), id);
  ASSERT_NE(recipe, nullptr) << "no recipe for " << id << "; run `stguard corpus build`";
  const stguard::base::Result<conf::BuiltCase> made = conf::build_case(*recipe);
  ASSERT_TRUE(made) << made.error().message;
  const conf::BuiltCase& built = *made;
  const std::string path = (kCorpusDir / entry->file).string();
  const std::optional<std::string> bytes = contents(path);
  ASSERT_TRUE(bytes.has_value());
  replay(*entry, built, *bytes, path);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusCase, testing::ValuesIn(ids_of(committed_manifest())),
                         test_name);

// ---------------------------------------------------------------------------
// The on-demand cases (e.g. a header of exactly 100,000,000 bytes): generated
// in memory from their recipes, checked against on-demand.json, parsed.

class CorpusOnDemand : public testing::TestWithParam<std::string> {};

TEST_P(CorpusOnDemand, Replay) {
  const std::string& id = GetParam();
  const std::optional<conf::Manifest>& manifest = on_demand_manifest();
  ASSERT_TRUE(manifest.has_value());
  const conf::Case* entry = find_case(*manifest, id);
  ASSERT_NE(entry, nullptr);
  ASSERT_TRUE(recipes()) << recipes().error().message;
  const conf::Recipe* recipe = find_recipe(*recipes(), id);
  ASSERT_NE(recipe, nullptr);
  const stguard::base::Result<conf::BuiltCase> made = conf::build_case(*recipe);
  ASSERT_TRUE(made) << made.error().message;
  const conf::BuiltCase& built = *made;
  stguard_test::TempDir dir;
  const std::string path = dir.write("case.safetensors", built.bytes);
  const std::string bytes(built.bytes.begin(), built.bytes.end());
  replay(*entry, built, bytes, path);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusOnDemand, testing::ValuesIn(ids_of(on_demand_manifest())),
                         test_name);

}  // namespace
