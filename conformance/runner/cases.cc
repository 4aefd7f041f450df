// conformance/runner/cases.cc: corpus/manifest.json for the runner.
#include "runner/cases.h"

#include <fnmatch.h>

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace stguard::conform {
namespace {

using nlohmann::json;

// Manifest numbers are written by the generator as JSON unsigned integers;
// anything else is a broken manifest.
bool read_u64(const json& value, std::uint64_t& out) {
  if (!value.is_number_unsigned()) return false;
  out = value.get<std::uint64_t>();
  return true;
}

bool read_string(const json& object, const char* key, std::string& out) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_string()) return false;
  out = it->get<std::string>();
  return true;
}

std::optional<ExpectedTensor> read_tensor(const json& value) {
  ExpectedTensor tensor;
  if (!value.is_object() || !read_string(value, "name", tensor.name) ||
      !read_string(value, "dtype", tensor.dtype) || !read_string(value, "sha256", tensor.sha256)) {
    return std::nullopt;
  }
  auto shape = value.find("shape");
  auto offsets = value.find("data_offsets");
  if (shape == value.end() || !shape->is_array() || offsets == value.end() ||
      !offsets->is_array() || offsets->size() != 2) {
    return std::nullopt;
  }
  for (const json& dim : *shape) {
    std::uint64_t d = 0;
    if (!read_u64(dim, d)) return std::nullopt;
    tensor.shape.push_back(d);
  }
  if (!read_u64((*offsets)[0], tensor.begin) || !read_u64((*offsets)[1], tensor.end)) {
    return std::nullopt;
  }
  return tensor;
}

std::string read_case(const json& value, const std::filesystem::path& corpus_dir, CaseSpec& spec) {
  if (!value.is_object()) return "not an object";
  std::string file;
  if (!read_string(value, "id", spec.id) || spec.id.empty()) return "missing \"id\"";
  if (!read_string(value, "file", file) || file.empty()) return "missing \"file\"";
  // A manifest names files inside the corpus only.
  std::filesystem::path relative(file);
  if (relative.is_absolute() || file.find("..") != std::string::npos) {
    return "\"file\" must be a relative path inside the corpus";
  }
  spec.file = corpus_dir / relative;
  spec.group = spec.id.substr(0, spec.id.find('/'));
  if (!read_string(value, "verdict", spec.verdict) ||
      (spec.verdict != "accept" && spec.verdict != "reject" && spec.verdict != "either")) {
    return "\"verdict\" must be accept, reject or either";
  }
  read_string(value, "description", spec.description);
  read_string(value, "reason", spec.reason);  // null for accepted cases
  if (auto tags = value.find("tags"); tags != value.end() && tags->is_array()) {
    for (const json& tag : *tags) {
      if (tag.is_string()) spec.tags.push_back(tag.get<std::string>());
    }
  }
  auto expected = value.find("expected");
  if (expected != value.end() && expected->is_object()) {
    auto tensors = expected->find("tensors");
    if (tensors == expected->end() || !tensors->is_array()) return "\"expected\" has no tensors";
    std::vector<ExpectedTensor> list;
    for (const json& t : *tensors) {
      std::optional<ExpectedTensor> tensor = read_tensor(t);
      if (!tensor) return "malformed expected tensor";
      list.push_back(std::move(*tensor));
    }
    spec.expected_tensors = std::move(list);
  }
  if (spec.verdict != "reject" && !spec.expected_tensors) {
    return "an accept/either case needs \"expected\" tensors";
  }
  return {};
}

}  // namespace

std::optional<Corpus> load_corpus(const std::filesystem::path& corpus_dir, std::string* error) {
  const std::filesystem::path manifest_path = corpus_dir / "manifest.json";
  std::ifstream in(manifest_path, std::ios::binary);
  if (!in) {
    *error = "cannot read " + manifest_path.string();
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  json manifest = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (manifest.is_discarded() || !manifest.is_object()) {
    *error = manifest_path.string() + ": not a JSON object";
    return std::nullopt;
  }
  Corpus corpus;
  const std::filesystem::path absolute_dir = std::filesystem::absolute(corpus_dir);
  if (auto version = manifest.find("version"); version != manifest.end() && version->is_string()) {
    corpus.version = version->get<std::string>();
  }
  auto cases = manifest.find("cases");
  if (cases == manifest.end() || !cases->is_array()) {
    *error = manifest_path.string() + ": no \"cases\" array";
    return std::nullopt;
  }
  std::size_t index = 0;
  for (const json& value : *cases) {
    CaseSpec spec;
    std::string problem = read_case(value, absolute_dir, spec);
    if (!problem.empty()) {
      *error = manifest_path.string() + ": case " + std::to_string(index) +
               (spec.id.empty() ? "" : " (" + spec.id + ")") + ": " + problem;
      return std::nullopt;
    }
    corpus.cases.push_back(std::move(spec));
    ++index;
  }
  std::sort(corpus.cases.begin(), corpus.cases.end(),
            [](const CaseSpec& a, const CaseSpec& b) { return a.id < b.id; });
  for (std::size_t i = 1; i < corpus.cases.size(); ++i) {
    if (corpus.cases[i].id == corpus.cases[i - 1].id) {
      *error = manifest_path.string() + ": case id \"" + corpus.cases[i].id + "\" twice";
      return std::nullopt;
    }
  }
  return corpus;
}

bool CaseFilter::matches(const CaseSpec& spec) const {
  bool id_ok = id_globs.empty() ||
               std::any_of(id_globs.begin(), id_globs.end(), [&](const std::string& glob) {
                 return ::fnmatch(glob.c_str(), spec.id.c_str(), 0) == 0;
               });
  bool tag_ok = tags.empty() || std::any_of(tags.begin(), tags.end(), [&](const std::string& tag) {
                  return std::find(spec.tags.begin(), spec.tags.end(), tag) != spec.tags.end();
                });
  return id_ok && tag_ok;
}

}  // namespace stguard::conform
