// tests/parser/lint_test.cc: stguard/lint.h, the one set of lint rules that
// `stguard inspect` shows and writer grading reports. Every LintCode, and the
// edges of each rule.
#include "stguard/lint.h"

#include <gtest/gtest.h>
#include <stguard/stguard.h>

#include <string>
#include <vector>

#include "tests/support/file_builder.h"

namespace {

using stguard::Header;
using stguard::Lint;
using stguard::LintCode;
using stguard_test::FileBuilder;

// The header of a file made of `json`, padded to 8 bytes when `pad`.
Header parsed(const std::string& json, std::size_t data_size, bool pad) {
  FileBuilder builder(json);
  if (pad) builder.pad_to_8();
  const std::vector<std::uint8_t> bytes = builder.data_size(data_size).build();
  stguard::Result<Header> header = stguard::parse(bytes);
  EXPECT_TRUE(header) << header.error().to_string();
  return header ? *header : Header{};
}

std::vector<LintCode> codes(const std::vector<Lint>& lints) {
  std::vector<LintCode> out;
  for (const Lint& l : lints) out.push_back(l.code);
  return out;
}

TEST(Lint, CodesHaveStableNames) {
  EXPECT_EQ(stguard::lint_code_name(LintCode::kHeaderNotAligned), "HEADER_NOT_ALIGNED");
  EXPECT_EQ(stguard::lint_code_name(LintCode::kDataMisaligned), "DATA_MISALIGNED");
  EXPECT_EQ(stguard::lint_code_name(LintCode::kNonCanonicalOrder), "NON_CANONICAL_ORDER");
  EXPECT_EQ(stguard::lint_code_name(LintCode::kOffsetsNotInOrder), "OFFSETS_NOT_IN_ORDER");
}

TEST(Lint, TheCanonicalLayoutHasNone) {
  // I64 before F32 (the writer's dtype rank), padded: what upstream writes.
  const Header h = parsed(R"({"b":{"dtype":"I64","shape":[1],"data_offsets":[0,8]},)"
                          R"("a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]}})",
                          16, true);
  EXPECT_TRUE(stguard::lint_header(h).empty());
}

TEST(Lint, UnpaddedHeaderAndItsMisalignedElements) {
  const Header h = parsed(R"({"a":{"dtype":"I64","shape":[0],"data_offsets":[0,0]},)"
                          R"("b":{"dtype":"I64","shape":[1],"data_offsets":[0,8]},)"
                          R"("c":{"dtype":"U8","shape":[1],"data_offsets":[8,9]},)"
                          R"("d":{"dtype":"F4","shape":[2],"data_offsets":[9,10]}})",
                          10, false);
  ASSERT_NE((8 + h.header_len) % 8, 0u);
  const std::vector<Lint> lints = stguard::lint_header(h);
  // b (8-byte elements) is misaligned; a holds no data, c (bytes) cannot
  // be misaligned, d (4-bit elements) has no alignment of its own.
  ASSERT_EQ(codes(lints),
            (std::vector<LintCode>{LintCode::kHeaderNotAligned, LintCode::kDataMisaligned}));
  EXPECT_EQ(lints[1].tensor, 1u);
}

// Canonical order is judged on the data (offset) order; the header's own
// order is OFFSETS_NOT_IN_ORDER's business, so the two never say the same.
TEST(Lint, CanonicalOrderIsTheDataOrder) {
  // Data in canonical order (I64 first), header listing F32 first.
  const Header listed_late = parsed(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[8,16]},)"
                                    R"("b":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})",
                                    16, true);
  std::vector<Lint> lints = stguard::lint_header(listed_late);
  ASSERT_EQ(codes(lints), std::vector<LintCode>{LintCode::kOffsetsNotInOrder});
  EXPECT_EQ(lints[0].tensor, 1u);
  EXPECT_EQ(lints[0].other, 0u);
  // Data not in canonical order (F32 first), header in data order.
  const Header data_late = parsed(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
                                  R"("b":{"dtype":"I64","shape":[1],"data_offsets":[8,16]}})",
                                  16, true);
  lints = stguard::lint_header(data_late);
  ASSERT_EQ(codes(lints), std::vector<LintCode>{LintCode::kNonCanonicalOrder});
  EXPECT_EQ(lints[0].tensor, 0u);  // a holds the first data position...
  EXPECT_EQ(lints[0].other, 1u);   // ...which the canonical order gives b
  // Within one dtype, names by bytes.
  const Header names = parsed(R"({"y":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                              R"("x":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})",
                              2, true);
  EXPECT_EQ(codes(stguard::lint_header(names)),
            std::vector<LintCode>{LintCode::kNonCanonicalOrder});
}

TEST(Lint, EachOrderLintIsReportedOnce) {
  const Header h = parsed(R"({"d":{"dtype":"U8","shape":[1],"data_offsets":[3,4]},)"
                          R"("c":{"dtype":"U8","shape":[1],"data_offsets":[2,3]},)"
                          R"("b":{"dtype":"U8","shape":[1],"data_offsets":[1,2]},)"
                          R"("a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})",
                          4, true);
  EXPECT_EQ(codes(stguard::lint_header(h)), std::vector<LintCode>{LintCode::kOffsetsNotInOrder});
  const Header reversed = parsed(R"({"d":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                                 R"("c":{"dtype":"U8","shape":[1],"data_offsets":[1,2]},)"
                                 R"("b":{"dtype":"U8","shape":[1],"data_offsets":[2,3]},)"
                                 R"("a":{"dtype":"U8","shape":[1],"data_offsets":[3,4]}})",
                                 4, true);
  EXPECT_EQ(codes(stguard::lint_header(reversed)),
            std::vector<LintCode>{LintCode::kNonCanonicalOrder});
}

}  // namespace
