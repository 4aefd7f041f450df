// tests/conformance/corpus_test.cc: the conformance corpus, held against its recipes and
// against stguard (ctest label `corpus`; every suite here is named Corpus*).
//
//   CorpusBuild      the recipes regenerate the committed corpus/ byte for
//                    byte (so CI fails when recipes and corpus drift), and the
//                    manifest follows the schema of DESIGN.md.
//   CorpusCase/*     one test per manifest case: the committed file parsed in
//                    both profiles (parse, validate_header and File::open) must
//                    give the recorded verdict, reason and offset; accepted
//                    cases must yield exactly the expected tensors, metadata
//                    and per-tensor sha256 (read through File::tensor_data).
//   CorpusOnDemand/* the cases too large to commit, generated in memory.
#include "generator/corpus.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "generator/manifest.h"
#include "generator/recipe.h"
#include "stguard/stguard.h"
#include "tests/temp_dir.h"
#include "tests/test_util.h"

namespace {

namespace conf = stguard::conformance;
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;  // keeps the manifest's key order

constexpr std::size_t kMinimumCases = 200;

// Independent of the generator's hashing helper on purpose.
std::string sha256(std::span<const std::uint8_t> bytes) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1) {
    return "EVP_Digest failed";
  }
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    static constexpr char kDigits[] = "0123456789abcdef";
    hex.push_back(kDigits[digest[i] >> 4]);
    hex.push_back(kDigits[digest[i] & 0x0F]);
  }
  return hex;
}

std::optional<Json> load_json(const fs::path& path) {
  try {
    const std::vector<std::uint8_t> bytes = conf::read_file_bytes(path);
    return Json::parse(bytes.begin(), bytes.end());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// The ids of a manifest, for parameterising tests at registration time. ctest
// runs every test in a process of its own, so this runs hundreds of times:
// rather than parsing the whole manifest, it picks the `"id": "..."` lines the
// generator writes for each case (CorpusBuild checks the manifest as a whole).
// An unreadable manifest yields no ids; CorpusBuild then reports why.
std::vector<std::string> ids_of(const fs::path& path) {
  std::vector<std::string> ids;
  std::vector<std::uint8_t> bytes;
  try {
    bytes = conf::read_file_bytes(path);
  } catch (const conf::RecipeError&) {
    return ids;
  }
  const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  constexpr std::string_view kKey = "\n      \"id\": ";
  for (std::size_t at = text.find(kKey); at != std::string_view::npos;
       at = text.find(kKey, at + 1)) {
    const std::size_t begin = at + kKey.size();
    const std::size_t end = text.find(",\n", begin);
    if (end == std::string_view::npos) break;
    try {
      ids.push_back(Json::parse(text.substr(begin, end - begin)).get<std::string>());
    } catch (const Json::exception&) {
      return {};
    }
  }
  return ids;
}

fs::path manifest_path() { return conf::default_corpus_dir() / "manifest.json"; }
fs::path on_demand_path() { return conf::default_corpus_dir() / "on-demand.json"; }

// Loaded once per process: when the Corpus* tests run in one process (see the
// ctest registration) the whole replay takes seconds, not minutes.
const std::optional<Json>& committed_manifest() {
  static const std::optional<Json> manifest = load_json(manifest_path());
  return manifest;
}

const std::optional<Json>& on_demand_manifest() {
  static const std::optional<Json> manifest = load_json(on_demand_path());
  return manifest;
}

// Throws RecipeError (failing the calling test with its message) when the
// recipes do not load.
const conf::RecipeSet& recipe_set() {
  static const conf::RecipeSet set = conf::load_recipes(conf::default_recipes_dir());
  return set;
}

const Json* find_case(const Json& manifest, const std::string& id) {
  for (const Json& c : manifest["cases"]) {
    if (c["id"] == id) return &c;
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
void check_content(stguard::Profile profile, const Json& expected, const std::string& path) {
  SCOPED_TRACE(std::string("content, profile ") + std::string(stguard::profile_name(profile)));
  const stguard::Result<stguard::File> file = stguard::File::open(path, options_for(profile));
  ASSERT_TRUE(stguard_test::Accepts(file));
  const stguard::Header& header = file->header();

  const Json& tensors = expected["tensors"];
  ASSERT_EQ(header.tensors.size(), tensors.size());
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const stguard::TensorInfo& got = header.tensors[i];
    const Json& want = tensors[i];
    SCOPED_TRACE("tensor #" + std::to_string(i));
    EXPECT_EQ(got.name, want["name"].get<std::string>());
    EXPECT_EQ(stguard::dtype_name(got.dtype), want["dtype"].get<std::string>());
    EXPECT_EQ(got.shape, want["shape"].get<std::vector<std::uint64_t>>());
    EXPECT_EQ(got.begin, want["data_offsets"][0].get<std::uint64_t>());
    EXPECT_EQ(got.end, want["data_offsets"][1].get<std::uint64_t>());
    EXPECT_EQ(sha256(file->tensor_data(got)), want["sha256"].get<std::string>());
  }

  const Json& metadata = expected["metadata"];
  if (metadata.is_null()) {
    EXPECT_FALSE(header.metadata.has_value());
  } else {
    ASSERT_TRUE(header.metadata.has_value());
    std::vector<std::pair<std::string, std::string>> want;
    for (const auto& [key, value] : metadata.items()) {
      want.emplace_back(key, value.get<std::string>());
    }
    EXPECT_EQ(*header.metadata, want);
  }
}

// ---------------------------------------------------------------------------
// The committed corpus against its recipes.

TEST(CorpusBuild, RecipesLoadAndCoverEnoughCases) {
  conf::RecipeSet set;
  ASSERT_NO_THROW(set = conf::load_recipes(conf::default_recipes_dir()));
  std::size_t committed = 0;
  for (const conf::Recipe* r : set.all())
    committed += r->on_demand() ? std::size_t{0} : std::size_t{1};
  EXPECT_GE(committed, kMinimumCases);
}

TEST(CorpusBuild, RegeneratesCommittedCorpusByteForByte) {
  const conf::RecipeSet set = conf::load_recipes(conf::default_recipes_dir());
  const conf::Corpus corpus = conf::build_corpus(set);
  stguard_test::TempDir out;
  conf::write_corpus(set, corpus, out.path());

  const fs::path committed = conf::default_corpus_dir();
  std::set<std::string> generated;
  for (const auto& entry : fs::recursive_directory_iterator(out.path())) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = fs::relative(entry.path(), out.path()).generic_string();
    generated.insert(rel);
    ASSERT_TRUE(fs::is_regular_file(committed / rel))
        << rel << " is not committed; run `stguard corpus build`";
    EXPECT_TRUE(conf::read_file_bytes(committed / rel) == conf::read_file_bytes(entry.path()))
        << "corpus/" << rel << " differs from what the recipes produce; run `stguard corpus build`";
  }
  for (const auto& entry : fs::recursive_directory_iterator(committed)) {
    if (!entry.is_regular_file()) continue;
    const std::string rel = fs::relative(entry.path(), committed).generic_string();
    EXPECT_TRUE(generated.count(rel)) << "corpus/" << rel << " is produced by no recipe";
  }
}

TEST(CorpusBuild, ManifestFollowsTheSchema) {
  const std::optional<Json>& manifest = committed_manifest();
  ASSERT_TRUE(manifest.has_value()) << manifest_path() << " is missing or not JSON";
  ASSERT_EQ(manifest->size(), 2u);
  EXPECT_EQ((*manifest)["version"], std::string(conf::kManifestVersion));
  const Json& cases = (*manifest)["cases"];
  ASSERT_TRUE(cases.is_array());
  EXPECT_GE(cases.size(), kMinimumCases);

  const std::vector<std::string> keys = {"id",          "file",   "sha256",  "size",
                                         "description", "rules",  "verdict", "strict",
                                         "reference",   "reason", "tags",    "expected"};
  std::vector<std::string> ids;
  for (const Json& c : cases) ids.push_back(c.value("id", ""));
  EXPECT_EQ(ids_of(manifest_path()), ids) << "the test registration must see every case";

  std::string previous_id;
  for (const Json& c : cases) {
    const std::string id = c.value("id", "");
    SCOPED_TRACE(id);
    std::vector<std::string> got;
    for (const auto& [key, value] : c.items()) got.push_back(key);
    ASSERT_EQ(got, keys);
    EXPECT_LT(previous_id, id) << "cases sorted by id, ids unique";
    previous_id = id;
    EXPECT_EQ(c["file"], id + ".safetensors");

    const std::string strict = c["strict"], reference = c["reference"], verdict = c["verdict"];
    EXPECT_TRUE(strict == "accept" || strict == "reject");
    EXPECT_TRUE(reference == "accept" || reference == "reject");
    EXPECT_FALSE(strict == "accept" && reference == "reject") << "strict accepts => reference";
    EXPECT_EQ(verdict, strict == reference ? strict : "either");
    const std::vector<std::string> tags = c["tags"];
    EXPECT_EQ(std::count(tags.begin(), tags.end(), "contested"), verdict == "either" ? 1 : 0);
    EXPECT_EQ(c["reason"].is_null(), strict == "accept" && reference == "accept");
    EXPECT_EQ(c["expected"].is_null(), verdict == "reject");
    EXPECT_FALSE(c["rules"].empty());

    const std::vector<std::uint8_t> bytes =
        conf::read_file_bytes(conf::default_corpus_dir() / c["file"].get<std::string>());
    EXPECT_EQ(c["size"].get<std::uint64_t>(), bytes.size());
    EXPECT_EQ(c["sha256"].get<std::string>(), sha256(bytes));
  }
}

// ---------------------------------------------------------------------------
// Every committed case through stguard.

class CorpusCase : public testing::TestWithParam<std::string> {};

TEST_P(CorpusCase, Replay) {
  const std::string& id = GetParam();
  const std::optional<Json>& manifest = committed_manifest();
  ASSERT_TRUE(manifest.has_value());
  const Json* entry = find_case(*manifest, id);
  ASSERT_NE(entry, nullptr);

  // Per-profile reasons and offsets live in the recipe (the manifest keeps
  // one reason); the recipe is also the source of the manifest's verdicts.
  const conf::Recipe* recipe = find_recipe(recipe_set(), id);
  ASSERT_NE(recipe, nullptr) << "no recipe for " << id << "; run `stguard corpus build`";
  const conf::BuiltCase built = conf::build_case(*recipe);
  ASSERT_EQ((*entry)["strict"], built.strict.accept ? "accept" : "reject");
  ASSERT_EQ((*entry)["reference"], built.reference.accept ? "accept" : "reject");
  const std::string manifest_reason =
      (*entry)["reason"].is_null() ? "" : (*entry)["reason"].get<std::string>();
  ASSERT_EQ(manifest_reason, built.strict.accept ? built.reference.reason : built.strict.reason);

  const std::string path =
      (conf::default_corpus_dir() / (*entry)["file"].get<std::string>()).string();
  const std::vector<std::uint8_t> bytes = conf::read_file_bytes(path);
  ASSERT_EQ(sha256(bytes), (*entry)["sha256"].get<std::string>());

  check_verdict(stguard::Profile::kStrict, built.strict, bytes, path);
  check_verdict(stguard::Profile::kReference, built.reference, bytes, path);
  if (built.strict.accept) check_content(stguard::Profile::kStrict, (*entry)["expected"], path);
  if (built.reference.accept) {
    check_content(stguard::Profile::kReference, (*entry)["expected"], path);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusCase, testing::ValuesIn(ids_of(manifest_path())), test_name);

// ---------------------------------------------------------------------------
// The on-demand cases (e.g. a header of exactly 100,000,000 bytes): generated
// in memory from their recipes, checked against on-demand.json, parsed.

class CorpusOnDemand : public testing::TestWithParam<std::string> {};

TEST_P(CorpusOnDemand, Replay) {
  const std::string& id = GetParam();
  const std::optional<Json>& manifest = on_demand_manifest();
  ASSERT_TRUE(manifest.has_value());
  const Json* entry = find_case(*manifest, id);
  ASSERT_NE(entry, nullptr);
  const conf::Recipe* recipe = find_recipe(recipe_set(), id);
  ASSERT_NE(recipe, nullptr);
  const conf::BuiltCase built = conf::build_case(*recipe);
  ASSERT_EQ(built.bytes.size(), (*entry)["size"].get<std::uint64_t>());
  ASSERT_EQ(sha256(built.bytes), (*entry)["sha256"].get<std::string>());

  stguard_test::TempDir dir;
  const std::string path = dir.write("case.safetensors", built.bytes);
  check_verdict(stguard::Profile::kStrict, built.strict, built.bytes, path);
  check_verdict(stguard::Profile::kReference, built.reference, built.bytes, path);
  if (built.strict.accept) check_content(stguard::Profile::kStrict, (*entry)["expected"], path);
  if (built.reference.accept) {
    check_content(stguard::Profile::kReference, (*entry)["expected"], path);
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusOnDemand, testing::ValuesIn(ids_of(on_demand_path())),
                         test_name);

}  // namespace
