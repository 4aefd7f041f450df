// conformance/writers/writer_manifest.cc: reading corpus/writers/manifest.json
// (writer_manifest.h).
#include "conformance/writers/writer_manifest.h"

#include <nlohmann/json.hpp>
#include <set>
#include <tuple>

#include "base/file_io.h"
#include "base/path.h"

namespace stguard::conformance {
namespace {

using Json = nlohmann::ordered_json;

// Reads the string `field` of `entry` into `out` (null leaves it empty when
// `nullable`).
base::Result<void> string_field(const Json& entry, const char* field, std::string& out,
                                bool nullable, const std::string& where) {
  const auto it = entry.find(field);
  if (it != entry.end() && it->is_string()) {
    out = it->get<std::string>();
    return {};
  }
  if (nullable && it != entry.end() && it->is_null()) return {};
  return base::fail(where + ": \"" + field + "\" must be a string" + (nullable ? " or null" : ""));
}

}  // namespace

Case WriterCaseEntry::as_case() const {
  Case c;
  c.id = id;
  c.file = file;
  c.description = description;
  c.tags = tags;
  c.verdict = expect_write ? Verdict::kAccept : Verdict::kReject;
  return c;
}

base::Result<std::vector<WriterCaseEntry>> parse_writer_manifest(std::string_view text) {
  const Json doc = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return base::fail("not a JSON object");
  }
  if (!doc.contains("version") || doc["version"] != "1") {
    return base::fail("\"version\" must be \"1\"");
  }
  if (!doc.contains("cases") || !doc["cases"].is_array()) {
    return base::fail("\"cases\" must be an array");
  }
  std::vector<WriterCaseEntry> cases;
  std::set<std::string> ids;
  for (std::size_t i = 0; i < doc["cases"].size(); ++i) {
    const Json& entry = doc["cases"][i];
    const std::string where = "case " + std::to_string(i);
    if (!entry.is_object()) {
      return base::fail(where + ": must be an object");
    }
    WriterCaseEntry c;
    std::string expect;
    const std::tuple<const char*, std::string*, bool> fields[] = {
        {"id", &c.id, false},         {"file", &c.file, false},
        {"sha256", &c.sha256, false}, {"expect", &expect, false},
        {"reason", &c.reason, true},  {"description", &c.description, false}};
    for (const auto& [field, out, nullable] : fields) {
      if (base::Result<void> read = string_field(entry, field, *out, nullable, where); !read) {
        return read.error();
      }
    }
    if (const base::Result<std::string> safe = base::safe_relative_name(c.file); !safe) {
      return base::fail(where + " (" + c.id + "): \"file\": " + safe.error().message);
    }
    if (expect != "write" && expect != "refuse") {
      return base::fail(where + " (" + c.id + "): \"expect\" must be \"write\" or \"refuse\"");
    }
    c.expect_write = expect == "write";
    if (!entry.contains("tags") || !entry["tags"].is_array()) {
      return base::fail(where + " (" + c.id + "): \"tags\" must be an array of strings");
    }
    for (const Json& tag : entry["tags"]) {
      if (!tag.is_string()) {
        return base::fail(where + " (" + c.id + "): \"tags\" must be an array of strings");
      }
      c.tags.push_back(tag.get<std::string>());
    }
    if (!ids.insert(c.id).second) {
      return base::fail(where + ": the id " + c.id + " is given twice");
    }
    cases.push_back(std::move(c));
  }
  return cases;
}

base::Result<std::vector<WriterCaseEntry>> read_writer_manifest(const std::filesystem::path& path) {
  const base::Result<std::string> text = base::read_file(path);
  if (!text) return text.error();
  base::Result<std::vector<WriterCaseEntry>> cases = parse_writer_manifest(*text);
  if (!cases) return cases.error().in(path.string());
  return cases;
}

}  // namespace stguard::conformance
