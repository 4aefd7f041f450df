// hunt/signature.h: what kind of divergence a reader's answer is, and the
// signature that puts divergences into buckets.
//
//   std::optional<Divergence> d = divergence_of(grade);      // nullopt: agrees
//   Signature s = make_signature(*d, oracle, result);
//   buckets.add(s, file_bytes, run_index);
//
// A divergence is an accept of what both profiles reject, a reject of what
// both accept, an accept with tensors other than stguard's, a crash, a
// timeout, or an answer outside the adapter protocol. Where the profiles
// disagree either answer is fine, as in `stguard conform`.
#ifndef STGUARD_HUNT_SIGNATURE_H_
#define STGUARD_HUNT_SIGNATURE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/runner/results.h"
#include "hunt/oracle.h"

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
// bucket whatever file triggered it: ASCII lower case, quoted text ("...",
// '...', `...`) as _ even when it holds its own quote, escaped or raw (a
// quote opens where a word starts and closes where one ends), numbers
// (decimal and 0x hex) as #, words outside quotes holding a '/' (paths) as
// _path_, other bytes outside printable ASCII dropped, blanks collapsed, at
// most 120 bytes (of the first 4 KiB of the message).
std::string normalise_reader_error(std::string_view text);

struct Signature {
  Divergence kind = Divergence::kCrash;
  std::string strict_reason;     // "" when strict accepts
  std::string reference_reason;  // "" when reference accepts
  std::string reader_verdict;    // "accept", "reject", "" when none
  std::string reader_error;      // normalised

  // 12 hex digits of SHA-256 over the fields: the bucket's name.
  std::string bucket() const;
  bool operator==(const Signature&) const = default;
};

// The signature of a divergent answer. For accepts-invalid the reader has no
// message; for crashes, timeouts and protocol errors the runner's detail
// ("killed by signal 11 (SIGSEGV)") stands in for it.
Signature make_signature(Divergence kind, const Oracle& oracle,
                         const conformance::CaseResult& result);

struct Bucket {
  Signature signature;
  std::vector<std::uint8_t> file;  // the smallest file seen (minimised later)
  std::uint64_t hits = 0;
  std::uint64_t first_run = 0;  // the run that found it
  std::string detail;           // the runner's detail on that file
};

// Buckets by signature, each keeping its smallest file (the earliest on a
// tie, so the result does not depend on timing when runs are added in order).
class Buckets {
 public:
  // True when the signature opened a new bucket.
  bool add(const Signature& signature, std::span<const std::uint8_t> file, std::uint64_t run,
           const std::string& detail);
  // In the order they were found.
  std::vector<Bucket*> ordered();
  std::size_t size() const { return by_name_.size(); }

 private:
  std::map<std::string, Bucket> by_name_;
};

}  // namespace stguard::hunt

#endif  // STGUARD_HUNT_SIGNATURE_H_
