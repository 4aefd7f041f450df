// tests/hunt/signature_test.cc: divergence kinds, the reader-error
// normalisation, bucket names and the bucket table (hunt/signature.h).
#include "hunt/signature.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using stguard::conformance::CaseResult;
using stguard::conformance::Grade;
using stguard::conformance::Verdict;
using stguard::hunt::Buckets;
using stguard::hunt::Divergence;
using stguard::hunt::Signature;

TEST(HuntSignature, PassingGradesAreNoDivergence) {
  EXPECT_FALSE(stguard::hunt::divergence_of(Grade::kPass));
  EXPECT_FALSE(stguard::hunt::divergence_of(Grade::kImplAccept));
  EXPECT_FALSE(stguard::hunt::divergence_of(Grade::kImplReject));
  EXPECT_EQ(stguard::hunt::divergence_of(Grade::kFailShouldReject), Divergence::kAcceptsInvalid);
  EXPECT_EQ(stguard::hunt::divergence_of(Grade::kFailShouldAccept), Divergence::kRejectsValid);
  EXPECT_EQ(stguard::hunt::divergence_of(Grade::kFailWrongContent), Divergence::kWrongTensors);
  EXPECT_EQ(stguard::hunt::divergence_of(Grade::kCrash), Divergence::kCrash);
  EXPECT_EQ(stguard::hunt::divergence_of(Grade::kTimeout), Divergence::kTimeout);
  EXPECT_EQ(stguard::hunt::divergence_name(Divergence::kAcceptsInvalid), "accepts-invalid");
  EXPECT_EQ(stguard::hunt::divergence_name(Divergence::kWrongTensors), "wrong-tensors");
}

TEST(HuntSignature, NormalisedErrorsHideNumbersQuotesAndPaths) {
  using stguard::hunt::normalise_reader_error;
  EXPECT_EQ(normalise_reader_error("Invalid offset 1234 for tensor \"a.b\""),
            "invalid offset # for tensor _");
  EXPECT_EQ(normalise_reader_error("Invalid offset 77 for tensor 'weight'"),
            "invalid offset # for tensor _");
  EXPECT_EQ(normalise_reader_error("cannot open /tmp/x/12.safetensors:  at 0xdeadBEEF\n\tnext"),
            "cannot open _path_ at # next");
  EXPECT_EQ(normalise_reader_error("\x1b[31mred\xff  "), "[#mred");
  EXPECT_EQ(normalise_reader_error(std::string(500, 'a')).size(), 120u);
}

Signature overlap_signature() {
  Signature s;
  s.kind = Divergence::kAcceptsInvalid;
  s.strict_reason = "OFFSET_OVERLAP";
  s.reference_reason = "OFFSET_OVERLAP";
  s.reader_verdict = "accept";
  return s;
}

TEST(HuntSignature, BucketNamesAreStableAndTellSignaturesApart) {
  const Signature a = overlap_signature();
  EXPECT_EQ(a.bucket().size(), 12u);
  EXPECT_EQ(a.bucket(), overlap_signature().bucket());
  Signature b = a;
  b.reference_reason = "OFFSET_GAP";
  EXPECT_NE(a.bucket(), b.bucket());
  Signature c = a;
  c.kind = Divergence::kWrongTensors;
  EXPECT_NE(a.bucket(), c.bucket());
  // Fields are separated: moving text from one field to the next changes the name.
  Signature d = a;
  d.strict_reason = "OFFSET_OVERLAPOFFSET_OVERLAP";
  d.reference_reason = "";
  EXPECT_NE(a.bucket(), d.bucket());
}

TEST(HuntSignature, MakeSignatureUsesTheReadersMessageOnlyWhereItHasOne) {
  stguard::hunt::Oracle oracle;
  oracle.strict.reason = "OFFSET_OVERLAP";
  oracle.reference.reason = "OFFSET_OVERLAP";
  CaseResult accepted;
  accepted.verdict = Verdict::kAccept;
  accepted.detail = "accepted; must be rejected: OFFSET_OVERLAP";
  const Signature s = stguard::hunt::make_signature(Divergence::kAcceptsInvalid, oracle, accepted);
  EXPECT_EQ(s.reader_verdict, "accept");
  EXPECT_EQ(s.reader_error, "");

  stguard::hunt::Oracle valid;
  CaseResult rejected;
  rejected.verdict = Verdict::kReject;
  rejected.reader_error = "Tensor 'w' ends at 17";
  const Signature r = stguard::hunt::make_signature(Divergence::kRejectsValid, valid, rejected);
  EXPECT_EQ(r.strict_reason, "");
  EXPECT_EQ(r.reader_verdict, "reject");
  EXPECT_EQ(r.reader_error, "tensor _ ends at #");

  CaseResult crashed;
  crashed.detail = "killed by signal 11 (SIGSEGV)";
  const Signature c = stguard::hunt::make_signature(Divergence::kCrash, valid, crashed);
  EXPECT_EQ(c.reader_verdict, "");
  EXPECT_EQ(c.reader_error, "killed by signal # (sigsegv)");
}

TEST(HuntSignature, BucketsKeepTheSmallestFileTheEarliestOnATieAndCountHits) {
  Buckets buckets;
  const Signature s = overlap_signature();
  Signature other = s;
  other.kind = Divergence::kCrash;
  const std::vector<std::uint8_t> big(100, 1);
  const std::vector<std::uint8_t> small(10, 2);
  const std::vector<std::uint8_t> small_later(10, 3);
  EXPECT_TRUE(buckets.add(s, big, 5, "first"));
  EXPECT_TRUE(buckets.add(other, big, 6, "crash"));
  EXPECT_FALSE(buckets.add(s, small, 7, "smaller"));
  EXPECT_FALSE(buckets.add(s, small_later, 8, "tie"));
  ASSERT_EQ(buckets.size(), 2u);
  const std::vector<stguard::hunt::Bucket*> ordered = buckets.ordered();
  EXPECT_EQ(ordered[0]->signature, s);
  EXPECT_EQ(ordered[0]->hits, 3u);
  EXPECT_EQ(ordered[0]->file, small);
  EXPECT_EQ(ordered[0]->detail, "smaller");
  EXPECT_EQ(ordered[0]->first_run, 5u);
  EXPECT_EQ(ordered[1]->signature, other);
  EXPECT_EQ(ordered[1]->hits, 1u);
}

}  // namespace
