// tests/hunt/signature_test.cc: divergence kinds, the reader-error
// normalisation, bucket names and the bucket table (conformance/hunt/signature.h).
#include "conformance/hunt/signature.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
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
  const Signature s =
      stguard::hunt::make_signature(Divergence::kAcceptsInvalid, oracle, accepted, {});
  EXPECT_EQ(s.reader_verdict, "accept");
  EXPECT_EQ(s.reader_error, "");

  stguard::hunt::Oracle valid;
  CaseResult rejected;
  rejected.verdict = Verdict::kReject;
  rejected.reader_error = "Tensor 'w' ends at 17";
  const Signature r = stguard::hunt::make_signature(Divergence::kRejectsValid, valid, rejected, {});
  EXPECT_EQ(r.strict_reason, "");
  EXPECT_EQ(r.reader_verdict, "reject");
  EXPECT_EQ(r.reader_error, "tensor _ ends at #");

  // A crash without a sanitizer report: the signal or exit status, as the
  // runner says it.
  CaseResult crashed;
  crashed.detail = "killed by SIGSEGV; left 1 process running after it exited (killed)";
  crashed.reader_error = "Segmentation fault";
  const Signature c = stguard::hunt::make_signature(Divergence::kCrash, valid, crashed, {});
  EXPECT_EQ(c.reader_verdict, "");
  EXPECT_EQ(c.reader_error, "killed by SIGSEGV");
  crashed.detail = "exit status 3 (the adapter protocol exits 0 for accept and reject)";
  EXPECT_EQ(stguard::hunt::make_signature(Divergence::kCrash, valid, crashed, {}).reader_error,
            "exit status 3");
}

TEST(HuntSignature, BucketsKeepTheSmallestFileTheEarliestOnATieAndCountHits) {
  Buckets buckets;
  const Signature s = overlap_signature();
  Signature other = s;
  other.kind = Divergence::kCrash;
  const std::vector<std::uint8_t> big(100, 1);
  const std::vector<std::uint8_t> small(10, 2);
  const std::vector<std::uint8_t> small_later(10, 3);
  const auto with_detail = [](const std::string& detail) {
    CaseResult result;
    result.detail = detail;
    return result;
  };
  EXPECT_TRUE(buckets.add(s, big, 5, with_detail("first")));
  EXPECT_TRUE(buckets.add(other, big, 6, with_detail("crash")));
  EXPECT_FALSE(buckets.add(s, small, 7, with_detail("smaller")));
  EXPECT_FALSE(buckets.add(s, small_later, 8, with_detail("tie")));
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

// A safetensors file: the length prefix and `header`, no data.
std::vector<std::uint8_t> file_with_header(const std::string& header) {
  std::vector<std::uint8_t> file(8);
  for (std::size_t i = 0; i < 8; ++i) file[i] = static_cast<std::uint8_t>(header.size() >> (8 * i));
  file.insert(file.end(), header.begin(), header.end());
  return file;
}

// Longest first, in the header's order among names of one length.
TEST(HuntSignature, HeaderNamesAreTheTensorNamesAndMetadataKeysLongestFirst) {
  using stguard::hunt::header_names;
  EXPECT_EQ(header_names(file_with_header(
                R"({"bias":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},)"
                R"("__metadata__":{"format":"pt","k":"v"},"weight":{"dtype":"U8"}})")),
            (std::vector<std::string>{"format", "weight", "bias", "k"}));
  // Escaped names both as written and decoded; a lone surrogate stays as
  // written.
  EXPECT_EQ(header_names(file_with_header(R"({"w\u0041\n":{}, "x\ud800":{}})")),
            (std::vector<std::string>{"w\\u0041\\n", "x\\ud800", "wA\n"}));
  // A header no parser accepts still gives its names: cut short, with a
  // length prefix past the end of the file.
  std::vector<std::uint8_t> cut = file_with_header(R"({"a b":{"dtype":"F32"},"c":{"sha)");
  cut[0] = 0xff;
  cut[1] = 0xff;
  EXPECT_EQ(header_names(cut), (std::vector<std::string>{"a b", "c"}));
  EXPECT_TRUE(header_names(file_with_header("[1,2,3]")).empty());
  EXPECT_TRUE(header_names({}).empty());
  std::string many = "{";
  for (int i = 0; i < 1000; ++i) many += "\"n" + std::to_string(i) + "\":{},";
  many += "}";
  EXPECT_EQ(header_names(file_with_header(many)).size(), stguard::hunt::kMaxHeaderNames);
}

// Readers that print a tensor name without quotes ("offsets for weight bias
// overlap") made a bucket per name: the file's own names are blanked
// wherever they stand, quoted or not, as whole words only.
TEST(HuntSignature, TheFilesNamesAreBlankedQuotedOrNot) {
  using stguard::hunt::normalise_reader_error;
  const std::vector<std::string> weights = {"weight", "bias", "format"};
  const std::vector<std::string> letters = {"x", "y"};
  EXPECT_EQ(normalise_reader_error("offsets for weight bias overlap", weights),
            "offsets for _ _ overlap");
  EXPECT_EQ(normalise_reader_error("offsets for x y overlap", letters), "offsets for _ _ overlap");
  EXPECT_EQ(normalise_reader_error("metadata format: 'format' is odd", weights),
            "metadata _: _ is odd");
  // Only whole words: "weights" and "xyz" hold a name but are other words.
  EXPECT_EQ(
      normalise_reader_error("weights of xyz for y", std::vector<std::string>{"weight", "x", "y"}),
      "weights of xyz for _");
  // The longest first: "wqkv" is blanked whole, not "wq" inside it.
  EXPECT_EQ(normalise_reader_error("tensor wqkv after wq", std::vector<std::string>{"wq", "wqkv"}),
            "tensor _ after _");
  // A name with a quote, a blank or a '/', printed raw.
  EXPECT_EQ(normalise_reader_error("tensor a\"b c/d is bad", std::vector<std::string>{"a\"b c/d"}),
            "tensor _ is bad");
  // Names without a letter are left to the other rules ("0" would blank
  // every zero, "." every full stop).
  EXPECT_EQ(normalise_reader_error("offset 0 of . is 0.", std::vector<std::string>{"0", "."}),
            "offset # of . is #.");
  // Through make_signature, from the file itself.
  stguard::hunt::Oracle valid;
  CaseResult rejected;
  rejected.verdict = Verdict::kReject;
  rejected.reader_error = "offsets for weight bias overlap";
  const Signature one = stguard::hunt::make_signature(
      Divergence::kRejectsValid, valid, rejected,
      file_with_header(R"({"weight":{"dtype":"F32"},"bias":{"dtype":"F32"}})"));
  rejected.reader_error = "offsets for x.0 y overlap";
  const Signature other = stguard::hunt::make_signature(
      Divergence::kRejectsValid, valid, rejected,
      file_with_header(R"({"x.0":{"dtype":"F32"},"y":{"dtype":"F32"}})"));
  EXPECT_EQ(one.reader_error, "offsets for _ _ overlap");
  EXPECT_EQ(one.bucket(), other.bucket());
}

// An AddressSanitizer report as a reader built with -fsanitize=address
// prints it; `pid` and `address` change from run to run.
std::string asan_report(const std::string& pid, const std::string& address, const std::string& bug,
                        const std::string& access, const std::vector<std::string>& frames) {
  std::string out = "some output first\n==" + pid + "==ERROR: AddressSanitizer: " + bug +
                    " on address " + address + " at pc 0x55 bp 0x7ff sp 0x7fe\n" + access + "\n";
  // A frame without a symbol has no " in FUNCTION", only its module.
  for (std::size_t i = 0; i < frames.size(); ++i) {
    out += "    #" + std::to_string(i) + " 0x55d3c1a2" + std::to_string(i) +
           (frames[i].starts_with("(/") ? " " : " in ") + frames[i] + "\n";
  }
  out +=
      "\n0x602 is located 0 bytes after 16-byte region\nallocated by thread T0 here:\n"
      "    #0 0x7f in malloc (/lib/libasan.so.8+0xba)\n    #1 0x55 in grow() /src/g.cc:3\n"
      "SUMMARY: AddressSanitizer: " +
      bug + "\n==" + pid + "==ABORTING\n";
  return out;
}

TEST(HuntSignature, SanitizerCrashStatesAreTheBugTypeAndTheTopFrames) {
  using stguard::hunt::sanitizer_crash_state;
  EXPECT_EQ(
      sanitizer_crash_state(asan_report(
          "4242", "0x602000000011", "heap-buffer-overflow", "READ of size 4 at 0x60 thread T0",
          {"__asan_memcpy (/usr/lib/libasan.so.8+0x3a)",
           "parse_dtype(char const*, unsigned long) /src/reader.cc:41:7",
           "(anonymous namespace)::read_entry(Json const&) const /src/reader.cc:88",
           "std::vector<int, std::allocator<int> >::at(unsigned long) /usr/include/v:3",
           "main /src/main.cc:5 (BuildId: 1234)"})),
      "heap-buffer-overflow READ in parse_dtype, (anonymous namespace)::read_entry, "
      "std::vector<int, std::allocator<int> >::at");
  EXPECT_EQ(sanitizer_crash_state(asan_report(
                "7", "0x000000000000", "SEGV", "The signal is caused by a WRITE memory access.",
                {"(/lib/x86_64-linux-gnu/libc.so.6+0x29d90)", "store /src/s.cc:2:1"})),
            "SEGV WRITE in store");
  // UndefinedBehaviorSanitizer, with a stack (print_stacktrace=1) and without.
  const std::string ubsan =
      "/src/fake/shape.cc:12:5: runtime error: signed integer overflow: 4294967296 * 8 cannot be "
      "represented in type 'long'\n";
  EXPECT_EQ(sanitizer_crash_state(ubsan + "    #0 0x55 in shape_product(long const*, int) "
                                          "/src/fake/shape.cc:12:5\n    #1 0x56 in main /m.cc:1\n"),
            "signed integer overflow in shape_product, main");
  EXPECT_EQ(sanitizer_crash_state(ubsan + "SUMMARY: UndefinedBehaviorSanitizer: undefined-behavior "
                                          "/src/fake/shape.cc:12:5 in\n"),
            "signed integer overflow at shape.cc:12");
  EXPECT_EQ(sanitizer_crash_state("/a.cc:3:1: runtime error: load of null pointer of type 'int'"),
            "load of null pointer of type _ at a.cc:3");
  EXPECT_EQ(
      sanitizer_crash_state("==1==ERROR: LeakSanitizer: detected memory leaks\n\nDirect "
                            "leak of 8 byte(s) in 1 object(s) allocated from:\n    #0 0x4 "
                            "in malloc (/lib/liblsan.so+0x1)\n    #1 0x5 in keep() /k.cc:2\n"),
      "detected memory leaks in keep");
  // No sanitizer: nothing to key on but the signal or exit status.
  EXPECT_EQ(sanitizer_crash_state("Traceback (most recent call last):\nValueError: bad\n"), "");
  EXPECT_EQ(sanitizer_crash_state("ERROR: something: else\n    #0 0x1 in f() /f.cc:1\n"), "");
}

// Before, a crash was keyed by stguard's reasons and the runner's "exit
// status 1": one root cause split across reason pairs, and different root
// causes exiting alike merged.
TEST(HuntSignature, CrashBucketsAreKeyedByTheCrashNotByStguardsReasons) {
  const auto crash = [](const std::string& reason, const std::string& stderr_text) {
    stguard::hunt::Oracle oracle;
    oracle.strict.reason = reason;
    oracle.reference.reason = reason;
    CaseResult result;
    result.detail = "exit status 1 (the adapter protocol exits 0 for accept and reject)";
    result.reader_error = stderr_text;
    return stguard::hunt::make_signature(Divergence::kCrash, oracle, result, {});
  };
  const std::vector<std::string> metadata_frames = {"parse_metadata(char const*) /r.cc:1",
                                                    "read_header() /r.cc:2", "main /r.cc:3"};
  const Signature gap = crash("OFFSET_GAP", asan_report("11", "0x6020", "heap-buffer-overflow",
                                                        "READ of size 1", metadata_frames));
  const Signature overlap =
      crash("OFFSET_OVERLAP",
            asan_report("99", "0x6030", "heap-buffer-overflow", "READ of size 8", metadata_frames));
  const Signature valid = crash(
      "", asan_report("5", "0x6040", "heap-buffer-overflow", "READ of size 2", metadata_frames));
  EXPECT_EQ(gap.reader_error, "heap-buffer-overflow READ in parse_metadata, read_header, main");
  EXPECT_EQ(gap.bucket(), overlap.bucket());
  EXPECT_EQ(gap.bucket(), valid.bucket());
  EXPECT_EQ(gap.strict_reason, "OFFSET_GAP");  // still said, only not keyed on
  const Signature shape =
      crash("OFFSET_GAP",
            asan_report("11", "0x6020", "SEGV", "The signal is caused by a READ memory access.",
                        {"shape_product(long const*) /r.cc:9", "read_entry() /r.cc:8"}));
  EXPECT_NE(gap.bucket(), shape.bucket());
  // Without a report: the exit status, whatever the reasons.
  EXPECT_EQ(crash("OFFSET_GAP", "").bucket(), crash("DTYPE_INVALID", "").bucket());
  EXPECT_NE(crash("OFFSET_GAP", "").bucket(), gap.bucket());
  // The other kinds keep stguard's reasons in their key.
  Signature rejects = gap;
  rejects.kind = Divergence::kRejectsValid;
  Signature rejects_other = overlap;
  rejects_other.kind = Divergence::kRejectsValid;
  EXPECT_NE(rejects.bucket(), rejects_other.bucket());
}

TEST(HuntSignature, ABucketKeepsTheStderrAndSignatureOfItsSmallestFile) {
  Buckets buckets;
  Signature first;
  first.kind = Divergence::kCrash;
  first.strict_reason = "OFFSET_GAP";
  first.reader_error = "SEGV READ in f";
  Signature second = first;
  second.strict_reason = "DTYPE_INVALID";
  ASSERT_EQ(first.bucket(), second.bucket());
  CaseResult big_crash;
  big_crash.detail = "killed by SIGSEGV";
  big_crash.reader_error = "ERROR: AddressSanitizer: SEGV (big file)";
  CaseResult small_crash = big_crash;
  small_crash.reader_error = "ERROR: AddressSanitizer: SEGV (small file)";
  EXPECT_TRUE(buckets.add(first, std::vector<std::uint8_t>(50, 1), 1, big_crash));
  EXPECT_FALSE(buckets.add(second, std::vector<std::uint8_t>(20, 1), 2, small_crash));
  const stguard::hunt::Bucket& bucket = *buckets.ordered()[0];
  EXPECT_EQ(bucket.signature.strict_reason, "DTYPE_INVALID");
  EXPECT_EQ(bucket.stderr_text, small_crash.reader_error);
  EXPECT_EQ(bucket.hits, 2u);
  // Only crashes and timeouts keep stderr.
  Buckets others;
  Signature rejected;
  rejected.kind = Divergence::kRejectsValid;
  CaseResult message;
  message.reader_error = "bad file";
  others.add(rejected, std::vector<std::uint8_t>(3, 1), 1, message);
  EXPECT_EQ(others.ordered()[0]->stderr_text, "");
}

}  // namespace
