// The names of the checks and conditions, and the test build's switch
// (checks.h).
#include "checks.h"

#include "dtype_table.h"

namespace stguard::detail {

std::string_view check_name(CheckId id) noexcept {
  switch (id) {
    case CheckId::kHeaderTooLarge:
      return "header_too_large";
    case CheckId::kHeaderNotUtf8:
      return "header_not_utf8";
    case CheckId::kLeadingWhitespace:
      return "leading_whitespace";
    case CheckId::kPaddingNotSpace:
      return "padding_not_space";
    case CheckId::kSecondValue:
      return "second_value";
    case CheckId::kRepeatedTensorName:
      return "repeated_tensor_name";
    case CheckId::kRepeatedMetadata:
      return "repeated_metadata";
    case CheckId::kRepeatedMetadataKey:
      return "repeated_metadata_key";
    case CheckId::kRepeatedField:
      return "repeated_field";
    case CheckId::kNulInName:
      return "nul_in_name";
    case CheckId::kNulInMetadataValue:
      return "nul_in_metadata_value";
    case CheckId::kNameTooLong:
      return "name_too_long";
    case CheckId::kTooManyTensors:
      return "too_many_tensors";
    case CheckId::kRankTooHigh:
      return "rank_too_high";
    case CheckId::kUnknownField:
      return "unknown_field";
    case CheckId::kMissingField:
      return "missing_field";
    case CheckId::kUnknownDtype:
      return "unknown_dtype";
    case CheckId::kMetadataNotObject:
      return "metadata_not_object";
    case CheckId::kMetadataValueNotString:
      return "metadata_value_not_string";
    case CheckId::kBeginAfterEnd:
      return "begin_after_end";
    case CheckId::kSizeOverflow:
      return "size_overflow";
    case CheckId::kSubbyteMisaligned:
      return "subbyte_misaligned";
    case CheckId::kSizeMismatch:
      return "size_mismatch";
    case CheckId::kOutOfBounds:
      return "out_of_bounds";
    case CheckId::kGap:
      return "gap";
    case CheckId::kOverlap:
      return "overlap";
    case CheckId::kTrailingData:
      return "trailing_data";
    case CheckId::kCount:
      break;
  }
  return "unknown";
}

std::string_view condition_name(CheckCondition when) noexcept {
  switch (when) {
    case CheckCondition::kAlways:
      return "always";
    case CheckCondition::kRank0:
      return "rank 0";
    case CheckCondition::kRank8OrMore:
      return "rank 8 or more";
    case CheckCondition::kZeroElements:
      return "zero elements";
    case CheckCondition::kSubByteDtype:
      return "sub-byte dtype";
    case CheckCondition::kEmptyDataBuffer:
      return "empty data buffer";
    case CheckCondition::kLastInKeyOrder:
      return "last tensor in key order";
    case CheckCondition::kNoTensors:
      return "no tensors";
    case CheckCondition::kCount:
      break;
  }
  return "unknown";
}

#ifdef STGUARD_CHECK_SWITCHES
namespace {

std::optional<CheckSwitch> g_left_out;

bool holds(CheckCondition when, const CheckContext& c) noexcept {
  switch (when) {
    case CheckCondition::kAlways:
      return true;
    case CheckCondition::kRank0:
      return c.tensor && c.tensor->rank == 0;
    case CheckCondition::kRank8OrMore:
      return c.tensor && c.tensor->rank >= 8;
    case CheckCondition::kZeroElements:
      return c.tensor && c.tensor->zero_elements;
    case CheckCondition::kSubByteDtype:
      return c.tensor && dtype_entry(c.tensor->dtype).bits < 8;
    case CheckCondition::kEmptyDataBuffer:
      return c.data_len && *c.data_len == 0;
    case CheckCondition::kLastInKeyOrder:
      return c.tensor && c.tensor->count != 0 && c.tensor->index + 1 == c.tensor->count;
    case CheckCondition::kNoTensors:
      return c.tensor_count && *c.tensor_count == 0;
    case CheckCondition::kCount:
      break;
  }
  return false;
}

}  // namespace

void leave_out(std::optional<CheckSwitch> which) noexcept { g_left_out = which; }

bool let_through(CheckId id, const CheckContext& context) noexcept {
  return g_left_out && g_left_out->id == id && holds(g_left_out->when, context);
}
#endif

}  // namespace stguard::detail
