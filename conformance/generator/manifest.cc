#include "generator/manifest.h"

#include <map>
#include <nlohmann/json.hpp>

namespace stguard::conformance {
namespace {

using Json = nlohmann::ordered_json;

std::string scalar(const Json& j) {
  // ensure_ascii=false keeps UTF-8 readable; U+0000 and other controls are
  // still escaped by the serializer.
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

Json case_json(const BuiltCase& c) {
  const Recipe& r = *c.recipe;
  Json j = Json::object();
  j["id"] = r.id;
  j["file"] = c.file;
  j["sha256"] = c.sha256;
  j["size"] = c.size;
  j["description"] = r.description;
  j["rules"] = r.rules;
  j["verdict"] = r.verdict();
  j["strict"] = r.strict.accept ? "accept" : "reject";
  j["reference"] = r.reference.accept ? "accept" : "reject";
  const std::string reason = r.manifest_reason();
  j["reason"] = reason.empty() ? Json(nullptr) : Json(reason);
  j["tags"] = r.tags;
  j["expected"] = expected_json(c.expected);
  return j;
}

std::string replace_all(std::string text, std::string_view key, const std::string& value) {
  std::size_t pos = 0;
  while ((pos = text.find(key, pos)) != std::string::npos) {
    text.replace(pos, key.size(), value);
    pos += value.size();
  }
  return text;
}

}  // namespace

std::string manifest_json(std::span<const BuiltCase> cases) {
  Json root = Json::object();
  root["version"] = std::string(kManifestVersion);
  Json list = Json::array();
  for (const BuiltCase& c : cases) list.push_back(case_json(c));
  root["cases"] = std::move(list);
  std::string out;
  write_value(out, root, 0);
  out += "\n";
  return out;
}

std::string corpus_readme(const RecipeSet& set, const Corpus& corpus,
                          std::string_view template_text) {
  struct Counts {
    int accept = 0, reject = 0, either = 0, on_demand = 0;
  };
  std::map<std::string, Counts> by_group;
  Counts total;
  const auto count = [&](const BuiltCase& c, bool on_demand) {
    Counts& g = by_group[c.recipe->group];
    if (on_demand) {
      ++g.on_demand;
      ++total.on_demand;
      return;
    }
    const std::string v = c.recipe->verdict();
    int Counts::*field = v == "accept"   ? &Counts::accept
                         : v == "reject" ? &Counts::reject
                                         : &Counts::either;
    ++(g.*field);
    ++(total.*field);
  };
  for (const BuiltCase& c : corpus.cases) count(c, false);
  for (const BuiltCase& c : corpus.on_demand) count(c, true);

  std::string table =
      "| group | what it covers | cases | accept | reject | either | on demand |\n"
      "|---|---|---:|---:|---:|---:|---:|\n";
  for (const Group& g : set.groups) {
    const Counts& n = by_group[g.name];
    table += "| `" + g.name + "` | " + g.about + " | " +
             std::to_string(n.accept + n.reject + n.either) + " | " + std::to_string(n.accept) +
             " | " + std::to_string(n.reject) + " | " + std::to_string(n.either) + " | " +
             std::to_string(n.on_demand) + " |\n";
  }
  const int committed = total.accept + total.reject + total.either;
  table += "| **total** | | **" + std::to_string(committed) + "** | " +
           std::to_string(total.accept) + " | " + std::to_string(total.reject) + " | " +
           std::to_string(total.either) + " | " + std::to_string(total.on_demand) + " |\n";

  std::string on_demand;
  for (const BuiltCase& c : corpus.on_demand) {
    const std::string reason = c.recipe->manifest_reason();
    on_demand += "- `" + c.recipe->id + "` (" + c.recipe->verdict() +
                 (reason.empty() ? "" : ", " + reason) + ", " + std::to_string(c.size) +
                 " bytes): " + c.recipe->description + "\n";
  }

  std::string text(template_text);
  text = replace_all(std::move(text), "@CASE_TABLE@", table);
  text = replace_all(std::move(text), "@CASE_TOTAL@", std::to_string(committed));
  text = replace_all(std::move(text), "@EITHER_TOTAL@", std::to_string(total.either));
  text = replace_all(std::move(text), "@ON_DEMAND_LIST@", on_demand);
  text = replace_all(std::move(text), "@MANIFEST_VERSION@", std::string(kManifestVersion));
  return text;
}

}  // namespace stguard::conformance
