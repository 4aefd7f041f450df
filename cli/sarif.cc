// cli/sarif.cc: building and writing the SARIF 2.1.0 logs of check and verify
// (sarif.h). The rules come from sarif_rules.cc.
#include "sarif.h"

#include <unistd.h>

#include <utility>

#include "base/json.h"
#include "base/output.h"
#include "command.h"
#include "remote/hub.h"

namespace stguard::cli::sarif {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kSchema = "https://json.schemastore.org/sarif-2.1.0.json";
constexpr std::string_view kInformationUri = "https://github.com/stguard/stguard";
// The base of relative file names: the directory the command ran in.
constexpr std::string_view kWorkingDirectory = "CWD";
// verify's: DIR, the folder its findings name files in.
constexpr std::string_view kVerifyDir = "VERIFY_DIR";

std::string_view level_name(Level level) {
  switch (level) {
    case Level::kError:
      return "error";
    case Level::kWarning:
      return "warning";
  }
  return "error";
}

Json rule_json(const Rule& rule) {
  Json j = Json::object();
  j["id"] = rule.id;
  j["name"] = rule.name;
  j["shortDescription"] = {{"text", rule.short_text}};
  j["fullDescription"] = {{"text", rule.full_text}, {"markdown", rule.full_markdown}};
  // "reasons.md" out of ".../docs/reasons.md#the-codes".
  const std::string page = rule.help_uri.substr(0, rule.help_uri.find('#'));
  const std::string title = "docs/" + page.substr(page.rfind('/') + 1);
  j["help"] = {
      {"text", rule.full_text + " See " + title + ": " + rule.help_uri},
      {"markdown", rule.full_markdown + "\n\nSee [" + title + "](" + rule.help_uri + ")."}};
  j["helpUri"] = rule.help_uri;
  if (rule.default_level) j["defaultConfiguration"] = {{"level", level_name(*rule.default_level)}};
  if (!rule.tags.empty()) j["properties"] = {{"tags", rule.tags}};
  return j;
}

// The directory the command runs in, as an absolute file URI ending in '/'.
std::string working_directory_uri() {
  std::error_code error;
  std::string cwd = std::filesystem::current_path(error).string();
  if (error || cwd.empty()) cwd = "/";
  if (cwd.back() != '/') cwd += '/';
  return uri_of(cwd);
}

}  // namespace

std::string uri_of(std::string_view path) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  // A URL (or hf:// address) is already a URI: its delimiters stay.
  const bool is_url = remote::is_remote_address(path);
  std::string out = !path.empty() && path.front() == '/' ? "file://" : "";
  for (const char c : path) {
    const auto byte = static_cast<unsigned char>(c);
    // RFC 3986's unreserved characters and the path separator; everything
    // else, ':' included (a first segment with ':' would read as a scheme),
    // is percent-encoded.
    const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    const bool delimiter =
        is_url && std::string_view(":?#[]@!$&'()*+,;=%").find(c) != std::string_view::npos;
    if (alnum || delimiter || c == '-' || c == '.' || c == '_' || c == '~' || c == '/') {
      out += c;
    } else {
      out += '%';
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    }
  }
  return out;
}

Log::Log(std::vector<Rule> rules) : rules_(std::move(rules)) {
  for (std::size_t i = 0; i < rules_.size(); ++i) index_.emplace(rules_[i].id, i);
}

void Log::set_base(std::string id, std::string_view dir) {
  std::string path(dir);
  if (path.empty()) path = ".";
  if (path.back() != '/') path += '/';
  Json location = {{"uri", uri_of(path)}};
  if (path.front() != '/' && !remote::is_remote_address(path))
    location["uriBaseId"] = kWorkingDirectory;
  bases_[std::move(id)] = std::move(location);
}

void Log::add(std::string_view rule_id, Level level, std::string message, std::string_view file,
              std::optional<Region> region, Json properties, std::string_view base_id) {
  Json result = Json::object();
  result["ruleId"] = rule_id;
  if (const auto rule = index_.find(rule_id); rule != index_.end()) {
    result["ruleIndex"] = rule->second;
  }
  result["level"] = level_name(level);
  result["message"] = {{"text", std::move(message)}};
  Json artifact = {{"uri", uri_of(file)}};
  if (!base_id.empty()) {
    artifact["uriBaseId"] = base_id;
  } else if (!remote::is_remote_address(file) && (file.empty() || file.front() != '/')) {
    artifact["uriBaseId"] = kWorkingDirectory;
  }
  Json physical = {{"artifactLocation", std::move(artifact)}};
  if (region) {
    physical["region"] = {{"byteOffset", region->byte_offset}, {"byteLength", region->byte_length}};
  }
  result["locations"] = Json::array({{{"physicalLocation", std::move(physical)}}});
  if (!properties.is_null()) result["properties"] = std::move(properties);
  results_.push_back(std::move(result));
}

void Log::add_notification(std::string message) {
  notifications_.push_back({{"level", "error"}, {"message", {{"text", std::move(message)}}}});
}

Json Log::to_json(int exit_code) const {
  Json driver = Json::object();
  driver["name"] = "stguard";
  driver["version"] = STGUARD_VERSION;
  driver["semanticVersion"] = STGUARD_VERSION;
  driver["informationUri"] = kInformationUri;
  driver["rules"] = Json::array();
  for (const Rule& rule : rules_) driver["rules"].push_back(rule_json(rule));

  Json invocation = Json::object();
  // Exit status 2: a file could not be read or the run could not happen, so
  // the results do not cover everything asked for.
  invocation["executionSuccessful"] = exit_code != kExitUsage;
  invocation["exitCode"] = exit_code;
  if (!notifications_.empty()) invocation["toolExecutionNotifications"] = notifications_;

  Json run = Json::object();
  run["tool"] = {{"driver", std::move(driver)}};
  run["invocations"] = Json::array({std::move(invocation)});
  Json bases = bases_;
  bases[std::string(kWorkingDirectory)] = {{"uri", working_directory_uri()}};
  run["originalUriBaseIds"] = std::move(bases);
  run["results"] = results_;

  Json log = Json::object();
  log["$schema"] = kSchema;
  log["version"] = "2.1.0";
  log["runs"] = Json::array({std::move(run)});
  return log;
}

base::Result<void> Log::write(const std::filesystem::path& path, int exit_code) const {
  return base::write_file(path, base::json_line(to_json(exit_code)) + "\n");
}

CheckLog::CheckLog() : log_(reason_rules()) {}

void CheckLog::add(std::string_view file, const Result<HeaderSummary>& result,
                   std::optional<std::uint64_t> file_size) {
  if (result) return;
  const Error& error = result.error();
  if (error.reason == Reason::kIoError) {
    // Not a verdict on the format: no byte of the file is at fault.
    log_.add(reason_name(error.reason), Level::kError, error.message, file, std::nullopt);
    return;
  }
  // The parser names a byte; one at or past the end of the file (the bytes a
  // tensor claims beyond it) is a point.
  const bool past_end = file_size && error.offset >= *file_size;
  log_.add(reason_name(error.reason), Level::kError,
           std::string(reason_name(error.reason)) + " at byte " + std::to_string(error.offset) +
               ": " + error.message,
           file, Log::Region{error.offset, past_end ? 0U : 1U},
           Json{{"reason", reason_name(error.reason)}, {"offset", error.offset}});
}

Json verify_log(const verify::VerifyReport& report) {
  Log log(finding_rules());
  log.set_base(std::string(kVerifyDir), report.dir);
  if (!report.ran) log.add_notification("stguard verify: " + report.fatal);
  // The JSON report's record of each finding (same order) carries its
  // fields; the result repeats them as properties.
  const Json findings = verify::report_to_json(report)["findings"];
  for (std::size_t i = 0; i < report.findings.size(); ++i) {
    const verify::Finding& f = report.findings[i];
    Json properties = i < findings.size() ? findings[i] : Json::object();
    for (const char* repeated : {"kind", "severity", "message", "file", "file_hex"}) {
      properties.erase(repeated);
    }
    std::optional<Log::Region> region;
    if (f.offset) region = Log::Region{*f.offset, 1};
    // A finding about the folder as a whole names no file: DIR itself.
    log.add(verify::finding_kind_name(f.kind),
            f.severity == verify::Severity::kWarning ? Level::kWarning : Level::kError, f.message,
            f.file.empty() ? std::string_view(".") : std::string_view(f.file), region,
            std::move(properties), kVerifyDir);
  }
  return log.to_json(report.exit_code());
}

base::Result<void> write_verify_log(const std::filesystem::path& path,
                                    const verify::VerifyReport& report) {
  return base::write_file(path, base::json_line(verify_log(report)) + "\n");
}

}  // namespace stguard::cli::sarif
