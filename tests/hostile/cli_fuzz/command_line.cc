// tests/hostile/cli_fuzz/command_line.cc: command lines as JSON, read as
// stguard reads them, and drawn (command_line.h).
#include "tests/hostile/cli_fuzz/command_line.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <utility>

namespace stguard_cli_fuzz {
namespace {

using Weighted = std::vector<std::pair<std::string, int>>;

const std::pair<Disturbance, const char*> kDisturbanceNames[] = {
    {Disturbance::kNone, ""},
    {Disturbance::kInterrupt, "SIGINT"},
    {Disturbance::kTerminate, "SIGTERM"},
    {Disturbance::kHangUp, "SIGHUP"},
    {Disturbance::kGroupInterrupt, "SIGINT-to-group"},
    {Disturbance::kKill, "SIGKILL"},
    {Disturbance::kKillChild, "SIGKILL-to-child"},
    {Disturbance::kCloseStdout, "close-stdout"},
};

bool is_path_role(const std::string& role) {
  return role == "input" || role == "input-dir" || role == "output" || role == "output-dir";
}

// Inputs that cannot be read as the file they should be, for every role.
const Weighted kHostileInputs = {
    {"nowhere.safetensors", 2}, {"ln-dangling", 1}, {"ln-loop", 1}, {"empty", 1}, {"fifo", 1},
    {"secret.txt", 1},          {"/dev/null", 1},   {"in", 1},
};
const Weighted kSafetensorsInputs = {
    {"in/good.safetensors", 5},     {"in/bad.safetensors", 3}, {"ln-good", 2},
    {"model/model.safetensors", 1}, {"ro-dir/file.txt", 1},
};
// Per argument ("COMMAND|NAME"): the inputs that make the command work.
const std::map<std::string, Weighted> kInputAffinity = {
    {"write|FILE", {{"in/spec.json", 5}, {"in/dup-spec.json", 2}}},
    {"conform report|RESULTS",
     {{"in/results.jsonl", 5}, {"user/results.jsonl", 1}, {"in/good.safetensors", 1}}},
    {"conform|--expectations", {{"in/expect.txt", 4}, {"user/notes.txt", 1}}},
    {"verify|--sha256", {{"in/SHA256SUMS", 4}, {"user/notes.txt", 1}}},
};
const Weighted kHostileDirs = {
    {"nowhere", 2}, {"in/good.safetensors", 1},
    {"empty", 1},   {"ln-dangling", 1},
    {"ln-loop", 1}, {"fifo", 1},
    {"ro-dir", 1},  {"user", 1},
};
const std::map<std::string, Weighted> kInputDirAffinity = {
    {"verify|DIR", {{"model", 4}, {"local", 3}, {"ln-model", 2}, {"cb-old", 1}}},
    {"|--corpus", {{"cb-old", 5}}},
    {"|--recipes", {{"recipes", 3}, {"recipes-other", 2}}},
    {"hunt promote|DIR", {{"hunt-old", 5}}},
};
const Weighted kOutputs = {
    {"out/r.txt", 5},
    {"out/sub/r.txt", 1},
    {"user/notes.txt", 2},
    {"in/good.safetensors", 2},
    {"in/bad.safetensors", 1},
    {"/dev/null", 2},
    {"/dev/full", 2},
    {"fifo", 1},
    {"ln-user", 1},
    {"ln-dangling", 1},
    {"ln-dev-full", 1},
    {"ln-stdout", 1},
    {"/dev/stdout", 1},
    {"ro.txt", 1},
    {"ro-dir/new.txt", 1},
    {"empty", 1},
    {"out", 1},
    {"ln-loop", 1},
    {"secret.txt", 1},
};
const Weighted kRootOutputs = {{"sticky/planted", 3}, {"sticky/mine", 1}};
const Weighted kSmallOutputs = {{"small/r.txt", 3}, {"small/d", 1}};
const std::map<std::string, Weighted> kOutputAffinity = {
    {"write|FILE", {{"out/w.safetensors", 6}}},
};
const Weighted kOutputDirs = {
    {"out/d", 4},
    {"empty", 2},
    {"user", 2},
    {"cb-old", 2},
    {"cb-linked", 2},
    {"hunt-old", 2},
    {"in/good.safetensors", 1},
    {"out/new/deeper", 1},
    {"ro-dir/d", 1},
    {"ln-user-dir", 1},
    {"ln-dangling", 1},
    {"out", 1},
};
const std::map<std::string, Weighted> kOutputDirAffinity = {
    {"corpus build|--out", {{"cb-old", 3}, {"cb-linked", 3}, {"out/cb", 3}}},
    {"corpus build|--huge", {{"out/huge", 1}}},
    {"hunt|--out", {{"hunt-old", 3}, {"out/h", 3}}},
    {"corpus export|--flat", {{"out/e", 3}, {"cb-old", 1}}},
    {"corpus export|--tarball", {{"out", 3}, {"empty", 2}}},
    {"help|--man-pages", {{"out", 3}, {"empty", 2}}},
    {"hunt promote|--recipes", {{"recipes", 4}, {"recipes-other", 2}}},
    {"conform|--out-dir", {{"out/c", 3}, {"empty", 2}, {"user", 2}}},
};
const Weighted kAdapters = {
    {"{stguard} adapter", 4},  {"{fake} plain-no-overlap-check", 2},
    {"{fake} crash", 1},       {"{fake} garbage", 1},
    {"{fake} hang", 1},        {"true", 1},
    {"setsid -f sleep 30", 1}, {"no-such-command-here", 1},
};
const Weighted kWriters = {{"{stguard} write --protocol", 4}, {"true", 1}, {"{fake} crash", 1}};
const Weighted kReaders = {{"stguard-strict", 4}, {"stguard-reference", 2},
                           {"stguard-write", 1},  {"no-such-reader", 1},
                           {"empty", 1},          {"user", 1}};
const Weighted kNumbers = {
    {"1", 8}, {"2", 8}, {"4", 3}, {"0", 1}, {"-1", 1}, {"x", 1}, {"99999999999999999999", 1}};
const std::map<std::string, Weighted> kTexts = {
    {"--case", {{"layout/gap-b*", 4}, {"layout/gap-between", 2}, {"nomatch/*", 1}}},
    {"--tag", {{"ref:zero-size", 2}, {"none-such", 1}}},
    {"--name", {{"x", 2}, {"lax", 2}, {"a b", 1}}},
    {"--group", {{"fuzzed", 3}, {"hunt", 1}, {"Bad Group", 1}}},
    {"--bucket", {{"0000", 1}, {"zz", 1}}},
    {"--implements", {{"0.4.0", 2}, {"x", 1}}},
    {"--layout", {{"auto", 2}, {"local-dir", 2}, {"folder", 1}, {"hub-cache", 1}, {"bogus", 1}}},
};

const std::string& weighted_pick(const Weighted& from, std::mt19937_64& random) {
  int total = 0;
  for (const auto& [value, weight] : from) total += weight;
  int at = static_cast<int>(random() % static_cast<std::uint64_t>(total));
  for (const auto& [value, weight] : from) {
    if (at < weight) return value;
    at -= weight;
  }
  return from.back().first;
}

const Weighted* affinity(const std::map<std::string, Weighted>& table, const Argument& a) {
  if (const auto it = table.find(a.command + "|" + a.name()); it != table.end()) return &it->second;
  if (const auto it = table.find("|" + a.name()); it != table.end()) return &it->second;
  return nullptr;
}

}  // namespace

std::string disturbance_name(Disturbance d) {
  for (const auto& [value, name] : kDisturbanceNames) {
    if (value == d) return name;
  }
  return "";
}

std::string CommandLine::to_json() const {
  nlohmann::ordered_json j;
  j["words"] = words;
  j["as"] = as_nobody ? "nobody" : "self";
  j["disturb"] = disturbance_name(disturb);
  j["delay_ms"] = delay_ms;
  if (!note.empty()) j["note"] = note;
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

bool CommandLine::from_json(const std::string& line, CommandLine* out, std::string* error) {
  const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
  if (!j.is_object() || !j.contains("words") || !j["words"].is_array()) {
    *error = "not a command line: " + line;
    return false;
  }
  CommandLine c;
  for (const auto& w : j["words"]) {
    if (!w.is_string()) {
      *error = "a word that is not a string: " + line;
      return false;
    }
    c.words.push_back(w.get<std::string>());
  }
  c.as_nobody = j.value("as", "self") == "nobody";
  const std::string disturb = j.value("disturb", "");
  bool known = false;
  for (const auto& [value, name] : kDisturbanceNames) {
    if (disturb == name) {
      c.disturb = value;
      known = true;
    }
  }
  if (!known) {
    *error = "an unknown disturbance: " + line;
    return false;
  }
  c.delay_ms = j.value("delay_ms", 0);
  c.note = j.value("note", "");
  *out = std::move(c);
  return true;
}

bool Parsed::has_option(const std::string& name) const {
  return std::find(options.begin(), options.end(), name) != options.end();
}

Parsed parse_words(const ArgumentTable& table, const std::vector<std::string>& words) {
  Parsed parsed;
  std::size_t i = 0;
  for (std::string path; i < words.size(); ++i) {
    const std::string candidate = path.empty() ? words[i] : path + " " + words[i];
    if (std::find(table.commands.begin(), table.commands.end(), candidate) ==
        table.commands.end()) {
      break;
    }
    path = candidate;
    parsed.command = path;
  }
  if (parsed.command.empty()) return parsed;
  const Argument* positional = table.positional(parsed.command);
  std::size_t positional_index = 0;
  const auto add = [&](const std::string& value, const Argument& a, std::size_t index) {
    std::string role = a.role(index);
    // A reader named by its folder is a folder read.
    if (role == "reader" && value.find('/') != std::string::npos) role = "input-dir";
    if (is_path_role(role) && !value.empty()) parsed.named.push_back({value, role, a.name()});
  };
  bool dashes = false;
  for (; i < words.size(); ++i) {
    const std::string& w = words[i];
    if (!dashes && w == "--") {
      dashes = true;
      continue;
    }
    if (!dashes && w.size() > 1 && w[0] == '-') {
      std::string name = w;
      std::string value;
      bool attached = false;
      if (w.rfind("--", 0) == 0) {
        if (const std::size_t eq = w.find('='); eq != std::string::npos) {
          name = w.substr(0, eq);
          value = w.substr(eq + 1);
          attached = true;
        }
      } else if (w.size() > 2) {
        name = w.substr(0, 2);
        value = w.substr(2);
        attached = true;
      }
      const Argument* a = table.option(parsed.command, name);
      if (a == nullptr) continue;
      parsed.options.push_back(a->name());
      if (a->is_flag()) continue;
      // `--x=` names nothing: the next word is not its value, whatever a
      // parser that got it wrong made of it.
      if (attached) {
        add(value, *a, 0);
      } else if (i + 1 < words.size()) {
        add(words[++i], *a, 0);
      }
      continue;
    }
    if (positional != nullptr) add(w, *positional, positional_index++);
  }
  return parsed;
}

Drawer::Drawer(const ArgumentTable& table, std::uint64_t seed, bool root, bool small_disk,
               std::string data_dir)
    : table_(table),
      random_(seed),
      root_(root),
      small_disk_(small_disk),
      data_dir_(std::move(data_dir)) {}

bool Drawer::chance(double p) {
  return std::uniform_real_distribution<double>(0.0, 1.0)(random_) < p;
}

const std::string& Drawer::pick(const std::vector<std::string>& from) {
  return from[random_() % from.size()];
}

std::string Drawer::value_for(const Argument& a, std::size_t index) {
  const std::string& role = a.role(index);
  if (role == "input") {
    if (chance(0.15)) return weighted_pick(kHostileInputs, random_);
    const Weighted* good = affinity(kInputAffinity, a);
    return weighted_pick(good != nullptr ? *good : kSafetensorsInputs, random_);
  }
  if (role == "input-dir") {
    if (a.name() == "--data-dir" && chance(0.8)) return data_dir_;
    if (chance(0.15)) return weighted_pick(kHostileDirs, random_);
    const Weighted* good = affinity(kInputDirAffinity, a);
    return weighted_pick(good != nullptr ? *good : kHostileDirs, random_);
  }
  if (role == "output") {
    if (root_ && chance(0.08)) return weighted_pick(kRootOutputs, random_);
    if (small_disk_ && chance(0.08)) return weighted_pick(kSmallOutputs, random_);
    const Weighted* good = affinity(kOutputAffinity, a);
    if (good != nullptr && chance(0.6)) return weighted_pick(*good, random_);
    return weighted_pick(kOutputs, random_);
  }
  if (role == "output-dir") {
    if (small_disk_ && chance(0.08)) return "small/d";
    const Weighted* good = affinity(kOutputDirAffinity, a);
    if (good != nullptr && chance(0.7)) return weighted_pick(*good, random_);
    return weighted_pick(kOutputDirs, random_);
  }
  if (role == "command") {
    return weighted_pick(a.name() == "--writer" ? kWriters : kAdapters, random_);
  }
  if (role == "reader") {
    if (chance(0.1)) return data_dir_ + "/conformance/adapters/stguard-strict";
    return weighted_pick(kReaders, random_);
  }
  if (role == "number") return weighted_pick(kNumbers, random_);
  if (role == "choice") {
    std::vector<std::string> choices = {"bogus"};
    std::size_t start = 0;
    for (std::size_t bar; (bar = a.placeholder.find('|', start)) != std::string::npos;
         start = bar + 1) {
      choices.push_back(a.placeholder.substr(start, bar - start));
    }
    choices.push_back(a.placeholder.substr(start));
    return pick(choices);
  }
  if (const auto it = kTexts.find(a.name()); it != kTexts.end()) {
    return weighted_pick(it->second, random_);
  }
  return chance(0.5) ? "x" : "y z";
}

void Drawer::add_option(std::vector<std::string>& words, const Argument& a) {
  const std::string name = a.name();
  if (a.is_flag()) {
    const std::string short_name = a.short_name();
    if (chance(0.03)) {
      words.push_back(name + "=yes");  // a flag given a value
    } else {
      words.push_back(!short_name.empty() && chance(0.3) ? short_name : name);
    }
    return;
  }
  const std::string value = value_for(a, 0);
  const double form = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
  const std::string short_name = a.short_name();
  if (form < 0.55) {
    words.push_back(name);
    words.push_back(value);
  } else if (form < 0.82) {
    words.push_back(name + "=" + value);
  } else if (form < 0.9 && !short_name.empty()) {
    words.push_back(short_name + value);
  } else if (form < 0.94) {
    words.push_back(name + "=");  // an empty value, the next word left alone
  } else if (form < 0.97) {
    words.push_back(name);
    words.emplace_back();  // --x ""
  } else {
    words.push_back(name);  // the value missing (the line may go on)
  }
}

std::vector<std::string> Drawer::base_line(const std::string& command) {
  std::vector<std::string> words;
  std::size_t start = 0;
  for (std::size_t space; (space = command.find(' ', start)) != std::string::npos;
       start = space + 1) {
    words.push_back(command.substr(start, space - start));
  }
  words.push_back(command.substr(start));
  const Argument* positional = table_.positional(command);
  const auto option_value = [&](const std::string& name) -> std::string {
    const Argument* a = table_.option(command, name);
    return a != nullptr ? value_for(*a, 0) : std::string();
  };
  const auto add_positionals = [&](std::size_t count) {
    for (std::size_t i = 0; positional != nullptr && i < count; ++i) {
      words.push_back(value_for(*positional, i));
    }
  };
  if (command == "check") {
    add_positionals(1 + random_() % 3);
  } else if (command == "inspect" || command == "adapter" || command == "verify") {
    add_positionals(1);
  } else if (command == "write") {
    add_positionals(2);
  } else if (command == "conform report") {
    add_positionals(1 + random_() % 2);
  } else if (command == "conform") {
    if (chance(0.15)) {
      words.insert(words.end(), {"--writer", weighted_pick(kWriters, random_)});
    } else {
      if (chance(0.5)) {
        words.insert(words.end(), {"--reader", weighted_pick(kReaders, random_)});
      } else {
        const std::string adapter = weighted_pick(kAdapters, random_);
        words.insert(words.end(), {"--adapter", adapter});
        if (adapter.find("plain") != std::string::npos || adapter == "true") {
          words.push_back("--plain");
        }
      }
      words.insert(words.end(), {"--case", "layout/gap-b*"});
    }
    words.insert(words.end(), {"-q", "--memory-mb", "0", "--timeout", "3", "-j", "2"});
  } else if (command == "corpus build") {
    words.insert(words.end(),
                 {"--recipes", option_value("--recipes"), "--out", option_value("--out")});
  } else if (command == "corpus list") {
    words.insert(words.end(), {"--recipes", option_value("--recipes")});
  } else if (command == "corpus export") {
    const std::string how = chance(0.6) ? "--flat" : "--tarball";
    words.insert(words.end(), {how, option_value(how), "--corpus", "cb-old"});
  } else if (command == "hunt") {
    words.insert(words.end(),
                 {"--adapter", "{fake} plain-no-overlap-check", "--plain", "--corpus", "cb-old",
                  "--runs", "8", "--seed", std::to_string(1 + random_() % 1000), "--minimise-runs",
                  "4", "-j", "1", "--memory-mb", "0", "-q"});
    if (chance(0.7)) words.insert(words.end(), {"--out", option_value("--out")});
  } else if (command == "hunt promote") {
    add_positionals(1);
    words.insert(words.end(), {"--group", "fuzzed", "--recipes", option_value("--recipes")});
  } else if (command == "help") {
    words.insert(words.end(), {"--man-pages",
                               weighted_pick(kOutputDirAffinity.at("help|--man-pages"), random_)});
  }
  return words;
}

CommandLine Drawer::draw() {
  CommandLine line;
  // The commands that write, more often than those that only read.
  static const Weighted kCommands = {
      {"check", 14},       {"inspect", 6},      {"verify", 10},
      {"write", 10},       {"conform", 16},     {"conform report", 10},
      {"corpus build", 8}, {"corpus list", 2},  {"corpus export", 6},
      {"hunt", 7},         {"hunt promote", 5}, {"adapter", 3},
      {"help", 3},
  };
  std::string command = weighted_pick(kCommands, random_);
  if (std::find(table_.commands.begin(), table_.commands.end(), command) == table_.commands.end()) {
    command = pick(table_.commands);
  }
  line.words = base_line(command);
  // Options drawn from the table, in every form.
  std::vector<const Argument*> options;
  for (const Argument* a : table_.of(command)) {
    if (a->positional.empty() && a->name() != "--help") options.push_back(a);
  }
  static const std::size_t kExtra[] = {0, 0, 1, 1, 1, 2, 2, 3};
  const std::size_t extra = options.empty() ? 0 : kExtra[random_() % 8];
  for (std::size_t k = 0; k < extra; ++k) {
    const Argument& a = *options[random_() % options.size()];
    // An option the line has already is given again by the mutation below,
    // now and then, not here: a line of repeats is refused before any work.
    const bool present =
        std::any_of(line.words.begin(), line.words.end(), [&](const std::string& w) {
          return std::any_of(a.names.begin(), a.names.end(), [&](const std::string& n) {
            return w == n || w.rfind(n + "=", 0) == 0;
          });
        });
    if (!present || a.several) add_option(line.words, a);
  }
  if (!options.empty() && chance(0.02)) line.words.push_back("--help");
  // Mutations of the line as a whole.
  const std::size_t first_option = command.find(' ') == std::string::npos ? 1 : 2;
  if (line.words.size() > first_option && chance(0.12)) {
    // An option given twice.
    const std::size_t at = first_option + random_() % (line.words.size() - first_option);
    if (line.words[at].rfind("--", 0) == 0 && line.words[at].find('=') != std::string::npos) {
      line.words.push_back(line.words[at]);
    }
  }
  if (chance(0.1)) {
    // `--x VALUE` turned into `--x= VALUE`: the value left as a word of its own.
    for (std::size_t at = first_option; at + 1 < line.words.size(); ++at) {
      const Argument* a = table_.option(command, line.words[at]);
      if (a != nullptr && !a->is_flag() && line.words[at].rfind("--", 0) == 0) {
        line.words[at] += "=";
        break;
      }
    }
  }
  if (line.words.size() > first_option + 1 && chance(0.04)) {
    line.words.erase(
        line.words.begin() +
        static_cast<std::ptrdiff_t>(first_option + random_() % (line.words.size() - first_option)));
  }
  line.as_nobody = root_ && chance(0.25);
  const double d = std::uniform_real_distribution<double>(0.0, 1.0)(random_);
  const bool has_children = command == "conform" || command == "hunt";
  if (d < 0.08) {
    line.disturb = Disturbance::kInterrupt;
  } else if (d < 0.14) {
    line.disturb = Disturbance::kTerminate;
  } else if (d < 0.18) {
    line.disturb = Disturbance::kHangUp;
  } else if (d < 0.22) {
    line.disturb = Disturbance::kGroupInterrupt;
  } else if (d < 0.27) {
    line.disturb = Disturbance::kKill;
  } else if (d < 0.33 && has_children) {
    line.disturb = Disturbance::kKillChild;
  } else if (d < 0.45) {
    line.disturb = Disturbance::kCloseStdout;
  }
  // Commands that start adapters are disturbed over a longer span: their
  // adapters are up only after a few hundred milliseconds under sanitizers.
  const int span = line.disturb == Disturbance::kCloseStdout ? 50 : has_children ? 1500 : 400;
  line.delay_ms = static_cast<int>(random_() % static_cast<std::uint64_t>(span));
  return line;
}

}  // namespace stguard_cli_fuzz
