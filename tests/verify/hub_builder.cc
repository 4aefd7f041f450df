// tests/verify/hub_builder.cc: Hub cache repositories and --local-dir
// downloads for the verify tests.
#include "hub_builder.h"

#include <sys/stat.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iterator>
#include <set>

#include "base/git_blob.h"
#include "base/sha256.h"
#include "folder_builder.h"

namespace stguard_test {
namespace {

namespace fs = std::filesystem;

void write_bytes(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) std::abort();
}

std::string as_string(const std::vector<std::uint8_t>& bytes) {
  return std::string(bytes.begin(), bytes.end());
}

// The name the Hub gives a file's blob (and its etag).
std::string hub_name(const std::string& file, const std::string& content) {
  return file.ends_with(".safetensors") ? stguard::base::sha256_hex(content)
                                        : stguard::base::git_blob_hex(content);
}

// The good model's files, by name; `revision` 2 changes shard 3 and config.json.
std::map<std::string, std::string> model_files(int revision) {
  std::map<std::string, std::string> files;
  for (const auto& [shard, names] : good_layout()) files[shard] = as_string(make_shard(names));
  files[kIndex] = index_text(good_weight_map(), kGoodTotalSize);
  files["config.json"] = R"({"model_type": "llama"})";
  if (revision == 2) {
    // Same tensor names (so the index still holds), other values.
    std::string& shard3 = files[kShard3];
    shard3.back() = static_cast<char>(shard3.back() ^ 0x40);
    files["config.json"] = R"({"model_type": "llama", "revision": 2})";
  }
  return files;
}

}  // namespace

HubRepo build_hub_repo(const TempDir& dir, const std::string& name) {
  HubRepo repo;
  repo.cache = dir.path() / "hub";
  repo.root = repo.cache / name;
  int revision = 1;
  for (const std::string& commit : {kOldCommit, kNewCommit}) {
    fs::create_directories(repo.snapshot(commit));
    for (const auto& [file, content] : model_files(revision)) {
      const std::string blob = hub_name(file, content);
      write_bytes(repo.blob_path(blob), content);
      fs::create_symlink(fs::path("../../blobs") / blob, repo.snapshot(commit) / file);
      repo.blobs[commit][file] = blob;
    }
    ++revision;
  }
  write_bytes(repo.root / "refs" / "main", kNewCommit);
  return repo;
}

HubRepo build_hub_pipeline(const TempDir& dir, const std::string& name) {
  HubRepo repo;
  repo.cache = dir.path() / "hub";
  repo.root = repo.cache / name;
  const TempDir pipeline;
  write_diffusers_pipeline(pipeline);
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(pipeline.path())) {
    if (!e.is_regular_file()) continue;
    const fs::path rel = e.path().lexically_relative(pipeline.path());
    const std::string content = read_text(e.path().string());
    const std::string blob = hub_name(rel.string(), content);
    write_bytes(repo.blob_path(blob), content);
    fs::path up = "../..";
    for (auto it = rel.begin(); std::next(it) != rel.end(); ++it) up /= "..";
    const fs::path link = repo.snapshot(kNewCommit) / rel;
    fs::create_directories(link.parent_path());
    fs::create_symlink(up / "blobs" / blob, link);
    repo.blobs[kNewCommit][rel.string()] = blob;
  }
  write_bytes(repo.root / "refs" / "main", kNewCommit);
  return repo;
}

void build_local_dir(const TempDir& dir) {
  write_good_model(dir);
  const std::time_t later = std::time(nullptr) + 5;
  for (const fs::directory_entry& e : fs::directory_iterator(dir.path())) {
    if (!e.is_regular_file()) continue;
    const std::string file = e.path().filename().string();
    const std::string content = read_text(e.path().string());
    write_bytes(metadata_path(dir, file), kNewCommit + "\n" + hub_name(file, content) + "\n" +
                                              std::to_string(later) + ".25\n");
  }
}

std::string metadata_path(const TempDir& dir, const std::string& file) {
  return dir.file(".cache/huggingface/download/" + file + ".metadata");
}

void flip_byte(const fs::path& path, std::uint64_t offset) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  f.seekg(static_cast<std::streamoff>(offset));
  char c = 0;
  f.get(c);
  f.seekp(static_cast<std::streamoff>(offset));
  f.put(static_cast<char>(c + 1));
  f.close();
  if (!f) std::abort();
}

void flip_last_byte(const fs::path& path) { flip_byte(path, fs::file_size(path) - 1); }

stguard::verify::VerifyReport verify_path(const fs::path& path,
                                          stguard::verify::VerifyOptions options) {
  options.jobs = options.jobs == 0 ? 2 : options.jobs;
  return stguard::verify::verify_model_folder(path.string(), options);
}

std::multiset<std::string> warning_kinds(const stguard::verify::VerifyReport& report) {
  std::multiset<std::string> out;
  for (const stguard::verify::Finding& f : report.findings) {
    if (f.severity == stguard::verify::Severity::kWarning) {
      out.insert(std::string(stguard::verify::finding_kind_name(f.kind)));
    }
  }
  return out;
}

}  // namespace stguard_test
