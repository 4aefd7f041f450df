// conformance/model/manifest.h: corpus/manifest.json (and on-demand.json),
// written once by the generator and read by everything else through here.
//
//   stguard::conformance::ManifestResult<stguard::conformance::Manifest> m =
//       stguard::conformance::read_manifest(corpus_dir / "manifest.json");
//   if (!m) die(m.error().message());  // "corpus/manifest.json: case 12 (layout/gap): "file": ..."
//
//   std::string text = stguard::conformance::write_manifest(manifest);  // the exact bytes
//
// Schema, version "1" (docs/manifest.md):
//   {"version": "1", "corpus_version": "2",
//    "rules": [{"id", "enforcement", "reasons", "summary"}],
//    "cases": [{"id", "file", "sha256", "size", "description",
//    "rules", "verdict", "strict", "reference", "reason", "tags", "since",
//    "expected": {"metadata": {...} | null,
//                 "tensors": [{"name", "dtype", "shape", "data_offsets",
//                              "sha256"}]} | null}]}
//
// The text is deterministic: keys in that order, two-space indent, arrays of
// scalars on one line, UTF-8 kept as is (controls escaped), a final newline.
//
// Reading checks every field's JSON type and every rule the writer keeps, and
// never trusts the file: a missing or ill-typed field, an unknown verdict, a
// "file" that is absolute or has a ".." component, an id given twice, a
// verdict that does not follow from "strict" and "reference", "reason" or
// "expected" present when they must not be (or absent when they must be), a
// hash that is not 64 lower-case hex digits, or another version, is an error
// naming the case and the field. It never throws for what the file holds.
#ifndef STGUARD_CONFORMANCE_MODEL_MANIFEST_H_
#define STGUARD_CONFORMANCE_MODEL_MANIFEST_H_

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/failure.h"
#include "conformance/model/case.h"
#include "conformance/model/rule.h"

namespace stguard::conformance {

// Bumped only when the manifest schema changes incompatibly.
inline constexpr std::string_view kManifestVersion = "1";

struct Manifest {
  std::string version = std::string(kManifestVersion);
  // The corpus release: changes whenever a case, its bytes or its verdict
  // change (conformance/corpus-version.txt). Empty in a manifest that has
  // none (written before corpus versions, or by a scratch build).
  std::string corpus_version;
  std::vector<Rule> rules;  // docs/spec.md's rules, in declaration order (may be empty)
  std::vector<Case> cases;  // in the file's order (the generator sorts by id)
};

// Why a manifest cannot be used, and where.
struct ManifestError {
  std::string path;                       // the file, when read from one
  std::optional<std::size_t> case_index;  // the entry of "cases" (from 0), when in one
  std::string case_id;                    // that entry's id, when it has a readable one
  // The offending field inside the case ("file", "expected.tensors[1].shape[0]"),
  // or at the top ("version", "cases"); empty when the text is not JSON at all.
  std::string field;
  std::string problem;  // "must be a string", "contains a '..' component ..."

  // "PATH: case 12 (layout/gap): field "file": PROBLEM" (parts that are
  // unknown left out). Holds the manifest's own text: show it through
  // base::terminal_safe.
  std::string message() const;
  // The same as a base::Failure, for callers that only pass it on.
  base::Failure failure() const { return base::Failure{message()}; }
};

// A manifest, or where and why it cannot be used.
template <class T>
using ManifestResult = stguard::Result<T, ManifestError>;

// Parses manifest text. Fails when anything is off (see the top of this
// file).
ManifestResult<Manifest> parse_manifest(std::string_view text);

// Reads and parses the file at `path` (the error's path set; an unreadable
// file is an error with an empty field).
ManifestResult<Manifest> read_manifest(const std::filesystem::path& path);

// The manifest text, cases in the order given. parse_manifest() of the
// result gives `manifest` back. "corpus_version" and "rules" are written only
// when set.
std::string write_manifest(const Manifest& manifest);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_MODEL_MANIFEST_H_
