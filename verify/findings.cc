// verify/findings.cc: the stable names of finding kinds, severities,
// categories and shard verdicts, and building a finding.
#include "verify/findings.h"

#include <utility>

namespace stguard::verify {

std::string_view finding_kind_name(FindingKind kind) noexcept {
  switch (kind) {
    case FindingKind::kNoShards:
      return "no_shards";
    case FindingKind::kSymlink:
      return "symlink";
    case FindingKind::kSymlinkEscapes:
      return "symlink_escapes";
    case FindingKind::kNotRegularFile:
      return "not_regular_file";
    case FindingKind::kStrayFile:
      return "stray_file";
    case FindingKind::kFileChanged:
      return "file_changed";
    case FindingKind::kSymlinkLoop:
      return "symlink_loop";
    case FindingKind::kTreeLimit:
      return "tree_limit";
    case FindingKind::kFolderUnreadable:
      return "folder_unreadable";
    case FindingKind::kShardEmpty:
      return "shard_empty";
    case FindingKind::kShardTruncated:
      return "shard_truncated";
    case FindingKind::kShardHtml:
      return "shard_html";
    case FindingKind::kShardLfsPointer:
      return "shard_lfs_pointer";
    case FindingKind::kShardNotSafetensors:
      return "shard_not_safetensors";
    case FindingKind::kShardInvalid:
      return "shard_invalid";
    case FindingKind::kShardUnreadable:
      return "shard_unreadable";
    case FindingKind::kShardSizeMismatch:
      return "shard_size_mismatch";
    case FindingKind::kIndexMissing:
      return "index_missing";
    case FindingKind::kIndexMalformed:
      return "index_malformed";
    case FindingKind::kIndexDuplicateKey:
      return "index_duplicate_key";
    case FindingKind::kIndexInvalid:
      return "index_invalid";
    case FindingKind::kTensorMissing:
      return "tensor_missing";
    case FindingKind::kTensorExtra:
      return "tensor_extra";
    case FindingKind::kTensorWrongShard:
      return "tensor_wrong_shard";
    case FindingKind::kTensorDuplicate:
      return "tensor_duplicate";
    case FindingKind::kIndexShardMissing:
      return "index_shard_missing";
    case FindingKind::kShardNotInIndex:
      return "shard_not_in_index";
    case FindingKind::kTotalSizeMismatch:
      return "total_size_mismatch";
    case FindingKind::kUnsafePath:
      return "unsafe_path";
    case FindingKind::kIndexUnreadable:
      return "index_unreadable";
    case FindingKind::kChecksumMalformed:
      return "checksum_malformed";
    case FindingKind::kChecksumFileMissing:
      return "checksum_file_missing";
    case FindingKind::kChecksumUnlisted:
      return "checksum_unlisted";
    case FindingKind::kChecksumMismatch:
      return "checksum_mismatch";
    case FindingKind::kChecksumUnreadable:
      return "checksum_unreadable";
    case FindingKind::kChecksumDuplicate:
      return "checksum_duplicate";
    case FindingKind::kTensorNan:
      return "tensor_nan";
    case FindingKind::kTensorInf:
      return "tensor_inf";
    case FindingKind::kTensorAllZero:
      return "tensor_all_zero";
    case FindingKind::kHubContentMismatch:
      return "hub_content_mismatch";
    case FindingKind::kHubLinkDangling:
      return "hub_link_dangling";
    case FindingKind::kHubBlobIncomplete:
      return "hub_blob_incomplete";
    case FindingKind::kHubBlobUnused:
      return "hub_blob_unused";
    case FindingKind::kHubBlobUnverifiable:
      return "hub_blob_unverifiable";
    case FindingKind::kHubRefInvalid:
      return "hub_ref_invalid";
    case FindingKind::kHubContentUnreadable:
      return "hub_content_unreadable";
    case FindingKind::kHubNoSnapshots:
      return "hub_no_snapshots";
    case FindingKind::kHubMetadataInvalid:
      return "hub_metadata_invalid";
    case FindingKind::kHubMetadataStale:
      return "hub_metadata_stale";
    case FindingKind::kHubFileMissing:
      return "hub_file_missing";
    case FindingKind::kHubDownloadIncomplete:
      return "hub_download_incomplete";
    case FindingKind::kHubFileUnverified:
      return "hub_file_unverified";
    case FindingKind::kChecksumSourcesDisagree:
      return "checksum_sources_disagree";
    case FindingKind::kHubNothingVerified:
      return "hub_nothing_verified";
  }
  return "unknown";
}

std::string_view severity_name(Severity severity) noexcept {
  switch (severity) {
    case Severity::kError:
      return "error";
    case Severity::kWarning:
      return "warning";
  }
  return "error";
}

std::string_view category_name(Category category) noexcept {
  switch (category) {
    case Category::kFolder:
      return "folder";
    case Category::kShard:
      return "shard";
    case Category::kIndex:
      return "index";
    case Category::kChecksum:
      return "checksum";
    case Category::kValues:
      return "values";
    case Category::kHub:
      return "hub";
  }
  return "folder";
}

std::string_view shard_verdict_name(ShardVerdict verdict) noexcept {
  switch (verdict) {
    case ShardVerdict::kAccept:
      return "accept";
    case ShardVerdict::kReject:
      return "reject";
    case ShardVerdict::kSkipped:
      return "skipped";
  }
  return "skipped";
}

std::string_view layout_name(Layout layout) noexcept {
  switch (layout) {
    case Layout::kAuto:
      return "auto";
    case Layout::kFolder:
      return "folder";
    case Layout::kHubRepo:
      return "hub-repo";
    case Layout::kHubSnapshot:
      return "hub-snapshot";
    case Layout::kHubCache:
      return "hub-cache";
    case Layout::kLocalDir:
      return "local-dir";
    case Layout::kRemote:
      return "remote";
  }
  return "folder";
}

std::string_view content_verdict_name(ContentVerdict verdict) noexcept {
  switch (verdict) {
    case ContentVerdict::kVerified:
      return "verified";
    case ContentVerdict::kMismatch:
      return "mismatch";
    case ContentVerdict::kUnreadable:
      return "unreadable";
    case ContentVerdict::kUnverifiable:
      return "unverifiable";
    case ContentVerdict::kMissing:
      return "missing";
    case ContentVerdict::kChanged:
      return "changed";
  }
  return "unverifiable";
}

std::string_view checkpoint_kind_name(CheckpointKind kind) noexcept {
  switch (kind) {
    case CheckpointKind::kIndex:
      return "index";
    case CheckpointKind::kSingleFile:
      return "single_file";
    case CheckpointKind::kShardSet:
      return "shard_set";
  }
  return "single_file";
}

std::uint64_t VerifyReport::count(FindingKind kind) const noexcept {
  std::uint64_t n = 0;
  for (const Finding& f : findings) n += f.kind == kind ? 1 : 0;
  return n;
}

Finding make_finding(FindingKind kind, Category category, std::string file, std::string message,
                     Severity severity) {
  Finding f;
  f.kind = kind;
  f.category = category;
  f.file = std::move(file);
  f.message = std::move(message);
  f.severity = severity;
  return f;
}

namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // U+2026, in UTF-8

// The first kMaxShownBytes of a longer `text`, or up to three fewer so as
// not to split a UTF-8 sequence (at most four bytes long).
std::string_view shown_part(std::string_view text) {
  std::size_t cut = kMaxShownBytes;
  for (int back = 0; back < 3 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80; ++back) {
    --cut;
  }
  return text.substr(0, cut);
}

std::string length_note(std::string_view text) {
  return " (" + std::to_string(text.size()) + " bytes)";
}

}  // namespace

std::string shown(std::string_view text) {
  if (text.size() <= kMaxShownBytes) return std::string(text);
  return std::string(shown_part(text)) + std::string(kEllipsis) + length_note(text);
}

std::string in_quotes(std::string_view text) {
  if (text.size() <= kMaxShownBytes) return "\"" + std::string(text) + "\"";
  return "\"" + std::string(shown_part(text)) + std::string(kEllipsis) + "\"" + length_note(text);
}

}  // namespace stguard::verify
