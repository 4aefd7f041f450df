// base/sniff.h: each kind of file it names, and safetensors it leaves alone.
#include "base/sniff.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace stguard::base {
namespace {

std::optional<Sniffed> sniff(std::string_view bytes, bool absurd = true) {
  return sniff_content(bytes.substr(0, kSniffBytes), bytes.size(), absurd);
}

TEST(Sniff, GitLfsPointerWithSizeAndHash) {
  const std::string pointer =
      "version https://git-lfs.github.com/spec/v1\n"
      "oid sha256:3D2F7C8C4D1E2B3A4F5E6D7C8B9A0F1E2D3C4B5A69788796A5B4C3D2E1F00112\n"
      "size 4965120\n";
  const auto s = sniff(pointer);
  ASSERT_TRUE(s);
  EXPECT_EQ(s->kind, ContentKind::kGitLfsPointer);
  EXPECT_EQ(s->real_size, 4965120u);
  EXPECT_EQ(s->real_sha256, "3d2f7c8c4d1e2b3a4f5e6d7c8b9a0f1e2d3c4b5a69788796a5b4c3d2e1f00112");
  EXPECT_NE(s->description.find("git lfs pull"), std::string::npos);
  EXPECT_NE(s->description.find("4965120"), std::string::npos);
}

TEST(Sniff, KnownFormats) {
  struct Row {
    std::string bytes;
    ContentKind kind;
    const char* mentions;
  };
  const Row rows[] = {
      {"<!DOCTYPE html><html><head><title>404 Not Found</title>", ContentKind::kHtmlPage,
       "404 Not Found"},
      {"<?xml version=\"1.0\"?><Error><Code>AccessDenied</Code>", ContentKind::kXmlDocument,
       "AccessDenied"},
      {"{\"error\":\"Repository not found\"}", ContentKind::kJsonText, "Repository not found"},
      {"Entry not found\n", ContentKind::kText, "Entry not found"},
      {std::string("PK\x03\x04\x14\0\0\0", 8), ContentKind::kZipArchive, "PyTorch"},
      {std::string("\x80\x02}q\0", 5), ContentKind::kPickle, "pickle"},
      {"GGUF\x03\0\0\0", ContentKind::kGguf, "GGUF"},
      {std::string(100, '\0'), ContentKind::kZeros, "a file of 100 zero bytes"},
      {std::string("\x1f\x8b\x08\0", 4), ContentKind::kGzip, "gzip"},
  };
  for (const Row& row : rows) {
    const auto s = sniff(row.bytes);
    ASSERT_TRUE(s) << row.mentions;
    EXPECT_EQ(s->kind, row.kind) << content_kind_name(row.kind);
    EXPECT_NE(s->description.find(row.mentions), std::string::npos) << s->description;
  }
  const auto empty = sniff("");
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->kind, ContentKind::kEmpty);
}

// `what` names the content without the safetensors advice, for messages
// about files meant to be something else (a shard index).
TEST(Sniff, WhatIsTheNounPhraseTheDescriptionStartsWith) {
  const std::string lfs = "version https://git-lfs.github.com/spec/v1\nsize 12\n";
  const std::pair<std::string, std::string> rows[] = {
      {"<html><head><title>Sign in</title>",
       "an HTML page (a download error or login page?) titled \"Sign in\""},
      {"<?xml version=\"1.0\"?><Error><Code>NoSuchKey</Code>",
       "an XML document (a cloud storage error response?) with error code \"NoSuchKey\""},
      {lfs, "a Git LFS pointer file"},
      {"", "an empty file"},
      {std::string("PK\x03\x04", 4), "a ZIP archive (a PyTorch .bin/.pt checkpoint renamed?)"},
      {"Entry not found\n", "a text file"},
  };
  for (const auto& [bytes, what] : rows) {
    const auto s = sniff(bytes);
    ASSERT_TRUE(s) << what;
    EXPECT_EQ(s->what, what);
    EXPECT_TRUE(s->description.starts_with(s->what)) << s->description;
    EXPECT_GT(s->description.size(), s->what.size()) << s->description;
  }
  const auto zeros = sniff(std::string(100, '\0'));
  ASSERT_TRUE(zeros);
  EXPECT_EQ(zeros->what, "a file of 100 zero bytes");
  const auto some_zeros = sniff(std::string(kSniffBytes + 1, '\0'));
  ASSERT_TRUE(some_zeros);
  EXPECT_EQ(some_zeros->what, "a file that starts with 4096 zero bytes");
}

TEST(Sniff, LeavesSafetensorsAndTextWithASaneLengthAlone) {
  const std::string header = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}})";
  std::string file(8, '\0');
  file[0] = static_cast<char>(header.size());
  file += header + "x";
  EXPECT_FALSE(sniff(file));
  EXPECT_FALSE(sniff("Entry not found\n", /*absurd=*/false));
  // Bytes >= 0x80 that are not UTF-8 are binary, not text.
  EXPECT_FALSE(sniff("\xff\xff\xff\xff\xff\xff\xff\xff{}"));
  // A few zero bytes are not a preallocated download.
  EXPECT_FALSE(sniff(std::string(8, '\0')));
}

}  // namespace
}  // namespace stguard::base
