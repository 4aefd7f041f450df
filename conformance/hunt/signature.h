// conformance/hunt/signature.h: what kind of divergence a reader's answer is, and the
// signature that puts divergences into buckets.
//
//   std::optional<Divergence> d = divergence_of(grade);      // nullopt: agrees
//   Signature s = make_signature(*d, oracle, result, file_bytes);
//   buckets.add(s, file_bytes, run_index, result);
//
// A divergence is an accept of what both profiles reject, a reject of what
// both accept, an accept with tensors other than stguard's, a crash, a
// timeout, or an answer outside the adapter protocol. Where the profiles
// disagree either answer is fine, as in `stguard conform`.
//
// One bug should make one bucket whatever file triggered it: messages are
// reduced to their shape (numbers, quoted text, paths, and the file's own
// tensor names and metadata keys blanked), and a crash is keyed by where it
// happened (the sanitizer's bug type and top frames, or else the signal or
// exit status), not by what stguard thinks of the file.
#ifndef STGUARD_CONFORMANCE_HUNT_SIGNATURE_H_
#define STGUARD_CONFORMANCE_HUNT_SIGNATURE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/hunt/oracle.h"
#include "conformance/runner/results.h"

namespace stguard::hunt {

enum class Divergence {
  kAcceptsInvalid,  // accepted what both profiles reject (FAIL_SHOULD_REJECT)
  kRejectsValid,    // rejected what both profiles accept (FAIL_SHOULD_ACCEPT)
  kWrongTensors,    // accepted, with tensors other than stguard's (FAIL_WRONG_CONTENT)
  kCrash,           // CRASH
  kTimeout,         // TIMEOUT
  kProtocolError,   // PROTOCOL_ERROR: the adapter's answer is not the protocol's
};

// "accepts-invalid", "rejects-valid", "wrong-tensors", "crash", "timeout",
// "protocol-error".
std::string_view divergence_name(Divergence kind) noexcept;

// nullopt for the passing grades.
std::optional<Divergence> divergence_of(conformance::Grade grade) noexcept;

// The reader's message reduced to its shape, so that one bug gives one
// bucket whatever file triggered it: each of `names` (header_names() of the
// file) where it stands as a whole word, quoted or not, as _ (names without
// a letter are left to the rules below); ASCII lower case, quoted text
// ("...", '...', `...`) as _ even when it holds its own quote, escaped or raw
// (a quote opens where a word starts and closes where one ends), numbers
// (decimal and 0x hex) as #, words outside quotes holding a '/' (paths) as
// _path_, other bytes outside printable ASCII dropped, blanks collapsed, at
// most 120 bytes (of the first 4 KiB of the message).
std::string normalise_reader_error(std::string_view text, std::span<const std::string> names = {});

// The tensor names and metadata keys of a safetensors file's header, as
// written and JSON-decoded (both when they differ), longest first (in the
// header's order among names of one length): the keys
// of the top-level object but "__metadata__", and the keys of the object
// under "__metadata__". Read leniently, so that a header no parser accepts
// (bad JSON, a length prefix past the end, invalid UTF-8) still gives what
// it holds; at most kMaxHeaderNames names, from the first 64 KiB.
inline constexpr std::size_t kMaxHeaderNames = 128;
std::vector<std::string> header_names(std::span<const std::uint8_t> file);

// A crash's place, from the stderr of the crashed reader, when it holds a
// sanitizer report (AddressSanitizer, UndefinedBehaviorSanitizer,
// MemorySanitizer, ThreadSanitizer, LeakSanitizer), as continuous-fuzzing
// services key crashes: the bug type ("heap-buffer-overflow READ", "SEGV
// WRITE", "signed integer overflow"), then "in" and the function names of the
// first three frames of the first stack (parameter lists dropped, frames of
// the sanitizer runtime and of libc's allocation and abort functions
// skipped), or, for a report without a stack, "at" and its source file and
// line. "" when there is no sanitizer report. Printable ASCII, at most
// 600 bytes.
std::string sanitizer_crash_state(std::string_view stderr_text);

struct Signature {
  Divergence kind = Divergence::kCrash;
  std::string strict_reason;     // "" when strict accepts
  std::string reference_reason;  // "" when reference accepts
  std::string reader_verdict;    // "accept", "reject", "" when none
  // Normalised; for a crash, where it happened (crash_state_of).
  std::string reader_error;

  // 12 hex digits of SHA-256 over the fields: the bucket's name. A crash's
  // is over its kind and reader_error alone: one root cause crashes the
  // reader on files stguard rejects for any reason (and on valid ones).
  std::string bucket() const;
  bool operator==(const Signature&) const = default;
};

// What keys a crash: sanitizer_crash_state() of its stderr, else the
// runner's detail up to its first " (" or ";" ("killed by SIGSEGV", "exit
// status 3"), which no file changes.
std::string crash_state_of(const conformance::CaseResult& result);

// The signature of a divergent answer on `file`. For accepts-invalid the
// reader has no message; for wrong tensors, timeouts and protocol errors the
// runner's detail stands in for it; a crash has its crash_state_of().
Signature make_signature(Divergence kind, const Oracle& oracle,
                         const conformance::CaseResult& result, std::span<const std::uint8_t> file);

struct Bucket {
  Signature signature;             // of the file kept
  std::vector<std::uint8_t> file;  // the smallest file seen (minimised later)
  std::uint64_t hits = 0;
  std::uint64_t first_run = 0;  // the run that found it
  std::string detail;           // the runner's detail on that file
  // The reader's stderr on that file (head and tail, as the runner keeps
  // it) for crashes and timeouts; "" otherwise.
  std::string stderr_text;
};

// The stderr a bucket keeps of `result` (see Bucket::stderr_text).
std::string kept_stderr(Divergence kind, const conformance::CaseResult& result);

// Buckets by signature, each keeping its smallest file (the earliest on a
// tie, so the result does not depend on timing when runs are added in order).
class Buckets {
 public:
  // True when the signature opened a new bucket. A smaller file replaces
  // the bucket's file, and with it the signature (reasons and verdict that
  // a crash's bucket name leaves out), detail and stderr.
  bool add(const Signature& signature, std::span<const std::uint8_t> file, std::uint64_t run,
           const conformance::CaseResult& result);
  // In the order they were found.
  std::vector<Bucket*> ordered();
  std::size_t size() const { return by_name_.size(); }

 private:
  std::map<std::string, Bucket> by_name_;
};

}  // namespace stguard::hunt

#endif  // STGUARD_CONFORMANCE_HUNT_SIGNATURE_H_
