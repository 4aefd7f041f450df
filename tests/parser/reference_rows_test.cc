// Every row of every table in docs/reference-profile.md as a test case, run in both
// profiles. A case is named <Table>_<Row>_<profile>, so a failure says which
// row of which table broke. Where docs/reference-profile.md fixes the reason (and offset) of a
// rejection, the case checks them; otherwise only the verdict.
#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/file_builder.h"
#include "tests/support/test_util.h"

namespace {

using namespace std::string_literals;
using stguard::Dtype;
using stguard::Header;
using stguard::Profile;
using stguard::Reason;
using stguard_test::entry;
using stguard_test::FileBuilder;
using stguard_test::header_at;
using stguard_test::make_file;

constexpr const char* kU64Max = "18446744073709551615";
constexpr const char* kU64MaxPlus1 = "18446744073709551616";

struct Expect {
  bool accept = true;
  Reason reason = Reason::kIoError;
  std::optional<std::uint64_t> offset;
};

Expect Accept() { return {}; }
Expect Reject(Reason reason, std::optional<std::uint64_t> offset) {
  return {false, reason, offset};
}

using Check = std::function<void(const Header&, Profile)>;

struct Row {
  std::string table;
  std::string name;
  std::vector<std::uint8_t> file;
  Expect strict;
  Expect reference;
  Check check;
};

std::string Obj(std::initializer_list<std::string> members) {
  std::string out = "{";
  bool first = true;
  for (const std::string& m : members) {
    if (!first) out += ',';
    out += m;
    first = false;
  }
  return out + "}";
}

// {"t":{"dtype":"U8","shape":[4],"data_offsets":[0,4]}} with 4 data bytes.
const std::string kT = entry("t", "U8", "4", 0, 4);
const std::string kB = Obj({kT});

// A file whose only tensor "t" has the given raw JSON fields.
std::string TensorWith(const std::string& fields) { return "{\"t\":{" + fields + "}}"; }

Check ExpectTensor(std::string name, Dtype dtype, std::vector<std::uint64_t> shape,
                   std::uint64_t begin, std::uint64_t end) {
  return [=](const Header& h, Profile) {
    const stguard::TensorInfo* t = h.find(name);
    ASSERT_NE(t, nullptr) << "no tensor named " << name;
    EXPECT_EQ(t->dtype, dtype);
    EXPECT_EQ(t->shape, shape);
    EXPECT_EQ(t->begin, begin);
    EXPECT_EQ(t->end, end);
  };
}

Check ExpectNames(std::vector<std::string> names) {
  return [=](const Header& h, Profile) {
    std::vector<std::string> got;
    for (const auto& t : h.tensors) got.emplace_back(t.name);
    EXPECT_EQ(got, names);
  };
}

Check ExpectMetadata(std::optional<std::vector<std::pair<std::string, std::string>>> md) {
  return [=](const Header& h, Profile) { EXPECT_EQ(h.metadata, md); };
}

Check Both(Check a, Check b) {
  return [=](const Header& h, Profile p) {
    a(h, p);
    b(h, p);
  };
}

class RowTable {
 public:
  std::vector<Row> rows;
  std::string table;

  void Add(std::string name, std::vector<std::uint8_t> file, Expect strict, Expect reference,
           Check check = nullptr) {
    rows.push_back({table, std::move(name), std::move(file), strict, reference, std::move(check)});
  }
  // Same verdict in both profiles.
  void Same(std::string name, std::vector<std::uint8_t> file, Expect both, Check check = nullptr) {
    Add(std::move(name), std::move(file), both, both, std::move(check));
  }
};

void OrderOfChecks(RowTable& t) {
  t.table = "Order";
  t.Same("FileEmpty", {}, Reject(Reason::kHeaderTooSmall, 0));
  t.Same("FileSevenBytes", {1, 0, 0, 0, 0, 0, 0}, Reject(Reason::kHeaderTooSmall, 0));
  t.Same("HeaderTooLarge100000001", FileBuilder(kB).data_size(4).length_prefix(100'000'001).build(),
         Reject(Reason::kHeaderTooLarge, 0));
  t.Same("HeaderTooLargeU64Max", FileBuilder("{}").length_prefix(UINT64_MAX).build(),
         Reject(Reason::kHeaderTooLarge, 0));
  t.Same("HeaderTooLargeBeforeFileLengthBareFile", stguard_test::u64_le(100'000'001),
         Reject(Reason::kHeaderTooLarge, 0));
  t.Same("N100000000PassesSizeCheck", FileBuilder("{}").length_prefix(100'000'000).build(),
         Reject(Reason::kHeaderLengthExceedsFile, 0));
  t.Same("LengthExceedsFileByOne", FileBuilder("{}").length_prefix(3).build(),
         Reject(Reason::kHeaderLengthExceedsFile, 0));
  t.Same("HeaderTooLargeU64MaxMinus7", FileBuilder("{}").length_prefix(UINT64_MAX - 7).build(),
         Reject(Reason::kHeaderTooLarge, 0));
  t.Same("NZeroFailsAtJson", FileBuilder("").build(), Reject(Reason::kHeaderNotJson, 8));
  t.Same("NZeroWithFollowingBytes", FileBuilder("").append("{}").build(),
         Reject(Reason::kHeaderNotJson, 8));
  t.Same("Utf8BeforeJson", make_file("x\xff"), Reject(Reason::kHeaderNotUtf8, 9));
  t.Same("Utf8InvalidByteFF", make_file("{\"\xff\":1}"), Reject(Reason::kHeaderNotUtf8, 10));
  t.Same("Utf8Overlong", make_file("{\"\xc0\xaf\":1}"), Reject(Reason::kHeaderNotUtf8, 10));
  t.Same("Utf8OverlongThreeByte", make_file("{\"\xe0\x80\xaf\":1}"),
         Reject(Reason::kHeaderNotUtf8, std::nullopt));
  t.Same("Utf8EncodedSurrogate", make_file("{\"\xed\xa0\x80\":1}"),
         Reject(Reason::kHeaderNotUtf8, std::nullopt));
  t.Same("Utf8AboveU10FFFF", make_file("{\"\xf4\x90\x80\x80\":1}"),
         Reject(Reason::kHeaderNotUtf8, std::nullopt));
  t.Same("Utf8LeadF5", make_file("{\"\xf5\x80\x80\x80\":1}"), Reject(Reason::kHeaderNotUtf8, 10));
  t.Same("Utf8LoneContinuation", make_file("{\"\x80\":1}"), Reject(Reason::kHeaderNotUtf8, 10));
  t.Same("Utf8TruncatedSequenceAtEnd", make_file("{} \xe2\x82"),
         Reject(Reason::kHeaderNotUtf8, std::nullopt));
  t.Same("Utf8InPaddingPrecedesEverything", make_file(kB + "  \xff", 4),
         Reject(Reason::kHeaderNotUtf8, 8 + kB.size() + 2));
  t.Same("Utf8ValidMultibyteAccepted",
         make_file(Obj({entry("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "U8", "4", 0, 4)}), 4),
         Accept(), ExpectNames({"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"}));
  {
    const std::string h = Obj({entry("b", "U8", "4", 4, 8), entry("a", "U8", "4", 0, 4)});
    t.Same("KeyOrderIrrelevant", make_file(h, 8), Accept(),
           Both(ExpectNames({"b", "a"}), ExpectTensor("a", Dtype::kU8, {4}, 0, 4)));
  }
  {
    const std::string h = Obj({entry("a", "U8", "4", 2, 6)});
    t.Same("FirstTensorNotAtZero", make_file(h, 6), Reject(Reason::kOffsetGap, 8 + h.size()));
  }
  {
    const std::string h = Obj({entry("b", "U8", "4", 6, 10), entry("a", "U8", "4", 0, 4)});
    t.Same("BeginNotPreviousEnd", make_file(h, 10), Reject(Reason::kOffsetGap, 8 + h.size() + 4));
  }
  t.Same("EndBeforeBegin", make_file(Obj({entry("a", "U8", "0", 4, 0)}), 4),
         Reject(Reason::kOffsetsInvalid, 9));
  t.Same("ElementCountOverflow", make_file(Obj({entry("a", "U8", "4294967296,4294967296", 0, 0)})),
         Reject(Reason::kSizeOverflow, 9));
  t.Same("BitCountOverflow", make_file(Obj({entry("a", "U8", "2305843009213693952", 0, 0)})),
         Reject(Reason::kSizeOverflow, 9));
  t.Same("BitCountJustFits",
         make_file(Obj({entry("a", "U8", "2305843009213693951", 0, 2305843009213693951ULL)})),
         Reject(Reason::kOffsetOutOfBounds, std::nullopt));
  t.Same("MisalignedBeforeMismatch", make_file(Obj({entry("a", "F4", "3", 0, 7)}), 7),
         Reject(Reason::kSubbyteMisaligned, 9));
  t.Same("SizeMismatch", make_file(Obj({entry("a", "U16", "2", 0, 3)}), 3),
         Reject(Reason::kSizeMismatch, 9));
  {
    // Per-tensor checks (in document order) come before the layout walk.
    const std::string h = Obj({entry("a", "U8", "4", 2, 6), entry("b", "U8", "3", 6, 8)});
    t.Same("SizeChecksBeforeLayoutWalk", make_file(h, 8),
           Reject(Reason::kSizeMismatch, header_at(h, "\"b\"")));
  }
  {
    const std::string h = Obj({entry("b", "U8", "1", 5, 4), entry("a", "U8", "3", 0, 2)});
    t.Same("PerTensorChecksInDocumentOrder", make_file(h, 4),
           Reject(Reason::kOffsetsInvalid, header_at(h, "\"b\"")));
  }
  {
    const std::string h = Obj({entry("a", "U8", "2", 0, 2), entry("b", "U8", "96", 4, 100)});
    t.Same("OutOfBoundsCheckedBeforeGap", make_file(h, 8),
           Reject(Reason::kOffsetOutOfBounds, 8 + h.size() + 8));
  }
  {
    const std::string h = Obj({entry("t", "U8", "4", 0, 4)});
    t.Same("TrailingBytes", make_file(h, 5), Reject(Reason::kTrailingData, 8 + h.size() + 4));
    t.Same("MissingBytes", make_file(h, 3), Reject(Reason::kOffsetOutOfBounds, 8 + h.size() + 3));
  }
  t.Same("EmptyObjectWithDataBytes", make_file("{}", 1), Reject(Reason::kTrailingData, 10));
  t.Same("EmptyObjectNoData", make_file("{}"), Accept(),
         Both(ExpectNames({}), ExpectMetadata(std::nullopt)));
  {
    // 8 + N + end wraps around 2^64 in an unchecked reader.
    const std::string h = Obj({entry("a", "U8", "8", 18446744073709551607ULL, UINT64_MAX)});
    t.Same("EndNearU64MaxNoWrap", make_file(h, 8),
           Reject(Reason::kOffsetOutOfBounds, 8 + h.size() + 8));
  }
}

void JsonDetails(RowTable& t) {
  t.table = "Json";
  const std::uint64_t end = 8 + kB.size();  // first byte after the closing '}'
  for (auto [name, ws] : {std::pair{"LeadingSpace", " "},
                          {"LeadingTab", "\t"},
                          {"LeadingLF", "\n"},
                          {"LeadingCR", "\r"},
                          {"LeadingMixed", " \t\r\n "}}) {
    t.Add(name, make_file(ws + kB, 4), Reject(Reason::kHeaderBadStart, 8), Accept(),
          ExpectTensor("t", Dtype::kU8, {4}, 0, 4));
  }
  t.Same("TrailingSpace", make_file(kB + "   ", 4), Accept());
  t.Same("TrailingSpaceHeaderLen", make_file(kB + " ", 4), Accept(), [](const Header& h, Profile) {
    EXPECT_EQ(h.header_len, kB.size() + 1);
    EXPECT_EQ(h.data_len(), 4U);
  });
  for (auto [name, ws] :
       {std::pair{"TrailingTab", "\t"}, {"TrailingLF", "\n"}, {"TrailingCR", "\r"}}) {
    t.Add(name, make_file(kB + ws, 4), Reject(Reason::kHeaderBadPadding, end), Accept());
    t.Add(name + "AfterSpaces"s, make_file(kB + "  " + ws + " ", 4),
          Reject(Reason::kHeaderBadPadding, end + 2), Accept());
  }
  for (auto [name, pad] : {std::pair{"TrailingNul", "\0"s},
                           {"TrailingFormFeed", "\f"s},
                           {"TrailingNbsp", "\xc2\xa0"s},
                           {"TrailingSecondValue", "{}"s},
                           {"TrailingLetter", "x"s},
                           {"TrailingVerticalTab", "\v"s}}) {
    t.Add(name, make_file(kB + pad, 4), Reject(Reason::kHeaderBadPadding, end),
          Reject(Reason::kHeaderNotJson, end));
    t.Add(name + "AfterSpace"s, make_file(kB + " " + pad, 4),
          Reject(Reason::kHeaderBadPadding, end + 1), Reject(Reason::kHeaderNotJson, end + 1));
  }
  t.Add("Bom", make_file("\xef\xbb\xbf" + kB, 4), Reject(Reason::kHeaderBadStart, 8),
        Reject(Reason::kHeaderNotJson, 8));
  t.Add("SpaceThenBom", make_file(" \xef\xbb\xbf" + kB, 4), Reject(Reason::kHeaderBadStart, 8),
        Reject(Reason::kHeaderNotJson, 9));
  {
    const std::string h = "{/*c*/" + kT + "}";
    t.Same("BlockComment", make_file(h, 4), Reject(Reason::kHeaderNotJson, 9));
    const std::string h2 = "{" + kT + "//c\n}";
    t.Same("LineComment", make_file(h2, 4), Reject(Reason::kHeaderNotJson, header_at(h2, "//")));
    t.Add("CommentAfterClose", make_file(kB + "//c", 4), Reject(Reason::kHeaderBadPadding, end),
          Reject(Reason::kHeaderNotJson, end));
  }
  {
    const std::string h = "{" + kT + ",}";
    t.Same("TrailingCommaTopLevel", make_file(h, 4),
           Reject(Reason::kHeaderNotJson, 8 + h.size() - 1));
    const std::string h2 = TensorWith(R"("dtype":"U8","shape":[4,],"data_offsets":[0,4])");
    t.Same("TrailingCommaArray", make_file(h2, 4),
           Reject(Reason::kHeaderNotJson, header_at(h2, ",]") + 1));
    const std::string h3 = TensorWith(R"("dtype":"U8","shape":[4],"data_offsets":[0,4],)");
    t.Same("TrailingCommaEntry", make_file(h3, 4),
           Reject(Reason::kHeaderNotJson, header_at(h3, ",}") + 1));
    const std::string h4 = R"({"__metadata__":{"a":"b",},)" + kT + "}";
    t.Same("TrailingCommaMetadata", make_file(h4, 4),
           Reject(Reason::kHeaderNotJson, header_at(h4, ",}") + 1));
  }
  for (auto [name, top] : {std::pair{"TopLevelArray", "[]"},
                           {"TopLevelNull", "null"},
                           {"TopLevelString", "\"x\""},
                           {"TopLevelNumber", "0"}}) {
    t.Add(name, make_file(top), Reject(Reason::kHeaderBadStart, 8),
          Reject(Reason::kHeaderNotJson, 8));
  }
  t.Add("OnlyWhitespace", make_file(" \t\r\n"), Reject(Reason::kHeaderBadStart, 8),
        Reject(Reason::kHeaderNotJson, 12));
  t.Add("TopLevelArrayAfterSpace", make_file(" []"), Reject(Reason::kHeaderBadStart, 8),
        Reject(Reason::kHeaderNotJson, 9));
  {
    const std::string prefix = R"({"t":{"dtype":"U8","shape":[0],"data_offsets":[0,0],"x":)";
    const std::uint64_t x_at = header_at(prefix, "\"x\"");
    auto nested = [&](int depth, char open, const std::string& inner_open, char close) {
      std::string h = prefix;
      for (int i = 0; i < depth; ++i) h += inner_open;
      if (open == '{') h += "1";
      h += std::string(static_cast<std::size_t>(depth), close);
      return h + "}}";
    };
    t.Add("Nesting125Arrays", make_file(nested(125, '[', "[", ']')),
          Reject(Reason::kTensorInvalid, x_at), Accept());
    t.Add("Nesting126Arrays", make_file(nested(126, '[', "[", ']')),
          Reject(Reason::kTensorInvalid, x_at),
          Reject(Reason::kHeaderNotJson, 8 + prefix.size() + 125));
    // {"a":{"a":...1...}}: each level is 5 bytes.
    t.Add("Nesting125Objects", make_file(nested(125, '{', "{\"a\":", '}')),
          Reject(Reason::kTensorInvalid, x_at), Accept());
    t.Add("Nesting126Objects", make_file(nested(126, '{', "{\"a\":", '}')),
          Reject(Reason::kTensorInvalid, x_at),
          Reject(Reason::kHeaderNotJson, 8 + prefix.size() + 125 * 5));
    t.Add("Nesting10000Arrays", make_file(nested(10000, '[', "[", ']')),
          Reject(Reason::kTensorInvalid, x_at),
          Reject(Reason::kHeaderNotJson, 8 + prefix.size() + 125));
  }
  {
    const std::string h = "{\"t\x01\":" + kB.substr(5);
    t.Same("RawControlInName", make_file(h, 4), Reject(Reason::kHeaderNotJson, 11));
    const std::string h2 = "{\"__metadata__\":{\"k\":\"a\tb\"}," + kT + "}";
    t.Same("RawTabInMetadataValue", make_file(h2, 4),
           Reject(Reason::kHeaderNotJson, header_at(h2, "\t")));
    const std::string h3 = "{\"__metadata__\":{\"k\":\"a\nb\"}," + kT + "}";
    t.Same("RawNewlineInMetadataValue", make_file(h3, 4),
           Reject(Reason::kHeaderNotJson, header_at(h3, "\n")));
    const std::string h4 = "{\"t"s + '\0' + "\":" + kB.substr(5);
    t.Same("RawNulInName", make_file(h4, 4), Reject(Reason::kHeaderNotJson, 11));
    const std::string h5 = "{\"t\x7f\":" + kB.substr(5);
    t.Same("RawDelInNameIsNotControl", make_file(h5, 4), Accept(), ExpectNames({"t\x7f"}));
  }
  {
    const std::string h = Obj({entry("t\\u0000x", "U8", "4", 0, 4)});
    t.Add("EscapedNulInName", make_file(h, 4), Reject(Reason::kNameInvalid, 9), Accept(),
          ExpectNames({"t\0x"s}));
    const std::string h2 = R"({"__metadata__":{"k\u0000":"v"},)" + kT + "}";
    t.Add("EscapedNulInMetadataKey", make_file(h2, 4),
          Reject(Reason::kNameInvalid, header_at(h2, "\"k")), Accept(),
          ExpectMetadata(std::vector<std::pair<std::string, std::string>>{{"k\0"s, "v"}}));
    const std::string h3 = R"({"__metadata__":{"k":"\u0000v"},)" + kT + "}";
    t.Add("EscapedNulInMetadataValue", make_file(h3, 4),
          Reject(Reason::kMetadataInvalid, header_at(h3, "\"\\u")), Accept(),
          ExpectMetadata(std::vector<std::pair<std::string, std::string>>{{"k", "\0v"s}}));
  }
  for (auto [name, esc] : {std::pair{"LoneHighSurrogate", R"(\ud800)"},
                           {"LoneLowSurrogate", R"(\udc00)"},
                           {"HighSurrogateThenLetter", R"(\ud800\u0041)"},
                           {"HighSurrogateThenHigh", R"(\ud800\ud800)"},
                           {"ReversedSurrogatePair", R"(\ude00\ud83d)"},
                           {"HighSurrogateThenChar", R"(\ud800x)"},
                           {"InvalidEscapeX", R"(\x41)"},
                           {"InvalidEscapeA", R"(\a)"},
                           {"InvalidEscapeQuote", R"(\')"},
                           {"InvalidEscapeUpperU", R"(\U0041)"},
                           {"ShortUnicodeEscape", R"(\u12)"},
                           {"NonHexUnicodeEscape", R"(\u00g0)"},
                           {"EscapedRawNewline", "\\\n"}}) {
    const std::string h = Obj({entry("t"s + esc, "U8", "4", 0, 4)});
    t.Same(name, make_file(h, 4), Reject(Reason::kHeaderNotJson, std::nullopt));
  }
  for (auto [name, esc] : {std::pair{"LoneSurrogateInMetadataValue", R"(\udfff)"},
                           {"BadEscapeInMetadataValue", R"(\z)"}}) {
    const std::string h = R"({"__metadata__":{"k":")"s + esc + R"("},)" + kT + "}";
    t.Same(name, make_file(h, 4), Reject(Reason::kHeaderNotJson, std::nullopt));
  }
  t.Same("SurrogatePairEscape", make_file(Obj({entry(R"(\ud83d\ude00)", "U8", "4", 0, 4)}), 4),
         Accept(), ExpectNames({"\xf0\x9f\x98\x80"}));
  t.Same("NonAsciiName", make_file(Obj({entry("w\xc3\xa9ight", "U8", "4", 0, 4)}), 4), Accept(),
         ExpectNames({"w\xc3\xa9ight"}));
  t.Same("EmptyName", make_file(Obj({entry("", "U8", "4", 0, 4)}), 4), Accept(), ExpectNames({""}));
  t.Same("ValidEscapesInName",
         make_file(Obj({entry(R"(a\"b\\c\/d\b\f\n\r\t\u00e9)", "U8", "4", 0, 4)}), 4), Accept(),
         ExpectNames({"a\"b\\c/d\b\f\n\r\t\xc3\xa9"}));
  t.Same("EscapedMetadataKeyword", make_file(R"({"\u005f_metadata__":{"a":"b"},)" + kT + "}", 4),
         Accept(),
         Both(ExpectNames({"t"}),
              ExpectMetadata(std::vector<std::pair<std::string, std::string>>{{"a", "b"}})));
  t.Same("EscapedDtypeValue",
         make_file(TensorWith(R"("dtype":"\u0055\u0038","shape":[4],"data_offsets":[0,4])"), 4),
         Accept(), ExpectTensor("t", Dtype::kU8, {4}, 0, 4));
  t.Same("EscapedFieldName",
         make_file(TensorWith(R"("\u0064type":"U8","shape":[4],"data_offsets":[0,4])"), 4),
         Accept(), ExpectTensor("t", Dtype::kU8, {4}, 0, 4));
  {
    const std::string h = Obj({entry("a", "U8", "2", 0, 2), entry("\\u0061", "U8", "4", 0, 4)});
    t.Add("DuplicateAfterUnescaping", make_file(h, 4),
          Reject(Reason::kDuplicateKey, header_at(h, "\"\\u0061\"")), Accept(),
          Both(ExpectNames({"a"}), ExpectTensor("a", Dtype::kU8, {4}, 0, 4)));
  }
  t.Same("WhitespaceBetweenTokens",
         make_file("{ \"t\" :\n{\t\"dtype\" : \"U8\" ,\r\n \"shape\" : [ 4 ] , \"data_offsets\" : "
                   "[ 0 , 4 ] } }",
                   4),
         Accept(), ExpectTensor("t", Dtype::kU8, {4}, 0, 4));
  {
    const std::string h = R"({"t":{"dtype":"U8")";
    t.Same("TruncatedInEntry", make_file(h), Reject(Reason::kHeaderNotJson, 8 + h.size()));
    t.Same("TruncatedInString", make_file("{\"t"), Reject(Reason::kHeaderNotJson, 11));
    t.Same("TruncatedAfterBrace", make_file("{"), Reject(Reason::kHeaderNotJson, 9));
    t.Same("TruncatedThenSpaces", make_file("{\"t\":   "), Reject(Reason::kHeaderNotJson, 16));
    t.Same("TruncatedInEscape", make_file("{\"t\\u00"), Reject(Reason::kHeaderNotJson, 15));
  }
  t.Same("SingleQuotedKey", make_file("{'t':1}"), Reject(Reason::kHeaderNotJson, 9));
  t.Same("UnquotedKey", make_file("{t:1}"), Reject(Reason::kHeaderNotJson, 9));
  t.Same("MissingColon", make_file("{\"t\" {}}"), Reject(Reason::kHeaderNotJson, 13));
  t.Same("MissingComma", make_file("{" + kT + " " + kT + "}", 4),
         Reject(Reason::kHeaderNotJson, 8 + 1 + kT.size() + 1));
  {
    const std::string h = TensorWith(R"("dtype":"U8","shape":[4],"data_offsets":[0,4],"x":nul)");
    // Strict's unknown field comes first, but a syntax error wins (reasons.md).
    t.Same("BareWordInUnknownField", make_file(h, 4),
           Reject(Reason::kHeaderNotJson, header_at(h, "nul}") + 3));
  }
}

void DuplicateKeys(RowTable& t) {
  t.table = "Dup";
  {
    const std::string h = Obj({entry("a", "U8", "2", 0, 2), entry("a", "U8", "4", 0, 4)});
    t.Add("TensorNameLastWins", make_file(h, 4),
          Reject(Reason::kDuplicateKey, header_at(h, "\"a\"", 1)), Accept(),
          Both(ExpectNames({"a"}), ExpectTensor("a", Dtype::kU8, {4}, 0, 4)));
  }
  {
    const std::string h = Obj(
        {entry("a", "U8", "2", 0, 2), entry("b", "U8", "2", 2, 4), entry("a", "U8", "2", 4, 6)});
    t.Add("TensorNameDroppedRangeLeavesHole", make_file(h, 6),
          Reject(Reason::kDuplicateKey, header_at(h, "\"a\"", 1)),
          Reject(Reason::kOffsetGap, 8 + h.size()));
  }
  {
    const std::string h = Obj(
        {entry("a", "U8", "2", 0, 2), entry("b", "U8", "2", 2, 4), entry("a", "I8", "2", 0, 2)});
    t.Add("TensorNameKeepsFirstPosition", make_file(h, 4),
          Reject(Reason::kDuplicateKey, header_at(h, "\"a\"", 1)), Accept(),
          Both(ExpectNames({"a", "b"}), ExpectTensor("a", Dtype::kI8, {2}, 0, 2)));
  }
  {
    // Names in order until the last, which repeats an earlier one written
    // with an escape ("a\u0062" is "ab"): the repeat is found all the same.
    const std::string h = Obj({entry("a\\u0062", "U8", "2", 0, 2), entry("b", "U8", "2", 2, 4),
                               entry("c", "U8", "2", 4, 6), entry("ab", "I8", "2", 0, 2)});
    t.Add("TensorNameRepeatAfterNamesInOrder", make_file(h, 6),
          Reject(Reason::kDuplicateKey, header_at(h, "\"ab\"")), Accept(),
          Both(ExpectNames({"ab", "b", "c"}), ExpectTensor("ab", Dtype::kI8, {2}, 0, 2)));
  }
  {
    // Document order: strict stops at the repeated name before reading the
    // second entry; reference reads it and finds its fault.
    const std::string h = Obj({entry("a", "U8", "4", 0, 4), entry("a", "F128", "1", 0, 16)});
    t.Add("TensorNameTwiceSecondIllTyped", make_file(h, 4),
          Reject(Reason::kDuplicateKey, header_at(h, "\"a\"", 1)),
          Reject(Reason::kDtypeInvalid, header_at(h, "\"F128\"")));
    const std::string h2 = Obj({entry("a", "U8", "4", 0, 4), R"("a":null)"});
    t.Add("TensorNameTwiceSecondNull", make_file(h2, 4),
          Reject(Reason::kDuplicateKey, header_at(h2, "\"a\"", 1)),
          Reject(Reason::kTensorInvalid, header_at(h2, "null")));
    const std::string h3 = Obj({entry("a", "U8", "4", 0, 4), entry("a\\u0000", "U8", "4", 0, 4)});
    t.Add("TensorNameTwiceDiffersAfterNul", make_file(h3, 4),
          Reject(Reason::kNameInvalid, header_at(h3, "\"a\\u")),
          Reject(Reason::kOffsetOverlap, 8 + h3.size()));
  }
  {
    // The dropped entry is not size-checked...
    const std::string h = Obj({entry("a", "U8", "3", 0, 2), entry("a", "U8", "4", 0, 4)});
    t.Add("TensorNameDroppedEntryNotSizeChecked", make_file(h, 4),
          Reject(Reason::kDuplicateKey, header_at(h, "\"a\"", 1)), Accept(),
          ExpectTensor("a", Dtype::kU8, {4}, 0, 4));
    // ...but it must still be well-typed.
    const std::string h2 = R"({"a":{"dtype":"X","shape":[4],"data_offsets":[0,4]},)" +
                           entry("a", "U8", "4", 0, 4) + "}";
    t.Same("TensorNameDroppedEntryMustBeWellTyped", make_file(h2, 4),
           Reject(Reason::kDtypeInvalid, header_at(h2, "\"X\"")));
    const std::string h3 =
        R"({"a":{"dtype":"U8","shape":[4]},)" + entry("a", "U8", "4", 0, 4) + "}";
    t.Same("TensorNameDroppedEntryMustBeComplete", make_file(h3, 4),
           Reject(Reason::kTensorInvalid, header_at(h3, "]}") + 1));
  }
  {
    const std::string h = R"({"__metadata__":{},"__metadata__":{}})";
    t.Same("MetadataTwice", make_file(h), Reject(Reason::kDuplicateKey, header_at(h, "\"__", 1)));
    const std::string h2 = R"({"__metadata__":{"a":"b"},)" + kT + R"(,"__metadata__":{"a":"b"}})";
    t.Same("MetadataTwiceApart", make_file(h2, 4),
           Reject(Reason::kDuplicateKey, header_at(h2, "\"__", 1)));
    const std::string h3 = R"({"__metadata__":{},"__metadata__":null})";
    t.Same("MetadataTwiceSecondNull", make_file(h3),
           Reject(Reason::kDuplicateKey, header_at(h3, "\"__", 1)));
    const std::string h4 = R"({"__metadata__":null,"__metadata__":{}})";
    t.Add("MetadataTwiceFirstNull", make_file(h4),
          Reject(Reason::kMetadataInvalid, header_at(h4, "null")),
          Reject(Reason::kDuplicateKey, header_at(h4, "\"__", 1)));
  }
  {
    const std::string h = R"({"__metadata__":{"k":"1","j":"2","k":"3"}})";
    t.Add("MetadataKeyLastWins", make_file(h),
          Reject(Reason::kDuplicateKey, header_at(h, "\"k\"", 1)), Accept(),
          ExpectMetadata(std::vector<std::pair<std::string, std::string>>{{"k", "3"}, {"j", "2"}}));
  }
  {
    // Document order: the repeated key comes before its bad value.
    const std::string h = R"({"__metadata__":{"a":"b","a":null},)" + kT + "}";
    t.Add("MetadataKeyTwiceSecondValueBad", make_file(h, 4),
          Reject(Reason::kDuplicateKey, header_at(h, "\"a\"", 1)),
          Reject(Reason::kMetadataInvalid, header_at(h, "null")));
  }
  for (const char* field : {"dtype", "shape", "data_offsets"}) {
    const std::string fields = R"("dtype":"U8","shape":[4],"data_offsets":[0,4])";
    std::string dup = fields + ",\"" + field + "\":";
    dup += std::string(field) == "dtype"   ? "\"U8\""
           : std::string(field) == "shape" ? "[4]"
                                           : "[0,4]";
    const std::string h = TensorWith(dup);
    t.Same(std::string(field) + "Twice", make_file(h, 4),
           Reject(Reason::kDuplicateKey, header_at(h, "\""s + field + "\"", 1)));
  }
  {
    const std::string h =
        TensorWith(R"("dtype":"U8","dtype":"I8","shape":[4],"data_offsets":[0,4])");
    t.Same("DtypeTwiceAdjacent", make_file(h, 4),
           Reject(Reason::kDuplicateKey, header_at(h, "\"dtype\"", 1)));
  }
  {
    const std::string h =
        TensorWith(R"("dtype":"U8","shape":[4],"data_offsets":[0,4],"x":{"a":1,"a":2})");
    t.Add("KeyTwiceInsideUnknownField", make_file(h, 4),
          Reject(Reason::kTensorInvalid, header_at(h, "\"x\"")), Accept());
    const std::string h2 =
        TensorWith(R"("x":1,"dtype":"U8","shape":[4],"x":2,"data_offsets":[0,4])");
    t.Add("UnknownFieldTwice", make_file(h2, 4),
          Reject(Reason::kTensorInvalid, header_at(h2, "\"x\"")), Accept());
  }
}

void TensorEntries(RowTable& t) {
  t.table = "Entry";
  for (auto [name, value] : {std::pair{"UnknownFieldNumber", "1"},
                             {"UnknownFieldNull", "null"},
                             {"UnknownFieldString", "\"s\""},
                             {"UnknownFieldArray", "[1,[2,{}]]"},
                             {"UnknownFieldObject", R"({"a":{"b":[null,true,1.5e3,-0]}})"},
                             {"UnknownFieldFloat", "-1.25E-3"}}) {
    const std::string h =
        TensorWith(R"("dtype":"U8","shape":[4],"data_offsets":[0,4],"extra":)"s + value);
    t.Add(name, make_file(h, 4), Reject(Reason::kTensorInvalid, header_at(h, "\"extra\"")),
          Accept(), ExpectTensor("t", Dtype::kU8, {4}, 0, 4));
  }
  {
    const std::string h = TensorWith(R"("extra":1,"dtype":"U8","shape":[4],"data_offsets":[0,4])");
    t.Add("UnknownFieldFirst", make_file(h, 4), Reject(Reason::kTensorInvalid, 14), Accept());
  }
  {
    const std::string h = TensorWith(R"("shape":[4],"data_offsets":[0,4])");
    t.Same("MissingDtype", make_file(h, 4), Reject(Reason::kTensorInvalid, 8 + h.size() - 2));
    const std::string h2 = TensorWith(R"("dtype":"U8","data_offsets":[0,4])");
    t.Same("MissingShape", make_file(h2, 4), Reject(Reason::kTensorInvalid, 8 + h2.size() - 2));
    const std::string h3 = TensorWith(R"("dtype":"U8","shape":[4])");
    t.Same("MissingDataOffsets", make_file(h3, 4),
           Reject(Reason::kTensorInvalid, 8 + h3.size() - 2));
    t.Same("EmptyEntry", make_file(R"({"t":{}})"), Reject(Reason::kTensorInvalid, 14));
    const std::string h4 = TensorWith(R"("dtype":"U8","shape":[4],"extra":1)");
    t.Add("MissingOffsetsWithUnknownField", make_file(h4, 4),
          Reject(Reason::kTensorInvalid, header_at(h4, "\"extra\"")),
          Reject(Reason::kTensorInvalid, 8 + h4.size() - 2));
  }
  t.Add("ArrayForm3", make_file(R"({"t":["U8",[4],[0,4]]})", 4), Reject(Reason::kTensorInvalid, 13),
        Accept(), ExpectTensor("t", Dtype::kU8, {4}, 0, 4));
  t.Add("ArrayForm3WithSpaces", make_file(R"({"t":[ "U8" , [ 2 , 2 ] , [ 0 , 4 ] ]})", 4),
        Reject(Reason::kTensorInvalid, 13), Accept(), ExpectTensor("t", Dtype::kU8, {2, 2}, 0, 4));
  t.Add("ArrayForm3DtypeMap", make_file(R"({"t":[{"U8":null},[4],[0,4]]})", 4),
        Reject(Reason::kTensorInvalid, 13), Accept(), ExpectTensor("t", Dtype::kU8, {4}, 0, 4));
  for (auto [name, value] : {std::pair{"ArrayForm2", R"(["U8",[4]])"},
                             {"ArrayForm4", R"(["U8",[4],[0,4],1])"},
                             {"ArrayForm0", "[]"},
                             {"ArrayForm1", R"(["U8"])"}}) {
    t.Add(name, make_file("{\"t\":"s + value + "}", 4), Reject(Reason::kTensorInvalid, 13),
          Reject(Reason::kTensorInvalid, std::nullopt));
  }
  {
    const std::string h = R"({"t":["X",[4],[0,4]]})";
    t.Add("ArrayFormBadDtype", make_file(h, 4), Reject(Reason::kTensorInvalid, 13),
          Reject(Reason::kDtypeInvalid, 14));
    const std::string h2 = R"({"t":["U8",4,[0,4]]})";
    t.Add("ArrayFormBadShape", make_file(h2, 4), Reject(Reason::kTensorInvalid, 13),
          Reject(Reason::kShapeInvalid, header_at(h2, "4,")));
    const std::string h3 = R"({"t":["U8",[4],[0,4,8]]})";
    t.Add("ArrayFormBadOffsets", make_file(h3, 4), Reject(Reason::kTensorInvalid, 13),
          Reject(Reason::kOffsetsInvalid, std::nullopt));
    const std::string h4 = R"({"t":["U8",[4],[0,3]]})";
    t.Add("ArrayFormSizeMismatch", make_file(h4, 3), Reject(Reason::kTensorInvalid, 13),
          Reject(Reason::kSizeMismatch, 9));
  }
  for (auto [name, value] : {std::pair{"EntryNull", "null"},
                             {"EntryString", "\"U8\""},
                             {"EntryNumber", "4"},
                             {"EntryTrue", "true"},
                             {"EntryFalse", "false"}}) {
    t.Same(name, make_file("{\"t\":"s + value + "}"), Reject(Reason::kTensorInvalid, 13));
  }
  {
    const std::string h = TensorWith(R"("dtype":{"U8":null},"shape":[4],"data_offsets":[0,4])");
    t.Add("DtypeMapNull", make_file(h, 4), Reject(Reason::kDtypeInvalid, 22), Accept(),
          ExpectTensor("t", Dtype::kU8, {4}, 0, 4));
    const std::string h2 =
        TensorWith(R"("dtype": { "F32" : null } ,"shape":[1],"data_offsets":[0,4])");
    t.Add("DtypeMapNullSpaced", make_file(h2, 4), Reject(Reason::kDtypeInvalid, 23), Accept(),
          ExpectTensor("t", Dtype::kF32, {1}, 0, 4));
  }
  for (auto [name, value] : {std::pair{"DtypeMapObject", R"({"U8":{}})"},
                             {"DtypeMapArray", R"({"U8":[]})"},
                             {"DtypeMapTwoKeys", R"({"U8":null,"I8":null})"},
                             {"DtypeMapEmpty", "{}"},
                             {"DtypeMapUnknownName", R"({"X":null})"},
                             {"DtypeMapNumber", R"({"U8":1})"},
                             {"DtypeMapString", R"({"U8":"U8"})"},
                             {"DtypeMapLowercase", R"({"u8":null})"},
                             {"DtypeInteger", "4"},
                             {"DtypeNull", "null"},
                             {"DtypeTrue", "true"},
                             {"DtypeArray", R"(["U8"])"},
                             {"DtypeLower", "\"u8\""},
                             {"DtypeF32Lower", "\"f32\""},
                             {"DtypeF128", "\"F128\""},
                             {"DtypeF8E4M3FN", "\"F8_E4M3FN\""},
                             {"DtypeI4", "\"I4\""},
                             {"DtypeU4", "\"U4\""},
                             {"DtypeC128", "\"C128\""},
                             {"DtypeTrailingSpace", "\"U8 \""},
                             {"DtypeLeadingSpace", "\" U8\""},
                             {"DtypeEmpty", "\"\""},
                             {"DtypeBoolLower", "\"bool\""},
                             {"DtypeEscapedNul", R"("U8\u0000")"}}) {
    const std::string h =
        TensorWith("\"dtype\":"s + value + R"(,"shape":[4],"data_offsets":[0,4])");
    t.Same(name, make_file(h, 4), Reject(Reason::kDtypeInvalid, header_at(h, "\"dtype\":") + 8));
  }
  for (auto [name, value] :
       {std::pair{"OffsetsOne", "[0]"}, {"OffsetsThree", "[0,4,4]"}, {"OffsetsEmpty", "[]"}}) {
    const std::string h = TensorWith(R"("dtype":"U8","shape":[4],"data_offsets":)"s + value);
    t.Same(name, make_file(h, 4), Reject(Reason::kOffsetsInvalid, std::nullopt));
  }
  for (auto [name, value] : {std::pair{"OffsetsNumber", "4"},
                             {"OffsetsNull", "null"},
                             {"OffsetsString", "\"0,4\""},
                             {"OffsetsObject", R"({"0":4})"}}) {
    const std::string h = TensorWith(R"("dtype":"U8","shape":[4],"data_offsets":)"s + value);
    t.Same(name, make_file(h, 4),
           Reject(Reason::kOffsetsInvalid, 8 + h.size() - 2 - std::string(value).size()));
  }
  for (auto [name, value] : {std::pair{"ShapeNumber", "4"},
                             {"ShapeNull", "null"},
                             {"ShapeString", "\"4\""},
                             {"ShapeObject", "{}"}}) {
    const std::string h =
        TensorWith(R"("dtype":"U8","shape":)"s + value + R"(,"data_offsets":[0,4])");
    t.Same(name, make_file(h, 4), Reject(Reason::kShapeInvalid, header_at(h, "\"shape\":") + 8));
  }
  // Number forms, in a shape element and in an offset.
  for (auto [name, value] : {std::pair{"Float", "4.0"},
                             {"Exponent", "0.4e1"},
                             {"ExponentInt", "4e0"},
                             {"ExponentUpper", "4E0"},
                             {"Negative", "-4"},
                             {"NegativeZero", "-0"},
                             {"String", "\"4\""},
                             {"Null", "null"},
                             {"True", "true"},
                             {"Array", "[4]"},
                             {"AboveU64Max", kU64MaxPlus1},
                             {"FarAboveU64Max", "123456789012345678901234567890"}}) {
    const std::string h =
        TensorWith(R"("dtype":"U8","shape":[)"s + value + R"(],"data_offsets":[0,4])");
    t.Same("ShapeElement"s + name, make_file(h, 4),
           Reject(Reason::kShapeInvalid, header_at(h, "\"shape\":[") + 9));
    const std::string h2 =
        TensorWith(R"("dtype":"U8","shape":[4],"data_offsets":[0,)"s + value + "]");
    t.Same("OffsetElement"s + name, make_file(h2, 4),
           Reject(Reason::kOffsetsInvalid, 8 + h2.size() - 3 - std::string(value).size()));
  }
  for (auto [name, value] : {std::pair{"LeadingZero", "04"},
                             {"Plus", "+4"},
                             {"DotNoDigits", "4."},
                             {"Hex", "0x4"},
                             {"Infinity", "Infinity"},
                             {"NaN", "NaN"}}) {
    const std::string h =
        TensorWith(R"("dtype":"U8","shape":[)"s + value + R"(],"data_offsets":[0,4])");
    t.Same("ShapeNotJson"s + name, make_file(h, 4), Reject(Reason::kHeaderNotJson, std::nullopt));
    const std::string h2 =
        TensorWith(R"("dtype":"U8","shape":[4],"data_offsets":[)"s + value + ",4]");
    t.Same("OffsetNotJson"s + name, make_file(h2, 4), Reject(Reason::kHeaderNotJson, std::nullopt));
  }
  {
    const std::string h = TensorWith(R"("dtype":"U8","shape":[016],"data_offsets":[0,16])");
    // The malformed number is reported at its first byte.
    t.Same("LeadingZeroShape", make_file(h, 16),
           Reject(Reason::kHeaderNotJson, header_at(h, "016")));
    const std::string h2 = TensorWith(R"("dtype":"U8","shape":[+16],"data_offsets":[0,16])");
    t.Same("PlusSignShape", make_file(h2, 16), Reject(Reason::kHeaderNotJson, header_at(h2, "+")));
  }
  {
    const std::string h = Obj({entry("t", "U8", "4", 0, UINT64_MAX)});
    t.Same("U64MaxOffsetFailsValidation", make_file(h, 4), Reject(Reason::kSizeMismatch, 9));
    const std::string h2 = Obj({entry("t", "U8", kU64Max, 0, UINT64_MAX)});
    t.Same("U64MaxShapeAndOffset", make_file(h2, 4), Reject(Reason::kSizeOverflow, 9));
    const std::string h3 = Obj({entry("t", "U8", "0", UINT64_MAX, UINT64_MAX)});
    t.Same("U64MaxZeroSize", make_file(h3), Reject(Reason::kOffsetOutOfBounds, 8 + h3.size()));
  }
  t.Same("FieldsInAnyOrder",
         make_file(TensorWith(R"("data_offsets":[0,4],"shape":[4],"dtype":"U8")"), 4), Accept(),
         ExpectTensor("t", Dtype::kU8, {4}, 0, 4));
}

void Metadata(RowTable& t) {
  t.table = "Meta";
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  t.Same("StringMap",
         make_file(R"({"__metadata__":{"format":"pt","b":"x\n\u00e9"},)" + kT + "}", 4), Accept(),
         ExpectMetadata(Pairs{{"format", "pt"}, {"b", "x\n\xc3\xa9"}}));
  t.Same("EmptyMap", make_file(R"({"__metadata__":{},)" + kT + "}", 4), Accept(),
         ExpectMetadata(Pairs{}));
  t.Same("Absent", make_file(kB, 4), Accept(), ExpectMetadata(std::nullopt));
  t.Same("OnlyMetadata", make_file(R"({"__metadata__":{"a":"b"}})"), Accept(),
         Both(ExpectNames({}), ExpectMetadata(Pairs{{"a", "b"}})));
  {
    const std::string h = R"({"__metadata__":null,)" + kT + "}";
    t.Add("Null", make_file(h, 4), Reject(Reason::kMetadataInvalid, header_at(h, "null")), Accept(),
          Both(ExpectMetadata(std::nullopt), ExpectNames({"t"})));
  }
  for (auto [name, value] : {std::pair{"NumberValue", "1"},
                             {"NullValue", "null"},
                             {"MapValue", "{}"},
                             {"ArrayValue", "[\"a\"]"},
                             {"BoolValue", "true"}}) {
    const std::string h = R"({"__metadata__":{"ok":"v","k":)"s + value + "}," + kT + "}";
    t.Same(name, make_file(h, 4), Reject(Reason::kMetadataInvalid, header_at(h, "\"k\":") + 4));
  }
  for (auto [name, value] : {std::pair{"AsArray", "[]"},
                             {"AsString", "\"x\""},
                             {"AsNumber", "0"},
                             {"AsTrue", "true"},
                             {"AsArrayOfPairs", R"([["a","b"]])"}}) {
    const std::string h = R"({"__metadata__":)"s + value + "," + kT + "}";
    t.Same(name, make_file(h, 4), Reject(Reason::kMetadataInvalid, 24));
  }
  t.Same("Last", make_file("{" + kT + R"(,"__metadata__":{"a":"b"}})", 4), Accept(),
         Both(ExpectNames({"t"}), ExpectMetadata(Pairs{{"a", "b"}})));
  t.Same("Middle",
         make_file(Obj({entry("a", "U8", "2", 0, 2), R"("__metadata__":{"a":"b"})",
                        entry("b", "U8", "2", 2, 4)}),
                   4),
         Accept(), Both(ExpectNames({"a", "b"}), ExpectMetadata(Pairs{{"a", "b"}})));
  t.Same("TensorNamedMetadata", make_file(Obj({entry("__metadata__", "U8", "4", 0, 4)}), 4),
         Reject(Reason::kMetadataInvalid, std::nullopt));
  t.Same("TensorNamedMetadataEscaped",
         make_file(Obj({entry("\\u005f_metadata__", "U8", "4", 0, 4)}), 4),
         Reject(Reason::kMetadataInvalid, std::nullopt));
  t.Same("OtherCaseIsATensor", make_file(Obj({entry("__Metadata__", "U8", "4", 0, 4)}), 4),
         Accept(), Both(ExpectNames({"__Metadata__"}), ExpectMetadata(std::nullopt)));
  t.Same("MetadataWithSpacesIsATensor",
         make_file(Obj({entry("__metadata__ ", "U8", "4", 0, 4)}), 4), Accept(),
         ExpectNames({"__metadata__ "}));
}

void ShapesSizesOffsets(RowTable& t) {
  t.table = "Shape";
  t.Same("Scalar", make_file(Obj({entry("s", "F32", "", 0, 4)}), 4), Accept(),
         ExpectTensor("s", Dtype::kF32, {}, 0, 4));
  t.Same("ScalarWrongSize", make_file(Obj({entry("s", "F32", "", 0, 8)}), 8),
         Reject(Reason::kSizeMismatch, 9));
  t.Same("ZeroSizeShareOffset",
         make_file(Obj({entry("z1", "F32", "0", 0, 0), entry("z2", "U8", "4,0", 0, 0),
                        entry("a", "U8", "4", 0, 4)}),
                   4),
         Accept(), ExpectNames({"z1", "z2", "a"}));
  t.Same("ZeroSizeBetween",
         make_file(Obj({entry("b", "U8", "4", 4, 8), entry("z", "F64", "0,3", 4, 4),
                        entry("a", "U8", "4", 0, 4)}),
                   8),
         Accept());
  t.Same("ZeroSizeAfter",
         make_file(Obj({entry("a", "U8", "4", 0, 4), entry("z", "U8", "0", 4, 4)}), 4), Accept());
  t.Same("ZeroSizeOnlyTensor", make_file(Obj({entry("z", "U8", "0", 0, 0)})), Accept());
  {
    const std::string h = Obj({entry("a", "U8", "4", 0, 4), entry("z", "U8", "0", 8, 8)});
    t.Same("ZeroSizeBeyondEnd", make_file(h, 4),
           Reject(Reason::kOffsetOutOfBounds, 8 + h.size() + 4));
    const std::string h2 = Obj({entry("a", "U8", "4", 0, 4), entry("z", "U8", "0", 5, 5)});
    t.Same("ZeroSizeOneBeyondEnd", make_file(h2, 4),
           Reject(Reason::kOffsetOutOfBounds, 8 + h2.size() + 4));
    const std::string h3 = Obj(
        {entry("a", "U8", "4", 0, 4), entry("z", "U8", "0", 2, 2), entry("b", "U8", "4", 4, 8)});
    t.Same("ZeroSizeInsideTensor", make_file(h3, 8),
           Reject(Reason::kOffsetOverlap, 8 + h3.size() + 2));
    const std::string h4 = Obj(
        {entry("a", "U8", "4", 0, 4), entry("z", "U8", "0", 6, 6), entry("b", "U8", "2", 6, 8)});
    t.Same("ZeroSizeInGap", make_file(h4, 8), Reject(Reason::kOffsetGap, 8 + h4.size() + 4));
  }
  t.Add("ZeroDimThenOverflow",
        make_file(Obj({entry("t", "U8", "0,"s + kU64Max + "," + kU64Max, 0, 0)})),
        Reject(Reason::kSizeOverflow, 9), Accept(),
        ExpectTensor("t", Dtype::kU8, {0, UINT64_MAX, UINT64_MAX}, 0, 0));
  t.Add("ZeroDimThenPowersOfTwo",
        make_file(Obj({entry("t", "U8", "0,4294967296,4294967296", 0, 0)})),
        Reject(Reason::kSizeOverflow, 9), Accept());
  t.Same("OverflowThenZeroDim", make_file(Obj({entry("t", "U8", ""s + kU64Max + ",2,0", 0, 0)})),
         Reject(Reason::kSizeOverflow, 9));
  t.Same("LargeDimsThenZeroFit", make_file(Obj({entry("t", "U8", "4294967296,268435455,0", 0, 0)})),
         Accept());
  // Strict rejects when the product of the non-zero dims overflows (brief); here
  // it fits (2^64 - 2^32, and u64 max) even though x bits would not.
  t.Same("NonZeroDimsFitBitsWouldNot",
         make_file(Obj({entry("t", "U8", "4294967296,4294967295,0", 0, 0)})), Accept());
  t.Same("U64MaxTimesOneTimesZero",
         make_file(Obj({entry("t", "F32", ""s + kU64Max + ",1,0", 0, 0)})), Accept(),
         ExpectTensor("t", Dtype::kF32, {UINT64_MAX, 1, 0}, 0, 0));
  t.Same("ZeroDimSmallDims", make_file(Obj({entry("t", "F32", "0,5,7", 0, 0)})), Accept(),
         ExpectTensor("t", Dtype::kF32, {0, 5, 7}, 0, 0));
  t.Same("F4Three", make_file(Obj({entry("t", "F4", "3", 0, 2)}), 2),
         Reject(Reason::kSubbyteMisaligned, 9));
  t.Same("F6One", make_file(Obj({entry("t", "F6_E2M3", "1", 0, 1)}), 1),
         Reject(Reason::kSubbyteMisaligned, 9));
  t.Same("F6Two", make_file(Obj({entry("t", "F6_E3M2", "2", 0, 2)}), 2),
         Reject(Reason::kSubbyteMisaligned, 9));
  t.Same("F4Scalar", make_file(Obj({entry("t", "F4", "", 0, 1)}), 1),
         Reject(Reason::kSubbyteMisaligned, 9));
  t.Same("F4TwoByThree", make_file(Obj({entry("t", "F4", "2,3", 0, 3)}), 3), Accept(),
         ExpectTensor("t", Dtype::kF4, {2, 3}, 0, 3));
  t.Same("F6Four", make_file(Obj({entry("t", "F6_E2M3", "4", 0, 3)}), 3), Accept());
  t.Same("F4Zero", make_file(Obj({entry("t", "F4", "0", 0, 0)})), Accept());
  t.Same("F4TwoByThreeWrongSize", make_file(Obj({entry("t", "F4", "2,3", 0, 6)}), 6),
         Reject(Reason::kSizeMismatch, 9));
  {
    const std::string h = Obj({entry("a", "U8", "4", 0, 4), entry("b", "U8", "4", 6, 10)});
    t.Same("Gap", make_file(h, 10), Reject(Reason::kOffsetGap, 8 + h.size() + 4));
    const std::string h2 = Obj({entry("a", "U8", "4", 1, 5)});
    t.Same("GapAtStart", make_file(h2, 5), Reject(Reason::kOffsetGap, 8 + h2.size()));
    const std::string h3 = Obj({entry("a", "U8", "4", 0, 4), entry("b", "U8", "4", 3, 7)});
    t.Same("Overlap", make_file(h3, 7), Reject(Reason::kOffsetOverlap, 8 + h3.size() + 3));
    const std::string h4 = Obj(
        {entry("a", "U8", "4", 0, 4), entry("b", "U8", "2", 1, 3), entry("c", "U8", "1", 4, 5)});
    t.Same("Contained", make_file(h4, 5), Reject(Reason::kOffsetOverlap, 8 + h4.size() + 1));
    const std::string h5 = Obj({entry("a", "U8", "4", 0, 4), entry("b", "I8", "4", 0, 4)});
    t.Same("TwoNamesOneRange", make_file(h5, 4), Reject(Reason::kOffsetOverlap, 8 + h5.size()));
    const std::string h6 = Obj({entry("a", "U8", "0", 4, 0)});
    t.Same("EndBeforeBegin", make_file(h6, 4), Reject(Reason::kOffsetsInvalid, 9));
    t.Same("TrailingBytes", make_file(kB, 5), Reject(Reason::kTrailingData, 8 + kB.size() + 4));
    t.Same("MissingBytes", make_file(kB, 2), Reject(Reason::kOffsetOutOfBounds, 8 + kB.size() + 2));
  }
  {
    std::string h = kB + " ";  // N = 55 + 1: not a multiple of 8 either way
    if ((h.size() % 8) == 0) h += " ";
    t.Same("HeaderNotMultipleOf8", make_file(h, 4), Accept());
    const std::string h2 = Obj({entry("a", "U8", "1", 0, 1), entry("b", "F32", "1", 1, 5)});
    t.Same("UnalignedF32", make_file(h2, 5), Accept(), ExpectTensor("b", Dtype::kF32, {1}, 1, 5));
  }
  {
    std::vector<std::uint8_t> nan_inf;
    stguard_test::append_u32_le(nan_inf, 0x7fc00000U);
    stguard_test::append_u32_le(nan_inf, 0x7f800000U);
    t.Same("NanInfValues", FileBuilder(Obj({entry("t", "F32", "2", 0, 8)})).data(nan_inf).build(),
           Accept());
  }
  t.Same("HighRank",
         make_file(Obj({entry("t", "U8", "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2", 0, 2)}), 2),
         Accept());
}

void Dtypes(RowTable& t) {
  t.table = "Dtype";
  for (Dtype d : stguard::all_dtypes()) {
    const std::string name(stguard::dtype_name(d));
    const unsigned bits = stguard::dtype_bits(d);
    const std::string& row_name = name;
    // 8 elements take exactly `bits` bytes.
    t.Same(row_name, make_file(Obj({entry("t", name, "8", 0, bits)}), bits), Accept(),
           ExpectTensor("t", d, {8}, 0, bits));
    t.Same(row_name + "WrongSize", make_file(Obj({entry("t", name, "8", 0, bits + 1)}), bits + 1),
           Reject(Reason::kSizeMismatch, 9));
  }
}

struct Table {
  const char* name;
  void (*build)(RowTable&);
};
constexpr Table kTables[] = {
    {"Order", OrderOfChecks}, {"Json", JsonDetails}, {"Dup", DuplicateKeys},
    {"Entry", TensorEntries}, {"Meta", Metadata},    {"Shape", ShapesSizesOffsets},
    {"Dtype", Dtypes},
};

std::vector<Row> RowsOf(const Table& table) {
  RowTable t;
  table.build(t);
  return t.rows;
}

// One check of one row in one profile.
::testing::AssertionResult CheckRow(const Row& row, Profile profile) {
  const Expect& expect = profile == Profile::kStrict ? row.strict : row.reference;
  const stguard::Result<Header> result =
      stguard::parse(row.file, stguard_test::WithProfile(profile));
  if (!expect.accept) return stguard_test::Rejects(result, expect.reason, expect.offset);
  ::testing::AssertionResult accepted = stguard_test::Accepts(result);
  if (!accepted) return accepted;
  const Header& header = *result;
  if (header.file_size != row.file.size() ||
      header.data_offset() + header.data_len() != row.file.size()) {
    return ::testing::AssertionFailure() << "file_size / data_len do not add up";
  }
  // Accepted tensors tile the data buffer exactly.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (const auto& t : header.tensors) ranges.emplace_back(t.begin, t.end);
  std::sort(ranges.begin(), ranges.end());
  std::uint64_t prev_end = 0;
  for (const auto& [b, e] : ranges) {
    if (b != prev_end) return ::testing::AssertionFailure() << "accepted with a hole or overlap";
    prev_end = e;
  }
  if (prev_end != header.data_len()) {
    return ::testing::AssertionFailure() << "accepted with uncovered data bytes";
  }
  if (row.check) row.check(header, profile);  // EXPECTs of its own, under the row's trace
  return ::testing::AssertionSuccess();
}

// One test per table and profile (one ctest process each: a process per row
// would cost more than the checks); every failure names its row as
// <Table>_<Row>_<profile>.
struct TableCase {
  std::size_t table;
  Profile profile;
};

void PrintTo(const TableCase& c, std::ostream* os) {
  *os << kTables[c.table].name << "_" << stguard::profile_name(c.profile);
}

std::vector<TableCase> AllTableCases() {
  std::vector<TableCase> out;
  for (std::size_t i = 0; i < std::size(kTables); ++i) {
    out.push_back({i, Profile::kStrict});
    out.push_back({i, Profile::kReference});
  }
  return out;
}

class ReferenceTableTest : public ::testing::TestWithParam<TableCase> {};

TEST_P(ReferenceTableTest, EveryRow) {
  const Profile profile = GetParam().profile;
  const std::vector<Row> rows = RowsOf(kTables[GetParam().table]);
  ASSERT_FALSE(rows.empty());
  for (const Row& row : rows) {
    const std::string id =
        row.table + "_" + row.name + "_" + std::string(stguard::profile_name(profile));
    SCOPED_TRACE("row " + id);
    EXPECT_TRUE(CheckRow(row, profile)) << "row " << id;
  }
}

INSTANTIATE_TEST_SUITE_P(Tables, ReferenceTableTest, ::testing::ValuesIn(AllTableCases()),
                         [](const ::testing::TestParamInfo<TableCase>& param_info) {
                           return std::string(kTables[param_info.param.table].name) + "_" +
                                  std::string(stguard::profile_name(param_info.param.profile));
                         });

// The tables themselves: the profile invariant holds, names are unique.
TEST(ReferenceRowTable, WellFormed) {
  std::set<std::string> names;
  std::size_t count = 0;
  for (const Table& table : kTables) {
    for (const Row& row : RowsOf(table)) {
      ++count;
      const std::string id = row.table + "_" + row.name;
      EXPECT_EQ(row.table, table.name) << id;
      EXPECT_TRUE(names.insert(id).second) << "duplicate row name " << id;
      if (row.strict.accept) {
        EXPECT_TRUE(row.reference.accept) << id;
      }
    }
  }
  EXPECT_GT(count, 300U);
}

}  // namespace
