// cli/parse_error.h: CLI11's parse errors in stguard's words.
//
//   catch (const CLI::ParseError& e) {
//     return usage_error(*command, explain_parse_error(e, *command->app, words));
//   }
//
// CLI11's own texts name options without their dashes ("json was given a
// disallowed flag override"), list unexpected words in reverse, and never
// suggest the option meant. Here the first offending word, in command-line
// order, is named as the user typed it, with the nearest option or command
// name when one is close ("unknown option '--adaptor' (did you mean
// '--adapter'?)").
#ifndef STGUARD_CLI_PARSE_ERROR_H_
#define STGUARD_CLI_PARSE_ERROR_H_

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stguard::cli {

// The message for `error`, raised while parsing `words` (the command line
// after "stguard", in order) for the command whose app is `app`.
std::string explain_parse_error(const CLI::ParseError& error, const CLI::App& app,
                                const std::vector<std::string>& words);

// The first of `words` (in command-line order) that parsing `app` left
// over, after an ExtrasError; nullopt when none is known.
std::optional<std::string> first_unexpected(const CLI::App& app,
                                            const std::vector<std::string>& words);

// The candidate closest to `typed` when it is near enough to be a typo (at
// most two edits, or a unique prefix); nullopt otherwise.
std::optional<std::string> nearest_name(std::string_view typed,
                                        const std::vector<std::string>& candidates);

// " (did you mean 'NAME'?)" for the nearest candidate, or "".
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& candidates);

// A value-taking option given an empty value (`--out ""`): "--out needs a
// value, not an empty one"; nullopt when every given value is non-empty.
std::optional<std::string> empty_option_value(const CLI::App& app);

}  // namespace stguard::cli

#endif  // STGUARD_CLI_PARSE_ERROR_H_
