// cli/parse_error.cc: explain_parse_error and its helpers (parse_error.h).
#include "parse_error.h"

#include <algorithm>
#include <set>

namespace stguard::cli {
namespace {

// The option names of `app` as they are typed: "--adapter", "-j".
std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* option : app.get_options()) {
    for (const std::string& name : option->get_lnames()) names.push_back("--" + name);
    for (const std::string& name : option->get_snames()) names.push_back("-" + name);
  }
  return names;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// "--json" for CLI11's "json", "-j" for "j".
std::string typed_name(std::string_view bare) {
  if (!bare.empty() && bare.front() == '-') return std::string(bare);
  return (bare.size() == 1 ? "-" : "--") + std::string(bare);
}

constexpr std::string_view kFlagOverride = " was given a disallowed flag override";

}  // namespace

std::optional<std::string> nearest_name(std::string_view typed,
                                        const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  std::size_t best_distance = 3;  // more than two edits is not a typo
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(typed, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  if (best) return best;
  std::optional<std::string> prefixed;
  for (const std::string& candidate : candidates) {
    if (typed.size() >= 3 && candidate.rfind(typed, 0) == 0) {
      if (prefixed) return std::nullopt;  // ambiguous
      prefixed = candidate;
    }
  }
  return prefixed;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates) {
  const std::optional<std::string> near = nearest_name(typed, candidates);
  return near ? " (did you mean '" + *near + "'?)" : "";
}

std::optional<std::string> first_unexpected(const CLI::App& app,
                                            const std::vector<std::string>& words) {
  const std::vector<std::string> extras = app.remaining();
  const std::multiset<std::string> left(extras.begin(), extras.end());
  for (const std::string& word : words) {
    if (left.count(word) != 0) return word;
  }
  return std::nullopt;
}

std::string explain_parse_error(const CLI::ParseError& error, const CLI::App& app,
                                const std::vector<std::string>& words) {
  const std::string what = error.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&error) != nullptr) {
    if (const std::optional<std::string> word = first_unexpected(app, words)) {
      if (word->size() > 1 && word->front() == '-') {
        const std::string name = word->substr(0, word->find('='));
        return "unknown option '" + name + "'" + did_you_mean(name, option_names(app));
      }
      // A command made of subcommands (`corpus`, `hunt`): a word there is a
      // subcommand's name, perhaps mistyped (`corpus bild`).
      std::vector<std::string> subcommands;
      for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        subcommands.push_back(sub->get_name());
      }
      if (const std::optional<std::string> near = nearest_name(*word, subcommands)) {
        return "unknown command '" + app.get_name() + " " + *word + "' (did you mean '" +
               app.get_name() + " " + *near + "'?)";
      }
      return "unexpected argument '" + *word + "'";
    }
  }
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&error) != nullptr) {
    if (what.size() > kFlagOverride.size() &&
        what.compare(what.size() - kFlagOverride.size(), kFlagOverride.size(), kFlagOverride) ==
            0) {
      return typed_name(what.substr(0, what.size() - kFlagOverride.size())) +
             " is a flag: it takes no value";
    }
    // CLI11: "sarif: At Most 1 required but received 2": given twice.
    if (const std::size_t at = what.find(": At Most 1 required but received ");
        at != std::string::npos) {
      return typed_name(what.substr(0, at)) + " was given more than once; give it once";
    }
    if (const std::size_t colon = what.find(": ");
        colon != std::string::npos && what.find(" required ") != std::string::npos &&
        what.size() > 8 && what.compare(what.size() - 8, 8, " missing") == 0) {
      return typed_name(what.substr(0, colon)) + " needs a value";
    }
  }
  return what;
}

std::optional<std::string> empty_option_value(const CLI::App& app) {
  for (const CLI::Option* option : app.get_options()) {
    if (option->get_positional() || option->get_type_size() == 0) continue;
    for (const std::string& value : option->results()) {
      if (value.empty()) return option->get_name() + " needs a value, not an empty one";
    }
  }
  return std::nullopt;
}

}  // namespace stguard::cli
