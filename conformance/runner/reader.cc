// conformance/runner/reader.cc: reader specs from --adapter and reader.json.
#include "conformance/runner/reader.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <tuple>

#include "base/file_io.h"
#include "base/json.h"
#include "conformance/model/release.h"

namespace stguard::conformance {
namespace {

using nlohmann::json;

constexpr std::string_view kSelfPlaceholder = "${STGUARD}";

// The array of strings `key` of `object` into `out`; absent or null is an
// error only when `required`.
base::Result<void> read_words(const json& object, const char* key, bool required,
                              std::vector<std::string>& out) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (required) return base::fail(std::string("\"") + key + "\" is missing");
    return {};
  }
  const std::string not_words = std::string("\"") + key + "\" must be a non-empty array of strings";
  if (!it->is_array() || it->empty()) return base::fail(not_words);
  for (const json& word : *it) {
    if (!word.is_string()) return base::fail(not_words);
    out.push_back(word.get<std::string>());
  }
  return {};
}

void substitute_self(std::vector<std::string>& words, const std::filesystem::path& self) {
  for (std::string& word : words) {
    if (word == kSelfPlaceholder) word = self.string();
  }
}

}  // namespace

base::Result<std::vector<std::string>> split_command(std::string_view text) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) words.push_back(std::move(word));
      word.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '\'') {
      std::size_t close = text.find('\'', i + 1);
      if (close == std::string_view::npos) {
        return base::fail("unterminated ' in command");
      }
      word.append(text.substr(i + 1, close - i - 1));
      i = close;
    } else if (c == '"') {
      std::size_t j = i + 1;
      for (; j < text.size() && text[j] != '"'; ++j) {
        if (text[j] == '\\' && j + 1 < text.size() && (text[j + 1] == '"' || text[j + 1] == '\\')) {
          ++j;
        }
        word.push_back(text[j]);
      }
      if (j >= text.size()) {
        return base::fail("unterminated \" in command");
      }
      i = j;
    } else if (c == '\\' && i + 1 < text.size()) {
      word.push_back(text[++i]);
    } else {
      word.push_back(c);
    }
  }
  if (in_word) words.push_back(std::move(word));
  if (words.empty()) {
    return base::fail("empty command");
  }
  return words;
}

base::Result<ReaderSpec> reader_from_command(std::string_view command, std::string_view name,
                                             AdapterMode mode) {
  base::Result<std::vector<std::string>> words = split_command(command);
  if (!words) return words.error();
  ReaderSpec spec;
  spec.command = std::move(*words);
  spec.name =
      name.empty() ? std::filesystem::path(spec.command[0]).filename().string() : std::string(name);
  spec.mode = mode;
  spec.working_dir = std::filesystem::current_path();
  return spec;
}

base::Result<ReaderSpec> load_reader_dir(const std::filesystem::path& dir,
                                         const std::filesystem::path& self_executable,
                                         std::string_view file_name) {
  const std::filesystem::path path = dir / file_name;
  const base::Result<std::string> text = base::read_file(path);
  if (!text) return text.error();
  // A repeated key would leave one of its values in force silently, as a
  // repeated key in a header would.
  if (const std::string duplicate = base::first_duplicate_key(*text); !duplicate.empty()) {
    return base::fail(path.string() + ": " + duplicate);
  }
  json object = json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (object.is_discarded() || !object.is_object()) {
    return base::fail(path.string() + ": not a JSON object");
  }
  ReaderSpec spec;
  auto name = object.find("name");
  if (name == object.end() || !name->is_string() || name->get<std::string>().empty()) {
    return base::fail(path.string() + ": \"name\" must be a non-empty string");
  }
  spec.name = name->get<std::string>();
  if (auto d = object.find("description"); d != object.end() && d->is_string()) {
    spec.description = d->get<std::string>();
  }
  const std::tuple<const char*, bool, std::vector<std::string>*> word_lists[] = {
      {"command", true, &spec.command},
      {"version_command", false, &spec.version_command},
      {"setup", false, &spec.setup},
      {"persistent_command", false, &spec.persistent_command}};
  for (const auto& [key, required, out] : word_lists) {
    if (base::Result<void> read = read_words(object, key, required, *out); !read) {
      return read.error().in(path.string());
    }
  }
  if (auto i = object.find("implements"); i != object.end()) {
    if (!i->is_string() || !is_release(i->get_ref<const std::string&>())) {
      return base::fail(path.string() +
                        ": \"implements\" must be an upstream release, e.g. \"0.5\"");
    }
    spec.implements = i->get<std::string>();
  }
  std::string mode = "json";
  if (auto m = object.find("mode"); m != object.end()) {
    mode = m->is_string() ? m->get<std::string>() : "";
  }
  if (mode == "json") {
    spec.mode = AdapterMode::kJson;
  } else if (mode == "plain") {
    spec.mode = AdapterMode::kPlain;
  } else {
    return base::fail(path.string() + ": \"mode\" must be \"json\" or \"plain\"");
  }
  if (spec.mode == AdapterMode::kPlain && !spec.persistent_command.empty()) {
    return base::fail(path.string() + ": \"persistent_command\" needs \"mode\": \"json\"");
  }
  spec.runs_self = !spec.command.empty() && spec.command.front() == kSelfPlaceholder;
  substitute_self(spec.command, self_executable);
  substitute_self(spec.version_command, self_executable);
  substitute_self(spec.setup, self_executable);
  substitute_self(spec.persistent_command, self_executable);
  spec.working_dir = std::filesystem::absolute(dir);
  return spec;
}

std::vector<std::filesystem::path> find_reader_dirs(const std::filesystem::path& dir,
                                                    std::string_view file_name) {
  std::vector<std::filesystem::path> dirs;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
    if (entry.is_directory(ec) && std::filesystem::exists(entry.path() / file_name, ec)) {
      dirs.push_back(entry.path());
    }
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

std::string command_text(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& word : words) {
    if (!out.empty()) out += ' ';
    bool plain = !word.empty() && word.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    if (plain) {
      out += word;
      continue;
    }
    out += '\'';
    for (char c : word) {
      if (c == '\'') {
        out += "'\\''";
      } else {
        out += c;
      }
    }
    out += '\'';
  }
  return out;
}

}  // namespace stguard::conformance
