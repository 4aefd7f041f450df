// remote/hub.h: hf:// addresses on the Hugging Face Hub (or any server with
// its API, HF_ENDPOINT): what they name, the URL a file of a repository is
// downloaded from, the repository's file listing, and the token sent.
//
//   base::Result<remote::HubAddress> a =
//   remote::parse_hub_address("hf://org/model@v1/x.safetensors"); remote::HubSettings hub =
//   remote::hub_settings_from_environment(); std::string url = remote::resolve_url(hub, *a,
//   a->path);
//     // https://huggingface.co/org/model/resolve/v1/x.safetensors
//   base::Result<std::vector<remote::HubFile>> files = remote::list_files(client, hub, *a);
//
// The address form is hf://ORG/NAME[@REVISION][/PATH]: without PATH it names
// the whole repository at that revision (default "main"). A revision with
// '/' in it (refs/pr/1) is written as is and percent-encoded in URLs, as
// the Hub's tools do.
//
// The token, as huggingface_hub finds it: HF_TOKEN, else the file named by
// HF_TOKEN_PATH, else $HF_HOME/token (HF_HOME defaults to
// $XDG_CACHE_HOME/huggingface, then ~/.cache/huggingface). It is sent only to
// the endpoint's origin (HttpOptions::token_origin) and never printed.
#ifndef STGUARD_REMOTE_HUB_H_
#define STGUARD_REMOTE_HUB_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/failure.h"
#include "remote/http.h"

namespace stguard::remote {

inline constexpr std::string_view kDefaultHubEndpoint = "https://huggingface.co";

struct HubAddress {
  std::string repo;      // "org/name"
  std::string revision;  // "main" unless given
  std::string path;      // empty: the whole repository
};

// True for text starting "hf://".
bool is_hub_address(std::string_view text) noexcept;

// True for what stguard reads over HTTP rather than from disk: an http://
// or https:// URL, or an hf:// address.
bool is_remote_address(std::string_view text) noexcept;

// Parses hf://ORG/NAME[@REVISION][/PATH]; fails with the reason for a
// malformed address (no name, an empty revision, "..", a backslash, ...).
base::Result<HubAddress> parse_hub_address(std::string_view text);

// "hf://ORG/NAME@REVISION/PATH", as printed for one file of a repository.
std::string hub_address_text(const HubAddress& repo, std::string_view path);

struct HubSettings {
  std::string endpoint{kDefaultHubEndpoint};  // no trailing '/'
  std::string token;                          // empty: none
};

// HF_ENDPOINT and the token, from the environment and the token file.
// Fails (naming where the token came from, never the token) when the token
// holds a blank or a control character, which would end the Authorization
// header and start another.
base::Result<HubSettings> hub_settings_from_environment();

// True for a relative path of non-empty segments, none "." or "..", with no
// backslash or control character: the repository paths stguard fetches
// (a listing's other paths are left out).
bool is_repository_path(std::string_view path) noexcept;

// The options that send `hub.token` to the endpoint alone.
void add_token(const HubSettings& hub, HttpOptions& options);

// {endpoint}/{repo}/resolve/{revision}/{path}, percent-encoded.
std::string resolve_url(const HubSettings& hub, const HubAddress& repo, std::string_view path);

struct HubFile {
  std::string path;
  std::uint64_t size = 0;  // the listing's size (the LFS object's for an LFS file)
};

// Every file of the repository at its revision, from the API's recursive
// tree listing, pages followed; directories left out.
base::Result<std::vector<HubFile>> list_files(HttpClient& client, const HubSettings& hub,
                                              const HubAddress& repo);

// One remote file to read: how it is shown, the URL it is read from, and the
// size the Hub's listing gives it (when it came from one).
struct RemoteFile {
  std::string shown;
  std::string url;
  std::optional<std::uint64_t> listed_size;
};

// The files a command-line address names: an http(s) URL itself; an hf://
// address with a path, that file; an hf:// repository, each of its files
// whose name ends in `suffix` (".safetensors"), in path order. An hf://
// repository with no such file is an error, as is a malformed address.
base::Result<std::vector<RemoteFile>> expand_address(HttpClient& client, const HubSettings& hub,
                                                     const std::string& address,
                                                     std::string_view suffix);

// The most bytes a listing page (or an index) may have.
inline constexpr std::uint64_t kMaxListingBytes = 64 << 20;

}  // namespace stguard::remote

#endif  // STGUARD_REMOTE_HUB_H_
