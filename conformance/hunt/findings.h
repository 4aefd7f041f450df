// conformance/hunt/findings.h: what `stguard hunt` leaves in its output directory, and
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
//   DIR/hunt.json          the reader, the files generated so far, the buckets
//   DIR/.stguard-owned.json  the files stguard made there (base/owned_dir.h)
//
//   auto report = write_findings(owned_dir, buckets, "safetensors-npm", runs);
//   auto plan = promote(dir, recipes_dir, "hunt", {});   // every stanza
//   if (plan) write_promotion(*plan);
#ifndef STGUARD_CONFORMANCE_HUNT_FINDINGS_H_
#define STGUARD_CONFORMANCE_HUNT_FINDINGS_H_

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/owned_dir.h"
#include "conformance/hunt/signature.h"

namespace stguard::hunt {

// The recipe stanza for `file` (no trailing blank line). The verdicts and
// expected tensors are stguard's on the file itself.
std::string render_stanza(const Bucket& bucket, std::string_view reader_name);

// One line of findings.jsonl (no newline).
std::string findings_line(const Bucket& bucket, std::string_view file_relative);

// The summary of the hunts into one folder: {"reader","runs","buckets"}.
inline constexpr std::string_view kHuntFile = "hunt.json";

struct FindingsReport {
  std::size_t earlier = 0;     // buckets the folder held before
  std::size_t added = 0;       // buckets new to it
  std::size_t seen_again = 0;  // buckets it held that this hunt found again
  std::size_t total = 0;       // buckets it holds now
};

// The runs of earlier hunts into `dir` (claimed for "hunt"): 0 when it
// holds none. Fails when it holds another reader's findings, or a hunt.json
// stguard hunt did not write; called before a hunt starts, so that a wrong
// --out is refused before the reader runs, and again by write_findings.
base::Result<std::uint64_t> earlier_hunt_runs(const base::OwnedDir& dir,
                                              std::string_view reader_name);

// Writes findings.jsonl, findings/ and cases.txt into `dir` (claimed for
// "hunt", base/owned_dir.h), merged with what earlier hunts of the same
// reader left there: a bucket found again adds its hits, and takes this
// hunt's file, line and stanza when its file is smaller; earlier buckets
// are kept, in their order, before the new ones. hunt.json records the
// reader and the runs so far; a folder of another reader's hunt is refused.
// Fails on an I/O failure or a folder whose files are not what stguard hunt
// wrote.
base::Result<FindingsReport> write_findings(base::OwnedDir& dir,
                                            std::span<const Bucket* const> buckets,
                                            std::string_view reader_name, std::uint64_t runs);

struct PromotePlan {
  std::filesystem::path group_file;
  std::vector<std::string> promoted;         // case names to append
  std::vector<std::string> already_present;  // skipped: the group already has them
  std::string text;                          // the group file as it would be
};

// Plans appending the stanzas of DIR/cases.txt (all, or those of `buckets`)
// to recipes_dir/cases/<group>.txt, creating it (with an `about:` line) when
// missing. The planned group file is parsed with the other recipes and each
// new case is built, so a stanza that would break `corpus build` (a case
// name that is not kebab-case, a bad directive, an id used elsewhere) is
// refused. A bucket not in cases.txt, a cases.txt without stanzas, a group
// name that is not kebab-case or an I/O failure is an error. Writes nothing.
base::Result<PromotePlan> promote(const std::filesystem::path& hunt_dir,
                                  const std::filesystem::path& recipes_dir, std::string_view group,
                                  std::span<const std::string> buckets);

// Writes the group file a plan describes.
base::Result<void> write_promotion(const PromotePlan& plan);

}  // namespace stguard::hunt

#endif  // STGUARD_CONFORMANCE_HUNT_FINDINGS_H_
