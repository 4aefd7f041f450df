// conformance/writers/writer_manifest.h: corpus/writers/manifest.json, the
// writer cases as `stguard corpus build` writes them (cases.h), read back by
// the writer runner:
//
//   {"version": "1", "cases": [
//     {"id": "writers/duplicate-name", "file": "writers/duplicate-name.json",
//      "sha256": "...", "expect": "refuse", "reason": "DUPLICATE_KEY",
//      "description": "...", "tags": ["duplicate"]}, ...]}
//
// Reading checks every field's JSON type, that "file" is a relative path
// without "..", "expect" is "write" or "refuse" and ids are unique; it never
// throws for what the file holds.
#ifndef STGUARD_CONFORMANCE_WRITERS_WRITER_MANIFEST_H_
#define STGUARD_CONFORMANCE_WRITERS_WRITER_MANIFEST_H_

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/failure.h"
#include "conformance/model/case.h"

namespace stguard::conformance {

struct WriterCaseEntry {
  std::string id;      // "writers/dtype-f32"
  std::string file;    // relative to the corpus
  std::string sha256;  // of the spec file
  bool expect_write = true;
  std::string reason;  // refusals: stguard's reason name
  std::string description;
  std::vector<std::string> tags;

  // As a Case, for the --case/--tag filters (id and tags only).
  Case as_case() const;
};

// The writer cases of writers/manifest.json's text. Fails, naming the case
// and field, when anything is off.
base::Result<std::vector<WriterCaseEntry>> parse_writer_manifest(std::string_view text);
// Reads and parses the file at `path` (its errors start with the path).
base::Result<std::vector<WriterCaseEntry>> read_writer_manifest(const std::filesystem::path& path);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_WRITERS_WRITER_MANIFEST_H_
