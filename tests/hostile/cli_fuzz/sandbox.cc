// tests/hostile/cli_fuzz/sandbox.cc: the session's template, data
// directory, tmpfs and snapshots (sandbox.h).
#include "tests/hostile/cli_fuzz/sandbox.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>

#include "tests/support/recipe_subset.h"

namespace stguard_cli_fuzz {
namespace {

namespace fs = std::filesystem;

constexpr const char* kProtectedSymlinks = "/proc/sys/fs/protected_symlinks";

// A file's content is kept whole up to this size (the sandbox's files are
// small), then as its size and a hash.
constexpr std::size_t kWholeContent = std::size_t{1} << 20;

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

bool write_all(const fs::path& path, const std::string& bytes, mode_t mode) {
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << bytes;
    if (!out) return false;
  }
  return ::chmod(path.c_str(), mode) == 0;
}

char type_of(mode_t mode) {
  if (S_ISREG(mode)) return 'f';
  if (S_ISDIR(mode)) return 'd';
  if (S_ISLNK(mode)) return 'l';
  if (S_ISFIFO(mode)) return 'p';
  if (S_ISCHR(mode) || S_ISBLK(mode)) return 'c';
  if (S_ISSOCK(mode)) return 's';
  return '?';
}

// Reads a file's content without following a link or blocking on a FIFO.
std::string content_of(const fs::path& path, std::uint64_t size) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
  if (fd < 0) return "<unreadable: " + std::string(std::strerror(errno)) + ">";
  std::string bytes;
  char buffer[65536];
  for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;) {
    bytes.append(buffer, static_cast<std::size_t>(n));
    if (bytes.size() > kWholeContent) break;
  }
  ::close(fd);
  if (bytes.size() <= kWholeContent) return bytes;
  return "<" + std::to_string(size) + " bytes, hash " +
         std::to_string(std::hash<std::string>{}(bytes)) + ">";
}

// Copies `from` to `to` as it is: files, folders, links, FIFOs, with their
// permission bits and owners.
bool copy_tree(const fs::path& from, const fs::path& to) {
  struct stat st {};
  if (::lstat(from.c_str(), &st) != 0) return false;
  bool ok = true;
  if (S_ISDIR(st.st_mode)) {
    ok = ::mkdir(to.c_str(), 0700) == 0;
    DIR* dir = ::opendir(from.c_str());
    if (dir == nullptr) return false;
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(dir)) {
      const std::string name = e->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    ::closedir(dir);
    for (const std::string& name : names) ok = copy_tree(from / name, to / name) && ok;
  } else if (S_ISLNK(st.st_mode)) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(from, ec);
    ok = !ec && ::symlink(target.c_str(), to.c_str()) == 0;
  } else if (S_ISFIFO(st.st_mode)) {
    ok = ::mkfifo(to.c_str(), 0600) == 0;
  } else if (S_ISREG(st.st_mode)) {
    ok = write_all(to, read_all(from), 0600);
  } else {
    return true;  // nothing else is laid out
  }
  if (!ok) return false;
  if (::lchown(to.c_str(), st.st_uid, st.st_gid) != 0 && ::geteuid() == 0) return false;
  if (!S_ISLNK(st.st_mode)) ok = ::chmod(to.c_str(), st.st_mode & 07777) == 0;
  return ok;
}

// A conformance folder with one group of cases from the source tree.
bool write_recipes(const fs::path& source, const fs::path& to, const std::string& group) {
  return stguard_test::write_recipe_subset(source / "conformance", to, {group});
}

void remove_tree(const fs::path& path) {
  // A read-only folder cannot be emptied: make every folder writable first
  // (chmod -R follows no link given on the way down), then rm -rf.
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null_fd = ::open("/dev/null", O_WRONLY);
    ::dup2(null_fd, 2);
    ::execl("/bin/sh", "sh", "-c", "chmod -R u+rwX -- \"$1\"; rm -rf -- \"$1\"", "sh", path.c_str(),
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  if (pid > 0) ::waitpid(pid, &status, 0);
}

}  // namespace

void take_snapshot(const fs::path& root, const std::string& prefix, Snapshot& out) {
  struct stat st {};
  if (::lstat(root.c_str(), &st) != 0) return;
  EntryState state;
  state.type = type_of(st.st_mode);
  state.mode = st.st_mode & 07777;
  state.uid = st.st_uid;
  state.gid = st.st_gid;
  state.size = state.type == 'd' ? 0 : static_cast<std::uint64_t>(st.st_size);
  if (state.type == 'f') state.content = content_of(root, state.size);
  if (state.type == 'l') {
    std::error_code ec;
    state.content = fs::read_symlink(root, ec).string();
  }
  out[prefix] = state;
  if (state.type != 'd') return;
  DIR* dir = ::opendir(root.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> names;
  while (const dirent* e = ::readdir(dir)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(dir);
  for (const std::string& name : names) take_snapshot(root / name, prefix + "/" + name, out);
}

std::string describe(const EntryState& state) {
  std::ostringstream out;
  switch (state.type) {
    case 'f':
      out << "a file of " << state.size << " bytes";
      break;
    case 'd':
      out << "a folder";
      break;
    case 'l':
      out << "a link to '" << state.content << "'";
      break;
    case 'p':
      out << "a FIFO";
      break;
    default:
      out << "an entry of type " << state.type;
  }
  out << ", mode " << std::oct << state.mode << std::dec << ", owner " << state.uid << ":"
      << state.gid;
  return out.str();
}

Session::Session(const fs::path& work, Tools tools) : work_(work), tools_(std::move(tools)) {
  root_ = ::geteuid() == 0;
  // The planted link in the sticky folder is a trap only where the kernel
  // protects links: as on Debian by default. Set for the session where this
  // process may (root), back as it was at the end.
  previous_protected_symlinks_ = read_all(kProtectedSymlinks);
  if (root_ && previous_protected_symlinks_.rfind('1', 0) != 0) {
    std::ofstream(kProtectedSymlinks) << "1\n";
  }
  protected_symlinks_ = read_all(kProtectedSymlinks).rfind('1', 0) == 0;
  template_ = work_ / "template";
  data_ = work_ / "data";
  tmp_ = work_ / "tmp";
  home_ = work_ / "home";
  std::error_code ec;
  fs::create_directories(tmp_, ec);
  fs::create_directories(home_, ec);
  // Runs as nobody need to reach the session's folders.
  for (const fs::path& p : {work_, tmp_, home_}) ::chmod(p.c_str(), 0777);
  ::chmod(tmp_.c_str(), 01777);
  if (root_) {
    const fs::path small = work_ / "small";
    fs::create_directories(small, ec);
    if (::mount("tmpfs", small.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0777") == 0) {
      small_ = small;
    }
  }
  if (!build_data() || !build_template()) return;
  Snapshot shapes;
  take_snapshot(template_, "", shapes);
  shapes_ = shapes.size() - 1;
}

Session::~Session() {
  if (!previous_protected_symlinks_.empty() && previous_protected_symlinks_.rfind('1', 0) != 0) {
    std::ofstream(kProtectedSymlinks) << previous_protected_symlinks_;
  }
  if (!previous_run_.empty()) remove_tree(previous_run_);
  if (!small_.empty()) ::umount2(small_.c_str(), MNT_DETACH);
}

bool Session::run_stguard(const std::vector<std::string>& args, const fs::path& dir,
                          int expected_exit) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(dir.c_str()) != 0) ::_exit(126);
    const int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    ::dup2(null_fd, 2);
    ::setenv("STGUARD_DATA_DIR", data_.c_str(), 1);
    ::setenv("TMPDIR", tmp_.c_str(), 1);
    std::vector<std::string> storage = {tools_.setup_stguard};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : storage) argv.push_back(s.data());
    argv.push_back(nullptr);
    ::execv(tools_.setup_stguard.c_str(), argv.data());
    ::_exit(127);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (WIFEXITED(status) &&
      (WEXITSTATUS(status) == expected_exit || (expected_exit < 0 && WEXITSTATUS(status) <= 1))) {
    return true;
  }
  std::string line;
  for (const std::string& a : args) line += " " + a;
  error_ = "setting up: stguard" + line + " ended with status " + std::to_string(status);
  return false;
}

bool Session::build_data() {
  const fs::path source = tools_.source_dir;
  const fs::path recipes = data_ / "conformance";
  std::error_code ec;
  if (!write_recipes(source, recipes, "layout")) {
    error_ = "setting up: cannot write the recipes of " + recipes.string();
    return false;
  }
  fs::create_directories(recipes / "adapters", ec);
  // The readers that need nothing installed: stguard itself.
  for (const char* reader : {"stguard-strict", "stguard-reference", "stguard-write"}) {
    fs::copy(source / "conformance/adapters" / reader, recipes / "adapters" / reader,
             fs::copy_options::recursive, ec);
  }
  if (ec) {
    error_ = "setting up the data directory: " + ec.message();
    return false;
  }
  if (!run_stguard(
          {"corpus", "build", "--recipes", recipes.string(), "--out", (data_ / "corpus").string()},
          work_, 0)) {
    return false;
  }
  ::chmod(data_.c_str(), 0755);
  return true;
}

bool Session::build_template() {
  const fs::path t = template_;
  const fs::path source = tools_.source_dir;
  std::error_code ec;
  for (const char* dir :
       {"in", "model", "local/.cache/huggingface/download", "user", "empty", "out", "ro-dir"}) {
    fs::create_directories(t / dir, ec);
  }
  const std::string good = read_all(source / "examples/seed-example.safetensors");
  const std::string bad = read_all(source / "corpus/layout/gap-between.safetensors");
  bool ok = !good.empty() && !bad.empty();
  ok = ok && write_all(t / "in/good.safetensors", good, 0644);
  ok = ok && write_all(t / "in/bad.safetensors", bad, 0644);
  ok = ok && write_all(t / "in/spec.json",
                       R"({"tensors":[{"name":"w","dtype":"F32","shape":[2],)"
                       R"("data_hex":"0000803f00000040"}],"metadata":{"format":"pt"}})"
                       "\n",
                       0644);
  ok = ok && write_all(t / "in/dup-spec.json",
                       R"({"tensors":[{"name":"a","name":"b","dtype":"U8","shape":[1],)"
                       R"("data_hex":"01"}]})"
                       "\n",
                       0644);
  ok = ok && write_all(t / "model/model.safetensors", good, 0644);
  ok = ok && write_all(t / "local/model.safetensors", good, 0644);
  ok = ok && write_recipes(source, t / "recipes", "layout");
  ok = ok && write_recipes(source, t / "recipes-other", "names");
  ok = ok && write_all(t / "user/notes.txt", "the user's notes\n", 0644);
  ok = ok && write_all(t / "user/summary.txt", "the user's own summary\n", 0644);
  ok = ok && write_all(t / "user/results.jsonl", "{\"the user's\": true}\n", 0644);
  ok = ok && write_all(t / "ro.txt", "read-only\n", 0444);
  ok = ok && write_all(t / "ro-dir/file.txt", "in a read-only folder\n", 0444);
  ok = ok && write_all(t / "secret.txt", "nobody may read this\n", 0000);
  ok = ok && write_all(t / "victim.txt", "root's file, behind a planted link\n", 0644);
  ok = ok && ::mkfifo((t / "fifo").c_str(), 0666) == 0;
  const std::pair<const char*, const char*> links[] = {
      {"ln-good", "in/good.safetensors"}, {"ln-model", "model"},
      {"ln-dangling", "nowhere/x"},       {"ln-loop", "ln-loop"},
      {"ln-user", "user/notes.txt"},      {"ln-user-dir", "user"},
      {"ln-dev-full", "/dev/full"},       {"ln-stdout", "/dev/stdout"},
  };
  for (const auto& [name, target] : links) ok = ok && ::symlink(target, (t / name).c_str()) == 0;
  if (!small_.empty()) ok = ok && ::symlink(small_.c_str(), (t / "small").c_str()) == 0;
  if (root_) {
    // A sticky, world-writable folder such as /tmp, with a link another user
    // planted there to root's file, and one of root's own.
    fs::create_directories(t / "sticky", ec);
    ok = ok && ::chmod((t / "sticky").c_str(), 01777) == 0;
    ok = ok && ::symlink("../victim.txt", (t / "sticky/planted").c_str()) == 0;
    ok = ok && ::lchown((t / "sticky/planted").c_str(), kNobody, kNogroup) == 0;
    ok = ok && ::symlink("../user/notes.txt", (t / "sticky/mine").c_str()) == 0;
  }
  if (!ok) {
    error_ = "setting up the template: " + std::string(std::strerror(errno));
    return false;
  }
  // Files stguard made: a corpus folder, one whose subfolder was replaced by
  // a link to the user's files, a hunt, reports.
  if (!run_stguard({"corpus", "build", "--recipes", (t / "recipes").string(), "--out",
                    (t / "cb-old").string()},
                   t, 0)) {
    return false;
  }
  if (!copy_tree(t / "cb-old", t / "cb-linked")) {
    error_ = "setting up: cannot copy cb-old";
    return false;
  }
  fs::rename(t / "cb-linked/layout", t / "outside-layout", ec);
  ok = !ec && ::symlink("../outside-layout", (t / "cb-linked/layout").c_str()) == 0;
  const std::string fake = "'" + tools_.fake_reader + "' plain-no-overlap-check";
  ok = ok && run_stguard({"conform", "--reader", "stguard-strict", "--case", "layout/gap-between",
                          "-q", "--memory-mb", "0", "--jsonl", (t / "in/results.jsonl").string()},
                         t, 0);
  ok = ok && run_stguard({"conform", "--adapter", "true", "--plain", "--name", "lax", "--case",
                          "layout/gap*", "-q", "--memory-mb", "0", "--write-expectations",
                          (t / "in/expect.txt").string()},
                         t, 1);
  ok = ok && run_stguard({"hunt",
                          "--adapter",
                          fake,
                          "--plain",
                          "--name",
                          "planted",
                          "--corpus",
                          (t / "cb-old").string(),
                          "--runs",
                          "40",
                          "--seed",
                          "3",
                          "-j",
                          "1",
                          "--minimise-runs",
                          "20",
                          "--memory-mb",
                          "0",
                          "-q",
                          "--out",
                          (t / "hunt-old").string()},
                         t, -1);
  if (!ok) return false;
  // Checksums of the model folder, right and for --sha256.
  std::string sums;
  {
    const std::string command =
        "cd '" + (t / "model").string() + "' && sha256sum model.safetensors";
    FILE* pipe = ::popen(command.c_str(), "r");
    char buffer[256];
    for (std::size_t n; pipe != nullptr && (n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;) {
      sums.append(buffer, n);
    }
    if (pipe != nullptr) ::pclose(pipe);
  }
  ok = sums.size() > 64;
  ok = ok && write_all(t / "model/SHA256SUMS", sums, 0644);
  ok = ok && write_all(t / "in/SHA256SUMS", sums, 0644);
  ok = ok && write_all(t / "local/.cache/huggingface/download/model.safetensors.metadata",
                       std::string(40, 'a') + "\n" + sums.substr(0, 64) + "\n" +
                           std::to_string(::time(nullptr) + 100000) + "\n",
                       0644);
  // Folders everyone may write in, and the rest readable by everyone.
  for (const char* dir : {"out", "empty"}) ok = ok && ::chmod((t / dir).c_str(), 0777) == 0;
  ok = ok && ::chmod((t / "ro-dir").c_str(), 0555) == 0;
  ok = ok && ::chmod(t.c_str(), 0755) == 0;
  if (!ok) error_ = "setting up the template: checksums or modes";
  return ok;
}

fs::path Session::fresh_run_dir(std::uint64_t n) {
  if (!previous_run_.empty()) remove_tree(previous_run_);
  previous_run_ = work_ / ("run-" + std::to_string(n));
  // cp -a keeps what the template is made of (types, modes, owners, link
  // targets, FIFOs), and is several times faster than copying file by file
  // from this (sanitized) process.
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::execlp("cp", "cp", "-a", "--", template_.c_str(), previous_run_.c_str(),
             static_cast<char*>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
      WEXITSTATUS(status) != 0) {
    error_ = "cannot copy the template to " + previous_run_.string();
  }
  std::error_code ec;
  for (const fs::path& scratch : {tmp_, small_}) {
    if (scratch.empty()) continue;
    for (fs::directory_iterator it(scratch, ec), end; !ec && it != end; it.increment(ec)) {
      remove_tree(it->path());
    }
  }
  if (!small_.empty()) {
    // Most of the 64 KiB taken: a report written there runs out of space.
    write_all(small_ / "filler", std::string(48 * 1024, 'x'), 0644);
  }
  return previous_run_;
}

Snapshot Session::snapshot(const fs::path& run_dir) const {
  Snapshot out;
  take_snapshot(run_dir, "run", out);
  if (!small_.empty()) take_snapshot(small_, "small", out);
  take_snapshot(data_, "data", out);
  take_snapshot(tmp_, "tmp", out);
  return out;
}

}  // namespace stguard_cli_fuzz
