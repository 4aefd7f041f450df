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

// A JavaScript reader prints a tensor name between quotes as it is, so a '"' in the
// name must not end the quoted text early: these are huggingface-hub's messages for
// one fault (a dimension past 2^32) on files that differ only in the tensor's name.
TEST(HuntSignature, AQuoteInsideAQuotedNameStillGivesOneBucket) {
  using stguard::hunt::normalise_reader_error;
  const std::string expected =
      "failed to parse file model.safetensors: tensor _ dimension is #, which exceeds the "
      "maximum allowed (#).";
  for (const char* name : {"a", "]^#V\"1[oN<%x", "\"z", "\"a", "z\"", "YhMYb',Mn<i\"",
                           "Gk\"\"yROs%X#3", "M`S$U\"A(4Ob'", "M\\w\"*,Vf5$0?", ",rA3P(='\"O1C",
                           " F1b+W/!z=_X", "=V?$\\XZ,T\"7<", "a/b"}) {
    const std::string message = std::string("Failed to parse file model.safetensors: tensor \"") +
                                name +
                                "\" dimension is 9007199254740992, which exceeds the maximum "
                                "allowed (4294967296).";
    EXPECT_EQ(normalise_reader_error(message), expected) << name;
  }
  // The runner's own detail escapes the name as JSON does ('\"'), and quotes a
  // dtype given as an object: an escaped quote ends nothing.
  EXPECT_EQ(normalise_reader_error("tensor \"]^#V\\\"1[oN<%x\": shape [0,1], expected [0,2]"),
            normalise_reader_error("tensor \"a\": shape [0,1], expected [0,2]"));
  EXPECT_EQ(normalise_reader_error("tensor \"t\": dtype \"{\\\"F32\\\":null}\", expected F32"),
            "tensor _: dtype _, expected f#");
  // A quote inside a word is an apostrophe or part of a name, not an opening one.
  EXPECT_EQ(normalise_reader_error("can't read 'w' at 4, isn't valid"),
            "can't read _ at #, isn't valid");
  // A name ending in a backslash printed raw still closes at its quote.
  EXPECT_EQ(normalise_reader_error("tensor \"a\\\" dimension is 7"), "tensor _ dimension is #");
  // An opening quote that never closes is kept as it is.
  EXPECT_EQ(normalise_reader_error("unexpected \"x at 3"), "unexpected \"x at #");
  // Nor does a message of a million unclosed quotes search past its first 4 KiB.
  std::string unclosed;
  for (int k = 0; k < 500'000; ++k) unclosed += "(\"x";
  EXPECT_EQ(normalise_reader_error(unclosed).size(), 120u);
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
