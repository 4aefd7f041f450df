// cli/sarif.h: SARIF 2.1.0 logs for `check --sarif FILE` and `verify --sarif
// FILE`, the format code-scanning services (GitHub's upload-sarif among them)
// read. One run, tool.driver "stguard" with one rule per parser reason code
// (check) or per finding kind (verify), one result per rejected file or per
// finding.
//
//   sarif::CheckLog log;                       // check: its files, one by one
//   log.add(file, result, fd.get());           // an accepted file adds nothing
//   if (auto w = log.write(path, exit_code); !w) ...;   // base/output.h rules
//
//   sarif::write_verify_log(path, report);     // verify: the whole report
//
// The rules' descriptions are not written here: they are read from the
// documentation that describes each code, docs/reasons.md ("The codes") and
// docs/findings.md ("The kinds"), compiled into the command (cli/docs.h), so
// that a description changes in one place. A code the documentation lacks
// gets a rule with its name alone; tests/cli/sarif_cli_test.cc fails on it.
#ifndef STGUARD_CLI_SARIF_H_
#define STGUARD_CLI_SARIF_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/failure.h"
#include "stguard/header.h"
#include "stguard/result.h"
#include "verify/verify.h"

namespace stguard::cli::sarif {

enum class Level : std::uint8_t { kError, kWarning };

struct Rule {
  std::string id;             // "OFFSET_GAP", "shard_truncated": the result's ruleId
  std::string name;           // "OffsetGap", "ShardTruncated"
  std::string short_text;     // one clause, plain text
  std::string full_text;      // the whole description, plain text
  std::string full_markdown;  // the same as the documentation writes it, links made absolute
  std::string help_uri;       // the documentation's page
  std::optional<Level> default_level;
  std::vector<std::string> tags;
};

// One rule per parser reason code, in all_reasons() order, described by the
// row of docs/reasons.md's table "The codes".
std::vector<Rule> reason_rules();
// One rule per verify finding kind, in the order of their numbers, described
// by the row of docs/findings.md's table "The kinds".
std::vector<Rule> finding_rules();

// A SARIF log under construction: rules fixed up front, results appended.
class Log {
 public:
  explicit Log(std::vector<Rule> rules);

  struct Region {
    std::uint64_t byte_offset = 0;
    std::uint64_t byte_length = 1;
  };
  // A result of rule `rule_id` about `file`: a path as the user gave it
  // (relative to the working directory, or absolute), or relative to the
  // base `base_id` when that is set (set_base).
  void add(std::string_view rule_id, Level level, std::string message, std::string_view file,
           std::optional<Region> region, nlohmann::ordered_json properties = nullptr,
           std::string_view base_id = {});
  // Names `id` as a base of relative file names: `dir`, itself relative to the
  // working directory unless absolute.
  void set_base(std::string id, std::string_view dir);
  // Something that kept the tool from doing its work (verify's DIR missing).
  void add_notification(std::string message);
  std::size_t result_count() const noexcept { return results_.size(); }

  // The whole log; exit_code is the command's exit status (2: not every
  // file could be read, so the run is not a complete one).
  nlohmann::ordered_json to_json(int exit_code) const;
  // Writes to_json() through base::write_file.
  base::Result<void> write(const std::filesystem::path& path, int exit_code) const;

 private:
  std::vector<Rule> rules_;
  std::map<std::string, std::size_t, std::less<>> index_;
  nlohmann::ordered_json bases_ = nlohmann::ordered_json::object();
  nlohmann::ordered_json results_ = nlohmann::ordered_json::array();
  nlohmann::ordered_json notifications_ = nlohmann::ordered_json::array();
};

// `stguard check --sarif`: a result per rejected file (rule = its reason,
// region = the byte of the fault) and per file that could not be read (rule
// IO_ERROR, no region).
class CheckLog {
 public:
  CheckLog();
  // `file_size` (when known) sizes the region: a fault at the end of the
  // file (OFFSET_OUT_OF_BOUNDS) is a point, not a byte.
  void add(std::string_view file, const Result<HeaderSummary>& result,
           std::optional<std::uint64_t> file_size);
  base::Result<void> write(const std::filesystem::path& path, int exit_code) const {
    return log_.write(path, exit_code);
  }
  const Log& log() const noexcept { return log_; }

 private:
  Log log_;
};

// `stguard verify --sarif`: a result per finding, its file relative to DIR.
nlohmann::ordered_json verify_log(const verify::VerifyReport& report);
base::Result<void> write_verify_log(const std::filesystem::path& path,
                                    const verify::VerifyReport& report);

// `path` as a URI reference: percent-encoded bytes, "file://" before an
// absolute path; a URL or hf:// address keeps its delimiters.
std::string uri_of(std::string_view path);

}  // namespace stguard::cli::sarif

#endif  // STGUARD_CLI_SARIF_H_
