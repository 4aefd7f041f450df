#include "verify_remote.h"

#include <utility>

#include "output.h"
#include "remote/batch.h"
#include "remote/http.h"
#include "remote/hub.h"

namespace stguard::cli {
namespace {

// A file to fetch: its name in the repository and its URL.
struct Wanted {
  std::string name;
  std::string url;
  std::optional<std::uint64_t> listed_size;
  verify::FetchNeed need = verify::FetchNeed::kNothing;
};

// The text of an index (at most max_bytes), as a FetchedFile.
verify::FetchedFile fetch_whole(remote::HttpClient& client, const Wanted& w,
                                std::uint64_t max_bytes) {
  verify::FetchedFile f;
  f.name = w.name;
  f.listed_size = w.listed_size;
  if (w.listed_size && *w.listed_size > max_bytes) {
    f.size = *w.listed_size;  // verify reports it too large, unread
    return f;
  }
  base::Result<remote::BodyReply> body = client.get(w.url, max_bytes);
  if (!body) {
    f.error = body.error().message;
    return f;
  }
  f.size = body->body.size();
  f.bytes.assign(body->body.begin(), body->body.end());
  return f;
}

// "https://host/dir/x.json" -> "https://host/dir/".
std::string folder_of_url(const std::string& url) {
  const std::size_t query = url.find_first_of("?#");
  const std::string path = url.substr(0, query);
  return path.substr(0, path.rfind('/') + 1);
}

}  // namespace

base::Result<RemoteRepository> fetch_repository(const std::string& address,
                                                const verify::VerifyOptions& options, unsigned jobs,
                                                bool progress) {
  base::Result<remote::HubSettings> settings = remote::hub_settings_from_environment();
  if (!settings) return settings.error();
  const remote::HubSettings& hub = *settings;
  remote::HttpOptions http = remote::http_options_from_environment();
  remote::add_token(hub, http);
  remote::HttpClient client(http);

  RemoteRepository repo;
  std::vector<Wanted> wanted;
  // Where the files named by an index are: the index's folder, as a URL
  // prefix and, for hf://, as a path prefix in the repository.
  std::string folder_url;
  if (remote::is_hub_address(address)) {
    base::Result<remote::HubAddress> parsed = remote::parse_hub_address(address);
    if (!parsed) return base::io_failure(parsed.error().message);
    if (parsed->path.empty()) {
      repo.name = "hf://" + parsed->repo + "@" + parsed->revision;
      base::Result<std::vector<remote::HubFile>> listed = remote::list_files(client, hub, *parsed);
      if (!listed) return listed.error();
      for (const remote::HubFile& f : *listed) {
        const verify::FetchNeed need = verify::fetch_need(f.path);
        if (need == verify::FetchNeed::kNothing || !remote::is_repository_path(f.path)) continue;
        wanted.push_back({f.path, remote::resolve_url(hub, *parsed, f.path), f.size, need});
      }
    } else {
      const std::size_t slash = parsed->path.rfind('/');
      const std::string dir = slash == std::string::npos ? "" : parsed->path.substr(0, slash + 1);
      repo.name = "hf://" + parsed->repo + "@" + parsed->revision + "/" + dir;
      const std::string file = parsed->path.substr(dir.size());
      folder_url = remote::resolve_url(hub, *parsed, dir);
      wanted.push_back({file, remote::resolve_url(hub, *parsed, parsed->path), std::nullopt,
                        verify::fetch_need(file)});
    }
  } else {
    folder_url = folder_of_url(address);
    repo.name = folder_url;
    const std::string file =
        address.substr(folder_url.size(), address.find_first_of("?#") - folder_url.size());
    wanted.push_back({file, address, std::nullopt, verify::fetch_need(file)});
  }
  if (wanted.size() == 1 && wanted.front().need == verify::FetchNeed::kNothing) {
    return base::io_failure(address +
                            ": not a repository, a .safetensors file or a shard index "
                            "(*.safetensors.index.json)");
  }

  // Indexes first (a URL's index names the shards to fetch), then the heads.
  std::vector<std::string> head_names;
  std::vector<std::string> head_urls;
  std::vector<std::optional<std::uint64_t>> head_sizes;
  const auto want_head = [&](const Wanted& w) {
    head_names.push_back(w.name);
    head_urls.push_back(w.url);
    head_sizes.push_back(w.listed_size);
  };
  for (const Wanted& w : wanted) {
    if (w.need == verify::FetchNeed::kHead) want_head(w);
    if (w.need != verify::FetchNeed::kWhole) continue;
    verify::FetchedFile index = fetch_whole(client, w, options.max_index_bytes);
    if (!folder_url.empty()) {  // one index given: the shards it names, beside it
      if (!index.error.empty()) return base::io_failure(index.error);
      const std::string_view text(reinterpret_cast<const char*>(index.bytes.data()),
                                  index.bytes.size());
      for (const std::string& shard : verify::shards_named_in_index(text)) {
        want_head({shard, folder_url + shard, std::nullopt, verify::FetchNeed::kHead});
      }
    }
    repo.files.push_back(std::move(index));
  }
  ProgressLine line("stguard verify: fetched", "shard headers");
  remote::BatchOptions batch;
  batch.jobs = jobs;
  if (progress && head_urls.size() > 4) batch.on_tick = line.callback();
  std::vector<Result<remote::RemoteHead>> heads =
      remote::read_heads(head_urls, ParseOptions{}, http, batch);
  line.erase();
  for (std::size_t i = 0; i < heads.size(); ++i) {
    verify::FetchedFile f;
    f.name = head_names[i];
    f.listed_size = head_sizes[i];
    if (heads[i]) {
      f.size = heads[i]->file_size;
      f.bytes = std::move(heads[i]->bytes);
    } else {
      f.error = heads[i].error().message;
    }
    repo.files.push_back(std::move(f));
  }
  return repo;
}

}  // namespace stguard::cli
