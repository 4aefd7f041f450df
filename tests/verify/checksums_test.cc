// tests/verify/checksums_test.cc: SHA256SUMS and --sha256 FILE: mismatches,
// missing and unlisted files, malformed lines with their numbers, every form
// coreutils writes, and hashing with any number of threads.
#include "verify/checksums.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "base/sha256.h"
#include "folder_builder.h"
#include "verify/verify.h"

namespace {

namespace fs = std::filesystem;
using stguard::verify::Finding;
using stguard::verify::FindingKind;
using stguard::verify::VerifyOptions;
using stguard::verify::VerifyReport;
using stguard_test::bytes_of;
using stguard_test::describe;
using stguard_test::error_kinds;
using stguard_test::find;
using stguard_test::good_layout;
using stguard_test::kShard2;
using stguard_test::make_shard;
using stguard_test::read_text;
using stguard_test::TempDir;
using stguard_test::verify;
using stguard_test::write_good_model;
using stguard_test::write_sums;

TEST(VerifyChecksums, MismatchWhileStructureIsFine) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  // Flip the last data byte: the header still checks out, the content not.
  std::vector<std::uint8_t> bytes = make_shard(good_layout().at(kShard2));
  bytes.back() ^= 0xFF;
  dir.write(kShard2, bytes);
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"checksum_mismatch"})
      << describe(report);
  const Finding* f = find(report, FindingKind::kChecksumMismatch);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->file, kShard2);
  EXPECT_EQ(f->actual_sha256, stguard::base::sha256_hex(std::span<const std::uint8_t>(bytes)));
  EXPECT_NE(f->expected_sha256, f->actual_sha256);
  EXPECT_EQ(report.checksums->failed, 1u);
}

TEST(VerifyChecksums, ListedButMissing) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  std::string sums = read_text(dir.file("SHA256SUMS"));
  sums += std::string(64, '0') + "  model-00004-of-00003.safetensors\n";
  dir.write("SHA256SUMS", bytes_of(sums));
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"checksum_file_missing"})
      << describe(report);
}

TEST(VerifyChecksums, ShardPresentButUnlisted) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  std::string sums;
  std::istringstream in(read_text(dir.file("SHA256SUMS")));
  for (std::string line; std::getline(in, line);) {
    if (line.find(kShard2) == std::string::npos) sums += line + "\n";
  }
  dir.write("SHA256SUMS", bytes_of(sums));
  const VerifyReport report = verify(dir);
  EXPECT_EQ(error_kinds(report), std::multiset<std::string>{"checksum_unlisted"})
      << describe(report);
  EXPECT_EQ(find(report, FindingKind::kChecksumUnlisted)->file, kShard2);
}

TEST(VerifyChecksums, MalformedLinesReportedWithLineNumbers) {
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  std::string sums = read_text(dir.file("SHA256SUMS"));
  sums = "# written on the source machine\n\n" + sums;  // lines 1-2: skipped like coreutils
  sums += "this is not a checksum line\n";              // line 9
  sums += std::string(40, 'a') + "  config.json\n";     // line 10: SHA-1
  sums += std::string(64, 'a') + "\n";                  // line 11: no name
  dir.write("SHA256SUMS", bytes_of(sums));
  const VerifyReport report = verify(dir);
  std::vector<std::uint64_t> lines;
  for (const Finding& f : report.findings) {
    EXPECT_EQ(f.kind, FindingKind::kChecksumMalformed) << describe(report);
    if (f.line) lines.push_back(*f.line);
  }
  EXPECT_EQ(lines, (std::vector<std::uint64_t>{9, 10, 11}));
  EXPECT_EQ(report.checksums->verified, 6u);
}

TEST(VerifyChecksums, CoreutilsFormsAllParse) {
  const TempDir dir;
  dir.write("model.safetensors", make_shard({"a"}));
  dir.write("new\nline.json", bytes_of("odd name"));
  dir.write("with space.json", bytes_of("spaced"));
  const auto hex = [&](const std::string& name) {
    return stguard::base::sha256_hex(read_text(dir.file(name)));
  };
  std::string sums;
  sums += hex("model.safetensors") + " *./model.safetensors\r\n";         // binary marker, CRLF
  sums += "\\" + hex("new\nline.json") + "  new\\nline.json\n";           // escaped name
  sums += "SHA256 (with space.json) = " + hex("with space.json") + "\n";  // --tag form
  dir.write("SHA256SUMS", bytes_of(sums));
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(report.findings.empty()) << describe(report);
  EXPECT_EQ(report.checksums->verified, 3u);
}

TEST(VerifyChecksums, ParseChecksumFile) {
  std::vector<std::pair<std::uint64_t, std::string>> malformed;
  const std::string hex(64, 'F');
  const auto lines = stguard::verify::parse_checksum_file(
      hex + "  a b\n" + hex + " *c\n\\" + hex + "  d\\\\e\n\\" + hex + "  f\\x\n", &malformed);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].name, "a b");
  EXPECT_FALSE(lines[0].binary);
  EXPECT_EQ(lines[1].name, "c");
  EXPECT_TRUE(lines[1].binary);
  EXPECT_EQ(lines[2].name, "d\\e");  // unescaped; safe_relative_name rejects it later
  ASSERT_EQ(malformed.size(), 1u);
  EXPECT_EQ(malformed[0].first, 4u);  // bad escape
}

TEST(VerifyChecksums, ExplicitListOutsideDirAndThreadCountsAgree) {
  const TempDir lists;
  const TempDir dir;
  write_good_model(dir);
  write_sums(dir);
  fs::rename(dir.file("SHA256SUMS"), lists.file("model.sha256"));
  for (const unsigned jobs : {1u, 3u, 8u}) {
    VerifyOptions options;
    options.sha256_file = lists.file("model.sha256");
    options.jobs = jobs;
    options.hash.io = jobs == 3 ? stguard::base::HashIo::kMmap : stguard::base::HashIo::kRead;
    std::uint64_t calls = 0;
    bool finished = false;
    options.progress = [&](std::uint64_t done, std::uint64_t total, bool end) {
      ++calls;
      EXPECT_LE(done, total);
      finished = end;
    };
    const VerifyReport report = verify(dir, options);
    EXPECT_TRUE(report.findings.empty()) << describe(report);
    EXPECT_EQ(report.checksums->verified, 6u);
    EXPECT_TRUE(report.checksums->from_option);
    EXPECT_TRUE(finished);
    EXPECT_GE(calls, 1u);
  }
}

TEST(VerifyChecksums, ListNamingItselfIsIgnoredWithAWarning) {
  const TempDir dir;
  write_good_model(dir);
  dir.write("SHA256SUMS", bytes_of(""));
  write_sums(dir);
  std::string sums = read_text(dir.file("SHA256SUMS"));
  sums += stguard::base::sha256_hex("") + "  SHA256SUMS\n";
  dir.write("SHA256SUMS", bytes_of(sums));
  const VerifyReport report = verify(dir);
  EXPECT_TRUE(error_kinds(report).empty()) << describe(report);
  EXPECT_EQ(report.count(FindingKind::kChecksumDuplicate), 1u);
}

}  // namespace
