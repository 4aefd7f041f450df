// tests/conformance/model_test.cc: conformance/model/: verdict names, the
// manifest written and read back (the committed ones byte for byte), and
// hostile manifests, each of which must be refused with the case and field
// that are wrong, never a crash or a throw.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "conformance/model/manifest.h"
#include "conformance/model/verdict.h"
#include "tests/conformance/source_paths.h"
#include "tests/support/temp_dir.h"

namespace {

namespace conf = stguard::conformance;
using conf::Verdict;
using Json = nlohmann::ordered_json;

using conformance_test::kCorpusDir;

TEST(ConformanceVerdict, NamesRoundTrip) {
  for (const Verdict v : {Verdict::kAccept, Verdict::kReject, Verdict::kEither}) {
    EXPECT_EQ(conf::verdict_from_name(conf::verdict_name(v)), v);
  }
  EXPECT_EQ(conf::verdict_name(Verdict::kEither), "either");
  for (const char* bad : {"", "Accept", "REJECT", "maybe", "accept ", "either\n"}) {
    EXPECT_FALSE(conf::verdict_from_name(bad).has_value()) << bad;
  }
  EXPECT_EQ(conf::case_verdict(Verdict::kAccept, Verdict::kAccept), Verdict::kAccept);
  EXPECT_EQ(conf::case_verdict(Verdict::kReject, Verdict::kReject), Verdict::kReject);
  EXPECT_EQ(conf::case_verdict(Verdict::kReject, Verdict::kAccept), Verdict::kEither);
}

// Both committed manifests read and write back to exactly their bytes.
TEST(ConformanceManifest, CommittedManifestsRoundTrip) {
  for (const char* name : {"manifest.json", "on-demand.json"}) {
    SCOPED_TRACE(name);
    const stguard::base::Result<std::string> text = stguard::base::read_file(kCorpusDir / name);
    ASSERT_TRUE(text.has_value()) << text.error().message;
    const conf::ManifestResult<conf::Manifest> manifest = conf::parse_manifest(*text);
    ASSERT_TRUE(manifest.has_value()) << manifest.error().message();
    EXPECT_FALSE(manifest->cases.empty());
    EXPECT_TRUE(conf::write_manifest(*manifest) == *text);
  }
}

conf::Case sample_case(std::string id, Verdict strict, Verdict reference) {
  conf::Case c;
  c.id = std::move(id);
  c.file = c.id + ".safetensors";
  c.sha256 = std::string(64, 'a');
  c.size = 24;
  c.description = "a \"quoted\" description \xC3\xA9 \\ with a tab\t";
  c.rules = {"ST-LAY-2", "ST-NAME-1"};
  c.strict = strict;
  c.reference = reference;
  c.verdict = conf::case_verdict(strict, reference);
  if (c.verdict != Verdict::kAccept) c.reason = "OFFSET_GAP";
  c.tags = {"ref:x"};
  if (c.verdict == Verdict::kEither) c.since = "0.6.0";
  if (c.verdict != Verdict::kReject) {
    conf::ExpectedContent content;
    content.metadata.emplace();
    content.metadata->emplace_back("zkey", "value");
    content.metadata->emplace_back("akey", std::string("nul \0 inside", 12));
    content.tensors.push_back({std::string("t\0u", 3), "F32", {2, 3}, 0, 24, std::string(64, 'b')});
    content.tensors.push_back({"empty", "U8", {}, 24, 24, std::string(64, 'c')});
    c.expected = std::move(content);
  }
  return c;
}

TEST(ConformanceManifest, WrittenCasesReadBackEqual) {
  const std::vector<conf::Case> cases = {
      sample_case("g/accepted", Verdict::kAccept, Verdict::kAccept),
      sample_case("g/rejected", Verdict::kReject, Verdict::kReject),
      sample_case("g/either", Verdict::kReject, Verdict::kAccept)};
  conf::Manifest manifest;
  manifest.corpus_version = "7";
  manifest.rules = {{"ST-LAY-2", conf::RuleEnforcement::kBoth, {"OFFSET_GAP"}, "no gap"},
                    {"ST-NAME-1", conf::RuleEnforcement::kAccepted, {}, "any name"}};
  manifest.cases = cases;
  const std::string text = conf::write_manifest(manifest);
  const conf::ManifestResult<conf::Manifest> back = conf::parse_manifest(text);
  ASSERT_TRUE(back.has_value()) << back.error().message();
  EXPECT_EQ(back->version, "1");
  EXPECT_EQ(back->corpus_version, "7");
  EXPECT_TRUE(back->rules == manifest.rules);
  EXPECT_EQ(back->cases[2].since, std::optional<std::string>("0.6.0"));
  ASSERT_EQ(back->cases.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    EXPECT_TRUE(back->cases[i] == cases[i]) << cases[i].id;
  }
  EXPECT_EQ(back->cases[2].group(), "g");
  // Metadata keeps the order it was written in, not sorted.
  EXPECT_EQ(back->cases[0].expected->metadata->front().first, "zkey");
  EXPECT_EQ(conf::write_manifest(*back), text);
}

// A valid manifest of one accepted case, as JSON to break one field at a time.
Json good_manifest() {
  const conf::Case c = sample_case("g/ok", Verdict::kAccept, Verdict::kAccept);
  conf::Manifest manifest;
  manifest.cases = {c};
  return Json::parse(conf::write_manifest(manifest));
}

struct Refusal {
  std::optional<std::size_t> case_index;
  std::string field;
};

// Parses `text`, which must be refused; returns where.
Refusal refused(const std::string& text) {
  std::optional<conf::ManifestResult<conf::Manifest>> manifest;
  EXPECT_NO_THROW(manifest.emplace(conf::parse_manifest(text)));
  if (!manifest || manifest->has_value()) {
    ADD_FAILURE() << "accepted: " << text.substr(0, 300);
    return {};
  }
  const conf::ManifestError& error = manifest->error();
  EXPECT_FALSE(error.problem.empty());
  return {error.case_index, error.field};
}

Refusal refused(const Json& manifest) { return refused(manifest.dump()); }

TEST(ConformanceManifest, TheGoodManifestIsAccepted) {
  const auto manifest = conf::parse_manifest(good_manifest().dump());
  EXPECT_TRUE(manifest.has_value()) << manifest.error().message();
}

TEST(ConformanceManifest, RefusesTextThatIsNotAManifest) {
  for (const std::string& text :
       {std::string(""), std::string("{"), std::string("[]"), std::string("\"x\""),
        std::string("nul\0", 4), std::string("{\"version\": \"1\", \"cases\": [\"\xff\"]}"),
        std::string(100000, '[') + std::string(100000, ']')}) {
    const Refusal r = refused(text);
    EXPECT_FALSE(r.case_index.has_value());
    EXPECT_EQ(r.field, "");
  }
  Json m = good_manifest();
  m.erase("version");
  EXPECT_EQ(refused(m).field, "version");
  m = good_manifest();
  m["version"] = "2";
  EXPECT_EQ(refused(m).field, "version");
  m["version"] = 1;
  EXPECT_EQ(refused(m).field, "version");
  m = good_manifest();
  m["cases"] = Json::object();
  EXPECT_EQ(refused(m).field, "cases");
}

// Each entry: a change to the one good case, and the field it must be blamed on.
TEST(ConformanceManifest, RefusesAHostileCaseNamingTheField) {
  struct Breakage {
    const char* what;
    void (*apply)(Json& c);
    const char* field;
  };
  const Breakage breakages[] = {
      {"not an object", [](Json& c) { c = Json::array(); }, ""},
      {"no id", [](Json& c) { c.erase("id"); }, "id"},
      {"id a number", [](Json& c) { c["id"] = 7; }, "id"},
      {"id empty", [](Json& c) { c["id"] = ""; }, "id"},
      {"file climbs out", [](Json& c) { c["file"] = "../escape.safetensors"; }, "file"},
      {"file climbs in the middle", [](Json& c) { c["file"] = "g/../../x"; }, "file"},
      {"file absolute", [](Json& c) { c["file"] = "/etc/passwd"; }, "file"},
      {"file backslash", [](Json& c) { c["file"] = "g\\x"; }, "file"},
      {"file empty", [](Json& c) { c["file"] = ""; }, "file"},
      {"file the directory", [](Json& c) { c["file"] = "./"; }, "file"},
      {"file NUL", [](Json& c) { c["file"] = std::string("a\0b", 3); }, "file"},
      {"sha256 upper case", [](Json& c) { c["sha256"] = std::string(64, 'A'); }, "sha256"},
      {"sha256 short", [](Json& c) { c["sha256"] = "abc"; }, "sha256"},
      {"size negative", [](Json& c) { c["size"] = -1; }, "size"},
      {"size fractional", [](Json& c) { c["size"] = 1.5; }, "size"},
      {"size a string", [](Json& c) { c["size"] = "24"; }, "size"},
      {"description null", [](Json& c) { c["description"] = nullptr; }, "description"},
      {"rules a string", [](Json& c) { c["rules"] = "layout"; }, "rules"},
      {"rules holding a number",
       [](Json& c) {
         c["rules"] = Json::array({"a", 2});
       },
       "rules[1]"},
      {"unknown verdict", [](Json& c) { c["verdict"] = "perhaps"; }, "verdict"},
      {"verdict upper case", [](Json& c) { c["verdict"] = "ACCEPT"; }, "verdict"},
      {"profile either", [](Json& c) { c["strict"] = "either"; }, "strict"},
      {"reference missing", [](Json& c) { c.erase("reference"); }, "reference"},
      {"strict wider than reference",
       [](Json& c) {
         c["reference"] = "reject";
         c["verdict"] = "either";
       },
       "strict"},
      {"verdict not from the profiles", [](Json& c) { c["verdict"] = "either"; }, "verdict"},
      {"reason when both accept", [](Json& c) { c["reason"] = "OFFSET_GAP"; }, "reason"},
      {"reason empty", [](Json& c) { c["reason"] = ""; }, "reason"},
      {"reason a number", [](Json& c) { c["reason"] = 3; }, "reason"},
      {"tags an object", [](Json& c) { c["tags"] = Json::object(); }, "tags"},
      {"expected missing", [](Json& c) { c.erase("expected"); }, "expected"},
      {"expected null for an accepted case", [](Json& c) { c["expected"] = nullptr; }, "expected"},
      {"expected a list", [](Json& c) { c["expected"] = Json::array(); }, "expected"},
      {"metadata a list", [](Json& c) { c["expected"]["metadata"] = Json::array(); },
       "expected.metadata"},
      {"metadata value a number", [](Json& c) { c["expected"]["metadata"]["k"] = 5; },
       "expected.metadata"},
      {"tensors missing", [](Json& c) { c["expected"].erase("tensors"); }, "expected.tensors"},
      {"tensor not an object", [](Json& c) { c["expected"]["tensors"][1] = "t"; },
       "expected.tensors[1]"},
      {"tensor without a name", [](Json& c) { c["expected"]["tensors"][0].erase("name"); },
       "expected.tensors[0].name"},
      {"dtype a map",
       [](Json& c) {
         c["expected"]["tensors"][0]["dtype"] = {{"F32", nullptr}};
       },
       "expected.tensors[0].dtype"},
      {"negative dimension", [](Json& c) { c["expected"]["tensors"][0]["shape"][1] = -3; },
       "expected.tensors[0].shape[1]"},
      {"dimension as text", [](Json& c) { c["expected"]["tensors"][0]["shape"][0] = "2"; },
       "expected.tensors[0].shape[0]"},
      {"one data offset", [](Json& c) { c["expected"]["tensors"][1]["data_offsets"] = {24}; },
       "expected.tensors[1].data_offsets"},
      {"tensor hash missing", [](Json& c) { c["expected"]["tensors"][1].erase("sha256"); },
       "expected.tensors[1].sha256"},
  };
  for (const Breakage& b : breakages) {
    SCOPED_TRACE(b.what);
    Json m = good_manifest();
    b.apply(m["cases"][0]);
    const Refusal r = refused(m);
    EXPECT_EQ(r.case_index, std::optional<std::size_t>(0));
    EXPECT_EQ(r.field, b.field);
  }
}

TEST(ConformanceManifest, RejectedCasesCarryAReasonAndNoContent) {
  const conf::Case rejected = sample_case("g/no", Verdict::kReject, Verdict::kReject);
  conf::Manifest manifest;
  manifest.cases = {rejected};
  Json m = Json::parse(conf::write_manifest(manifest));
  m["cases"][0]["reason"] = nullptr;
  EXPECT_EQ(refused(m).field, "reason");
  m = Json::parse(conf::write_manifest(manifest));
  m["cases"][0]["expected"] = good_manifest()["cases"][0]["expected"];
  EXPECT_EQ(refused(m).field, "expected");
}

TEST(ConformanceManifest, AnIdTwiceIsRefusedAtTheSecond) {
  Json m = good_manifest();
  m["cases"].push_back(m["cases"][0]);
  m["cases"][1]["file"] = "g/other.safetensors";
  const Refusal r = refused(m);
  EXPECT_EQ(r.case_index, std::optional<std::size_t>(1));
  EXPECT_EQ(r.field, "id");
}

TEST(ConformanceManifest, FileNamesAreJudgedPerComponent) {
  Json m = good_manifest();
  m["cases"][0]["file"] = "./g/a..b//ok.safetensors";
  const auto manifest = conf::parse_manifest(m.dump());
  ASSERT_TRUE(manifest.has_value()) << manifest.error().message();
  EXPECT_EQ(manifest->cases[0].file, "g/a..b/ok.safetensors");  // normalised
}

TEST(ConformanceManifest, UnknownFieldsAreIgnored) {
  Json m = good_manifest();
  m["generator"] = "future";
  m["cases"][0]["added_later"] = {1, 2, 3};
  const auto manifest = conf::parse_manifest(m.dump());
  EXPECT_TRUE(manifest.has_value()) << manifest.error().message();
}

TEST(ConformanceManifest, ErrorsSayWhereFromAFile) {
  stguard_test::TempDir dir;
  const auto missing = conf::read_manifest(dir.path() / "manifest.json");
  ASSERT_FALSE(missing.has_value());
  EXPECT_FALSE(missing.error().case_index.has_value());
  EXPECT_NE(missing.error().message().find("manifest.json"), std::string::npos)
      << missing.error().message();

  Json m = good_manifest();
  m["cases"][0]["file"] = "../x";
  const std::string text = m.dump();
  const std::string path =
      dir.write("manifest.json", {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
  const auto refused_file = conf::read_manifest(path);
  ASSERT_FALSE(refused_file.has_value());
  const conf::ManifestError& error = refused_file.error();
  EXPECT_EQ(error.path, path);
  EXPECT_EQ(error.case_index, std::optional<std::size_t>(0));
  EXPECT_EQ(error.case_id, "g/ok");
  EXPECT_EQ(error.field, "file");
  const std::string message = error.message();
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("case 0 (g/ok)"), std::string::npos) << message;
  EXPECT_NE(message.find("\"file\""), std::string::npos) << message;
}

TEST(ConformanceManifest, RulesAndSinceAreCheckedWhenPresent) {
  conf::Manifest manifest;
  manifest.rules = {{"ST-LAY-2", conf::RuleEnforcement::kBoth, {"OFFSET_GAP"}, "no gap"}};
  manifest.cases = {sample_case("g/either", Verdict::kReject, Verdict::kAccept)};
  const Json good = Json::parse(conf::write_manifest(manifest));
  Json m = good;
  m["rules"][0]["id"] = "LAY-2";
  EXPECT_EQ(refused(m).field, "rules");
  m = good;
  m["rules"][0]["enforcement"] = "sometimes";
  EXPECT_EQ(refused(m).field, "rules");
  m = good;
  m["cases"][0]["since"] = "0.6.x";
  EXPECT_EQ(refused(m).field, "since");
  m = good;
  m["corpus_version"] = 2;
  EXPECT_EQ(refused(m).field, "corpus_version");
  // Manifests written before these fields still read.
  m = good;
  m.erase("rules");
  m["cases"][0].erase("since");
  EXPECT_TRUE(conf::parse_manifest(m.dump()).has_value());
}

}  // namespace
