// tests/verify/long_names_test.cc: a message stays one readable line
// whatever a file holds. A name in SHA256SUMS that no path can have is
// checksum_malformed (with its line number), not a file that could not be
// read; names and quotes taken from files are cut in messages (findings.h
// kMaxShownBytes) while the finding's fields keep them whole.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "folder_builder.h"
#include "verify/findings.h"
#include "verify/verify.h"

namespace {

using stguard::verify::Finding;
using stguard::verify::FindingKind;
using stguard::verify::kMaxShownBytes;
using stguard::verify::VerifyReport;
using stguard_test::describe;
using stguard_test::error_kinds;
using stguard_test::find;
using stguard_test::TempDir;

constexpr std::size_t kHuge = 5'000'000;
const std::string kEllipsis = "\xE2\x80\xA6";

// Appends `line` to DIR/SHA256SUMS; returns its line number.
std::uint64_t append_sum_line(const TempDir& dir, const std::string& line) {
  const std::string text = stguard_test::read_text(dir.file("SHA256SUMS"));
  std::uint64_t lines = 0;
  for (const char c : text) lines += c == '\n' ? 1 : 0;
  std::ofstream(dir.file("SHA256SUMS"), std::ios::app) << line << "\n";
  return lines + 1;
}

void expect_bounded(const std::string& message) {
  EXPECT_LT(message.size(), kMaxShownBytes + 300) << message.substr(0, 600);
}

TEST(LongNames, HugeNameInSha256SumsIsMalformedWithABoundedMessage) {
  const TempDir dir;
  stguard_test::write_good_model(dir);
  stguard_test::write_sums(dir);
  const std::uint64_t line =
      append_sum_line(dir, std::string(64, 'a') + "  " + std::string(kHuge, 'n'));
  const VerifyReport report = stguard_test::verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"checksum_malformed"})
      << describe(report).substr(0, 2000);
  EXPECT_EQ(report.exit_code(), 1);
  const Finding* f = find(report, FindingKind::kChecksumMalformed);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->line, line);
  expect_bounded(f->message);
  EXPECT_EQ(f->message.rfind("line " + std::to_string(line) + ": ", 0), 0u) << f->message;
  EXPECT_NE(f->message.find(kEllipsis + "\" (" + std::to_string(kHuge) + " bytes)"),
            std::string::npos)
      << f->message.substr(0, 600);
}

TEST(LongNames, ComponentLongerThanAnyFileNameIsMalformed) {
  const TempDir dir;
  stguard_test::write_good_model(dir);
  stguard_test::write_sums(dir);
  append_sum_line(dir, std::string(64, 'a') + "  sub/" + std::string(300, 'n') + "/x");
  const VerifyReport report = stguard_test::verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"checksum_malformed"})
      << describe(report);
  const Finding* f = find(report, FindingKind::kChecksumMalformed);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("has a component of 300 bytes"), std::string::npos) << f->message;
}

TEST(LongNames, HugeTensorNameInTheIndexIsCutInTheMessageOnly) {
  const TempDir dir;
  const std::string huge(kHuge, 't');
  const VerifyReport report = stguard_test::verify_with_index(
      dir, [&](std::vector<std::pair<std::string, std::string>>& map) {
        map.emplace_back(huge, stguard_test::kShard1);
      });
  const Finding* f = find(report, FindingKind::kTensorMissing);
  ASSERT_NE(f, nullptr) << describe(report).substr(0, 2000);
  expect_bounded(f->message);
  EXPECT_EQ(f->tensor, huge);  // the field keeps the name whole
}

TEST(LongNames, HugeShardNameInTheIndexIsCutInTheMessage) {
  const TempDir dir;
  const std::string huge(kHuge, 's');
  const VerifyReport report = stguard_test::verify_with_index(
      dir,
      [&](std::vector<std::pair<std::string, std::string>>& map) { map.front().second = huge; });
  ASSERT_FALSE(report.findings.empty());
  for (const Finding& f : report.findings) expect_bounded(f.message);
}

TEST(LongNames, IndexSyntaxErrorQuotesABoundedPartOfTheToken) {
  const TempDir dir;
  stguard_test::write_good_model(dir);
  // A control character ends a megabyte-long string: the JSON library's
  // message quotes the whole token it read.
  dir.write(stguard_test::kIndex, stguard_test::bytes_of("{\"weight_map\": {\"a\": \"" +
                                                         std::string(kHuge, 'x') + "\x01\"}}"));
  const VerifyReport report = stguard_test::verify(dir);
  const Finding* f = find(report, FindingKind::kIndexMalformed);
  ASSERT_NE(f, nullptr) << describe(report).substr(0, 2000);
  expect_bounded(f->message);
}

TEST(LongNames, ShownCutsBeforeAUtf8SequenceAndSaysTheLength) {
  using stguard::verify::in_quotes;
  using stguard::verify::shown;
  EXPECT_EQ(shown("short"), "short");
  EXPECT_EQ(in_quotes("short"), "\"short\"");
  const std::string exact(kMaxShownBytes, 'a');
  EXPECT_EQ(shown(exact), exact);
  // "é" (two bytes) straddles the cut: it goes whole, not half.
  const std::string text = std::string(kMaxShownBytes - 1, 'a') + "\xC3\xA9" + "bbb";
  EXPECT_EQ(shown(text), std::string(kMaxShownBytes - 1, 'a') + kEllipsis + " (" +
                             std::to_string(text.size()) + " bytes)");
  EXPECT_EQ(in_quotes(text), "\"" + std::string(kMaxShownBytes - 1, 'a') + kEllipsis + "\" (" +
                                 std::to_string(text.size()) + " bytes)");
}

}  // namespace
