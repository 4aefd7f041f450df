// tests/conformance/fake_reader.cc: readers that misbehave on purpose, to test the
// conformance runner (runner_test.cc) rather than any parser.
//
//   stguard_fake_reader MODE FILE
//
// MODE: oracle (answers what the manifest expects: a perfect reader),
// accept (accepts everything, reports no tensors), reject, crash (SIGSEGV),
// hang (sleeps, and so does a child it forks), garbage (not JSON), wrong-hash
// (the expected tensors with one byte of one hash changed), huge-alloc
// (touches memory until the address-space limit stops it), exit3, flood
// (20 MiB on stdout), plain-accept / plain-reject (exit 0 / 1, no output).
//
// The oracle and wrong-hash modes find the manifest by walking up from FILE
// to the directory holding manifest.json.
//
// Built WITHOUT sanitizers on purpose: the runner puts an address-space
// limit on each adapter, and a sanitizer runtime, which reserves terabytes
// of shadow memory at start-up, could not even start under it.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The manifest case whose file is `file`, or null.
json find_case(const fs::path& file) {
  fs::path absolute = fs::absolute(file).lexically_normal();
  for (fs::path dir = absolute.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    std::ifstream in(dir / "manifest.json");
    if (in) {
      json manifest = json::parse(in, nullptr, false);
      if (manifest.is_discarded()) return nullptr;
      const std::string relative = absolute.lexically_relative(dir).generic_string();
      for (const json& c : manifest["cases"]) {
        if (c["file"] == relative) return c;
      }
      return nullptr;
    }
    if (dir == dir.root_path()) break;
  }
  return nullptr;
}

int answer_from_manifest(const fs::path& file, bool corrupt_hash) {
  json c = find_case(file);
  if (c.is_null()) {
    std::cerr << "fake reader: no manifest case for " << file << "\n";
    return 4;
  }
  json out;
  if (c["verdict"] == "reject") {
    out = {{"verdict", "reject"}, {"error", "rejected as the manifest says"}};
  } else {
    json tensors = c["expected"]["tensors"];
    if (corrupt_hash && !tensors.empty()) {
      std::string hash = tensors[0]["sha256"];
      hash[0] = hash[0] == '0' ? '1' : '0';
      tensors[0]["sha256"] = hash;
    }
    out = {{"verdict", "accept"}, {"tensors", tensors}};
  }
  std::cout << out.dump() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: stguard_fake_reader MODE FILE\n";
    return 2;
  }
  const std::string mode = argv[1];
  const fs::path file = argv[2];
  if (mode == "oracle") return answer_from_manifest(file, false);
  if (mode == "wrong-hash") return answer_from_manifest(file, true);
  if (mode == "accept") {
    std::cout << R"({"verdict":"accept","tensors":[]})"
              << "\n";
    return 0;
  }
  if (mode == "reject") {
    std::cout << R"({"verdict":"reject","error":"fake reader rejects everything"})"
              << "\n";
    return 0;
  }
  if (mode == "crash") {
    std::cerr << "fake reader: about to crash\n";
    std::fflush(stderr);
    ::raise(SIGSEGV);
    return 0;
  }
  if (mode == "hang") {
    // The child keeps the output pipes open too: the runner must kill the
    // whole process group, not just the process it started.
    if (::fork() == 0) {
      while (true) ::pause();
    }
    while (true) ::pause();
  }
  if (mode == "garbage") {
    std::cout << "this is not JSON {\n";
    return 0;
  }
  if (mode == "huge-alloc") {
    // Up to 8 GiB, touched page by page; under the runner's limit the
    // allocation fails long before, std::bad_alloc is not caught, and the
    // process aborts.
    std::vector<char*> blocks;
    for (int i = 0; i < 8192; ++i) {
      char* block = new char[1 << 20];
      std::memset(block, 1, 1 << 20);
      blocks.push_back(block);
    }
    std::cout << R"({"verdict":"reject","error":"allocated 8 GiB without hitting a limit"})"
              << "\n";
    return 0;
  }
  if (mode == "exit3") return 3;
  if (mode == "flood") {
    std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 20; ++i) std::cout << chunk;
    return 0;
  }
  if (mode == "plain-accept") return 0;
  if (mode == "plain-reject") return 1;
  std::cerr << "fake reader: unknown mode " << mode << "\n";
  return 2;
}
