#include "remote/hub.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>

#include "base/text.h"

namespace stguard::remote {
namespace {

constexpr std::string_view kScheme = "hf://";

bool is_name_char(char c) noexcept {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

// A repository owner or name as the Hub allows them.
bool is_repo_part(std::string_view part) noexcept {
  if (part.empty() || part == "." || part == ".." || part.size() > 96) return false;
  for (const char c : part) {
    if (!is_name_char(c)) return false;
  }
  return true;
}

}  // namespace

bool is_repository_path(std::string_view path) noexcept {
  if (path.empty()) return false;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t end = std::min(path.find('/', start), path.size());
    const std::string_view segment = path.substr(start, end - start);
    if (segment.empty() || segment == "." || segment == "..") return false;
    start = end + 1;
  }
  for (const char c : path) {
    if (c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return false;
  }
  return true;
}

namespace {

// Percent-encodes all but RFC 3986's unreserved characters (and '/' when
// `keep_slash`).
std::string percent_encode(std::string_view text, bool keep_slash) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') || c == '-' ||
        c == '.' || c == '_' || c == '~' || (keep_slash && c == '/')) {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

std::string env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::string(value) : std::string();
}

std::string trimmed(std::string text) {
  while (!text.empty() && base::is_blank(text.back())) text.pop_back();
  std::size_t start = 0;
  while (start < text.size() && base::is_blank(text[start])) ++start;
  return text.substr(start);
}

// The first line of a token file, or empty.
std::string read_token_file(const std::string& path) {
  if (path.empty()) return {};
  std::ifstream in(path);
  std::string line;
  if (!in || !std::getline(in, line)) return {};
  return trimmed(line);
}

std::string token_file_path() {
  if (std::string path = env("HF_TOKEN_PATH"); !path.empty()) return path;
  std::string home = env("HF_HOME");
  if (home.empty()) {
    const std::string xdg = env("XDG_CACHE_HOME");
    if (!xdg.empty()) {
      home = xdg + "/huggingface";
    } else if (const std::string user_home = env("HOME"); !user_home.empty()) {
      home = user_home + "/.cache/huggingface";
    }
  }
  return home.empty() ? std::string() : home + "/token";
}

}  // namespace

bool is_hub_address(std::string_view text) noexcept {
  return text.substr(0, kScheme.size()) == kScheme;
}

bool is_remote_address(std::string_view text) noexcept {
  return is_http_url(text) || is_hub_address(text);
}

base::Result<HubAddress> parse_hub_address(std::string_view text) {
  const std::string shown = base::terminal_safe(text);
  if (!is_hub_address(text)) return base::fail(shown + ": not an hf:// address");
  std::string_view rest = text.substr(kScheme.size());
  const std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos) {
    return base::fail(shown + ": expected hf://ORG/NAME[@REVISION][/PATH]");
  }
  const std::string_view owner = rest.substr(0, slash);
  rest.remove_prefix(slash + 1);
  std::size_t name_end = rest.find_first_of("@/");
  if (name_end == std::string_view::npos) name_end = rest.size();
  const std::string_view name = rest.substr(0, name_end);
  rest.remove_prefix(name_end);
  if (!is_repo_part(owner) || !is_repo_part(name)) {
    return base::fail(shown +
                      ": the repository must be ORG/NAME, of letters, digits, '-', '_' and '.'");
  }
  HubAddress address;
  address.repo = std::string(owner) + "/" + std::string(name);
  address.revision = "main";
  if (!rest.empty() && rest.front() == '@') {
    rest.remove_prefix(1);
    // A revision may hold '/' (refs/pr/1): it runs to the first "/" that
    // starts a path of the repository, which the caller can only tell by
    // the revision's form; refs/... revisions take three segments.
    std::size_t end = rest.find('/');
    if (rest.substr(0, 5) == "refs/") {
      end = rest.find('/', 5);
      if (end != std::string_view::npos) end = rest.find('/', end + 1);
    }
    if (end == std::string_view::npos) end = rest.size();
    address.revision = std::string(rest.substr(0, end));
    rest.remove_prefix(end);
    if (address.revision.empty()) return base::fail(shown + ": empty revision after '@'");
    for (const char c : address.revision) {
      if (static_cast<unsigned char>(c) < 0x21 || c == 0x7f || c == '\\') {
        return base::fail(shown + ": the revision holds a blank or control character");
      }
    }
  }
  if (!rest.empty()) {
    rest.remove_prefix(1);  // the '/'
    if (!rest.empty()) {
      if (!is_repository_path(rest)) {
        return base::fail(shown +
                          ": the path in the repository has an empty, '.' or '..' "
                          "segment, a backslash or a control character");
      }
      address.path = std::string(rest);
    }
  }
  return address;
}

std::string hub_address_text(const HubAddress& repo, std::string_view path) {
  return std::string(kScheme) + repo.repo + "@" + repo.revision + "/" + std::string(path);
}

base::Result<HubSettings> hub_settings_from_environment() {
  HubSettings hub;
  if (std::string endpoint = env("HF_ENDPOINT"); !endpoint.empty()) {
    while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
    hub.endpoint = endpoint;
  }
  std::string source = "HF_TOKEN";
  hub.token = trimmed(env("HF_TOKEN"));
  if (hub.token.empty()) {
    source = "the token file " + token_file_path();
    hub.token = read_token_file(token_file_path());
  }
  for (const char c : hub.token) {
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f) {
      return base::io_failure("the Hub token from " + base::terminal_safe(source) +
                              " holds a blank or control character; it is not sent");
    }
  }
  return hub;
}

void add_token(const HubSettings& hub, HttpOptions& options) {
  options.token = hub.token;
  options.token_origin = origin_of(hub.endpoint);
}

std::string resolve_url(const HubSettings& hub, const HubAddress& repo, std::string_view path) {
  return hub.endpoint + "/" + repo.repo + "/resolve/" + percent_encode(repo.revision, false) + "/" +
         percent_encode(path, true);
}

base::Result<std::vector<HubFile>> list_files(HttpClient& client, const HubSettings& hub,
                                              const HubAddress& repo) {
  std::string url = hub.endpoint + "/api/models/" + repo.repo + "/tree/" +
                    percent_encode(repo.revision, false) + "?recursive=true";
  std::vector<HubFile> files;
  // A bound on pages, against a server whose "next" never ends.
  for (int page = 0; !url.empty(); ++page) {
    if (page == 10'000) return base::io_failure(repo.repo + ": the listing has too many pages");
    base::Result<BodyReply> reply = client.get(url, kMaxListingBytes);
    if (!reply) return reply.error();
    const nlohmann::json doc = nlohmann::json::parse(reply->body, nullptr, false);
    if (!doc.is_array()) {
      return base::io_failure(base::terminal_safe(url) + ": the listing is not a JSON array");
    }
    for (const nlohmann::json& entry : doc) {
      if (!entry.is_object() || entry.value("type", "") != "file") continue;
      const auto path = entry.find("path");
      if (path == entry.end() || !path->is_string()) continue;
      HubFile file;
      file.path = path->get<std::string>();
      const auto lfs = entry.find("lfs");
      const nlohmann::json& sized = (lfs != entry.end() && lfs->is_object()) ? *lfs : entry;
      if (const auto size = sized.find("size"); size != sized.end() && size->is_number_unsigned()) {
        file.size = size->get<std::uint64_t>();
      }
      files.push_back(std::move(file));
    }
    url = std::move(reply->next_url);
  }
  return files;
}

base::Result<std::vector<RemoteFile>> expand_address(HttpClient& client, const HubSettings& hub,
                                                     const std::string& address,
                                                     std::string_view suffix) {
  if (!is_hub_address(address)) return std::vector<RemoteFile>{{address, address, std::nullopt}};
  base::Result<HubAddress> parsed = parse_hub_address(address);
  if (!parsed) return parsed.error();
  if (!parsed->path.empty()) {
    return std::vector<RemoteFile>{
        {address, resolve_url(hub, *parsed, parsed->path), std::nullopt}};
  }
  base::Result<std::vector<HubFile>> listed = list_files(client, hub, *parsed);
  if (!listed) return listed.error();
  std::vector<RemoteFile> files;
  for (const HubFile& file : *listed) {
    if (file.path.size() < suffix.size() ||
        file.path.compare(file.path.size() - suffix.size(), suffix.size(), suffix) != 0 ||
        !is_repository_path(file.path)) {
      continue;
    }
    files.push_back(
        {hub_address_text(*parsed, file.path), resolve_url(hub, *parsed, file.path), file.size});
  }
  if (files.empty()) {
    return base::io_failure(base::terminal_safe(address) + ": the repository has no " +
                            std::string(suffix) + " file at revision " +
                            base::terminal_safe(parsed->revision));
  }
  std::sort(files.begin(), files.end(),
            [](const RemoteFile& a, const RemoteFile& b) { return a.shown < b.shown; });
  return files;
}

}  // namespace stguard::remote
