#include "conformance/generator/recipe.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "base/file_io.h"
#include "conformance/generator/recipe_error.h"
#include "stguard/error.h"

namespace stguard::conformance {
namespace {

bool is_kebab(std::string_view s) {
  if (s.empty() || s.front() == '-' || s.back() == '-') return false;
  char prev = 0;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    if (!ok || (c == '-' && prev == '-')) return false;
    prev = c;
  }
  return true;
}

// Free-form tags are kebab-case words, optionally with one "prefix:".
bool is_tag(std::string_view s) {
  const std::size_t colon = s.find(':');
  if (colon == std::string_view::npos) return is_kebab(s);
  return is_kebab(s.substr(0, colon)) && is_kebab(s.substr(colon + 1));
}

std::string trim(std::string_view s) {
  const auto not_space = [](char c) { return c != ' ' && c != '\t'; };
  auto b = std::find_if(s.begin(), s.end(), not_space);
  auto e = std::find_if(s.rbegin(), s.rend(), not_space).base();
  return b < e ? std::string(b, e) : std::string();
}

std::vector<std::string> split_list(std::string_view value) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= value.size()) {
    std::size_t comma = value.find(',', start);
    if (comma == std::string_view::npos) comma = value.size();
    std::string item = trim(value.substr(start, comma - start));
    if (!item.empty()) out.push_back(std::move(item));
    start = comma + 1;
  }
  return out;
}

[[noreturn]] void fail(const SourceLine& at, const std::string& message) {
  throw RecipeError(at.where() + ": " + message);
}

// The lines of a whole file, as std::getline would give them (no empty last
// line after a final newline).
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const std::size_t newline = text.find('\n');
    lines.push_back(text.substr(0, newline));
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
  }
  return lines;
}

std::string read_text(const std::filesystem::path& path) {
  base::Result<std::string> text = base::read_file(path);
  if (!text) throw RecipeReadError(text.error().message);
  return std::move(*text);
}

// Reads a JSON string literal (quotes included) from the front of `s`,
// honouring backslash escapes only to find the closing quote. The content is
// not validated here: rejected cases may carry broken escapes on purpose.
std::string take_string_literal(std::string_view& s, const SourceLine& at) {
  if (s.empty() || s.front() != '"') fail(at, "expected a \"quoted\" JSON string");
  std::size_t i = 1;
  while (i < s.size() && s[i] != '"') i += (s[i] == '\\') ? std::size_t{2} : std::size_t{1};
  if (i >= s.size()) fail(at, "unterminated string literal");
  std::string lit(s.substr(0, i + 1));
  s.remove_prefix(i + 1);
  return lit;
}

// A space-separated token; a `directive` inside it may contain spaces.
std::string take_token(std::string_view& s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  std::size_t n = 0;
  while (n < s.size() && s[n] != ' ') {
    if (s[n] == '`') {
      const std::size_t close = s.find('`', n + 1);
      n = close == std::string_view::npos ? s.size() : close;
    }
    ++n;
  }
  if (n > s.size()) n = s.size();
  std::string tok(s.substr(0, n));
  s.remove_prefix(n);
  return tok;
}

ProfileExpectation parse_expectation(std::string_view value, const SourceLine& at) {
  ProfileExpectation e;
  std::string_view rest = value;
  const std::string verdict = take_token(rest);
  if (verdict == "accept") {
    e.accept = true;
    if (!trim(rest).empty()) fail(at, "nothing may follow `accept`");
    return e;
  }
  if (verdict != "reject") fail(at, "expected `accept` or `reject REASON [@ OFFSET]`");
  e.reason = take_token(rest);
  const std::optional<Reason> reason = reason_from_name(e.reason);
  if (!reason || *reason == Reason::kIoError) fail(at, "unknown reason `" + e.reason + "`");
  const std::string tail = trim(rest);
  if (!tail.empty()) {
    if (tail.front() != '@') fail(at, "expected `@ OFFSET` after the reason");
    std::string expr = trim(std::string_view(tail).substr(1));
    if (expr.empty()) fail(at, "empty offset after `@`");
    e.offset_expr = std::move(expr);
  }
  return e;
}

TensorSpec parse_tensor(std::string_view value, const SourceLine& at) {
  TensorSpec t;
  t.source = at;
  t.name_literal = take_string_literal(value, at);
  t.dtype = take_token(value);
  t.shape = take_token(value);
  t.begin = take_token(value);
  t.end = take_token(value);
  if (t.end.empty() || !trim(value).empty()) {
    fail(at, "expected `tensor: \"name\" DTYPE SHAPE BEGIN END`");
  }
  return t;
}

MetaSpec parse_meta(std::string_view value, const SourceLine& at) {
  MetaSpec m;
  m.source = at;
  m.key_literal = take_string_literal(value, at);
  while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  m.value_literal = take_string_literal(value, at);
  if (!trim(value).empty()) fail(at, "expected `meta: \"key\" \"value\"`");
  return m;
}

void set_once(std::optional<std::string>& slot, std::string value, const SourceLine& at,
              std::string_view key) {
  if (slot) fail(at, "`" + std::string(key) + ":` given twice");
  slot = std::move(value);
}

void check_recipe(const Recipe& r, const Vocabulary& vocab) {
  const SourceLine& at = r.source;
  if (r.description.empty()) fail(at, r.id + ": missing `description:`");
  if (r.rules.empty()) fail(at, r.id + ": missing `rules:`");
  if (r.strict.reason.empty() && !r.strict.accept) fail(at, r.id + ": missing `strict:`");
  if (r.reference.reason.empty() && !r.reference.accept) {
    fail(at, r.id + ": missing `reference:`");
  }
  for (const std::string& rule : r.rules) {
    if (!vocab.rules.count(rule)) fail(at, r.id + ": rule `" + rule + "` is not declared");
  }
  std::set<std::string> seen_tags;
  for (const std::string& tag : r.tags) {
    if (!is_tag(tag)) fail(at, r.id + ": malformed tag `" + tag + "`");
    if (!seen_tags.insert(tag).second) fail(at, r.id + ": tag `" + tag + "` repeated");
    const bool coverage_tag = tag.rfind("ref:", 0) == 0 || tag.rfind("bug:", 0) == 0;
    if (coverage_tag && !vocab.coverage.count(tag)) {
      fail(at, r.id + ": tag `" + tag + "` is not declared in vocabulary.txt");
    }
  }
  if (r.strict.accept && !r.reference.accept) {
    fail(at, r.id + ": strict accepts but reference rejects (strict must be the narrower profile)");
  }
  const bool tagged = seen_tags.count("contested") != 0;
  if (tagged != r.contested()) {
    fail(at, r.id + ": the `contested` tag must be present exactly when the profiles disagree");
  }
  if (!r.file.empty()) {
    if (r.has_raw_header() || !r.tensors.empty() || !r.meta.empty() || !r.data.empty() ||
        r.length || r.pad || r.pad_to || r.align || r.truncate || r.metadata_empty) {
      fail(at, r.id + ": `file:` gives the whole file; no other byte-making key may be used");
    }
    if (r.accepted_by_any() && !r.tensors_none) {
      fail(at, r.id + ": an accepted `file:` case must say `tensors: none`");
    }
  }
  if ((r.pad ? 1 : 0) + (r.pad_to ? 1 : 0) + (r.align ? 1 : 0) > 1) {
    fail(at, r.id + ": use only one of `pad:`, `pad-to:`, `align:`");
  }
  if (r.tensors_none && !r.tensors.empty()) {
    fail(at, r.id + ": `tensors: none` together with `tensor:` lines");
  }
  if (r.metadata_empty && !r.meta.empty()) {
    fail(at, r.id + ": `metadata: empty` together with `meta:` lines");
  }
  if (r.has_raw_header()) {
    const bool states_content =
        !r.tensors.empty() || !r.meta.empty() || r.metadata_empty || r.tensors_none;
    if (r.accepted_by_any() && r.tensors.empty() && !r.tensors_none) {
      fail(at, r.id +
                   ": an accepted case with a raw header must list its expected tensors "
                   "(`tensor:` lines) or say `tensors: none`");
    }
    if (!r.accepted_by_any() && states_content) {
      fail(at, r.id +
                   ": a case rejected by both profiles with a raw header has no expected "
                   "content; drop the tensor/meta lines");
    }
  }
}

void load_vocabulary(const std::filesystem::path& path, Vocabulary& vocab) {
  const std::string text = read_text(path);
  int number = 0;
  for (const std::string_view line : lines_of(text)) {
    ++number;
    const SourceLine at{"vocabulary.txt", number};
    if (line.empty() || line.front() == '#') continue;
    std::string_view rest = line;
    std::string id = take_token(rest);
    std::string description = trim(rest);
    if (description.empty()) fail(at, "expected `ID DESCRIPTION`");
    if (id.rfind("rule:", 0) == 0) {
      std::string rule = id.substr(5);
      if (!is_kebab(rule)) fail(at, "rule ids are kebab-case");
      if (!vocab.rules.emplace(rule, description).second) fail(at, "rule declared twice");
    } else if (id.rfind("ref:", 0) == 0 || id.rfind("bug:", 0) == 0) {
      if (!is_tag(id)) fail(at, "malformed tag");
      if (!vocab.coverage.emplace(id, description).second) fail(at, "tag declared twice");
    } else {
      fail(at, "entries start with rule:, ref: or bug:");
    }
  }
}

Group parse_group(std::string_view text, const std::string& name, const std::string& relative,
                  const Vocabulary& vocab) {
  Group group;
  group.name = name;
  group.file = relative;
  if (!is_kebab(group.name)) {
    throw RecipeError(relative + ": group file names are kebab-case (" + group.name + ")");
  }
  int number = 0;
  Recipe* current = nullptr;
  for (const std::string_view line : lines_of(text)) {
    ++number;
    const SourceLine at{relative, number};
    if (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) {
      fail(at, "trailing whitespace (write it with a `spaces N` or `hex` directive)");
    }
    if (line.empty() || line.front() == '#') continue;
    const std::size_t colon = line.find(':');
    if (colon == std::string::npos) fail(at, "expected `key: value`");
    const std::string key(line.substr(0, colon));
    std::string value;
    if (colon + 1 < line.size()) {
      if (line[colon + 1] != ' ') fail(at, "expected one space after `" + key + ":`");
      value = line.substr(colon + 2);
    }
    if (value.empty()) fail(at, "empty value for `" + key + ":`");
    if (key != "header" && (value.front() == ' ' || value.front() == '\t')) {
      fail(at, "more than one space after `" + key + ":`");
    }

    if (key == "about") {
      if (current != nullptr || !group.about.empty()) fail(at, "`about:` comes once, first");
      group.about = value;
      continue;
    }
    if (key == "case") {
      if (!is_kebab(value)) fail(at, "case names are kebab-case: " + value);
      Recipe& r = group.cases.emplace_back();
      r.group = group.name;
      r.name = value;
      r.id = group.name + "/" + value;
      r.source = at;
      current = &r;
      continue;
    }
    if (current == nullptr) fail(at, "`" + key + ":` before the first `case:`");
    Recipe& r = *current;
    if (key == "description") {
      if (!r.description.empty()) fail(at, "`description:` given twice");
      r.description = value;
    } else if (key == "rules") {
      if (!r.rules.empty()) fail(at, "`rules:` given twice");
      r.rules = split_list(value);
    } else if (key == "tags") {
      if (!r.tags.empty()) fail(at, "`tags:` given twice");
      r.tags = split_list(value);
    } else if (key == "strict" || key == "reference") {
      ProfileExpectation& slot = key == "strict" ? r.strict : r.reference;
      if (slot.accept || !slot.reason.empty()) fail(at, "`" + key + ":` given twice");
      slot = parse_expectation(value, at);
    } else if (key == "header") {
      if (value.front() == ' ' || value.front() == '\t') {
        fail(at, "header text starts with whitespace (write it with `spaces N` or `hex`)");
      }
      r.header_lines.push_back(value);
      r.header_sources.push_back(at);
    } else if (key == "tensor") {
      r.tensors.push_back(parse_tensor(value, at));
    } else if (key == "tensors") {
      if (value != "none") fail(at, "`tensors:` takes only `none`");
      r.tensors_none = true;
    } else if (key == "meta") {
      r.meta.push_back(parse_meta(value, at));
    } else if (key == "metadata") {
      if (value != "empty") fail(at, "`metadata:` takes only `empty`");
      r.metadata_empty = true;
    } else if (key == "data") {
      r.data.push_back({value, at});
    } else if (key == "append") {
      r.append.push_back({value, at});
    } else if (key == "file") {
      r.file.push_back({value, at});
    } else if (key == "length") {
      set_once(r.length, value, at, key);
    } else if (key == "pad") {
      set_once(r.pad, value, at, key);
    } else if (key == "pad-to") {
      set_once(r.pad_to, value, at, key);
    } else if (key == "align") {
      set_once(r.align, value, at, key);
    } else if (key == "truncate") {
      set_once(r.truncate, value, at, key);
    } else {
      fail(at, "unknown key `" + key + "`");
    }
  }
  if (group.about.empty()) throw RecipeError(relative + ": missing `about:` line");
  for (const Recipe& r : group.cases) check_recipe(r, vocab);
  return group;
}

Group load_group(const std::filesystem::path& path, const std::string& relative,
                 const Vocabulary& vocab) {
  return parse_group(read_text(path), path.stem().string(), relative, vocab);
}

}  // namespace

std::string SourceLine::where() const {
  return line > 0 ? file + ":" + std::to_string(line) : file;
}

bool Recipe::on_demand() const {
  return std::find(tags.begin(), tags.end(), "on-demand") != tags.end();
}

std::string Recipe::manifest_reason() const {
  if (!strict.accept) return strict.reason;
  return reference.reason;  // empty when reference accepts too
}

std::vector<const Recipe*> RecipeSet::all() const {
  std::vector<const Recipe*> out;
  for (const Group& g : groups) {
    for (const Recipe& r : g.cases) out.push_back(&r);
  }
  std::sort(out.begin(), out.end(), [](const Recipe* a, const Recipe* b) { return a->id < b->id; });
  return out;
}

base::Result<RecipeSet> load_recipes(const std::filesystem::path& dir) {
  return load_recipes_with(dir, {}, {});
}

namespace {

RecipeSet load_recipes_throwing(const std::filesystem::path& dir, const std::string& group,
                                std::string_view group_text) {
  RecipeSet set;
  set.dir = dir;
  load_vocabulary(dir / "vocabulary.txt", set.vocabulary);

  const std::filesystem::path cases = dir / "cases";
  std::error_code ec;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(cases, ec)) {
    if (entry.is_regular_file() && entry.path().extension() == ".txt") {
      files.push_back(entry.path());
    }
  }
  if (ec) throw RecipeReadError(cases.string() + ": " + ec.message());
  const std::filesystem::path replaced =
      group.empty() ? std::filesystem::path() : cases / (group + ".txt");
  if (!group.empty() && std::find(files.begin(), files.end(), replaced) == files.end()) {
    files.push_back(replaced);
  }
  if (files.empty()) throw RecipeError(cases.string() + ": no recipe files (*.txt)");
  std::sort(files.begin(), files.end());

  std::set<std::string> ids;
  for (const auto& path : files) {
    const std::string relative = "cases/" + path.filename().string();
    Group g = path == replaced ? parse_group(group_text, group, relative, set.vocabulary)
                               : load_group(path, relative, set.vocabulary);
    for (const Recipe& r : g.cases) {
      if (!ids.insert(r.id).second) fail(r.source, "case id `" + r.id + "` used twice");
    }
    set.groups.push_back(std::move(g));
  }

  // Every docs/reference-profile.md row and reader-bug class declared must have a case.
  std::set<std::string> used;
  for (const Group& g : set.groups) {
    for (const Recipe& r : g.cases) used.insert(r.tags.begin(), r.tags.end());
  }
  std::string missing;
  for (const auto& [tag, description] : set.vocabulary.coverage) {
    if (!used.count(tag)) missing += " " + tag;
  }
  if (!missing.empty()) {
    throw RecipeError("vocabulary.txt: declared but no case carries:" + missing);
  }
  return set;
}

}  // namespace

base::Result<RecipeSet> load_recipes_with(const std::filesystem::path& dir,
                                          const std::string& group, std::string_view group_text) {
  return recipe_result<RecipeSet>([&] { return load_recipes_throwing(dir, group, group_text); });
}

}  // namespace stguard::conformance
