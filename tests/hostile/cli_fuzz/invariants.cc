// tests/hostile/cli_fuzz/invariants.cc: expect and check_invariants
// (invariants.h).
#include "tests/hostile/cli_fuzz/invariants.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>

namespace stguard_cli_fuzz {
namespace {

namespace fs = std::filesystem;

// Where a path followed through its links ends, as the kernel would follow
// them for `uid`.
struct Resolved {
  fs::path path;         // the last name reached
  bool exists = false;   // something is there (not a link)
  bool refused = false;  // the kernel would not follow a link on the way
  std::string why;       // when refused, or when its folder is missing
  bool folder_missing = false;
  bool own_descriptor = false;  // /dev/stdout and the like
  struct stat st {};
};

bool sticky_and_world_writable(const struct stat& dir) {
  return (dir.st_mode & S_ISVTX) != 0 && (dir.st_mode & S_IWOTH) != 0;
}

Resolved resolve(fs::path path, uid_t uid, bool protected_symlinks) {
  Resolved r;
  for (int hops = 0; hops < 40; ++hops) {
    std::error_code ec;
    const fs::path folder = fs::canonical(path.parent_path(), ec);
    if (ec) {
      r.path = path.lexically_normal();
      r.folder_missing = true;
      r.why = "its folder does not exist";
      return r;
    }
    const fs::path at = folder / path.filename();
    struct stat st {};
    if (::lstat(at.c_str(), &st) != 0) {
      r.path = at;
      return r;
    }
    if (!S_ISLNK(st.st_mode)) {
      r.path = at;
      r.exists = true;
      r.st = st;
      return r;
    }
    struct stat dir {};
    if (protected_symlinks && ::stat(folder.c_str(), &dir) == 0 && sticky_and_world_writable(dir) &&
        st.st_uid != uid && st.st_uid != dir.st_uid) {
      r.path = at;
      r.refused = true;
      r.why =
          "a link another user planted in a sticky world-writable folder "
          "(fs.protected_symlinks)";
      return r;
    }
    // The command's own descriptors: what they lead to is not a file the
    // line names (output.h writes through them).
    for (const char* own : {"/dev/stdout", "/dev/stderr", "/dev/fd/", "/proc/self/fd/"}) {
      if (at.string().rfind(own, 0) == 0) {
        r.path = at;
        r.own_descriptor = true;
        return r;
      }
    }
    const fs::path target = fs::read_symlink(at, ec);
    if (ec) {
      r.path = at;
      r.refused = true;
      r.why = "an unreadable link";
      return r;
    }
    path = target.is_absolute() ? target : folder / target;
  }
  r.refused = true;
  r.why = "a loop of links";
  return r;
}

// Whether `uid` may write (W_OK) or read (R_OK) what `st` describes, as the
// kernel's permission check says for an ordinary user; root may always.
bool permits(const struct stat& st, uid_t uid, bool write) {
  if (uid == 0) return true;
  const mode_t owner = write ? S_IWUSR : S_IRUSR;
  const mode_t group = write ? S_IWGRP : S_IRGRP;
  const mode_t other = write ? S_IWOTH : S_IROTH;
  if (st.st_uid == uid) return (st.st_mode & owner) != 0;
  if (st.st_gid == kNogroup) return (st.st_mode & group) != 0;
  return (st.st_mode & other) != 0;
}

// The snapshot key of `path` (sandbox.h): "run/...", "small/...", "data/...",
// "tmp/...", or nullopt for a path outside (a device).
std::optional<std::string> key_of(const Session& session, const fs::path& run_dir,
                                  const fs::path& path) {
  const std::string text = path.lexically_normal().string();
  const std::pair<std::string, fs::path> roots[] = {{"run", run_dir},
                                                    {"small", session.small_dir()},
                                                    {"data", session.data_dir()},
                                                    {"tmp", session.tmp_dir()}};
  for (const auto& [name, root] : roots) {
    if (root.empty()) continue;
    std::error_code ec;
    const std::string base = fs::weakly_canonical(root, ec).string();
    if (text == base) return name;
    if (text.size() > base.size() && text.compare(0, base.size(), base) == 0 &&
        text[base.size()] == '/') {
      return name + text.substr(base.size());
    }
  }
  return std::nullopt;
}

bool under(const std::string& key, const std::string& folder) {
  return key == folder || (key.size() > folder.size() &&
                           key.compare(0, folder.size(), folder) == 0 && key[folder.size()] == '/');
}

std::string last_name(const std::string& key) {
  const std::size_t slash = key.rfind('/');
  return slash == std::string::npos ? key : key.substr(slash + 1);
}

// Whether `content`, written for `option`, is a whole file of its kind
// (nullopt), or what is wrong with it.
std::optional<std::string> not_whole(const std::string& option, const std::string& content) {
  if (option == "--sarif") {
    const nlohmann::json j = nlohmann::json::parse(content, nullptr, false);
    if (!j.is_object() || !j.contains("runs")) return "not a whole SARIF log";
  } else if (option == "--jsonl") {
    std::istringstream lines(content);
    for (std::string line; std::getline(lines, line);) {
      if (!line.empty() && nlohmann::json::parse(line, nullptr, false).is_discarded()) {
        return "a line that is not JSON: " + line.substr(0, 80);
      }
    }
    if (!content.empty() && content.back() != '\n') return "a last line cut short";
  } else if (option == "--junit") {
    if (content.find("</testsuites>") == std::string::npos) return "not a whole JUnit file";
  } else if (option == "--html") {
    if (content.find("</html>") == std::string::npos) return "not a whole HTML page";
  } else if (option == "--markdown" || option == "--text" || option == "--write-expectations") {
    if (!content.empty() && content.back() != '\n') return "a last line cut short";
  } else if (option == "FILE") {  // `write SPEC OUT`
    if (content.size() < 9) return "shorter than a safetensors file can be";
    std::uint64_t n = 0;
    for (std::size_t i = 8; i-- > 0;) n = (n << 8) | static_cast<unsigned char>(content[i]);
    if (n > content.size() - 8 || content[8] != '{') return "not a whole safetensors file";
  }
  return std::nullopt;
}

// Folders that are not stguard's own, where a command writes files of set
// names (docs/cli.md): man pages and the corpus release are "stguard*",
// promoted recipes go to cases/GROUP.txt.
bool written_into_by_name(const std::string& relative) {
  return relative.rfind("stguard", 0) == 0 || relative.rfind("cases/", 0) == 0;
}

// A flag that makes the command write one file into a folder another
// option names for reading (docs/cli.md says so at the flag).
struct ImpliedOutput {
  const char* command;
  const char* flag;
  const char* folder_option;
  const char* file;
};
constexpr ImpliedOutput kImpliedOutputs[] = {
    {"corpus build", "--bump-version", "--recipes", "corpus-version.txt"},
};

std::string signal_text(int signal_number) {
  const char* name = ::sigabbrev_np(signal_number);
  return name != nullptr ? std::string("SIG") + name : "signal " + std::to_string(signal_number);
}

}  // namespace

Expectations expect(const Session& session, const fs::path& run_dir, const Parsed& parsed,
                    bool as_nobody) {
  Expectations e;
  const uid_t uid = as_nobody ? kNobody : ::geteuid();
  const bool protect = session.protected_symlinks();
  // A line asking for help does no work, and fails on nothing.
  const bool help = parsed.has_option("--help");
  e.hunt_default_out = parsed.command == "hunt" && !parsed.has_option("--out");
  for (const Named& n : parsed.named) {
    e.path_words.push_back(n.word);
    if (help) continue;
    const fs::path path = fs::path(n.word).is_absolute() ? fs::path(n.word) : run_dir / n.word;
    const Resolved r = resolve(path, uid, protect);
    const std::string what = n.option + " " + n.word + ": ";
    const std::optional<std::string> key = key_of(session, run_dir, r.path);
    if (r.own_descriptor) continue;
    if (n.role == "output") {
      if (r.refused) {
        e.must_fail.push_back(what + r.why);
        continue;
      }
      if (key) e.output_files.emplace_back(*key, n.option);
      if (r.folder_missing) {
        e.must_fail.push_back(what + r.why);
      } else if (r.path == "/dev/full") {
        e.must_fail.push_back(what + "a device that is always full");
      } else if (r.exists && S_ISDIR(r.st.st_mode)) {
        e.must_fail.push_back(what + "a folder");
      } else if (r.exists && S_ISFIFO(r.st.st_mode)) {
        e.fifos.push_back(r.path);
      } else if (r.exists && S_ISREG(r.st.st_mode)) {
        struct stat dir {};
        if (!permits(r.st, uid, true) ||
            (::stat(r.path.parent_path().c_str(), &dir) == 0 && !permits(dir, uid, true))) {
          e.must_fail.push_back(what + "a file the user may not replace");
        }
      } else if (!r.exists) {
        struct stat dir {};
        if (::stat(r.path.parent_path().c_str(), &dir) == 0 && !permits(dir, uid, true)) {
          e.must_fail.push_back(what + "in a folder the user may not write");
        }
      }
    } else if (n.role == "output-dir") {
      if (r.refused) {
        e.must_fail.push_back(what + r.why);
        continue;
      }
      if (key) e.output_dirs.push_back(*key);
      // The folders on the way that do not exist yet are made too.
      for (fs::path up = r.path.parent_path(); !r.exists && !up.empty() && up != up.parent_path();
           up = up.parent_path()) {
        struct stat st {};
        if (::lstat(up.c_str(), &st) == 0) break;
        if (const std::optional<std::string> folder = key_of(session, run_dir, up)) {
          e.new_folders.insert(*folder);
        }
      }
      if (r.exists && !S_ISDIR(r.st.st_mode)) {
        e.must_fail.push_back(what + "not a folder");
      } else if (r.exists && !permits(r.st, uid, true)) {
        e.must_fail.push_back(what + "a folder the user may not write");
      }
      // What stguard made there before: it may change or remove those.
      std::ifstream marker(r.path / ".stguard-owned.json");
      const nlohmann::json j = nlohmann::json::parse(marker, nullptr, false);
      if (key && j.is_object()) {
        if (j.contains("files") && j["files"].is_object()) {
          for (const auto& [name, digest] : j["files"].items()) e.owned.insert(*key + "/" + name);
        }
        if (j.contains("dirs") && j["dirs"].is_array()) {
          for (const auto& name : j["dirs"]) {
            if (name.is_string()) e.owned.insert(*key + "/" + name.get<std::string>());
          }
        }
      }
    } else if (n.role == "input" || n.role == "input-dir") {
      for (const ImpliedOutput& implied : kImpliedOutputs) {
        if (parsed.command == implied.command && parsed.has_option(implied.flag) &&
            n.option == implied.folder_option && r.exists && S_ISDIR(r.st.st_mode) && key) {
          e.implied_files.insert(*key + "/" + implied.file);
        }
      }
      // An adapter reports an unreadable file as its answer (docs/cli.md).
      if (parsed.command == "adapter") continue;
      if (r.refused) {
        e.must_fail.push_back(what + r.why);
      } else if (!r.exists) {
        e.must_fail.push_back(what + "does not exist");
      } else if (n.role == "input" && S_ISDIR(r.st.st_mode)) {
        e.must_fail.push_back(what + "a folder, not a file");
      } else if (n.role == "input-dir" && !S_ISDIR(r.st.st_mode)) {
        e.must_fail.push_back(what + "not a folder");
      } else if (!permits(r.st, uid, false)) {
        e.must_fail.push_back(what + "the user may not read it");
      }
    }
  }
  return e;
}

std::vector<std::string> check_invariants(const Expectations& expected, const Parsed& parsed,
                                          const Snapshot& before, const Snapshot& after,
                                          const RunResult& run) {
  std::vector<std::string> broken;
  const bool killed_hard = run.sent.count(SIGKILL) != 0 || run.timed_out;
  // The process.
  if (!run.started) broken.push_back("the command could not be started");
  if (run.timed_out) broken.push_back("did not end in time (a hang), killed by the fuzzer");
  if (!run.exited && run.signal != 0 && run.sent.count(run.signal) == 0 && !run.timed_out) {
    broken.push_back("killed by " + signal_text(run.signal) + ", which nobody sent");
  }
  for (const char* report : {"AddressSanitizer", "LeakSanitizer", "runtime error:",
                             "UndefinedBehaviorSanitizer", "stguard: internal error"}) {
    if (run.err.find(report) != std::string::npos) {
      broken.push_back(std::string("stderr holds a report: ") + report);
    }
  }
  for (const std::string& survivor : run.survivors) {
    broken.push_back("a process it started outlived it: " + survivor);
  }
  // The exit status, when stguard ended on its own.
  if (run.exited && run.sent.empty()) {
    if (!expected.must_fail.empty() && run.exit_code != 2) {
      std::string why;
      for (const std::string& w : expected.must_fail) why += (why.empty() ? "" : "; ") + w;
      broken.push_back("exit " + std::to_string(run.exit_code) +
                       " although a named file cannot be read or written (" + why + ")");
    }
    if (run.exit_code == 2 && run.err.empty()) {
      broken.push_back("exit 2 with nothing on stderr");
    }
    if (!expected.must_fail.empty() && run.exit_code == 2 &&
        run.err.find("usage:") == std::string::npos) {
      // A closed stdout is the failure when it came first.
      bool named = run.stdout_closed && run.err.find("standard output") != std::string::npos;
      for (const std::string& w : expected.path_words) {
        const std::string name = std::filesystem::path(w).filename().string();
        named = named || run.err.find(w) != std::string::npos ||
                (!name.empty() && run.err.find(name) != std::string::npos);
      }
      if (!named) broken.push_back("exit 2 but stderr names no path of the command line");
    }
    std::istringstream lines(run.err);
    for (std::string line; std::getline(lines, line);) {
      if (line.rfind("stguard", 0) == 0 && run.exit_code != 2 &&
          (line.find("cannot write") != std::string::npos ||
           line.find("cannot read") != std::string::npos ||
           line.find("error writing") != std::string::npos)) {
        broken.push_back("exit " + std::to_string(run.exit_code) + " after: " + line);
        break;
      }
    }
  }
  // The files.
  const auto allowed = [&](const std::string& key, const EntryState* was, const EntryState* is) {
    for (const auto& [output, option] : expected.output_files) {
      if (key == output) return true;
    }
    if (expected.hunt_default_out && key.rfind("run/hunt-", 0) == 0) return true;
    if (expected.implied_files.count(key) != 0) return true;
    if (was == nullptr && is != nullptr && is->type == 'd' &&
        expected.new_folders.count(key) != 0) {
      return true;
    }
    for (const std::string& dir : expected.output_dirs) {
      if (!under(key, dir)) continue;
      if (was == nullptr || key == dir) return true;  // made now
      if (key == dir + "/.stguard-owned.json" || expected.owned.count(key) != 0) return true;
      if (is != nullptr && is->type == 'f' && was->type == 'f' &&
          written_into_by_name(key.substr(dir.size() + 1))) {
        return true;
      }
    }
    return false;
  };
  std::size_t reported = 0;
  const auto report = [&](const std::string& text) {
    if (++reported <= 8) broken.push_back(text);
    if (reported == 9) broken.push_back("(and more changes)");
  };
  for (const auto& [key, was] : before) {
    const auto now = after.find(key);
    if (now != after.end() && now->second == was) continue;
    const EntryState* is = now == after.end() ? nullptr : &now->second;
    if (allowed(key, &was, is)) continue;
    report(is == nullptr ? key + " was removed (it was " + describe(was) + ")"
                         : key + " changed: it was " + describe(was) + ", it is " + describe(*is));
  }
  for (const auto& [key, is] : after) {
    if (before.count(key) != 0) continue;
    const std::string name = last_name(key);
    if (name.rfind(".stguard-", 0) == 0 && name != ".stguard-owned.json") {
      if (!killed_hard) report(key + ": a temporary file or folder left behind");
      continue;
    }
    if (key.rfind("tmp/", 0) == 0) {
      if (!killed_hard) report(key + ": left in TMPDIR");
      continue;
    }
    if (!allowed(key, nullptr, &is))
      report(key + " appeared, " + describe(is) + ", named by nothing");
  }
  // The outputs: whole, or as they were.
  for (const auto& [key, option] : expected.output_files) {
    const auto now = after.find(key);
    const auto was = before.find(key);
    if (now != after.end() && now->second.type == 'f' &&
        (was == before.end() || !(was->second == now->second))) {
      if (const std::optional<std::string> why = not_whole(option, now->second.content)) {
        broken.push_back(key + " (" + option + ") was written but is " + *why);
      }
    }
    // Work reported as done left its reports: a run that exits 0, or that
    // only lost its stdout, wrote every output it was given.
    const bool only_stdout_lost = run.stdout_closed && run.exited && run.exit_code == 2 &&
                                  run.err.find("standard output") != std::string::npos;
    // Help is all a line with --help asks for; `write --protocol` answers a
    // refused spec on stdout with exit 0 (docs/writer-protocol.md).
    const bool asked_for_work = !parsed.has_option("--help") &&
                                !(parsed.command == "write" && parsed.has_option("--protocol"));
    const bool finished = run.exited && run.sent.empty() && expected.must_fail.empty() &&
                          asked_for_work && (run.exit_code == 0 || only_stdout_lost);
    if (finished && now == after.end()) {
      broken.push_back(key + " (" + option + "): exit " + std::to_string(run.exit_code) +
                       " but the output is not there");
    }
  }
  return broken;
}

}  // namespace stguard_cli_fuzz
