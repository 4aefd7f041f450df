// conformance/writers/cases.h: the writer cases, the half of the corpus that
// grades writers (docs/writer-protocol.md). Each case is a spec (spec.h) and
// what a conforming writer must do with it: write it, or refuse it.
//
//   for (const WriterCase& c : writer_cases()) use(c.id, c.expect_write, c.spec);
//   for (const auto& [path, bytes] : writer_case_files()) save(corpus / path, bytes);
//
// The cases are made here in code (a rank-64 shape or 10,000 tensors are
// loops, not hand-written text); `stguard corpus build` writes them to
// corpus/writers/ (one <name>.json spec per case) and corpus/writers/
// manifest.json, byte for byte reproducibly, and --check compares them. Whether
// a case is written or refused is stated by hand, never derived from a
// writer, so that stguard's own writer is graded like any other.
#ifndef STGUARD_CONFORMANCE_WRITERS_CASES_H_
#define STGUARD_CONFORMANCE_WRITERS_CASES_H_

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stguard::conformance {

// The writer cases' directory inside the corpus, and their group in ids.
inline constexpr std::string_view kWriterGroup = "writers";

struct WriterCase {
  std::string id;  // "writers/dtype-f32"
  std::string description;
  std::vector<std::string> tags;
  bool expect_write = true;  // false: a conforming writer refuses it
  std::string reason;        // for refusals: stguard's reason name, "DUPLICATE_KEY"
  nlohmann::ordered_json spec;
};

// Every writer case, sorted by id.
std::vector<WriterCase> writer_cases();

// The spec file's text of a case: one tensor per line, so that diffs of the
// committed corpus stay readable; ends with a newline.
std::string writer_spec_text(const nlohmann::ordered_json& spec);

// Every file of corpus/writers/ as (path relative to the corpus, bytes):
// the specs and manifest.json.
std::vector<std::pair<std::string, std::string>> writer_case_files();

// The Markdown list of the writer cases for the corpus README.
std::string writer_cases_readme();

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_WRITERS_CASES_H_
