// conformance/runner/cases.h: the corpus as the runner sees it: each case of
// corpus/manifest.json with the absolute path of its file and the tensors an
// accepting reader must report.
#ifndef STGUARD_CONFORMANCE_RUNNER_CASES_H_
#define STGUARD_CONFORMANCE_RUNNER_CASES_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace stguard::conform {

struct ExpectedTensor {
  std::string name;
  std::string dtype;
  std::vector<std::uint64_t> shape;
  std::uint64_t begin = 0;  // data_offsets, relative to the data buffer
  std::uint64_t end = 0;
  std::string sha256;  // lowercase hex of the tensor's bytes
};

struct CaseSpec {
  std::string id;     // "layout/gap"
  std::string group;  // "layout"
  std::filesystem::path file;
  std::string verdict;  // "accept" | "reject" | "either"
  std::string reason;   // the strict profile's reason code ("OFFSET_GAP"), "" when it accepts
  std::string description;
  std::vector<std::string> tags;
  // Present for accept and either cases (what a reader that accepts must
  // report); nullopt for reject cases.
  std::optional<std::vector<ExpectedTensor>> expected_tensors;
};

struct Corpus {
  std::string version;          // the manifest's "version"
  std::vector<CaseSpec> cases;  // sorted by id
};

// Reads DIR/manifest.json. Case files are not opened here; a missing file
// shows up as a reader failure, so the manifest's own shape is all that is
// checked: every field the runner uses, with the right type. nullopt and
// `error` ("manifest.json: case 12: ...") when anything is off.
std::optional<Corpus> load_corpus(const std::filesystem::path& corpus_dir, std::string* error);

// Case selection: a case is kept when it matches any of `id_globs` (fnmatch
// on the id; none given = all) and carries any of `tags` (none given = all).
struct CaseFilter {
  std::vector<std::string> id_globs;
  std::vector<std::string> tags;
  bool matches(const CaseSpec& spec) const;
};

}  // namespace stguard::conform

#endif  // STGUARD_CONFORMANCE_RUNNER_CASES_H_
