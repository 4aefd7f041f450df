// Every Reason is produced by at least one input here, with its exact offset;
// a reason added to the enum without a case in kReasonCases fails
// EveryReasonHasACase. Also the stable names of reasons, dtypes and profiles.
#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "tests/support/file_builder.h"
#include "tests/support/test_util.h"

namespace {

using stguard::Dtype;
using stguard::Header;
using stguard::ParseOptions;
using stguard::Profile;
using stguard::Reason;
using stguard::Result;
using stguard_test::entry;
using stguard_test::FileBuilder;
using stguard_test::header_at;
using stguard_test::make_file;
using stguard_test::Reference;
using stguard_test::Strict;

struct ReasonCase {
  std::string name;
  Reason reason;
  std::uint64_t offset;
  std::function<Result<Header>()> run;
};

// Parses `bytes` (the whole file) with `options`.
std::function<Result<Header>()> Parse(std::vector<std::uint8_t> bytes, ParseOptions options) {
  return [bytes = std::move(bytes), options]() { return stguard::parse(bytes, options); };
}

ParseOptions StrictWith(void (*tweak)(stguard::Limits&)) {
  ParseOptions options;
  tweak(options.limits);
  return options;
}

std::vector<ReasonCase> ReasonCases() {
  std::vector<ReasonCase> cases;
  auto add = [&cases](std::string name, Reason reason, std::uint64_t offset,
                      std::function<Result<Header>()> run) {
    cases.push_back({std::move(name), reason, offset, std::move(run)});
  };

  // --- length prefix ---
  add("HeaderTooSmallEmpty", Reason::kHeaderTooSmall, 0, Parse({}, Strict()));
  add("HeaderTooSmallSevenBytes", Reason::kHeaderTooSmall, 0,
      Parse({2, 0, 0, 0, 0, 0, 0}, Reference()));
  add("HeaderTooLarge", Reason::kHeaderTooLarge, 0,
      Parse(FileBuilder("{}").length_prefix(100'000'001).build(), Strict()));
  add("HeaderTooLargeU64Max", Reason::kHeaderTooLarge, 0,
      Parse(FileBuilder("{}").length_prefix(UINT64_MAX).build(), Reference()));
  add("HeaderTooLargeCustomLimit", Reason::kHeaderTooLarge, 0,
      Parse(FileBuilder("{}").pad(6).build(),
            StrictWith([](stguard::Limits& l) { l.max_header_bytes = 7; })));
  add("HeaderLengthExceedsFile", Reason::kHeaderLengthExceedsFile, 0,
      Parse(FileBuilder("{}").length_prefix(3).build(), Strict()));
  // With the size cap lifted, 8 + N must not wrap around 2^64.
  add("HeaderLengthExceedsFileNoWrap", Reason::kHeaderLengthExceedsFile, 0,
      Parse(FileBuilder("{}").length_prefix(UINT64_MAX - 7).build(),
            StrictWith([](stguard::Limits& l) { l.max_header_bytes = UINT64_MAX; })));
  add("HeaderLengthExceedsFileU64Max", Reason::kHeaderLengthExceedsFile, 0,
      Parse(FileBuilder("{}").length_prefix(UINT64_MAX).build(),
            StrictWith([](stguard::Limits& l) { l.max_header_bytes = UINT64_MAX; })));

  // --- header text ---
  {
    const std::string h = "{\"a\xff\":{}}";
    add("HeaderNotUtf8InName", Reason::kHeaderNotUtf8, header_at(h, "\xff"),
        Parse(make_file(h), Strict()));
  }
  add("HeaderNotUtf8InPadding", Reason::kHeaderNotUtf8, 11,
      Parse(make_file("{} \xc0\xaf"), Strict()));
  add("HeaderNotUtf8BeforeBadStart", Reason::kHeaderNotUtf8, 9,
      Parse(make_file("x\x80"), Strict()));
  add("HeaderBadStartSpace", Reason::kHeaderBadStart, 8, Parse(make_file(" {}"), Strict()));
  add("HeaderBadStartArray", Reason::kHeaderBadStart, 8, Parse(make_file("[]"), Strict()));
  add("HeaderBadPaddingTab", Reason::kHeaderBadPadding, 11, Parse(make_file("{} \t"), Strict()));
  add("HeaderBadPaddingSecondValue", Reason::kHeaderBadPadding, 10,
      Parse(make_file("{}{}"), Strict()));
  add("HeaderNotJsonEmptyHeader", Reason::kHeaderNotJson, 8,
      Parse(FileBuilder("").build(), Reference()));
  add("HeaderNotJsonTruncated", Reason::kHeaderNotJson, 9, Parse(make_file("{"), Strict()));
  {
    const std::string h = "{\"a\":   ";
    add("HeaderNotJsonTruncatedWithSpaces", Reason::kHeaderNotJson, 8 + h.size(),
        Parse(make_file(h), Reference()));
  }
  {
    const std::string h = "{\"a\" 1}";
    add("HeaderNotJsonMissingColon", Reason::kHeaderNotJson, header_at(h, "1"),
        Parse(make_file(h), Strict()));
  }
  add("HeaderNotJsonReferenceBom", Reason::kHeaderNotJson, 8,
      Parse(make_file("\xef\xbb\xbf{}"), Reference()));
  add("HeaderNotJsonReferenceTrailingNul", Reason::kHeaderNotJson, 11,
      Parse(make_file(std::string("{} \0", 4)), Reference()));
  {
    const std::string h =
        "{\"a"
        "\x01"
        "\":{}}";
    add("HeaderNotJsonControlChar", Reason::kHeaderNotJson, header_at(h, "\x01"),
        Parse(make_file(h), Strict()));
  }
  {
    const std::string e = entry("a", "U8", "1", 0, 1);
    const std::string h = "{" + e + ",}";
    add("HeaderNotJsonTrailingComma", Reason::kHeaderNotJson, 8 + h.size() - 1,
        Parse(make_file(h, 1), Reference()));
  }
  {
    // 126 nested arrays in an unknown field: depth 128 at the 126th '['.
    const std::string prefix = R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0],"x":)";
    const std::string h = prefix + std::string(126, '[') + std::string(126, ']') + "}}";
    add("HeaderNotJsonNestingLimit", Reason::kHeaderNotJson, 8 + prefix.size() + 125,
        Parse(make_file(h), Reference()));
  }

  // --- structure ---
  {
    const std::string h =
        "{" + entry("a", "U8", "1", 0, 1) + "," + entry("a", "U8", "1", 1, 2) + "}";
    add("DuplicateKeyTensor", Reason::kDuplicateKey, header_at(h, "\"a\"", 1),
        Parse(make_file(h, 2), Strict()));
  }
  {
    const std::string h = R"({"__metadata__":{},"__metadata__":{}})";
    add("DuplicateKeyMetadataReference", Reason::kDuplicateKey, header_at(h, "\"__", 1),
        Parse(make_file(h), Reference()));
  }
  {
    const std::string h = R"({"a":{"dtype":"U8","dtype":"U8","shape":[0],"data_offsets":[0,0]}})";
    add("DuplicateKeyDtypeReference", Reason::kDuplicateKey, header_at(h, "\"dtype\"", 1),
        Parse(make_file(h), Reference()));
  }
  {
    const std::string h = "{" + entry("a\\u0000", "U8", "1", 0, 1) + "}";
    add("NameInvalidNul", Reason::kNameInvalid, 9, Parse(make_file(h, 1), Strict()));
  }
  {
    const std::string h = R"({"__metadata__":{"k\u0000":"v"}})";
    add("NameInvalidMetadataKey", Reason::kNameInvalid, header_at(h, "\"k"),
        Parse(make_file(h), Strict()));
  }
  {
    const std::string h = R"({"a":null})";
    add("TensorInvalidNull", Reason::kTensorInvalid, header_at(h, "null"),
        Parse(make_file(h), Reference()));
  }
  {
    const std::string h = R"({"a":{"dtype":"U8","shape":[0]}})";
    add("TensorInvalidMissingField", Reason::kTensorInvalid, header_at(h, "]}") + 1,
        Parse(make_file(h), Reference()));
  }
  {
    const std::string h = R"({"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0],"z":1}})";
    add("TensorInvalidUnknownField", Reason::kTensorInvalid, header_at(h, "\"z\""),
        Parse(make_file(h), Strict()));
  }
  {
    const std::string h = R"({"a":{"dtype":"f32","shape":[0],"data_offsets":[0,0]}})";
    add("DtypeInvalidName", Reason::kDtypeInvalid, header_at(h, "\"f32\""),
        Parse(make_file(h), Reference()));
  }
  {
    const std::string h = R"({"a":{"dtype":{"U8":null},"shape":[0],"data_offsets":[0,0]}})";
    add("DtypeInvalidStrictMapForm", Reason::kDtypeInvalid, header_at(h, "{\"U8\""),
        Parse(make_file(h), Strict()));
  }
  {
    const std::string h = R"({"a":{"dtype":"U8","shape":[1.0],"data_offsets":[0,1]}})";
    add("ShapeInvalidFloat", Reason::kShapeInvalid, header_at(h, "1.0"),
        Parse(make_file(h, 1), Reference()));
  }
  {
    const std::string h = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,-1]}})";
    add("OffsetsInvalidNegative", Reason::kOffsetsInvalid, header_at(h, "-1"),
        Parse(make_file(h, 1), Strict()));
  }
  {
    const std::string h = "{" + entry("a", "U8", "0", 4, 0) + "}";
    add("OffsetsInvalidBeginAfterEnd", Reason::kOffsetsInvalid, 9,
        Parse(make_file(h, 4), Reference()));
  }

  // --- sizes (at the tensor's name) ---
  {
    const std::string h = "{" + entry("b", "U8", "1", 0, 1) + "," +
                          entry("a", "U8", "4294967296,4294967296", 1, 1) + "}";
    add("SizeOverflowElements", Reason::kSizeOverflow, header_at(h, "\"a\""),
        Parse(make_file(h, 1), Strict()));
  }
  {
    const std::string h = "{" + entry("a", "F64", "288230376151711744", 0, 0) + "}";
    add("SizeOverflowBits", Reason::kSizeOverflow, 9, Parse(make_file(h), Reference()));
  }
  {
    const std::string h =
        "{" + entry("a", "U8", "0,18446744073709551615,18446744073709551615", 0, 0) + "}";
    add("SizeOverflowStrictZeroDim", Reason::kSizeOverflow, 9, Parse(make_file(h), Strict()));
  }
  {
    const std::string h = "{" + entry("a", "F4", "3", 0, 2) + "}";
    add("SubbyteMisaligned", Reason::kSubbyteMisaligned, 9, Parse(make_file(h, 2), Strict()));
  }
  {
    const std::string h = "{" + entry("a", "F32", "2", 0, 4) + "}";
    add("SizeMismatch", Reason::kSizeMismatch, 9, Parse(make_file(h, 4), Reference()));
  }

  // --- layout (into the data buffer) ---
  {
    const std::string h = "{" + entry("a", "U8", "4", 0, 4) + "}";
    add("OffsetOutOfBounds", Reason::kOffsetOutOfBounds, 8 + h.size() + 2,
        Parse(make_file(h, 2), Strict()));
  }
  {
    const std::string h = "{" + entry("a", "U8", "4", 2, 6) + "}";
    add("OffsetGapAtStart", Reason::kOffsetGap, 8 + h.size(), Parse(make_file(h, 6), Strict()));
  }
  {
    const std::string h =
        "{" + entry("b", "U8", "2", 6, 8) + "," + entry("a", "U8", "4", 0, 4) + "}";
    add("OffsetGapBetween", Reason::kOffsetGap, 8 + h.size() + 4,
        Parse(make_file(h, 8), Reference()));
  }
  {
    const std::string h =
        "{" + entry("a", "U8", "4", 0, 4) + "," + entry("b", "U8", "4", 2, 6) + "}";
    add("OffsetOverlap", Reason::kOffsetOverlap, 8 + h.size() + 2,
        Parse(make_file(h, 6), Strict()));
  }
  {
    const std::string h =
        "{" + entry("a", "U8", "4", 0, 4) + "," + entry("b", "I8", "4", 0, 4) + "}";
    add("OffsetOverlapAlias", Reason::kOffsetOverlap, 8 + h.size(),
        Parse(make_file(h, 4), Reference()));
  }
  {
    const std::string h = "{" + entry("a", "U8", "4", 0, 4) + "}";
    add("TrailingData", Reason::kTrailingData, 8 + h.size() + 4, Parse(make_file(h, 6), Strict()));
  }
  add("TrailingDataEmptyHeader", Reason::kTrailingData, 10, Parse(make_file("{}", 1), Strict()));

  // --- metadata ---
  {
    const std::string h = R"({"__metadata__":{"k":1}})";
    add("MetadataInvalidNumber", Reason::kMetadataInvalid, header_at(h, "1}"),
        Parse(make_file(h), Reference()));
  }
  {
    const std::string h = R"({"__metadata__":null})";
    add("MetadataInvalidStrictNull", Reason::kMetadataInvalid, header_at(h, "null"),
        Parse(make_file(h), Strict()));
  }
  {
    const std::string h = R"({"__metadata__":{"k":"v\u0000"}})";
    add("MetadataInvalidStrictNulValue", Reason::kMetadataInvalid, header_at(h, "\"v"),
        Parse(make_file(h), Strict()));
  }

  // --- limits ---
  {
    const std::string h =
        "{" + entry("a", "U8", "1", 0, 1) + "," + entry("b", "U8", "1", 1, 2) + "}";
    add("LimitExceededTensorCount", Reason::kLimitExceeded, header_at(h, "\"b\""),
        Parse(make_file(h, 2), StrictWith([](stguard::Limits& l) { l.max_tensors = 1; })));
  }
  {
    const std::string h = "{" + entry("a", "U8", "1,1,1", 0, 1) + "}";
    add("LimitExceededRank", Reason::kLimitExceeded, header_at(h, "1]"),
        Parse(make_file(h, 1), StrictWith([](stguard::Limits& l) { l.max_rank = 2; })));
  }
  {
    const std::string h = "{" + entry("abcd", "U8", "1", 0, 1) + "}";
    add("LimitExceededNameLength", Reason::kLimitExceeded, 9,
        Parse(make_file(h, 1), StrictWith([](stguard::Limits& l) { l.max_name_bytes = 3; })));
  }

  {
    const std::string h = R"({"__metadata__":{"abcd":"v"}})";
    add("LimitExceededMetadataKeyLength", Reason::kLimitExceeded, header_at(h, "\"abcd\""),
        Parse(make_file(h), StrictWith([](stguard::Limits& l) { l.max_name_bytes = 3; })));
  }

  // --- I/O ---
  add("IoErrorMissingFile", Reason::kIoError, 0,
      []() { return stguard::parse_file("/nonexistent-stguard-dir/missing.safetensors"); });
  return cases;
}

const std::vector<ReasonCase>& AllCases() {
  static const std::vector<ReasonCase> cases = ReasonCases();
  return cases;
}

// One test per Reason, over all_reasons(): a reason added to the enum without
// a case in ReasonCases() gets a test here that fails.
class ReasonTest : public ::testing::TestWithParam<Reason> {};

TEST_P(ReasonTest, ProducedWithExactOffset) {
  const Reason reason = GetParam();
  int cases = 0;
  for (const ReasonCase& c : AllCases()) {
    if (c.reason != reason) continue;
    ++cases;
    EXPECT_TRUE(stguard_test::Rejects(c.run(), c.reason, c.offset)) << "case " << c.name;
  }
  EXPECT_GT(cases, 0) << stguard::reason_name(reason) << " has no case in ReasonCases()";
}

INSTANTIATE_TEST_SUITE_P(AllReasons, ReasonTest, ::testing::ValuesIn(stguard::all_reasons()),
                         [](const ::testing::TestParamInfo<Reason>& param_info) {
                           return std::string(stguard::reason_name(param_info.param));
                         });

// The limits reject only beyond the configured value, measured after unescaping.
TEST(LimitsBoundary, AtTheLimitIsAccepted) {
  ParseOptions options;
  options.limits.max_name_bytes = 3;
  options.limits.max_rank = 3;
  options.limits.max_tensors = 2;
  const std::string h = "{" + entry("\\u0061\\u0062c", "U8", "1,1,1", 0, 1) + "," +
                        entry("xyz", "U8", "1", 1, 2) +
                        R"(,"__metadata__":{"kkk":"a long value"}})";
  EXPECT_TRUE(stguard_test::Accepts(stguard::parse(make_file(h, 2), options)));
  options.profile = Profile::kReference;
  EXPECT_TRUE(stguard_test::Accepts(stguard::parse(make_file(h, 2), options)));
}

TEST(ReasonCoverage, CaseNamesAreUnique) {
  std::set<std::string> names;
  for (const ReasonCase& c : AllCases()) EXPECT_TRUE(names.insert(c.name).second) << c.name;
}

// The stable names from docs/reasons.md with their ABI numbers.
struct NamedReason {
  Reason reason;
  int number;
  const char* name;
};
constexpr NamedReason kReasonNames[] = {
    {Reason::kHeaderTooSmall, 1, "HEADER_TOO_SMALL"},
    {Reason::kHeaderTooLarge, 2, "HEADER_TOO_LARGE"},
    {Reason::kHeaderLengthExceedsFile, 3, "HEADER_LENGTH_EXCEEDS_FILE"},
    {Reason::kHeaderNotUtf8, 4, "HEADER_NOT_UTF8"},
    {Reason::kHeaderBadStart, 5, "HEADER_BAD_START"},
    {Reason::kHeaderBadPadding, 6, "HEADER_BAD_PADDING"},
    {Reason::kHeaderNotJson, 7, "HEADER_NOT_JSON"},
    {Reason::kDuplicateKey, 8, "DUPLICATE_KEY"},
    {Reason::kNameInvalid, 9, "NAME_INVALID"},
    {Reason::kTensorInvalid, 10, "TENSOR_INVALID"},
    {Reason::kDtypeInvalid, 11, "DTYPE_INVALID"},
    {Reason::kShapeInvalid, 12, "SHAPE_INVALID"},
    {Reason::kOffsetsInvalid, 13, "OFFSETS_INVALID"},
    {Reason::kSizeOverflow, 14, "SIZE_OVERFLOW"},
    {Reason::kSubbyteMisaligned, 15, "SUBBYTE_MISALIGNED"},
    {Reason::kSizeMismatch, 16, "SIZE_MISMATCH"},
    {Reason::kOffsetOutOfBounds, 17, "OFFSET_OUT_OF_BOUNDS"},
    {Reason::kOffsetGap, 18, "OFFSET_GAP"},
    {Reason::kOffsetOverlap, 19, "OFFSET_OVERLAP"},
    {Reason::kTrailingData, 20, "TRAILING_DATA"},
    {Reason::kMetadataInvalid, 21, "METADATA_INVALID"},
    {Reason::kLimitExceeded, 22, "LIMIT_EXCEEDED"},
    {Reason::kIoError, 23, "IO_ERROR"},
};

TEST(ReasonNames, StableNamesAndNumbers) {
  ASSERT_EQ(stguard::all_reasons().size(), std::size(kReasonNames));
  for (std::size_t i = 0; i < std::size(kReasonNames); ++i) {
    const NamedReason& expected = kReasonNames[i];
    EXPECT_EQ(stguard::all_reasons()[i], expected.reason) << "all_reasons() not in numeric order";
    EXPECT_EQ(static_cast<int>(expected.reason), expected.number);
    EXPECT_EQ(stguard::reason_name(expected.reason), expected.name);
  }
}

TEST(ReasonNames, RoundTrip) {
  std::set<std::string> names;
  for (Reason reason : stguard::all_reasons()) {
    const std::string_view name = stguard::reason_name(reason);
    ASSERT_FALSE(name.empty());
    EXPECT_TRUE(names.insert(std::string(name)).second) << "duplicate name " << name;
    const std::optional<Reason> back = stguard::reason_from_name(name);
    ASSERT_TRUE(back.has_value()) << name;
    EXPECT_EQ(*back, reason);
  }
}

TEST(ReasonNames, UnknownNames) {
  for (std::string_view name :
       {"", "offset_gap", "OFFSET_GAP ", "OFFSETGAP", "kOffsetGap", "OK", "OFFSET_GAPS"}) {
    EXPECT_FALSE(stguard::reason_from_name(name).has_value()) << '"' << name << '"';
  }
}

TEST(ReasonNames, ErrorToStringFormat) {
  const stguard::Error error{Reason::kOffsetGap, 123, "hole before tensor 'w'"};
  const std::string text = error.to_string();
  EXPECT_EQ(text.rfind("OFFSET_GAP at byte 123", 0), 0U) << text;
}

struct NamedDtype {
  Dtype dtype;
  int number;
  const char* name;
  unsigned bits;
};
// docs/reference-profile.md "Dtypes (name, bits)", in numeric order.
constexpr NamedDtype kDtypes[] = {
    {Dtype::kBool, 0, "BOOL", 8},
    {Dtype::kF4, 1, "F4", 4},
    {Dtype::kF6E2M3, 2, "F6_E2M3", 6},
    {Dtype::kF6E3M2, 3, "F6_E3M2", 6},
    {Dtype::kU8, 4, "U8", 8},
    {Dtype::kI8, 5, "I8", 8},
    {Dtype::kF8E5M2, 6, "F8_E5M2", 8},
    {Dtype::kF8E4M3, 7, "F8_E4M3", 8},
    {Dtype::kF8E8M0, 8, "F8_E8M0", 8},
    {Dtype::kF8E4M3Fnuz, 9, "F8_E4M3FNUZ", 8},
    {Dtype::kF8E5M2Fnuz, 10, "F8_E5M2FNUZ", 8},
    {Dtype::kI16, 11, "I16", 16},
    {Dtype::kU16, 12, "U16", 16},
    {Dtype::kF16, 13, "F16", 16},
    {Dtype::kBF16, 14, "BF16", 16},
    {Dtype::kI32, 15, "I32", 32},
    {Dtype::kU32, 16, "U32", 32},
    {Dtype::kF32, 17, "F32", 32},
    {Dtype::kC64, 18, "C64", 64},
    {Dtype::kF64, 19, "F64", 64},
    {Dtype::kI64, 20, "I64", 64},
    {Dtype::kU64, 21, "U64", 64},
};

TEST(Dtypes, NamesBitsAndNumbers) {
  ASSERT_EQ(stguard::kDtypeCount, 22);
  ASSERT_EQ(stguard::all_dtypes().size(), std::size(kDtypes));
  for (std::size_t i = 0; i < std::size(kDtypes); ++i) {
    const NamedDtype& expected = kDtypes[i];
    SCOPED_TRACE(expected.name);
    EXPECT_EQ(stguard::all_dtypes()[i], expected.dtype);
    EXPECT_EQ(static_cast<int>(expected.dtype), expected.number);
    EXPECT_EQ(stguard::dtype_name(expected.dtype), expected.name);
    EXPECT_EQ(stguard::dtype_bits(expected.dtype), expected.bits);
    const std::optional<Dtype> back = stguard::dtype_from_name(expected.name);
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, expected.dtype);
  }
}

TEST(Dtypes, NothingElseIsADtype) {
  for (std::string_view name :
       {"", "f32", "F128", "F8_E4M3FN", "I4", "U4", "C128", "F32 ", " F32", "bool", "Bool", "BF8",
        "F8", "F6", "F6_E2M3 ", "F8_E5M2fnuz", "U128", "STR", "F32\n"}) {
    EXPECT_FALSE(stguard::dtype_from_name(name).has_value()) << '"' << name << '"';
  }
  EXPECT_FALSE(stguard::dtype_from_name(std::string_view("F32\0", 4)).has_value());
}

TEST(Dtypes, WriterRankFollowsUpstreamOrder) {
  // docs/reference-profile.md "Writer".
  const Dtype order[] = {Dtype::kU64,        Dtype::kI64,    Dtype::kF64,    Dtype::kC64,
                         Dtype::kF32,        Dtype::kU32,    Dtype::kI32,    Dtype::kBF16,
                         Dtype::kF16,        Dtype::kU16,    Dtype::kI16,    Dtype::kF8E5M2Fnuz,
                         Dtype::kF8E4M3Fnuz, Dtype::kF8E8M0, Dtype::kF8E4M3, Dtype::kF8E5M2,
                         Dtype::kI8,         Dtype::kU8,     Dtype::kF6E3M2, Dtype::kF6E2M3,
                         Dtype::kF4,         Dtype::kBool};
  ASSERT_EQ(std::size(order), 22U);
  for (std::size_t i = 1; i < std::size(order); ++i) {
    EXPECT_LT(stguard::dtype_writer_rank(order[i - 1]), stguard::dtype_writer_rank(order[i]))
        << stguard::dtype_name(order[i - 1]) << " must be written before "
        << stguard::dtype_name(order[i]);
  }
}

TEST(Profiles, NamesRoundTrip) {
  EXPECT_EQ(stguard::profile_name(Profile::kStrict), "strict");
  EXPECT_EQ(stguard::profile_name(Profile::kReference), "reference");
  for (Profile p : {Profile::kStrict, Profile::kReference}) {
    const std::optional<Profile> back = stguard::profile_from_name(stguard::profile_name(p));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, p);
  }
  EXPECT_FALSE(stguard::profile_from_name("Strict").has_value());
  EXPECT_FALSE(stguard::profile_from_name("").has_value());
  EXPECT_EQ(stguard::ParseOptions{}.profile, Profile::kStrict);
}

TEST(Limits, DocumentedDefaults) {
  for (const Profile profile : {Profile::kStrict, Profile::kReference}) {
    const stguard::ResolvedLimits limits = stguard::default_limits(profile);
    EXPECT_EQ(limits.max_header_bytes, 100'000'000U);
    // Real checkpoints have 1.29M tensors; the cap must not be below that.
    EXPECT_GE(limits.max_tensors, 1'290'000U);
  }
}

}  // namespace
