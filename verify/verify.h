// verify/verify.h: is a downloaded or copied model folder whole? Every
// safetensors shard's structure, the shard index against the tensors actually
// present, stray and symlinked files, and SHA256SUMS. The library behind
// `stguard verify DIR`.
//
//   stguard::verify::VerifyOptions options;
//   options.jobs = 4;
//   stguard::verify::VerifyReport report =
//       stguard::verify::verify_model_folder("/models/llama", options);
//   if (!report.ran) { /* report.fatal: DIR missing, not a directory, ... */ }
//   for (const stguard::verify::Finding& f : report.findings) {
//     std::cout << f.file << ": " << stguard::verify::finding_kind_name(f.kind) << ": "
//               << stguard::base::terminal_safe(f.message) << "\n";
//   }
//   std::cout << stguard::base::json_line(stguard::verify::report_to_json(report)) << "\n";
//   return report.exit_code();  // 0 whole, 1 problems found, 2 could not run or read
//
// Read-only by construction: DIR is opened once and every file inside it is
// opened relative to that descriptor with base::open_beneath (read-only,
// openat2 RESOLVE_BENEATH, no symlinks unless follow_symlinks); nothing is
// ever written, renamed or removed. Each file is opened once, and every pass
// that reads it (header, index, hash, values) reads that descriptor, kept
// open until the run ends (within half the soft RLIMIT_NOFILE; past it a
// file found replaced at a later look is file_changed, not read): a file
// renamed over another meanwhile is never half-read (verify/open_files.h).
// Names taken from the index or from SHA256SUMS are untrusted: absolute
// paths, "..", backslashes and NUL are rejected (base::safe_relative_name)
// before anything is opened, and resolution never leaves DIR, even when
// symlinks are followed. A shard's
// structure is checked from its first 8 + N bytes; tensor data is read only
// to hash it and, with scan_values, to scan its values (in the same read).
//
// A folder may hold several checkpoints (an fp16 variant beside the fp32
// shards, consolidated.safetensors beside them, an adapter beside its model,
// diffusers' subfolders with options.recursive): each index with its shards,
// and each file no index names, is judged on its own (report.checkpoints).
//
// The pieces, for readers of the module: verify.cc (the layout dispatch:
// layout.cc tells the layout, then verifier.cc, the plain folder and
// --local-dir, or hub_cache.cc, the Hugging Face cache), passes.cc (the
// passes over a listed folder, in order; both verifiers run them),
// findings.cc (the stable names), tree.cc (subfolders), shards.cc (one
// shard), index.cc (reading an index), checkpoints.cc (grouping files into
// checkpoints) and index_check.cc (holding an index against its shards),
// checksums.cc (the sha256sum format) and checksum_check.cc (hashing on a
// pool), open_files.cc (one open per file), file_read.cc (one read of a
// file, hashed or not, feeding the value scan), value_scan.cc (NaN, Inf and
// zeros in a stream of tensor bytes) and value_check.cc (the scan's
// findings), hub_*.cc and local_dir.cc (the Hugging Face layouts),
// report_json.cc.
#ifndef STGUARD_VERIFY_VERIFY_H_
#define STGUARD_VERIFY_VERIFY_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/sha256.h"
#include "stguard/error.h"
#include "verify/value_scan.h"

namespace stguard::verify {

// What a finding is about. Values are explicit and never reused; the names
// (finding_kind_name) are stable: the JSON report and tests use them.
enum class FindingKind : std::uint8_t {
  // The folder.
  kNoShards = 0,          // no *.safetensors file in DIR
  kSymlink = 1,           // a symlink, not followed
  kSymlinkEscapes = 2,    // with follow_symlinks: a symlink resolving outside DIR
  kNotRegularFile = 3,    // a *.safetensors (or listed) name that is a directory, FIFO, ...
  kStrayFile = 4,         // leftover of an interrupted download or copy (.part, ...)
  kFileChanged = 5,       // a file changed while being verified (still being written?)
  kSymlinkLoop = 6,       // with follow_symlinks: a symlink that loops (or nests too deep)
  kTreeLimit = 7,         // with recursive: a subfolder past max_depth, or past max_tree_names
  kFolderUnreadable = 8,  // with recursive: a subfolder that could not be opened or listed
  // Shards (each rejected shard gets exactly one of these).
  kShardEmpty = 10,           // zero bytes
  kShardTruncated = 11,       // ends before what its header describes, or preallocated zeros
  kShardHtml = 12,            // an HTML/XML page (download error page) saved as a shard
  kShardLfsPointer = 13,      // a Git LFS pointer file, not the content
  kShardNotSafetensors = 14,  // another format: ZIP/pickle checkpoint, GGUF, JSON or text
  kShardInvalid = 15,         // any other structural fault (parser reason + offset)
  kShardUnreadable = 16,      // could not be opened or read
  kShardSizeMismatch = 17,    // remote: the server's size differs from the listing's
  // The shard index (*.safetensors.index.json).
  kIndexMissing = 20,       // a set of shards (X-0000N-of-0000M) with no index for X
  kIndexMalformed = 21,     // not JSON (with byte position), or not JSON text at all
  kIndexDuplicateKey = 22,  // a key repeated in a JSON object
  kIndexInvalid = 23,       // JSON, but not an index (no weight_map, wrong types)
  kTensorMissing = 24,      // in weight_map, in no shard
  kTensorExtra = 25,        // in a shard the index names, not in weight_map
  kTensorWrongShard = 26,   // in weight_map, found in another shard than named
  kTensorDuplicate = 27,    // the same tensor name in two or more shards of one checkpoint
  kIndexShardMissing = 28,  // weight_map names a shard that is not in DIR
  kShardNotInIndex = 29,    // a shard in DIR that no index names
  kTotalSizeMismatch = 30,  // metadata.total_size != sum of tensor bytes (warning; strict: error)
  kUnsafePath = 31,         // index or checksum name that could leave DIR; never opened
  kIndexUnreadable = 32,    // could not be opened or read
  // Checksums (SHA256SUMS or --sha256 FILE).
  kChecksumMalformed = 40,    // a line that is not sha256sum output (line number)
  kChecksumFileMissing = 41,  // listed, not in DIR
  kChecksumUnlisted = 42,     // a shard in DIR that the list does not cover
  kChecksumMismatch = 43,     // content differs (expected and actual digest)
  kChecksumUnreadable = 44,   // listed, present, but could not be hashed
  kChecksumDuplicate = 45,    // a name listed twice
  // Hugging Face cache and `--local-dir` downloads (verify/hub_cache.h, verify/local_dir.h).
  kHubContentMismatch = 50,       // content differs from the Hub checksum (blob name or etag)
  kHubLinkDangling = 51,          // a snapshot link to a blob that is not there
  kHubBlobIncomplete = 52,        // blobs/<hash>.incomplete: an interrupted download (size)
  kHubBlobUnused = 53,            // a blob no snapshot links to (information)
  kHubBlobUnverifiable = 54,      // a blob whose name is not a sha256 or git hash
  kHubRefInvalid = 55,            // refs/<name> not a commit hash, or naming no snapshot
  kHubContentUnreadable = 56,     // a blob or a downloaded file that could not be hashed
  kHubNoSnapshots = 57,           // a repository folder with no snapshot
  kHubMetadataInvalid = 58,       // a --local-dir .metadata file that is not 3 good lines
  kHubMetadataStale = 59,         // a --local-dir file changed after its metadata was written
  kHubFileMissing = 60,           // a --local-dir .metadata file whose file is gone
  kHubDownloadIncomplete = 61,    // a --local-dir <path>.<etag>.incomplete (size)
  kHubFileUnverified = 62,        // a shard no Hub checksum covers (--local-dir)
  kChecksumSourcesDisagree = 63,  // SHA256SUMS and a Hub checksum name different digests
  kHubNothingVerified = 64,       // a --local-dir folder whose contents nothing verified
  // Values (with scan_values).
  kTensorNan = 70,      // a floating-point tensor holding NaN
  kTensorInf = 71,      // a floating-point tensor holding +Inf or -Inf
  kTensorAllZero = 72,  // a non-empty floating-point tensor whose values are all +0 or -0
};

std::string_view finding_kind_name(FindingKind kind) noexcept;  // "shard_truncated", ...

enum class Severity : std::uint8_t {
  kError = 0,    // the folder is not proven whole: exit status 1
  kWarning = 1,  // worth knowing, does not make the folder fail
};
std::string_view severity_name(Severity severity) noexcept;  // "error" | "warning"

enum class Category : std::uint8_t {
  kFolder = 0,
  kShard = 1,
  kIndex = 2,
  kChecksum = 3,
  kHub = 4,  // Hugging Face cache and --local-dir checksums
  kValues = 5,
};
std::string_view category_name(Category category) noexcept;  // "folder" | "shard" | ...

struct Finding {
  FindingKind kind = FindingKind::kShardInvalid;
  Severity severity = Severity::kError;
  Category category = Category::kFolder;
  // The file the finding is about, relative to DIR ("model-00001-of-00002.safetensors",
  // "SHA256SUMS"); for index findings about a tensor, the index file.
  std::string file;
  std::string tensor;  // tensor name, when one is involved
  std::string shard;   // for index findings: the shard concerned (named or found)
  std::string other;   // second shard (duplicate, wrong shard), symlink target, listed name
  // The checkpoint (CheckpointReport::name) the finding belongs to; empty for
  // findings about the folder as a whole (a stray file, the checksum list).
  std::string checkpoint;
  std::optional<Reason> reason;                // the parser's verdict on a shard
  std::optional<std::uint64_t> offset;         // byte: in the shard (parser) or the index JSON
  std::optional<std::uint64_t> line;           // line in the checksum file (1-based)
  std::optional<std::uint64_t> expected_size;  // total_size / size a shard should have
  std::optional<std::uint64_t> actual_size;
  std::string expected_sha256;  // checksum mismatch
  std::string actual_sha256;
  // One readable sentence. Names and quotes in it come from files: show it
  // through base::terminal_safe.
  std::string message;
};

enum class ShardVerdict : std::uint8_t {
  kAccept = 0,   // strict parser accepts
  kReject = 1,   // parser rejects (reason, offset)
  kSkipped = 2,  // not checked: symlink not followed, unreadable, not a regular file
};
std::string_view shard_verdict_name(ShardVerdict verdict) noexcept;  // accept|reject|skipped

struct ShardReport {
  std::string file;
  ShardVerdict verdict = ShardVerdict::kSkipped;
  std::optional<FindingKind> kind;  // the finding that explains a reject/skip
  std::optional<Reason> reason;
  std::optional<std::uint64_t> offset;
  std::string message;
  std::uint64_t size = 0;
  std::uint64_t header_len = 0;
  std::uint64_t tensors = 0;
  std::uint64_t tensor_bytes = 0;
  bool via_symlink = false;  // reached through a followed symlink inside DIR
};

struct IndexReport {
  std::string file;
  bool usable = false;        // parsed; its weight_map was compared
  std::uint64_t entries = 0;  // weight_map entries
  std::uint64_t shards_named = 0;
  std::optional<std::uint64_t> total_size;     // metadata.total_size as declared
  std::optional<std::uint64_t> computed_size;  // sum over the named shards (when all accepted)
};

// What defines a checkpoint: an index, a lone safetensors file, or a set of
// shards named X-0000N-of-0000M.safetensors that no index covers.
enum class CheckpointKind : std::uint8_t { kIndex = 0, kSingleFile = 1, kShardSet = 2 };
std::string_view checkpoint_kind_name(CheckpointKind kind) noexcept;  // index|single_file|shard_set

// One checkpoint: what a loader loads as one model. Folders hold several
// (model.safetensors.index.json and model.safetensors.index.fp16.json,
// consolidated.safetensors beside shards, adapter_model.safetensors beside
// model.safetensors, diffusers' unet/ and vae/); each is judged on its own.
struct CheckpointReport {
  // The index file, the single file, or for a set without an index its
  // pattern ("model-*-of-00003.safetensors"); relative to DIR.
  std::string name;
  CheckpointKind kind = CheckpointKind::kSingleFile;
  std::string folder;               // the subfolder it lives in, relative to DIR ("" for DIR)
  std::vector<std::string> shards;  // present in DIR, by name
  std::uint64_t tensors = 0;        // in its accepted shards
  std::uint64_t tensor_bytes = 0;
  std::uint64_t errors = 0;  // findings carrying this checkpoint
  std::uint64_t warnings = 0;
  bool ok() const noexcept { return errors == 0; }
};

struct ChecksumReport {
  std::string file;            // "SHA256SUMS" or the --sha256 path as given
  bool from_option = false;    // --sha256 FILE
  std::uint64_t entries = 0;   // well-formed lines
  std::uint64_t verified = 0;  // files whose digest matched
  std::uint64_t failed = 0;    // missing, mismatched, unreadable
  std::uint64_t bytes_hashed = 0;
  double seconds = 0;  // wall time spent hashing
  unsigned jobs = 0;   // hashing threads used
};

// A tensor the value scan has something to say about.
struct ScannedTensor {
  std::string file;  // the shard, relative to DIR
  TensorValues values;
};

struct ValuesReport {
  std::uint64_t shards = 0;  // accepted shards whose values were all read
  std::uint64_t shards_incomplete =
      0;                           // accepted shards whose read failed (their own finding says why)
  std::uint64_t tensors = 0;       // floating-point tensors scanned to the end
  std::uint64_t tensor_bytes = 0;  // their bytes
  std::uint64_t tensors_nan = 0;   // tensors with at least one NaN
  std::uint64_t tensors_inf = 0;   // ... with at least one +Inf or -Inf
  std::uint64_t tensors_all_zero = 0;
  std::uint64_t nan = 0;  // values, over all tensors
  std::uint64_t pos_inf = 0;
  std::uint64_t neg_inf = 0;
  // Bytes the value pass read itself: shards no checksum hashed (the others
  // were scanned in the same read that hashed them).
  std::uint64_t bytes_read = 0;
  double seconds = 0;                     // wall time of that extra read (0 when there was none)
  std::vector<ScannedTensor> noteworthy;  // NaN, Inf or all zero: by shard, then header order
};

// Which kind of folder DIR is (--layout; kAuto detects it, see layout.h).
enum class Layout : std::uint8_t {
  kAuto = 0,
  kFolder = 1,       // a plain model folder
  kHubRepo = 2,      // models--ORG--NAME: snapshots/, blobs/, refs/
  kHubSnapshot = 3,  // models--ORG--NAME/snapshots/<commit>
  kHubCache = 4,     // the cache root (.../hub) holding models--* repositories
  kLocalDir = 5,     // a `hf download --local-dir` folder (.cache/huggingface/download)
  kRemote = 6,       // a repository over HTTP (verify_fetched): headers only
};
std::string_view layout_name(Layout layout) noexcept;  // "auto" | "folder" | "hub-repo" | ...

enum class ContentVerdict : std::uint8_t {
  kVerified = 0,      // content matches its Hub checksum
  kMismatch = 1,      // it does not
  kUnreadable = 2,    // could not be hashed
  kUnverifiable = 3,  // no usable checksum (blob name or etag not a hash)
  kMissing = 4,       // --local-dir: metadata for a file that is not there
  kChanged = 5,       // grew or shrank while hashed (file_changed; error says how)
};
std::string_view content_verdict_name(ContentVerdict verdict) noexcept;

// One file whose content a Hub checksum covers: a blob of the cache, or a
// file of a --local-dir download.
struct ContentFile {
  std::string file;       // relative to DIR: "blobs/<hash>", or the downloaded file
  std::string algorithm;  // "sha256" (Git LFS), "git-blob-sha1", or "" (unverifiable)
  std::string expected;   // hex, from the blob name or the etag
  std::string actual;     // hex, when hashed
  std::uint64_t size = 0;
  ContentVerdict verdict = ContentVerdict::kUnverifiable;
  std::string error;                 // kUnreadable: why
  std::vector<std::string> used_by;  // "snapshots/<commit>/<path>" (cache) or the path
  std::vector<std::string> refs;     // refs whose snapshot holds it ("main")
};

struct SnapshotReport {
  std::string commit;             // the folder name under snapshots/
  std::vector<std::string> refs;  // refs/<name> files naming it
  std::uint64_t files = 0;        // files in it (links and regular files)
  std::uint64_t verified = 0;     // of those, contents verified against a Hub checksum
};

// Given the cache root: one line per repository.
struct RepositorySummary {
  std::string name;  // "models--ORG--NAME"
  int exit_code = 0;
  std::uint64_t errors = 0;
  std::uint64_t warnings = 0;
  std::uint64_t snapshots = 0;
  std::uint64_t files_verified = 0;
  std::uint64_t files = 0;
};

struct HubReport {
  std::vector<SnapshotReport> snapshots;
  std::vector<ContentFile> files;  // by name
  std::vector<RepositorySummary> repositories;
  std::uint64_t bytes_hashed = 0;
  double seconds = 0;
};

struct VerifyReport {
  std::string dir;
  Layout layout = Layout::kFolder;  // as detected (or given)
  // The checksums used: "SHA256SUMS" (or the --sha256 file), "hub-blob-names",
  // "local-dir-metadata".
  std::vector<std::string> checksum_sources;
  std::optional<HubReport> hub;     // the Hub layouts and --local-dir
  bool ran = false;                 // false: could not run at all (see fatal); exit status 2
  std::string fatal;                // why it could not run
  std::vector<ShardReport> shards;  // by name
  std::vector<IndexReport> indexes;
  std::vector<CheckpointReport> checkpoints;  // indexes first, then sets, then single files
  std::optional<ChecksumReport> checksums;    // nullopt: no SHA256SUMS and no --sha256
  std::optional<ValuesReport> values;         // nullopt: no scan_values
  // Folder, shards, index reading, checkpoint grouping, duplicates, index
  // comparisons, checksums, values, in that order.
  std::vector<Finding> findings;
  std::uint64_t tensors = 0;       // in accepted shards
  std::uint64_t tensor_bytes = 0;  // in accepted shards
  std::uint64_t errors = 0;
  std::uint64_t warnings = 0;
  // Findings about a file that could not be read: shard_unreadable,
  // index_unreadable, checksum_unreadable (I/O failures, as IO_ERROR is for
  // `stguard check`).
  std::uint64_t unreadable = 0;

  bool ok() const noexcept { return ran && errors == 0; }
  // 0 all good, 1 problems found, 2 could not run or some file could not be
  // read (whatever else was found), as `stguard check` exits 2 for IO_ERROR.
  int exit_code() const noexcept {
    if (!ran || unreadable != 0) return 2;
    return errors == 0 ? 0 : 1;
  }
  std::uint64_t count(FindingKind kind) const noexcept;
};

// Every option with its default.
struct VerifyOptions {
  // What DIR is; kAuto looks (layout.h says how).
  Layout layout = Layout::kAuto;
  // Follow symlinks in DIR whose target stays inside DIR. Symlinks leaving DIR
  // are never followed.
  bool follow_symlinks = false;
  // A checksum file in sha256sum format to use instead of DIR/SHA256SUMS
  // (names in it are relative to DIR). The file itself may live anywhere.
  std::optional<std::string> sha256_file;
  // Hashing threads, the calling thread included; 0 = one per core.
  unsigned jobs = 0;
  base::Sha256Options hash;
  // Count NaN and Inf in every floating-point tensor of every accepted shard,
  // and find tensors that are all zeros (findings tensor_nan, tensor_inf,
  // tensor_all_zero). Shards that are hashed are scanned in the same read;
  // the others are read once for the scan.
  bool scan_values = false;
  // Called from the calling thread while files are hashed, about every
  // progress_interval, and once with finished = true at the end. Not called
  // when there is nothing to hash.
  std::function<void(std::uint64_t done, std::uint64_t total, bool finished)> progress;
  std::chrono::milliseconds progress_interval{100};
  // Index and checksum files larger than this are rejected unread (the largest
  // real index, 1.29M tensors, is about 100 MB).
  std::uint64_t max_index_bytes = std::uint64_t{256} << 20;
  std::uint64_t max_checksum_file_bytes = std::uint64_t{64} << 20;
  // Also walk DIR's subfolders (diffusers: unet/, text_encoder/, vae/), each
  // file named relative to DIR. Hidden folders (.git, .cache) are not entered
  // and symlinked folders are never followed.
  bool recursive = false;
  // Bounds on the walk: subfolders deeper than max_depth below DIR are not
  // entered, and it stops once max_tree_names names were listed below DIR
  // (each a tree_limit finding).
  unsigned max_depth = 8;
  std::uint64_t max_tree_names = 100000;
  // metadata.total_size differing from the tensors' bytes is an error, not a
  // warning (no loader reads the field; see docs/cli.md).
  bool strict = false;
};

// Runs every check. Never throws for anything found in DIR; ran = false (exit
// status 2) when DIR cannot be opened or listed, or options.sha256_file
// cannot be read.
VerifyReport verify_model_folder(const std::string& dir, const VerifyOptions& options = {});

// A file of a remote repository as fetched before verification. verify/
// never goes to the network: the caller fetches (cli/verify.cc, with
// remote/) and hands the bytes over.
struct FetchedFile {
  std::string name;                          // relative to the repository's root
  std::uint64_t size = 0;                    // the file's size, the server's
  std::optional<std::uint64_t> listed_size;  // the repository listing's, when there is one
  // A shard: its first bytes, at least min(size, 8 + N) of them when its
  // length prefix is valid (remote/head.h). An index: its whole text.
  std::vector<std::uint8_t> bytes;
  std::string error;  // not empty: it could not be fetched, and why
};

// Verifies a remote repository from its fetched files with the passes that
// read headers and indexes (shards, indexes, checkpoints, duplicates, index
// comparisons), exactly as for a folder holding those files: the findings a
// local copy would get from them. What needs the data is not checked: no
// checksums, no values (layout kRemote says so). A file whose size differs
// from the listing's is shard_size_mismatch. Names with a '/' (subfolders)
// are verified only with options.recursive. `name` is what the report calls
// the repository (its dir).
VerifyReport verify_fetched(const std::string& name, const std::vector<FetchedFile>& files,
                            const VerifyOptions& options = {});

// What verify_fetched needs of a file, by its name: nothing, its head (a
// shard: the first bytes as remote/head.h reads them), or its whole text (an
// index).
enum class FetchNeed : std::uint8_t { kNothing = 0, kHead = 1, kWhole = 2 };
FetchNeed fetch_need(std::string_view name);

// The shards an index's text names (its weight_map's values), each once, in
// name order, those that could leave the index's folder left out (verify
// reports them as unsafe_path); none when it is no usable index.
std::vector<std::string> shards_named_in_index(std::string_view text);

// The whole report as one JSON document: dir, ok, exit_code, fatal, shards
// (verdict, kind, reason, offset, ...), indexes, checksums, findings (kind,
// severity, category, file, ... only the fields that apply, message), summary
// (counts, also per kind). Field names are stable.
nlohmann::ordered_json report_to_json(const VerifyReport& report);

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_VERIFY_H_
