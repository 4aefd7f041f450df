#include "conformance/generator/recipe.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>

#include "base/file_io.h"
#include "conformance/generator/grammar_walk.h"
#include "conformance/generator/recipe_error.h"
#include "conformance/model/release.h"
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

Recipe repaired_recipe_throwing(const Recipe& r);

void check_recipe(const Recipe& r, const Vocabulary& vocab) {
  const SourceLine& at = r.source;
  if (r.description.empty()) fail(at, r.id + ": missing `description:`");
  if (r.rules.empty()) fail(at, r.id + ": missing `rules:`");
  if (r.strict.reason.empty() && !r.strict.accept) fail(at, r.id + ": missing `strict:`");
  if (r.reference.reason.empty() && !r.reference.accept) {
    fail(at, r.id + ": missing `reference:`");
  }
  std::set<std::string> seen_rules;
  for (const std::string& rule : r.rules) {
    if (vocab.rule(rule) == nullptr) fail(at, r.id + ": rule `" + rule + "` is not declared");
    if (!seen_rules.insert(rule).second) fail(at, r.id + ": rule `" + rule + "` repeated");
  }
  // A rejected case names the rule it breaks: one whose reasons include the
  // reason strict gives (reference's may differ: it stops elsewhere).
  if (!r.strict.accept) {
    const bool named = std::any_of(r.rules.begin(), r.rules.end(), [&](const std::string& id) {
      const std::vector<std::string>& reasons = vocab.rule(id)->reasons;
      return std::find(reasons.begin(), reasons.end(), r.strict.reason) != reasons.end();
    });
    if (!named) {
      fail(at, r.id + ": no rule in `rules:` is reported by " + r.strict.reason +
                   " (vocabulary.txt lists each rule's reasons)");
    }
  }
  if (!r.repair.empty() && r.strict.accept && r.reference.accept) {
    fail(at, r.id + ": `repair:` belongs to cases a profile rejects");
  }
  if (!r.repair.empty()) repaired_recipe_throwing(r);  // every repair line makes bytes
  if (r.since &&
      std::find(vocab.releases.begin(), vocab.releases.end(), *r.since) == vocab.releases.end()) {
    fail(at, r.id + ": `since: " + *r.since + "` is not a release declared in vocabulary.txt");
  }
  std::set<std::string> seen_tags;
  for (const std::string& tag : r.tags) {
    if (!is_tag(tag)) fail(at, r.id + ": malformed tag `" + tag + "`");
    if (!seen_tags.insert(tag).second) fail(at, r.id + ": tag `" + tag + "` repeated");
    const bool coverage_tag =
        tag.rfind("ref:", 0) == 0 || tag.rfind("bug:", 0) == 0 || tag.rfind("proposed:", 0) == 0;
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

Rule parse_rule(std::string id, std::string_view rest, const SourceLine& at) {
  Rule rule;
  rule.id = std::move(id);
  if (!is_rule_id(rule.id)) fail(at, "rule ids are ST-<LETTERS>-<NUMBER>, e.g. ST-LEN-1");
  const std::optional<RuleEnforcement> enforcement = rule_enforcement_from_name(take_token(rest));
  if (!enforcement)
    fail(at, "expected `rule:ID both|strict|accepted|environment REASONS|- SUMMARY`");
  rule.enforcement = *enforcement;
  const std::string reasons = take_token(rest);
  if (reasons != "-") {
    for (std::string& reason : split_list(reasons)) {
      if (!reason_from_name(reason)) fail(at, "unknown reason `" + reason + "`");
      rule.reasons.push_back(std::move(reason));
    }
  }
  if (rule.reasons.empty() != (rule.enforcement == RuleEnforcement::kAccepted)) {
    fail(at, "a rule lists the reasons that report a break, and `-` exactly when `accepted`");
  }
  rule.summary = trim(rest);
  if (rule.summary.empty()) fail(at, "a rule needs its summary");
  return rule;
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
      Rule rule = parse_rule(id.substr(5), rest, at);
      if (vocab.rule(rule.id) != nullptr) fail(at, "rule declared twice");
      vocab.rules.push_back(std::move(rule));
    } else if (id.rfind("release:", 0) == 0) {
      std::string release = id.substr(8);
      if (!is_release(release)) fail(at, "releases are written 0.4.0");
      if (std::find(vocab.releases.begin(), vocab.releases.end(), release) !=
          vocab.releases.end()) {
        fail(at, "release declared twice");
      }
      if (!vocab.releases.empty() && compare_releases(vocab.releases.back(), release) >= 0) {
        fail(at, "releases are declared oldest first");
      }
      vocab.releases.push_back(std::move(release));
    } else if (id.rfind("ref:", 0) == 0 || id.rfind("bug:", 0) == 0 ||
               id.rfind("proposed:", 0) == 0) {
      if (!is_tag(id)) fail(at, "malformed tag");
      if (!vocab.coverage.emplace(id, description).second) fail(at, "tag declared twice");
    } else {
      fail(at, "entries start with rule:, release:, ref:, bug: or proposed:");
    }
  }
}

// The keys that make bytes (every key but case, description, rules, since,
// tags, strict, reference and repair). Applies one to `r`; false when `key`
// is not one of them.
bool apply_byte_key(Recipe& r, const std::string& key, const std::string& value,
                    const SourceLine& at) {
  if (key == "header") {
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
    return false;
  }
  return true;
}

// The name literal of a `tensor:` or `meta:` value, which a repair line of
// the same key and name replaces in place.
std::string named_literal(const RecipeLine& line) {
  if (line.key != "tensor" && line.key != "meta") return {};
  std::string_view rest = line.value;
  if (rest.rfind("drop ", 0) == 0) rest.remove_prefix(5);
  return rest.empty() || rest.front() != '"' ? std::string()
                                             : take_string_literal(rest, line.source);
}

// `repair: KEY: VALUE` (a line of the repaired file's recipe), `repair:
// drop KEY` or `repair: drop tensor|meta "NAME"`.
RecipeLine parse_repair(const std::string& value, const SourceLine& at) {
  RecipeLine line;
  line.source = at;
  if (value.rfind("drop ", 0) == 0) {
    const std::string rest = value.substr(5);
    const std::size_t space = rest.find(' ');
    if (space == std::string::npos) {
      line.key = rest;
      return line;  // an empty value: drop every KEY line
    }
    line.key = rest.substr(0, space);
    line.value = "drop " + rest.substr(space + 1);  // one named line
    if (named_literal(line).empty())
      fail(at, "only `drop tensor \"NAME\"` or `drop meta \"KEY\"` name a line");
    return line;
  }
  const std::size_t colon = value.find(": ");
  if (colon == std::string::npos || colon == 0 || colon + 2 == value.size()) {
    fail(at, "expected `repair: KEY: VALUE` or `repair: drop KEY`");
  }
  line.key = value.substr(0, colon);
  line.value = value.substr(colon + 2);
  return line;
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
    } else if (key == "since") {
      set_once(r.since, value, at, key);
    } else if (key == "tags") {
      if (!r.tags.empty()) fail(at, "`tags:` given twice");
      r.tags = split_list(value);
    } else if (key == "strict" || key == "reference") {
      ProfileExpectation& slot = key == "strict" ? r.strict : r.reference;
      if (slot.accept || !slot.reason.empty()) fail(at, "`" + key + ":` given twice");
      slot = parse_expectation(value, at);
    } else if (key == "repair") {
      r.repair.push_back(parse_repair(value, at));
    } else if (apply_byte_key(r, key, value, at)) {
      r.byte_lines.push_back({key, value, at});
    } else {
      fail(at, "unknown key `" + key + "`");
    }
  }
  if (group.about.empty()) throw RecipeError(relative + ": missing `about:` line");
  for (const Recipe& r : group.cases) check_recipe(r, vocab);
  return group;
}

Recipe repaired_recipe_throwing(const Recipe& r) {
  Recipe out;
  out.group = r.group;
  out.name = r.name;
  out.id = r.id;
  out.source = r.source;
  out.description = r.description;
  out.rules = r.rules;
  out.tags = r.tags;
  out.since = r.since;
  out.strict = r.strict;
  out.reference = r.reference;
  // A named tensor or metadata line replaces (or, `drop tensor "NAME"`,
  // removes) the line of that name; any other key replaces all its lines.
  std::vector<RecipeLine> lines = r.byte_lines;
  std::set<std::string> replaced_keys;
  std::vector<RecipeLine> added;
  for (const RecipeLine& fix : r.repair) {
    const std::string name = named_literal(fix);
    if (name.empty()) {
      Recipe probe;
      if (fix.key != "tensors" &&
          !apply_byte_key(probe, fix.key, fix.value.empty() ? "none" : fix.value, fix.source)) {
        fail(fix.source, "`repair:` names `" + fix.key + "`, which makes no bytes");
      }
      replaced_keys.insert(fix.key);
      if (!fix.value.empty()) added.push_back(fix);
      continue;
    }
    const bool drop = fix.value.rfind("drop ", 0) == 0;
    const auto same = std::find_if(lines.begin(), lines.end(), [&](const RecipeLine& l) {
      return l.key == fix.key && named_literal(l) == name;
    });
    if (drop) {
      if (same == lines.end()) fail(fix.source, "`repair:` drops " + name + ", which is not there");
      lines.erase(same);
    } else if (same != lines.end()) {
      *same = fix;
    } else {
      lines.push_back(fix);
    }
  }
  for (const RecipeLine& line : lines) {
    if (!replaced_keys.count(line.key)) apply_byte_key(out, line.key, line.value, line.source);
  }
  for (const RecipeLine& line : added) apply_byte_key(out, line.key, line.value, line.source);
  return out;
}

Group load_group(const std::filesystem::path& path, const std::string& relative,
                 const Vocabulary& vocab) {
  return parse_group(read_text(path), path.stem().string(), relative, vocab);
}

}  // namespace

base::Result<Recipe> repaired_recipe(const Recipe& r) {
  return recipe_result<Recipe>([&] { return repaired_recipe_throwing(r); });
}

std::string SourceLine::where() const {
  return line > 0 ? file + ":" + std::to_string(line) : file;
}

void fail(const SourceLine& at, const std::string& message) {
  throw RecipeError(at.where() + ": " + message);
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

const Rule* Vocabulary::rule(std::string_view id) const {
  const auto it =
      std::find_if(rules.begin(), rules.end(), [id](const Rule& r) { return r.id == id; });
  return it == rules.end() ? nullptr : &*it;
}

base::Result<RecipeSet> load_recipes(const std::filesystem::path& dir) {
  return load_recipes_with(dir, {}, {});
}

namespace {

std::optional<CorpusVersion> load_corpus_version(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  const std::string text = read_text(path);
  CorpusVersion v;
  int number = 0;
  for (const std::string_view line : lines_of(text)) {
    ++number;
    const SourceLine at{std::string(kCorpusVersionFile), number};
    if (line.empty() || line.front() == '#') continue;
    if (line.rfind("version: ", 0) == 0 && v.version.empty()) {
      v.version = line.substr(9);
      const bool digits = !v.version.empty() && v.version.front() != '0' && v.version.size() < 10 &&
                          std::all_of(v.version.begin(), v.version.end(),
                                      [](char c) { return c >= '0' && c <= '9'; });
      if (!digits) fail(at, "the version is a positive decimal number");
    } else if (line.rfind("fingerprint: ", 0) == 0 && v.fingerprint.empty()) {
      v.fingerprint = line.substr(13);
      const bool hex = v.fingerprint.size() == 64 &&
                       std::all_of(v.fingerprint.begin(), v.fingerprint.end(), [](char c) {
                         return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                       });
      if (!hex) fail(at, "the fingerprint is 64 lower-case hex digits");
    } else {
      fail(at, "expected `version: N` and `fingerprint: HEX`, once each");
    }
  }
  if (v.version.empty() || v.fingerprint.empty()) {
    throw RecipeError(std::string(kCorpusVersionFile) + ": needs `version:` and `fingerprint:`");
  }
  return v;
}

RecipeSet load_recipes_throwing(const std::filesystem::path& dir, const std::string& group,
                                std::string_view group_text) {
  RecipeSet set;
  set.dir = dir;
  load_vocabulary(dir / "vocabulary.txt", set.vocabulary);
  set.corpus_version = load_corpus_version(dir / kCorpusVersionFile);

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
  // The generated group, parsed and checked like a recipe file.
  {
    Group g = parse_group(grammar_walk_recipes(), std::string(kGrammarGroup),
                          std::string(kGrammarSource), set.vocabulary);
    for (const Recipe& r : g.cases) {
      if (!ids.insert(r.id).second) fail(r.source, "case id `" + r.id + "` used twice");
    }
    const auto at =
        std::lower_bound(set.groups.begin(), set.groups.end(), g.name,
                         [](const Group& a, const std::string& name) { return a.name < name; });
    set.groups.insert(at, std::move(g));
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
