// conformance/hunt/findings.cc: findings.jsonl, findings/, cases.txt and promotion
// (findings.h).
#include "conformance/hunt/findings.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <system_error>

#include "base/file_io.h"
#include "base/hex.h"
#include "base/json.h"
#include "base/output.h"
#include "base/owned_dir.h"
#include "conformance/generator/corpus.h"
#include "conformance/generator/recipe.h"
#include "conformance/hunt/oracle.h"
#include "stguard/stguard.h"

namespace stguard::hunt {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kLineBytes = 96;  // header text per `header:` line
constexpr std::size_t kHexBytes = 32;   // bytes per `data:` / `file:` line

// A rule of docs/spec.md that `reason` reports (conformance/vocabulary.txt
// lists each rule's reasons; promotion checks the pairing). Where several
// rules share a reason this names the first, and the reviewer of the stanza
// narrows it.
std::string_view rule_of(std::string_view reason_text) {
  const std::optional<Reason> reason = reason_from_name(reason_text);
  if (!reason) return "ST-ENT-1";
  switch (*reason) {
    case Reason::kHeaderTooSmall:
      return "ST-LEN-1";
    case Reason::kHeaderTooLarge:
      return "ST-LEN-2";
    case Reason::kHeaderLengthExceedsFile:
      return "ST-LEN-3";
    case Reason::kIoError:
      return "ST-READ-1";
    case Reason::kHeaderNotUtf8:
      return "ST-HDR-1";
    case Reason::kHeaderBadStart:
      return "ST-HDR-2";
    case Reason::kHeaderNotJson:
      return "ST-HDR-3";
    case Reason::kHeaderBadPadding:
      return "ST-HDR-4";
    case Reason::kDuplicateKey:
      return "ST-KEY-1";
    case Reason::kNameInvalid:
      return "ST-NAME-2";
    case Reason::kTensorInvalid:
      return "ST-ENT-1";
    case Reason::kDtypeInvalid:
      return "ST-DTYPE-2";
    case Reason::kShapeInvalid:
      return "ST-SHAPE-1";
    case Reason::kOffsetsInvalid:
      return "ST-OFF-1";
    case Reason::kSizeOverflow:
      return "ST-SIZE-1";
    case Reason::kSubbyteMisaligned:
      return "ST-SIZE-2";
    case Reason::kSizeMismatch:
      return "ST-SIZE-3";
    case Reason::kOffsetOutOfBounds:
      return "ST-LAY-1";
    case Reason::kOffsetGap:
      return "ST-LAY-2";
    case Reason::kOffsetOverlap:
      return "ST-LAY-3";
    case Reason::kTrailingData:
      return "ST-LAY-4";
    case Reason::kMetadataInvalid:
      return "ST-META-1";
    case Reason::kLimitExceeded:
      return "ST-LIM-1";
  }
  return "ST-ENT-1";
}

// What a stanza states about one profile, against what the profile does:
// nullopt when they agree (an offset the stanza leaves out is not checked).
std::optional<std::string> misstated(std::string_view profile,
                                     const conformance::ExpectedOutcome& stated,
                                     const conformance::ExpectedOutcome& real) {
  const auto said = [](const conformance::ExpectedOutcome& o, bool with_offset) {
    std::string text = o.accept ? "accept" : "reject " + o.reason;
    if (!o.accept && with_offset && o.offset) text += " @ " + std::to_string(*o.offset);
    return text;
  };
  const bool agree = stated.accept == real.accept &&
                     (stated.accept || (stated.reason == real.reason &&
                                        (!stated.offset || stated.offset == real.offset)));
  if (agree) return std::nullopt;
  return "the stanza says " + std::string(profile) + ": " + said(stated, true) +
         ", but stguard's " + std::string(profile) + " profile does " +
         said(real, stated.offset.has_value());
}

std::string outcome_line(const conformance::ExpectedOutcome& o) {
  if (o.accept) return "accept";
  std::string line = "reject " + o.reason;
  if (o.offset) line += " @ " + std::to_string(*o.offset);
  return line;
}

// A JSON string literal a recipe can hold: ASCII only (\uXXXX escapes), and
// no backtick, which would open a directive.
std::string recipe_literal(std::string_view text) {
  std::string literal = nlohmann::json(std::string(text)).dump(-1, ' ', true);
  std::string out;
  for (char c : literal) {
    if (c == '`') {
      out += "\\u0060";
    } else {
      out += c;
    }
  }
  return out;
}

std::string shape_text(const std::vector<std::uint64_t>& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i != 0) out += ',';
    out += std::to_string(shape[i]);
  }
  return out + "]";
}

// `key: hex ..` lines, kHexBytes each.
void hex_lines(std::string& out, std::string_view key, std::span<const std::uint8_t> bytes) {
  for (std::size_t i = 0; i < bytes.size(); i += kHexBytes) {
    out += key;
    out += ": hex";
    for (std::size_t k = i; k < std::min(bytes.size(), i + kHexBytes); ++k) {
      out += ' ';
      base::append_hex_byte(out, bytes[k]);
    }
    out += '\n';
  }
}

// The header as `header:` lines: printable ASCII as is, other bytes and the
// backtick as `hex ..` directives, and spaces that would end a line as
// `spaces N` (trailing blanks are an error in a recipe).
void header_lines(std::string& out, std::span<const std::uint8_t> header) {
  std::vector<std::string> atoms;
  for (std::size_t i = 0; i < header.size();) {
    const std::uint8_t c = header[i];
    if (c >= 0x20 && c < 0x7f && c != '`') {
      atoms.emplace_back(1, static_cast<char>(c));
      ++i;
      continue;
    }
    std::string atom = "`hex";
    while (i < header.size() && atom.size() < 60 &&
           !(header[i] >= 0x20 && header[i] < 0x7f && header[i] != '`')) {
      atom += ' ';
      base::append_hex_byte(atom, header[i++]);
    }
    atoms.push_back(atom + "`");
  }
  std::string line;
  const auto flush = [&]() {
    std::size_t spaces = 0;
    while (!line.empty() && line.back() == ' ') {
      line.pop_back();
      ++spaces;
    }
    if (spaces != 0) line += "`spaces " + std::to_string(spaces) + "`";
    out += "header: " + line + "\n";
    line.clear();
  };
  for (const std::string& atom : atoms) {
    if (!line.empty() && line.size() + atom.size() > kLineBytes) flush();
    line += atom;
  }
  if (!line.empty() || header.empty()) flush();
}

std::string case_name(const Bucket& bucket) { return "hunt-" + bucket.signature.bucket(); }

bool valid_group(std::string_view group) {
  if (group.empty() || group.size() > 64 || group.front() == '-' || group.back() == '-') {
    return false;
  }
  return std::all_of(group.begin(), group.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
  });
}

}  // namespace

std::string render_stanza(const Bucket& bucket, std::string_view reader_name) {
  const std::vector<std::uint8_t>& file = bucket.file;
  const Oracle oracle = judge(file);
  const Signature& s = bucket.signature;
  std::string out;
  out += "# stguard hunt bucket " + s.bucket() + " against " + std::string(reader_name) + "\n";
  out += "case: " + case_name(bucket) + "\n";
  std::string description =
      "REVIEW: " + std::string(reader_name) + " " + std::string(divergence_name(s.kind)) +
      " (stguard hunt, " + std::to_string(bucket.hits) + " hits); strict " +
      (s.strict_reason.empty() ? "accepts" : s.strict_reason) + ", reference " +
      (s.reference_reason.empty() ? "accepts" : s.reference_reason);
  if (!s.reader_error.empty()) description += "; reader: " + s.reader_error;
  std::erase(description, '`');
  out += "description: " + description + "\n";
  const std::string_view rule =
      rule_of(oracle.strict.accept ? oracle.reference.reason : oracle.strict.reason);
  out += "rules: " + std::string(rule) + "\n";
  out +=
      oracle.strict.accept != oracle.reference.accept ? "tags: hunt, contested\n" : "tags: hunt\n";
  out += "strict: " + outcome_line(oracle.strict) + "\n";
  out += "reference: " + outcome_line(oracle.reference) + "\n";

  std::uint64_t n = 0;
  for (std::size_t i = 8; i-- > 0 && file.size() >= 8;) n = (n << 8) | file[i];
  if (file.size() < 8 || n > file.size() - 8) {
    // No header text to show: the whole file, byte for byte (never accepted).
    hex_lines(out, "file", file);
    return out;
  }
  const std::span<const std::uint8_t> bytes(file);
  header_lines(out, bytes.subspan(8, static_cast<std::size_t>(n)));
  if (oracle.expected.expected) {
    const conformance::ExpectedContent& content = *oracle.expected.expected;
    for (const conformance::ExpectedTensor& t : content.tensors) {
      out += "tensor: " + recipe_literal(t.name) + " " + t.dtype + " " + shape_text(t.shape) + " " +
             std::to_string(t.begin) + " " + std::to_string(t.end) + "\n";
    }
    if (content.tensors.empty()) out += "tensors: none\n";
    if (content.metadata) {
      for (const auto& [key, value] : *content.metadata) {
        out += "meta: " + recipe_literal(key) + " " + recipe_literal(value) + "\n";
      }
      if (content.metadata->empty()) out += "metadata: empty\n";
    }
  }
  hex_lines(out, "data", bytes.subspan(8 + static_cast<std::size_t>(n)));
  return out;
}

std::string findings_line(const Bucket& bucket, std::string_view file_relative) {
  const Signature& s = bucket.signature;
  const auto text_or_null = [](const std::string& text) {
    return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
  };
  nlohmann::ordered_json line;
  line["bucket"] = s.bucket();
  line["kind"] = divergence_name(s.kind);
  line["strict_reason"] = text_or_null(s.strict_reason);
  line["reference_reason"] = text_or_null(s.reference_reason);
  line["reader_verdict"] = text_or_null(s.reader_verdict);
  line["reader_error"] = s.reader_error;
  line["hits"] = bucket.hits;
  line["file"] = file_relative;
  line["size"] = bucket.file.size();
  line["detail"] = bucket.detail;
  // A crash's or hang's own account (a sanitizer report), head and tail.
  line["stderr"] = text_or_null(bucket.stderr_text);
  return base::json_line(line);
}

namespace {

// The stanzas of a cases.txt, by the bucket their `case: hunt-BUCKET` line
// names, in file order. Stanzas are separated by blank lines.
std::vector<std::pair<std::string, std::string>> split_stanzas(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> stanzas;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find("\n\n", start);
    end = end == std::string_view::npos ? text.size() : end + 1;
    const std::string stanza(text.substr(start, end - start));
    std::size_t name_at = std::string::npos;
    if (stanza.rfind("case: ", 0) == 0) {
      name_at = 6;
    } else if (const std::size_t at = stanza.find("\ncase: "); at != std::string::npos) {
      name_at = at + 7;
    }
    if (name_at != std::string::npos) {
      const std::size_t eol = stanza.find('\n', name_at);
      stanzas.emplace_back(stanza.substr(name_at, eol - name_at), stanza);
    }
    start = end + 1;
  }
  return stanzas;
}

// One bucket as the folder holds it.
struct Held {
  nlohmann::ordered_json line;  // its findings.jsonl object
  std::string stanza;           // its cases.txt stanza ("" when missing)
};

std::string_view as_text(const std::vector<std::uint8_t>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

}  // namespace

base::Result<std::uint64_t> earlier_hunt_runs(const base::OwnedDir& dir,
                                              std::string_view reader_name) {
  if (!dir.made(kHuntFile)) return std::uint64_t{0};
  const base::Result<std::string> text = base::read_file(dir.path() / kHuntFile);
  if (!text) return text.error();
  const nlohmann::json hunt = nlohmann::json::parse(*text, nullptr, false);
  if (!hunt.is_object() || !hunt.contains("reader") || !hunt["reader"].is_string()) {
    return base::fail((dir.path() / kHuntFile).string() + ": not what stguard hunt wrote");
  }
  if (hunt["reader"].get<std::string>() != reader_name) {
    return base::fail(dir.path().string() + " holds the findings of reader " +
                      hunt["reader"].get<std::string>() + ", not " + std::string(reader_name) +
                      ": give another --out");
  }
  if (hunt.contains("runs") && hunt["runs"].is_number_unsigned()) {
    return hunt["runs"].get<std::uint64_t>();
  }
  return std::uint64_t{0};
}

base::Result<FindingsReport> write_findings(base::OwnedDir& dir,
                                            std::span<const Bucket* const> buckets,
                                            std::string_view reader_name, std::uint64_t runs) {
  FindingsReport report;
  // What earlier hunts into this folder found, when it holds any.
  const base::Result<std::uint64_t> earlier_runs = earlier_hunt_runs(dir, reader_name);
  if (!earlier_runs) return earlier_runs.error();
  std::vector<std::string> order;
  std::map<std::string, Held> held;
  if (dir.made("findings.jsonl")) {
    const base::Result<std::string> text = base::read_file(dir.path() / "findings.jsonl");
    if (!text) return text.error();
    std::size_t line_number = 0;
    for (std::size_t at = 0; at < text->size();) {
      std::size_t end = text->find('\n', at);
      if (end == std::string::npos) end = text->size();
      ++line_number;
      const std::string_view line(text->data() + at, end - at);
      at = end + 1;
      if (line.empty()) continue;
      nlohmann::ordered_json json = nlohmann::ordered_json::parse(line, nullptr, false);
      if (!json.is_object() || !json.contains("bucket") || !json["bucket"].is_string() ||
          !json.contains("hits") || !json["hits"].is_number_unsigned()) {
        return base::fail((dir.path() / "findings.jsonl").string() + ": line " +
                          std::to_string(line_number) + " is not a finding stguard hunt wrote");
      }
      const std::string bucket = json["bucket"].get<std::string>();
      if (held.count(bucket) == 0) order.push_back(bucket);
      held[bucket].line = std::move(json);
    }
  }
  if (dir.made("cases.txt")) {
    const base::Result<std::string> text = base::read_file(dir.path() / "cases.txt");
    if (!text) return text.error();
    for (auto& [name, stanza] : split_stanzas(*text)) {
      const std::string bucket = name.rfind("hunt-", 0) == 0 ? name.substr(5) : name;
      if (const auto it = held.find(bucket); it != held.end()) it->second.stanza = stanza;
    }
  }
  report.earlier = held.size();

  for (const Bucket* bucket : buckets) {
    const std::string name = bucket->signature.bucket();
    const std::string rel = "findings/" + name + ".safetensors";
    const auto it = held.find(name);
    std::uint64_t hits = bucket->hits;
    if (it != held.end()) {
      ++report.seen_again;
      hits += it->second.line["hits"].get<std::uint64_t>();
      const bool smaller = !it->second.line.contains("size") ||
                           !it->second.line["size"].is_number_unsigned() ||
                           bucket->file.size() < it->second.line["size"].get<std::uint64_t>();
      if (!smaller) {
        it->second.line["hits"] = hits;
        continue;
      }
    } else {
      ++report.added;
      order.push_back(name);
    }
    if (auto wrote = dir.write(rel, as_text(bucket->file)); !wrote) return wrote.error();
    Held& entry = held[name];
    entry.line = nlohmann::ordered_json::parse(findings_line(*bucket, rel));
    entry.line["hits"] = hits;
    entry.stanza = render_stanza(*bucket, reader_name);
  }

  std::string jsonl;
  std::string cases;
  for (const std::string& name : order) {
    const Held& entry = held[name];
    jsonl += base::json_line(entry.line) + "\n";
    if (entry.stanza.empty()) continue;
    if (!cases.empty()) cases += "\n";
    cases += entry.stanza;
    if (cases.back() != '\n') cases += '\n';
  }
  report.total = order.size();
  nlohmann::ordered_json hunt;
  hunt["reader"] = reader_name;
  hunt["runs"] = *earlier_runs + runs;
  hunt["buckets"] = order.size();
  const std::pair<std::string_view, std::string> files[] = {
      {"findings.jsonl", std::move(jsonl)},
      {"cases.txt", std::move(cases)},
      {kHuntFile, base::json_line(hunt) + "\n"},
  };
  for (const auto& [name, text] : files) {
    if (auto wrote = dir.write(name, text); !wrote) return wrote.error();
  }
  if (base::Result<void> saved = dir.save(); !saved) return saved.error();
  return report;
}

base::Result<PromotePlan> promote(const fs::path& hunt_dir, const fs::path& recipes_dir,
                                  std::string_view group, std::span<const std::string> buckets) {
  if (!valid_group(group)) {
    return base::fail("--group must be kebab-case (a-z, 0-9, '-'), not '" + std::string(group) +
                      "'");
  }
  const fs::path cases_path = hunt_dir / "cases.txt";
  const base::Result<std::string> cases = base::read_file(cases_path);
  if (!cases) return cases.error();
  const std::vector<std::pair<std::string, std::string>> stanzas = split_stanzas(*cases);
  if (stanzas.empty()) {
    return base::fail(cases_path.string() +
                      ": no recipe stanza in it (not a cases.txt of stguard hunt)");
  }
  // One case per stanza: a second `case:` line would slip a case in that
  // promote never checked.
  for (const auto& [name, stanza] : stanzas) {
    std::size_t cases_in_stanza = 0;
    for (std::size_t at = 0; at < stanza.size();) {
      if (stanza.compare(at, 6, "case: ") == 0) ++cases_in_stanza;
      const std::size_t eol = stanza.find('\n', at);
      at = eol == std::string::npos ? stanza.size() : eol + 1;
    }
    if (cases_in_stanza != 1) {
      return base::fail(cases_path.string() + ": the stanza of " + name + " has " +
                        std::to_string(cases_in_stanza) +
                        " case: lines; a stanza holds exactly one case (not promoted)");
    }
  }
  std::vector<const std::pair<std::string, std::string>*> chosen;
  if (buckets.empty()) {
    for (const auto& s : stanzas) chosen.push_back(&s);
  }
  for (const std::string& bucket : buckets) {
    const auto it = std::find_if(stanzas.begin(), stanzas.end(),
                                 [&](const auto& s) { return s.first == "hunt-" + bucket; });
    if (it == stanzas.end())
      return base::fail("no bucket " + bucket + " in " + cases_path.string());
    chosen.push_back(&*it);
  }
  PromotePlan plan;
  plan.group_file = recipes_dir / "cases" / (std::string(group) + ".txt");
  std::string text;
  std::error_code ec;
  if (fs::exists(plan.group_file, ec)) {
    const base::Result<std::string> old = base::read_file(plan.group_file);
    if (!old) return old.error();
    text = *old;
  } else {
    text =
        "about: Divergences found by stguard hunt, promoted to cases (review each description)\n";
  }
  for (const auto* stanza : chosen) {
    if (text.find("\ncase: " + stanza->first + "\n") != std::string::npos) {
      plan.already_present.push_back(stanza->first);
      continue;
    }
    if (!text.empty() && text.back() != '\n') text += '\n';
    text += "\n" + stanza->second;
    plan.promoted.push_back(stanza->first);
  }
  // The group file as it would be must load with the other recipes and make
  // its new cases, so that promoting can never break `corpus build`.
  const base::Result<conformance::RecipeSet> set =
      conformance::load_recipes_with(recipes_dir, std::string(group), text);
  if (!set) return set.error().in("not promoted");
  // A stanza states what stguard does with its file; a hand-edited one may
  // state something else, which the manifest would then repeat as fact. So
  // each case is built and both profiles judge it: the verdicts, reasons,
  // offsets and (for an accepted file) tensors it states must be theirs.
  std::size_t checked = 0;
  for (const conformance::Recipe* recipe : set->all()) {
    if (recipe->group != group || std::find(plan.promoted.begin(), plan.promoted.end(),
                                            recipe->name) == plan.promoted.end()) {
      continue;
    }
    const auto built = conformance::build_case(*recipe);
    if (!built) return built.error().in("not promoted");
    const Oracle oracle = judge(built->bytes);
    const std::string where = recipe->id + " (" + cases_path.string() + ")";
    if (const std::optional<std::string> wrong =
            misstated("strict", built->strict, oracle.strict)) {
      return base::fail(where + ": " + *wrong + "; not promoted");
    }
    if (const std::optional<std::string> wrong =
            misstated("reference", built->reference, oracle.reference)) {
      return base::fail(where + ": " + *wrong + "; not promoted");
    }
    if (built->entry.expected && oracle.expected.expected &&
        built->entry.expected->tensors != oracle.expected.expected->tensors) {
      return base::fail(where + ": its tensor: lines are not the tensors stguard reads in the " +
                        "file; not promoted");
    }
    ++checked;
  }
  if (checked != plan.promoted.size()) {
    return base::fail(cases_path.string() + ": a stanza to promote made no case of group " +
                      std::string(group) + "; not promoted");
  }
  plan.text = std::move(text);
  return plan;
}

base::Result<void> write_promotion(const PromotePlan& plan) {
  return base::write_file(plan.group_file, plan.text);
}

}  // namespace stguard::hunt
