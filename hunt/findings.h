// hunt/findings.h: what `stguard hunt` leaves in its output directory, and
// `stguard hunt promote`.
//
//   DIR/findings.jsonl     one JSON object per bucket: bucket, kind,
//                          strict_reason, reference_reason, reader_verdict,
//                          reader_error, hits, file, size, detail, stderr
//   DIR/findings/B.safetensors   the (minimised) file of bucket B
//   DIR/cases.txt          per bucket, a recipe stanza in the corpus's own
//                          format (conformance/README.md, "Recipe format"):
//                          case hunt-B, stguard's verdicts with reasons and
//                          offsets, the file as header text and data bytes,
//                          a description to review, tags `hunt`
//
//   write_findings(dir, buckets, "safetensors-npm", &error);
//   promote(dir, recipes_dir, "hunt", {}, &report, &error);   // every stanza
#ifndef STGUARD_HUNT_FINDINGS_H_
#define STGUARD_HUNT_FINDINGS_H_

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hunt/signature.h"

namespace stguard::hunt {

// The recipe stanza for `file` (no trailing blank line). The verdicts and
// expected tensors are stguard's on the file itself.
std::string render_stanza(const Bucket& bucket, std::string_view reader_name);

// One line of findings.jsonl (no newline).
std::string findings_line(const Bucket& bucket, std::string_view file_relative);

// Writes findings.jsonl, findings/ and cases.txt into `dir` (created, with
// its parents); *.safetensors files left in findings/ by an earlier hunt
// are removed. False with *error on an I/O failure.
bool write_findings(const std::filesystem::path& dir, std::span<const Bucket* const> buckets,
                    std::string_view reader_name, std::string* error);

struct PromoteReport {
  std::filesystem::path group_file;
  std::vector<std::string> promoted;         // case names appended
  std::vector<std::string> already_present;  // skipped: the group already has them
};

// Appends the stanzas of DIR/cases.txt (all, or those of `buckets`) to
// recipes_dir/cases/<group>.txt, creating it (with an `about:` line) when
// missing. A bucket not in cases.txt, a group name that is not kebab-case
// or an I/O failure is an error (nothing is written then).
bool promote(const std::filesystem::path& hunt_dir, const std::filesystem::path& recipes_dir,
             std::string_view group, std::span<const std::string> buckets, PromoteReport* report,
             std::string* error);

}  // namespace stguard::hunt

#endif  // STGUARD_HUNT_FINDINGS_H_
