// conformance/model/manifest.cc: reading and writing the manifest
// (manifest.h). The reader checks each value's JSON type before taking it,
// so no access can throw; the writer is the generator's pretty-printer.
#include "conformance/model/manifest.h"

#include <nlohmann/json.hpp>
#include <unordered_map>
#include <utility>

#include "base/file_io.h"
#include "base/path.h"
#include "base/sha256.h"
#include "conformance/model/release.h"

namespace stguard::conformance {
namespace {

using Json = nlohmann::ordered_json;

// ---------------------------------------------------------------------------
// Reading.

std::string member_field(const std::string& prefix, std::string_view key) {
  return prefix.empty() ? std::string(key) : prefix + "." + std::string(key);
}

std::string element_field(const std::string& field, std::size_t index) {
  return field + "[" + std::to_string(index) + "]";
}

// Typed access to the members of one case; the first problem is kept.
class CaseReader {
 public:
  bool ok() const noexcept { return field_.empty() && problem_.empty(); }
  const std::string& field() const noexcept { return field_; }
  const std::string& problem() const noexcept { return problem_; }

  // Always false, for `return fail(...)`.
  bool fail(std::string field, std::string problem) {
    if (ok()) {
      field_ = std::move(field);
      problem_ = std::move(problem);
    }
    return false;
  }

  const Json* find(const Json& object, std::string_view key, const std::string& field) {
    const auto it = object.find(key);
    if (it == object.end()) {
      fail(field, "is missing");
      return nullptr;
    }
    return &*it;
  }

  bool text(const Json& object, std::string_view key, const std::string& prefix, std::string& out) {
    const std::string field = member_field(prefix, key);
    const Json* value = find(object, key, field);
    if (value == nullptr) return false;
    if (!value->is_string()) return fail(field, "must be a string");
    out = value->get_ref<const std::string&>();
    return true;
  }

  bool number(const Json& value, const std::string& field, std::uint64_t& out) {
    // The writer writes plain JSON unsigned integers; 8.0 or -1 is a broken manifest.
    if (!value.is_number_unsigned()) return fail(field, "must be an unsigned integer");
    out = value.get<std::uint64_t>();
    return true;
  }

  bool number(const Json& object, std::string_view key, const std::string& prefix,
              std::uint64_t& out) {
    const std::string field = member_field(prefix, key);
    const Json* value = find(object, key, field);
    return value != nullptr && number(*value, field, out);
  }

  bool texts(const Json& object, std::string_view key, const std::string& prefix,
             std::vector<std::string>& out) {
    const std::string field = member_field(prefix, key);
    const Json* value = find(object, key, field);
    if (value == nullptr) return false;
    if (!value->is_array()) return fail(field, "must be an array of strings");
    for (std::size_t i = 0; i < value->size(); ++i) {
      const Json& item = (*value)[i];
      if (!item.is_string()) return fail(element_field(field, i), "must be a string");
      out.push_back(item.get_ref<const std::string&>());
    }
    return true;
  }

  bool numbers(const Json& object, std::string_view key, const std::string& prefix,
               std::vector<std::uint64_t>& out) {
    const std::string field = member_field(prefix, key);
    const Json* value = find(object, key, field);
    if (value == nullptr) return false;
    if (!value->is_array()) return fail(field, "must be an array of unsigned integers");
    for (std::size_t i = 0; i < value->size(); ++i) {
      std::uint64_t n = 0;
      if (!number((*value)[i], element_field(field, i), n)) return false;
      out.push_back(n);
    }
    return true;
  }

  // `profile`: a profile's verdict, accept or reject only.
  bool verdict(const Json& object, std::string_view key, bool profile, Verdict& out) {
    const std::string field(key);
    std::string name;
    if (!text(object, key, "", name)) return false;
    const std::optional<Verdict> verdict = verdict_from_name(name);
    if (!verdict || (profile && *verdict == Verdict::kEither)) {
      return fail(field, profile ? "must be \"accept\" or \"reject\""
                                 : "must be \"accept\", \"reject\" or \"either\"");
    }
    out = *verdict;
    return true;
  }

  bool sha256(const Json& object, std::string_view key, const std::string& prefix,
              std::string& out) {
    if (!text(object, key, prefix, out)) return false;
    const std::optional<base::Sha256Digest> digest = base::digest_from_hex(out);
    if (!digest || base::to_hex(*digest) != out) {
      return fail(member_field(prefix, key), "must be 64 lower-case hex digits");
    }
    return true;
  }

 private:
  std::string field_;
  std::string problem_;
};

bool read_tensor(const Json& value, const std::string& field, CaseReader& r, ExpectedTensor& t) {
  if (!value.is_object()) return r.fail(field, "must be an object");
  if (!r.text(value, "name", field, t.name) || !r.text(value, "dtype", field, t.dtype) ||
      !r.numbers(value, "shape", field, t.shape)) {
    return false;
  }
  std::vector<std::uint64_t> offsets;
  if (!r.numbers(value, "data_offsets", field, offsets)) return false;
  if (offsets.size() != 2) {
    return r.fail(member_field(field, "data_offsets"), "must hold two numbers, [begin, end]");
  }
  t.begin = offsets[0];
  t.end = offsets[1];
  return r.sha256(value, "sha256", field, t.sha256);
}

bool read_expected(const Json& value, CaseReader& r, ExpectedContent& out) {
  const std::string field = "expected";
  if (!value.is_object()) return r.fail(field, "must be an object or null");
  const std::string metadata_field = member_field(field, "metadata");
  const Json* metadata = r.find(value, "metadata", metadata_field);
  if (metadata == nullptr) return false;
  if (metadata->is_object()) {
    out.metadata.emplace();
    for (const auto& [key, entry] : metadata->items()) {
      if (!entry.is_string()) {
        return r.fail(metadata_field, "the value of \"" + key + "\" must be a string");
      }
      out.metadata->emplace_back(key, entry.get_ref<const std::string&>());
    }
  } else if (!metadata->is_null()) {
    return r.fail(metadata_field, "must be an object or null");
  }
  const std::string tensors_field = member_field(field, "tensors");
  const Json* tensors = r.find(value, "tensors", tensors_field);
  if (tensors == nullptr) return false;
  if (!tensors->is_array()) return r.fail(tensors_field, "must be an array");
  for (std::size_t i = 0; i < tensors->size(); ++i) {
    if (!read_tensor((*tensors)[i], element_field(tensors_field, i), r,
                     out.tensors.emplace_back())) {
      return false;
    }
  }
  return true;
}

// The rules between fields that the writer keeps.
bool check_consistency(const Case& c, bool has_reason, CaseReader& r) {
  if (c.strict == Verdict::kAccept && c.reference == Verdict::kReject) {
    return r.fail("strict", "accepts what \"reference\" rejects (strict is the narrower profile)");
  }
  const Verdict verdict = case_verdict(c.strict, c.reference);
  if (c.verdict != verdict) {
    return r.fail("verdict", "must be \"" + std::string(verdict_name(verdict)) +
                                 "\" when \"strict\" is \"" + std::string(verdict_name(c.strict)) +
                                 "\" and \"reference\" \"" +
                                 std::string(verdict_name(c.reference)) + "\"");
  }
  const bool both_accept = c.verdict == Verdict::kAccept;
  if (has_reason == both_accept) {
    return r.fail("reason", both_accept ? "must be null when both profiles accept"
                                        : "must name the reason when a profile rejects");
  }
  if (c.expected.has_value() == (c.verdict == Verdict::kReject)) {
    return r.fail("expected", c.expected ? "must be null when both profiles reject"
                                         : "must say what an accepting reader reports");
  }
  return true;
}

bool read_case(const Json& value, CaseReader& r, Case& c) {
  if (!value.is_object()) return r.fail("", "must be an object");
  if (!r.text(value, "id", "", c.id)) return false;
  if (c.id.empty()) return r.fail("id", "must not be empty");
  std::string file;
  if (!r.text(value, "file", "", file)) return false;
  // A manifest names files inside the corpus only.
  base::Result<std::string> relative = base::safe_relative_name(file);
  if (!relative) return r.fail("file", relative.error().message);
  c.file = std::move(*relative);
  if (!r.sha256(value, "sha256", "", c.sha256) || !r.number(value, "size", "", c.size) ||
      !r.text(value, "description", "", c.description) || !r.texts(value, "rules", "", c.rules) ||
      !r.verdict(value, "verdict", false, c.verdict) ||
      !r.verdict(value, "strict", true, c.strict) ||
      !r.verdict(value, "reference", true, c.reference)) {
    return false;
  }
  const Json* reason = r.find(value, "reason", "reason");
  if (reason == nullptr) return false;
  if (reason->is_string()) {
    c.reason = reason->get_ref<const std::string&>();
    if (c.reason.empty()) return r.fail("reason", "must not be empty (null when both accept)");
  } else if (!reason->is_null()) {
    return r.fail("reason", "must be a string or null");
  }
  if (!r.texts(value, "tags", "", c.tags)) return false;
  // "since" came after the first manifests: absent reads as null.
  if (const auto since = value.find("since"); since != value.end() && !since->is_null()) {
    if (!since->is_string() || !is_release(since->get_ref<const std::string&>())) {
      return r.fail("since", "must be a release (\"0.4.0\") or null");
    }
    c.since = since->get_ref<const std::string&>();
  }
  const Json* expected = r.find(value, "expected", "expected");
  if (expected == nullptr) return false;
  if (!expected->is_null() && !read_expected(*expected, r, c.expected.emplace())) return false;
  return check_consistency(c, reason->is_string(), r);
}

// ---------------------------------------------------------------------------
// Writing.

std::string scalar(const Json& j) {
  // ensure_ascii=false keeps UTF-8 readable; U+0000 and other controls are
  // still escaped by the serializer. Text that is not UTF-8 throws: the
  // manifest is never written lossily.
  return j.dump(-1, ' ', false, Json::error_handler_t::strict);
}

bool is_flat_array(const Json& j) {
  for (const Json& e : j) {
    if (e.is_structured()) return false;
  }
  return true;
}

void write_value(std::string& out, const Json& j, int indent) {
  const std::string pad(static_cast<std::size_t>(indent), ' ');
  const std::string inner(static_cast<std::size_t>(indent + 2), ' ');
  if (j.is_object()) {
    if (j.empty()) {
      out += "{}";
      return;
    }
    out += "{\n";
    bool first = true;
    for (const auto& [key, value] : j.items()) {
      if (!first) out += ",\n";
      first = false;
      out += inner + scalar(Json(key)) + ": ";
      write_value(out, value, indent + 2);
    }
    out += "\n" + pad + "}";
  } else if (j.is_array()) {
    if (j.empty()) {
      out += "[]";
    } else if (is_flat_array(j)) {
      out += "[";
      bool first = true;
      for (const Json& e : j) {
        if (!first) out += ", ";
        first = false;
        out += scalar(e);
      }
      out += "]";
    } else {
      out += "[\n";
      bool first = true;
      for (const Json& e : j) {
        if (!first) out += ",\n";
        first = false;
        out += inner;
        write_value(out, e, indent + 2);
      }
      out += "\n" + pad + "]";
    }
  } else {
    out += scalar(j);
  }
}

Json expected_json(const std::optional<ExpectedContent>& expected) {
  if (!expected) return nullptr;
  Json e = Json::object();
  if (expected->metadata) {
    Json m = Json::object();
    for (const auto& [key, value] : *expected->metadata) m[key] = value;
    e["metadata"] = std::move(m);
  } else {
    e["metadata"] = nullptr;
  }
  Json tensors = Json::array();
  for (const ExpectedTensor& t : expected->tensors) {
    Json tj = Json::object();
    tj["name"] = t.name;
    tj["dtype"] = t.dtype;
    tj["shape"] = t.shape;
    tj["data_offsets"] = Json::array({t.begin, t.end});
    tj["sha256"] = t.sha256;
    tensors.push_back(std::move(tj));
  }
  e["tensors"] = std::move(tensors);
  return e;
}

Json case_json(const Case& c) {
  Json j = Json::object();
  j["id"] = c.id;
  j["file"] = c.file;
  j["sha256"] = c.sha256;
  j["size"] = c.size;
  j["description"] = c.description;
  j["rules"] = c.rules;
  j["verdict"] = verdict_name(c.verdict);
  j["strict"] = verdict_name(c.strict);
  j["reference"] = verdict_name(c.reference);
  j["reason"] = c.reason.empty() ? Json(nullptr) : Json(c.reason);
  j["tags"] = c.tags;
  j["since"] = c.since ? Json(*c.since) : Json(nullptr);
  j["expected"] = expected_json(c.expected);
  return j;
}

Json rule_json(const Rule& rule) {
  Json j = Json::object();
  j["id"] = rule.id;
  j["enforcement"] = rule_enforcement_name(rule.enforcement);
  j["reasons"] = rule.reasons;
  j["summary"] = rule.summary;
  return j;
}

// The top-level "rules" (absent in manifests written before it).
std::optional<std::string> read_rules(const Json& document, std::vector<Rule>& out) {
  const auto rules = document.find("rules");
  if (rules == document.end()) return std::nullopt;
  if (!rules->is_array()) return "must be an array";
  for (const Json& item : *rules) {
    const auto text = [&item](const char* key) -> const std::string* {
      const auto it = item.find(key);
      return it != item.end() && it->is_string() ? &it->get_ref<const std::string&>() : nullptr;
    };
    if (!item.is_object()) return "each rule must be an object";
    const std::string* id = text("id");
    const std::string* enforcement = text("enforcement");
    const std::string* summary = text("summary");
    const auto reasons = item.find("reasons");
    if (id == nullptr || !is_rule_id(*id)) return "a rule's \"id\" must be a rule id (ST-LEN-1)";
    const std::optional<RuleEnforcement> e =
        enforcement == nullptr ? std::nullopt : rule_enforcement_from_name(*enforcement);
    if (!e)
      return "rule " + *id + ": \"enforcement\" must be both, strict, accepted or environment";
    if (summary == nullptr) return "rule " + *id + ": \"summary\" must be a string";
    if (reasons == item.end() || !reasons->is_array()) {
      return "rule " + *id + ": \"reasons\" must be an array of strings";
    }
    Rule& rule = out.emplace_back();
    rule.id = *id;
    rule.enforcement = *e;
    rule.summary = *summary;
    for (const Json& reason : *reasons) {
      if (!reason.is_string()) return "rule " + *id + ": \"reasons\" must be an array of strings";
      rule.reasons.push_back(reason.get<std::string>());
    }
  }
  return std::nullopt;
}

}  // namespace

std::string ManifestError::message() const {
  std::string out = path.empty() ? std::string() : path + ": ";
  if (case_index) {
    out += "case " + std::to_string(*case_index) + (case_id.empty() ? "" : " (" + case_id + ")");
    out += field.empty() ? ": " : ", ";
  }
  if (!field.empty()) out += "field \"" + field + "\": ";
  return out + problem;
}

ManifestResult<Manifest> parse_manifest(std::string_view text) {
  ManifestError e;
  const auto failure = [&e](std::string field, std::string problem) -> ManifestResult<Manifest> {
    e.field = std::move(field);
    e.problem = std::move(problem);
    return e;
  };
  Json document;
  try {
    document = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  } catch (const Json::exception&) {
    document = Json(Json::value_t::discarded);
  }
  if (document.is_discarded()) return failure("", "not valid JSON");
  if (!document.is_object()) return failure("", "not a JSON object");
  const auto version = document.find("version");
  if (version == document.end() || !version->is_string()) {
    return failure("version", "must be a string");
  }
  if (*version != kManifestVersion) {
    return failure("version", "is \"" + version->get<std::string>() + "\"; this stguard reads \"" +
                                  std::string(kManifestVersion) + "\"");
  }
  const auto cases = document.find("cases");
  if (cases == document.end() || !cases->is_array()) return failure("cases", "must be an array");

  Manifest manifest;
  if (const auto corpus_version = document.find("corpus_version");
      corpus_version != document.end()) {
    if (!corpus_version->is_string()) return failure("corpus_version", "must be a string");
    manifest.corpus_version = corpus_version->get<std::string>();
  }
  if (std::optional<std::string> problem = read_rules(document, manifest.rules)) {
    return failure("rules", std::move(*problem));
  }
  manifest.cases.reserve(cases->size());
  std::unordered_map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < cases->size(); ++i) {
    CaseReader reader;
    Case& c = manifest.cases.emplace_back();
    if (read_case((*cases)[i], reader, c)) {
      const auto [it, inserted] = seen.emplace(c.id, i);
      if (!inserted) reader.fail("id", "is also the id of case " + std::to_string(it->second));
    }
    if (!reader.ok()) {
      e.case_index = i;
      e.case_id = c.id;
      return failure(reader.field(), reader.problem());
    }
  }
  return manifest;
}

ManifestResult<Manifest> read_manifest(const std::filesystem::path& path) {
  const base::Result<std::string> text = base::read_file(path);
  if (!text) {
    ManifestError e;
    e.problem = text.error().message;
    return e;
  }
  ManifestResult<Manifest> manifest = parse_manifest(*text);
  if (manifest) return manifest;
  ManifestError e = std::move(manifest).error();
  e.path = path.string();
  return e;
}

std::string write_manifest(const Manifest& manifest) {
  Json root = Json::object();
  root["version"] = std::string(kManifestVersion);
  if (!manifest.corpus_version.empty()) root["corpus_version"] = manifest.corpus_version;
  if (!manifest.rules.empty()) {
    Json rules = Json::array();
    for (const Rule& rule : manifest.rules) rules.push_back(rule_json(rule));
    root["rules"] = std::move(rules);
  }
  Json list = Json::array();
  for (const Case& c : manifest.cases) list.push_back(case_json(c));
  root["cases"] = std::move(list);
  std::string out;
  write_value(out, root, 0);
  out += "\n";
  return out;
}

}  // namespace stguard::conformance
