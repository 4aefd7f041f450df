// tests/conformance/fake_reader.cc: readers that misbehave on purpose, to test the
// conformance runner (runner_test.cc) rather than any parser.
//
//   stguard_fake_reader MODE FILE
//   stguard_fake_reader --persistent MODE     (paths on stdin, one per line)
//
// MODE: oracle (answers what the manifest expects: a perfect reader),
// accept (accepts everything, reports no tensors), reject, crash (SIGSEGV),
// hang (sleeps, and so does a child it forks), garbage (not JSON), wrong-hash
// (the expected tensors with one byte of one hash changed), huge-alloc
// (touches memory until the address-space limit stops it), exit3, flood
// (20 MiB on stdout), plain-accept / plain-reject (exit 0 / 1, no output),
// plain-no-overlap-check (a small real reader, graded by exit status, with
// one planted bug: it never checks that tensors overlap; `stguard hunt`'s
// end-to-end test must find it),
// two-lines (the oracle's answer twice, in one write), endless-flood (writes
// stdout without end or newline, never exits), stderr-report (a sanitizer
// report of about 20 KiB on stderr, then exit 1), names-and-crashes (a
// JSON reader for `stguard hunt`'s bucketing tests: it rejects every file,
// printing its tensor names unquoted, and crashes with a sanitizer-like
// report on two planted root causes; see names_and_crashes()), and
// mixed:MODE=PART,MODE=PART,... (MODE on files whose path contains PART,
// the oracle on all others), which lets one persistent process crash, hang
// or misanswer on chosen files only.
//
// With --persistent, the persistent adapter mode (docs/adapter-protocol.md):
// each line of stdin is a FILE, answered by one write ending in a newline;
// a mode that would exit with a non-zero status ends the process so.
//
// The oracle and wrong-hash modes find the manifest by walking up from FILE
// to the directory holding manifest.json.
//
// Built WITHOUT sanitizers on purpose: the runner puts an address-space
// limit on each adapter, and a sanitizer runtime, which reserves terabytes
// of shadow memory at start-up, could not even start under it.
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
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

// Writes `text` with one write() call (the persistent mode's framing: a
// line written in pieces could be read in pieces).
void write_out(const std::string& text) {
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t wrote = ::write(STDOUT_FILENO, text.data() + done, text.size() - done);
    if (wrote <= 0) std::exit(5);
    done += static_cast<std::size_t>(wrote);
  }
}

int answer_from_manifest(const fs::path& file, bool corrupt_hash, int copies = 1) {
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
  std::string text;
  for (int i = 0; i < copies; ++i) text += out.dump() + "\n";
  write_out(text);
  return 0;
}

// The byte size of `count` elements of `dtype`, or -1 for an unknown dtype
// or a bit count that is not whole bytes. Products stay far below 2^64 here:
// dims above 2^20 are refused first.
long long element_bytes(const std::string& dtype, unsigned long long count) {
  static const std::pair<const char*, int> kBits[] = {
      {"BOOL", 8},        {"F4", 4},      {"F6_E2M3", 6}, {"F6_E3M2", 6}, {"U8", 8},
      {"I8", 8},          {"F8_E5M2", 8}, {"F8_E4M3", 8}, {"F8_E8M0", 8}, {"F8_E4M3FNUZ", 8},
      {"F8_E5M2FNUZ", 8}, {"I16", 16},    {"U16", 16},    {"F16", 16},    {"BF16", 16},
      {"I32", 32},        {"U32", 32},    {"F32", 32},    {"C64", 64},    {"F64", 64},
      {"I64", 64},        {"U64", 64}};
  for (const auto& [name, bits] : kBits) {
    if (dtype != name) continue;
    const unsigned long long total = count * static_cast<unsigned long long>(bits);
    if (total % 8 != 0) return -1;
    return static_cast<long long>(total / 8);
  }
  return -1;
}

// The planted-bug reader: 0 accept, 1 reject. Checks the prefix, the JSON,
// each entry's fields, sizes, and that the sorted ranges leave no gap and
// end at the end of the data, but not that they do not overlap.
int no_overlap_check(const fs::path& file) {
  // Sized and read in one call (g++-12 warns about a null dereference deep
  // inside istreambuf_iterator's copy loop).
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  const std::streamoff file_size = in ? static_cast<std::streamoff>(in.tellg()) : -1;
  if (file_size < 0) return 1;
  std::string bytes(static_cast<std::size_t>(file_size), '\0');
  in.seekg(0);
  if (!in.read(bytes.data(), file_size)) return 1;
  if (bytes.size() < 8) return 1;
  unsigned long long n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  if (n > bytes.size() - 8) return 1;
  const json header = json::parse(bytes.substr(8, n), nullptr, false);
  if (header.is_discarded() || !header.is_object()) return 1;
  const unsigned long long data_len = bytes.size() - 8 - n;
  std::vector<std::pair<unsigned long long, unsigned long long>> ranges;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") continue;
    if (!entry.is_object() || entry.size() != 3 || !entry.contains("dtype") ||
        !entry.contains("shape") || !entry.contains("data_offsets")) {
      return 1;
    }
    const json& dtype = entry["dtype"];
    const json& shape = entry["shape"];
    const json& offsets = entry["data_offsets"];
    if (!dtype.is_string() || !shape.is_array() || !offsets.is_array() || offsets.size() != 2) {
      return 1;
    }
    unsigned long long count = 1;
    for (const json& d : shape) {
      if (!d.is_number_unsigned() || d.get<unsigned long long>() > (1u << 20)) return 1;
      count *= d.get<unsigned long long>();
      if (count > (1u << 24)) return 1;
    }
    if (!offsets[0].is_number_unsigned() || !offsets[1].is_number_unsigned()) return 1;
    const auto begin = offsets[0].get<unsigned long long>();
    const auto end = offsets[1].get<unsigned long long>();
    const long long size = element_bytes(dtype.get<std::string>(), count);
    if (size < 0 || begin > end || end - begin != static_cast<unsigned long long>(size)) return 1;
    ranges.emplace_back(begin, end);
  }
  std::sort(ranges.begin(), ranges.end());
  unsigned long long covered = 0;
  for (const auto& [begin, end] : ranges) {
    if (begin > covered) return 1;     // a gap
    covered = std::max(covered, end);  // the bug: begin < covered (an overlap) passes
  }
  return covered == data_len ? 0 : 1;
}

// A sanitizer report as AddressSanitizer prints one: the pid, addresses and
// access size vary from run to run; the bug type and frames do not. `frames`
// are the first stack's function names, `filler` adds that many frames of
// the allocation stack (a long trace).
std::string sanitizer_report(unsigned long long seed, const std::string& bug,
                             const std::string& access, const std::vector<std::string>& frames,
                             int filler) {
  const std::string pid = std::to_string(1000 + seed % 30000);
  char address[32];
  std::snprintf(address, sizeof address, "0x%012llx", 0x602000000010ULL + (seed % 4096) * 16);
  std::string out = "==" + pid + "==ERROR: AddressSanitizer: " + bug + " on address " + address +
                    " at pc 0x55d3c1a2b3c4 bp 0x7ffd1c2b3a40 sp 0x7ffd1c2b3a38\n" + access +
                    " of size " + std::to_string(1 + seed % 8) + " at " + address + " thread T0\n";
  for (std::size_t i = 0; i < frames.size(); ++i) {
    out += "    #" + std::to_string(i) + " 0x55d3c1a2" + std::to_string(1000 + seed % 9000) +
           " in " + frames[i] + " /src/fake/reader.cc:" + std::to_string(40 + i) + ":7\n";
  }
  out += "\n" + std::string(address) +
         " is located 0 bytes after 16-byte region\nallocated by "
         "thread T0 here:\n";
  for (int i = 0; i < filler; ++i) {
    out += "    #" + std::to_string(i) + " 0x7f3a2b1c" + std::to_string(1000 + i) +
           " in allocation_frame_" + std::to_string(i) +
           "() /src/fake/alloc.cc:" + std::to_string(i + 1) + "\n";
  }
  out += "SUMMARY: AddressSanitizer: " + bug + " /src/fake/reader.cc:40:7 in " + frames.front() +
         "\n==" + pid + "==ABORTING\n";
  return out;
}

// The JSON reader of `stguard hunt`'s bucketing tests. Its messages carry the
// file's tensor names unquoted, as some JavaScript readers print them; it
// rejects every file, so each valid one is a rejects-valid finding:
//   two tensors or more   "offsets for NAME NAME overlap" (the first two)
//   one tensor            "tensor NAME is not aligned"
//   none, or no header    "no tensors" / "cannot read the header"
// and exits 1 after a sanitizer report (pid and addresses varying with the
// file) on two planted root causes, whatever else the file breaks:
//   a non-empty "__metadata__" object   heap-buffer-overflow in parse_metadata
//   a tensor of rank 3 or more          SEGV in shape_product
int names_and_crashes(const fs::path& file) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  const std::streamoff file_size = in ? static_cast<std::streamoff>(in.tellg()) : -1;
  std::string bytes(static_cast<std::size_t>(std::max<std::streamoff>(file_size, 0)), '\0');
  in.seekg(0);
  if (file_size < 8 || !in.read(bytes.data(), file_size)) {
    write_out(R"({"verdict":"reject","error":"cannot read the header"})"
              "\n");
    return 0;
  }
  unsigned long long n = 0;
  for (int i = 7; i >= 0; --i)
    n = (n << 8) | static_cast<unsigned char>(bytes[static_cast<std::size_t>(i)]);
  const json header =
      n > bytes.size() - 8 ? json() : json::parse(bytes.substr(8, n), nullptr, false);
  if (header.is_discarded() || !header.is_object()) {
    write_out(R"({"verdict":"reject","error":"cannot read the header"})"
              "\n");
    return 0;
  }
  const auto seed = static_cast<unsigned long long>(file_size) * 2654435761ULL;
  std::vector<std::string> names;
  for (const auto& [name, entry] : header.items()) {
    if (name == "__metadata__") {
      if (entry.is_object() && !entry.empty()) {
        std::cerr << sanitizer_report(seed, "heap-buffer-overflow", "READ",
                                      {"parse_metadata(char const*, unsigned long)",
                                       "read_header(std::string const&)", "main"},
                                      300);
        return 1;
      }
      continue;
    }
    if (entry.is_object() && entry.contains("shape") && entry["shape"].is_array() &&
        entry["shape"].size() >= 3) {
      std::cerr << sanitizer_report(seed, "SEGV", "READ",
                                    {"shape_product(long const*, int)", "read_entry(json const&)",
                                     "read_header(std::string const&)", "main"},
                                    3);
      return 1;
    }
    names.push_back(name);
  }
  std::string message = "no tensors";
  if (names.size() >= 2) {
    message = "offsets for " + names[0] + " " + names[1] + " overlap";
  } else if (names.size() == 1) {
    message = "tensor " + names[0] + " is not aligned";
  }
  write_out(json{{"verdict", "reject"}, {"error", message}}.dump(-1, ' ', false,
                                                                 json::error_handler_t::replace) +
            "\n");
  return 0;
}

// For mixed:MODE=PART,...: the mode for `file`.
std::string mixed_mode_for(std::string_view spec, const fs::path& file) {
  const std::string path = file.string();
  while (!spec.empty()) {
    const std::string_view item = spec.substr(0, spec.find(','));
    spec.remove_prefix(std::min(spec.size(), item.size() + 1));
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) continue;
    if (path.find(item.substr(equals + 1)) != std::string::npos) {
      return std::string(item.substr(0, equals));
    }
  }
  return "oracle";
}

// Answers `file` in `mode`; returns the exit status the one-file process
// would have.
int respond(const std::string& mode, const fs::path& file) {
  if (mode.rfind("mixed:", 0) == 0) return respond(mixed_mode_for(mode.substr(6), file), file);
  if (mode == "oracle") return answer_from_manifest(file, false);
  if (mode == "wrong-hash") return answer_from_manifest(file, true);
  if (mode == "two-lines") return answer_from_manifest(file, false, 2);
  if (mode == "accept") {
    write_out(R"({"verdict":"accept","tensors":[]})"
              "\n");
    return 0;
  }
  if (mode == "reject") {
    write_out(R"({"verdict":"reject","error":"fake reader rejects everything"})"
              "\n");
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
    write_out("this is not JSON {\n");
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
    write_out(R"({"verdict":"reject","error":"allocated 8 GiB without hitting a limit"})"
              "\n");
    return 0;
  }
  if (mode == "exit3") return 3;
  if (mode == "flood") {
    std::string chunk(1 << 20, 'x');
    for (int i = 0; i < 20; ++i) write_out(chunk);
    return 0;
  }
  if (mode == "plain-accept") return 0;
  if (mode == "plain-reject") return 1;
  if (mode == "plain-no-overlap-check") return no_overlap_check(file);
  if (mode == "names-and-crashes") return names_and_crashes(file);
  if (mode == "endless-flood") {
    const std::string chunk(1 << 16, 'x');
    while (true) write_out(chunk);
  }
  if (mode == "stderr-report") {
    std::cerr << sanitizer_report(7, "heap-buffer-overflow", "READ",
                                  {"parse_dtype(char const*)", "read_entry(json const&)", "main"},
                                  400);
    return 1;
  }
  std::cerr << "fake reader: unknown mode " << mode << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string_view(argv[1]) == "--persistent") {
    const std::string mode = argv[2];
    for (std::string line; std::getline(std::cin, line);) {
      const int status = respond(mode, line);
      if (status != 0) return status;
    }
    return 0;
  }
  if (argc != 3) {
    std::cerr << "usage: stguard_fake_reader MODE FILE | --persistent MODE\n";
    return 2;
  }
  return respond(argv[1], argv[2]);
}
