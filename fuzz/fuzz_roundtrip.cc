// Writer round trip and the file API.
//
// Round trip: a file the strict profile accepts, rewritten canonically by
// write_safetensors with its tensors and metadata, parses back (strict) to
// the same tensors (name, dtype, shape, bytes) and metadata; offsets may move
// because the canonical order differs. Rewriting the rewritten file gives the
// same bytes again (the canonical form is a fixed point), and write_header
// gives exactly that file's prefix and header with the layout it parses to.
// A file only the reference profile accepts is either written the same way
// or refused for what only that profile tolerates (U+0000 in a name or
// value, an overflowing shape with a zero dimension), never anything else.
//
// Writer refusals: the accepted tensors plus one injected fault (a reserved,
// non-UTF-8, U+0000 or repeated name, a size that differs from dtype x shape,
// overflows or is not whole bytes, a rank, name, metadata key or tensor count
// just above its limit, a repeated or invalid metadata key, an invalid
// metadata value, a header one byte above max_header_bytes) are refused with
// exactly that fault's reason.
//
// File API, for every file either profile accepts (the syscalls cost ten
// times a parse here, too much for every input): the same bytes behind a path
// (a memfd): File::open, parse_file and validate_file give the strict
// parser's verdict (reason and offset alike), and for an accepted file every
// tensor view from File::tensor_data is the slice of the mapping the header
// describes, by reference and by name.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_invariants.h"

namespace {

using stguard_fuzz::check;

std::vector<stguard::TensorToWrite> to_write(const stguard::Header& h, const std::uint8_t* file) {
  std::vector<stguard::TensorToWrite> out;
  out.reserve(h.tensors.size());
  for (const stguard::TensorInfo& t : h.tensors) {
    const std::uint8_t* begin = file + h.data_offset() + t.begin;
    out.push_back({std::string(t.name), t.dtype, t.shape.to_vector(),
                   std::span<const std::uint8_t>(begin, static_cast<std::size_t>(t.byte_size()))});
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> sorted_metadata(const stguard::Header& h) {
  std::vector<std::pair<std::string, std::string>> m;
  if (h.metadata) m = *h.metadata;
  std::sort(m.begin(), m.end());
  return m;
}

std::vector<const stguard::TensorInfo*> by_name(const stguard::Header& h) {
  std::vector<const stguard::TensorInfo*> out;
  out.reserve(h.tensors.size());
  for (const auto& t : h.tensors) out.push_back(&t);
  std::sort(out.begin(), out.end(), [](const stguard::TensorInfo* x, const stguard::TensorInfo* y) {
    return x->name < y->name;
  });
  return out;
}

// `back` (parsed from the writer's output `written`) holds the same tensors
// and metadata as `original` (parsed from `data`).
void check_same_content(const stguard::Header& original, const std::uint8_t* data,
                        const stguard::Header& back, const std::vector<std::uint8_t>& written) {
  check(back.tensors.size() == original.tensors.size(), "round trip changes the tensor count");
  // An empty metadata object and no metadata both mean "no pairs".
  check(sorted_metadata(back) == sorted_metadata(original), "round trip changes the metadata");
  const std::vector<const stguard::TensorInfo*> a = by_name(original);
  const std::vector<const stguard::TensorInfo*> b = by_name(back);
  for (std::size_t i = 0; i < a.size(); ++i) {
    check(a[i]->name == b[i]->name, "round trip changes a name");
    check(a[i]->dtype == b[i]->dtype, "round trip changes a dtype");
    check(a[i]->shape == b[i]->shape, "round trip changes a shape");
    check(a[i]->byte_size() == b[i]->byte_size(), "round trip changes a byte size");
    const std::uint8_t* x = data + original.data_offset() + a[i]->begin;
    const std::uint8_t* y = written.data() + back.data_offset() + b[i]->begin;
    check(std::equal(x, x + a[i]->byte_size(), y), "round trip changes tensor bytes");
  }
}

// Writes `original`'s content and checks the result; returns the output.
std::vector<std::uint8_t> check_round_trip(const stguard::Header& original,
                                           const std::uint8_t* data) {
  const std::vector<stguard::TensorToWrite> tensors = to_write(original, data);
  const stguard::MetadataPairs metadata = original.metadata.value_or(stguard::MetadataPairs{});
  const stguard::Result<std::vector<std::uint8_t>> written =
      stguard::write_safetensors(tensors, metadata);
  check(written.has_value(), "writer refuses a strict-accepted file");

  const stguard::Result<stguard::Header> back = stguard::parse(*written);
  check(back.has_value(), "strict rejects the writer's output");
  stguard_fuzz::check_accepted(*back, written->data(), written->size());
  check_same_content(original, data, *back, *written);

  const stguard::Result<std::vector<std::uint8_t>> rewritten = stguard::write_safetensors(
      to_write(*back, written->data()), back->metadata.value_or(stguard::MetadataPairs{}));
  check(rewritten.has_value(), "writer refuses its own output");
  check(*rewritten == *written, "canonical output is not a fixed point");

  // write_header: the same prefix and header, and the layout the file has.
  const stguard::Result<stguard::WrittenHeader> header = stguard::write_header(tensors, metadata);
  check(header.has_value(), "write_header refuses what write_safetensors wrote");
  const std::vector<std::uint8_t>& head = header->prefix_and_header;
  check(
      head.size() == back->data_offset() && std::equal(head.begin(), head.end(), written->begin()),
      "write_header differs from the start of write_safetensors' output");
  check(header->layout.size() == tensors.size(), "write_header: layout size");
  for (std::size_t i = 0; i < tensors.size(); ++i) {
    const stguard::TensorInfo* t = back->find(tensors[i].name);
    check(t != nullptr && header->layout[i].first == t->begin && header->layout[i].second == t->end,
          "write_header's layout differs from the written offsets");
  }
  return *written;
}

// A tensor name that is not in `h` (and is `length` bytes long, >= 1).
std::string fresh_name(const stguard::Header& h, std::size_t length) {
  std::string name(length, 'q');
  for (std::size_t i = 0; h.find(name) != nullptr; ++i) {
    name[i % length] = static_cast<char>('a' + i / length % 26);
  }
  return name;
}

// The accepted tensors plus one fault each: refused with the fault's reason.
void check_writer_refusals(const stguard::Header& h, const std::uint8_t* data,
                           std::uint64_t header_len) {
  using stguard::Dtype;
  using stguard::Reason;
  const std::vector<stguard::TensorToWrite> base = to_write(h, data);
  const stguard::MetadataPairs base_meta = h.metadata.value_or(stguard::MetadataPairs{});
  static constexpr std::uint8_t kThreeBytes[3] = {1, 2, 3};
  const std::span<const std::uint8_t> none;

  const auto expect = [&](std::vector<stguard::TensorToWrite> tensors,
                          const stguard::MetadataPairs& metadata, const stguard::Limits& limits,
                          Reason reason, const char* what) {
    const stguard::Result<std::vector<std::uint8_t>> out =
        stguard::write_safetensors(tensors, metadata, limits);
    check(!out.has_value(), what);
    check(out.error().reason == reason && out.error().offset == 0, what);
    check(!out.error().message.empty(), "writer refusal without a message");
  };
  const auto with = [&](stguard::TensorToWrite extra) {
    std::vector<stguard::TensorToWrite> t = base;
    t.push_back(std::move(extra));
    return t;
  };
  const stguard::Limits defaults;

  expect(with({"__metadata__", Dtype::kU8, {0}, none}), base_meta, defaults, Reason::kNameInvalid,
         "writer: a tensor named __metadata__ is not kNameInvalid");
  expect(with({"\xff", Dtype::kU8, {0}, none}), base_meta, defaults, Reason::kNameInvalid,
         "writer: a non-UTF-8 name is not kNameInvalid");
  expect(with({std::string("a\0b", 3), Dtype::kU8, {0}, none}), base_meta, defaults,
         Reason::kNameInvalid, "writer: a name with U+0000 is not kNameInvalid");
  if (!base.empty()) {
    expect(with(base.front()), base_meta, defaults, Reason::kDuplicateKey,
           "writer: a repeated tensor name is not kDuplicateKey");
  }
  const std::string name = fresh_name(h, 8);
  expect(with({name, Dtype::kF32, {1}, std::span<const std::uint8_t>(kThreeBytes, 3)}), base_meta,
         defaults, Reason::kSizeMismatch, "writer: 3 bytes for one F32 is not kSizeMismatch");
  expect(with({name, Dtype::kU8, {1ULL << 32, 1ULL << 32}, none}), base_meta, defaults,
         Reason::kSizeOverflow, "writer: 2^64 elements is not kSizeOverflow");
  expect(with({name, Dtype::kF4, {1}, none}), base_meta, defaults, Reason::kSubbyteMisaligned,
         "writer: one F4 element is not kSubbyteMisaligned");

  // Limits just below what the extra tensor needs, at what the others need.
  std::size_t longest = 1;
  std::size_t rank = 0;
  for (const auto& t : base) {
    longest = std::max(longest, t.name.size());
    rank = std::max(rank, t.shape.size());
  }
  stguard::Limits names = defaults;
  names.max_name_bytes = longest;
  expect(with({fresh_name(h, longest + 1), Dtype::kU8, {0}, none}), {}, names,
         Reason::kLimitExceeded, "writer: a name above max_name_bytes is not kLimitExceeded");
  stguard::Limits ranks = defaults;
  ranks.max_rank = rank;
  expect(with({name, Dtype::kU8, std::vector<std::uint64_t>(rank + 1, 0), none}), base_meta, ranks,
         Reason::kLimitExceeded, "writer: a rank above max_rank is not kLimitExceeded");
  stguard::Limits count = defaults;
  count.max_tensors = base.size();
  expect(with({name, Dtype::kU8, {0}, none}), base_meta, count, Reason::kLimitExceeded,
         "writer: a tensor above max_tensors is not kLimitExceeded");

  // Metadata faults, with the accepted tensors as they are.
  const auto meta_with = [&](std::pair<std::string, std::string> extra) {
    stguard::MetadataPairs m = base_meta;
    m.push_back(std::move(extra));
    return m;
  };
  const std::string key = "\x7f" + name;  // sorts after every other printable key
  stguard::MetadataPairs twice = meta_with({key, "v"});
  twice.push_back({key, "w"});
  expect(base, twice, defaults, Reason::kDuplicateKey,
         "writer: a repeated metadata key is not kDuplicateKey");
  std::size_t longest_key = longest;
  for (const auto& [k, v] : base_meta) longest_key = std::max(longest_key, k.size());
  stguard::Limits keys = defaults;
  keys.max_name_bytes = longest_key;
  expect(base, meta_with({std::string(longest_key + 1, '\x7f'), "v"}), keys, Reason::kLimitExceeded,
         "writer: a metadata key above max_name_bytes is not kLimitExceeded");
  expect(base, meta_with({key + std::string(1, '\0'), "v"}), defaults, Reason::kNameInvalid,
         "writer: a metadata key with U+0000 is not kNameInvalid");
  expect(base, meta_with({key, "\xc3"}), defaults, Reason::kMetadataInvalid,
         "writer: a truncated UTF-8 metadata value is not kMetadataInvalid");
  expect(base, meta_with({key, std::string(1, '\0')}), defaults, Reason::kMetadataInvalid,
         "writer: a metadata value with U+0000 is not kMetadataInvalid");

  // The canonical header is header_len bytes: one byte less is too large.
  stguard::Limits header = defaults;
  header.max_header_bytes = header_len;
  check(stguard::write_safetensors(base, base_meta, header).has_value(),
        "writer: a header of exactly max_header_bytes is refused");
  header.max_header_bytes = header_len - 1;
  expect(base, base_meta, header, Reason::kHeaderTooLarge,
         "writer: a header above max_header_bytes is not kHeaderTooLarge");
}

// A file only the reference profile accepts.
void check_reference_only(const stguard::Header& h, const std::uint8_t* data) {
  const std::vector<stguard::TensorToWrite> tensors = to_write(h, data);
  const stguard::MetadataPairs metadata = h.metadata.value_or(stguard::MetadataPairs{});
  // The reference profile has none of strict's own caps (name length, rank,
  // tensor count), as upstream: with the writer's (strict's) defaults such a
  // file is refused for a limit, and with the caps lifted it is written and
  // read back by strict with the caps lifted.
  const stguard::Result<std::vector<std::uint8_t>> capped =
      stguard::write_safetensors(tensors, metadata);
  stguard::ParseOptions uncapped;
  uncapped.limits.max_tensors = stguard::kNoLimit;
  uncapped.limits.max_rank = stguard::kNoLimit;
  uncapped.limits.max_name_bytes = stguard::kNoLimit;
  const stguard::Result<std::vector<std::uint8_t>> written =
      stguard::write_safetensors(tensors, metadata, uncapped.limits);
  if (!written) {
    // What the reference profile takes and the writer (strict) cannot write:
    // U+0000 in a name or value, and a shape whose non-zero dimensions
    // overflow beside a zero one (strict refuses the product).
    const stguard::Reason r = written.error().reason;
    check(r == stguard::Reason::kNameInvalid || r == stguard::Reason::kMetadataInvalid ||
              r == stguard::Reason::kSizeOverflow,
          "writer refuses a reference-accepted file for something strict would not refuse");
    check(!capped.has_value(), "writer: lifting the caps refuses what the caps allowed");
    return;
  }
  check(capped.has_value() || capped.error().reason == stguard::Reason::kLimitExceeded,
        "writer refuses a reference-accepted file with strict's caps, not for a limit");
  const stguard::Result<stguard::Header> back = stguard::parse(*written, uncapped);
  check(back.has_value(), "strict rejects the writer's output of a reference-accepted file");
  check_same_content(h, data, *back, *written);
}

// The input behind a path: one memfd per process, refilled for each input
// (creating one per input costs more than the parse).
class MemFile {
 public:
  MemFile() {
    fd_ = memfd_create("stguard-fuzz", MFD_CLOEXEC);
    if (fd_ >= 0) path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  MemFile(const MemFile&) = delete;
  MemFile& operator=(const MemFile&) = delete;
  ~MemFile() {
    if (fd_ >= 0) close(fd_);
  }

  // False when there is no memfd (not Linux) or the write failed.
  bool fill(const std::uint8_t* data, std::size_t size) {
    if (fd_ < 0 || ftruncate(fd_, 0) != 0) return false;
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
      if (n <= 0) return false;
      done += static_cast<std::size_t>(n);
    }
    return true;
  }
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

void check_file_api(const std::uint8_t* data, std::size_t size,
                    const stguard::Result<stguard::Header>& parsed) {
  static MemFile file;
  if (!file.fill(data, size)) return;

  const stguard::Result<stguard::Header> checked = stguard::parse_file(file.path());
  const stguard::Result<stguard::HeaderSummary> validated = stguard::validate_file(file.path());
  stguard::Result<stguard::File> opened = stguard::File::open(file.path());
  check(checked.has_value() == parsed.has_value() && validated.has_value() == parsed.has_value() &&
            opened.has_value() == parsed.has_value(),
        "parse_file / validate_file / File::open disagree with parse");
  if (!parsed) {
    check(stguard_fuzz::same_error(checked.error(), parsed.error()) &&
              stguard_fuzz::same_error(validated.error(), parsed.error()) &&
              stguard_fuzz::same_error(opened.error(), parsed.error()),
          "the file API gives another reason/offset than parse");
    return;
  }
  check(stguard_fuzz::same_header(*checked, *parsed), "parse_file reads another header");
  check(validated->tensor_count == parsed->tensors.size(), "validate_file: tensor_count");
  const stguard::File& f = *opened;
  check(stguard_fuzz::same_header(f.header(), *parsed), "File::open reads another header");
  const std::span<const std::uint8_t> all = f.bytes();
  check(all.size() == size && std::equal(all.begin(), all.end(), data),
        "File::bytes is not the file");
  for (const stguard::TensorInfo& t : f.header().tensors) {
    // An empty view may point anywhere; a non-empty one exactly at the slice.
    const std::span<const std::uint8_t> view = f.tensor_data(t);
    check(view.size() == t.byte_size() &&
              (view.empty() || view.data() == all.data() + f.header().data_offset() + t.begin),
          "File::tensor_data is not the slice the header describes");
    const stguard::Result<std::span<const std::uint8_t>> named = f.tensor_data(t.name);
    check(named.has_value() && named->size() == view.size() &&
              (view.empty() || named->data() == view.data()),
          "File::tensor_data(name) differs from tensor_data(tensor)");
  }
  // A TensorInfo from elsewhere never reads outside the mapping.
  stguard::TensorInfo foreign;
  foreign.end = ~std::uint64_t{0};
  check(f.tensor_data(foreign).empty(),
        "File::tensor_data reads past the file for a foreign range");
  const stguard::Result<std::span<const std::uint8_t>> absent =
      f.tensor_data(fresh_name(f.header(), 9));
  check(!absent.has_value() && absent.error().reason == stguard::Reason::kTensorInvalid &&
            absent.error().offset == 0,
        "File::tensor_data of an absent name is not kTensorInvalid at 0");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  const stguard::Result<stguard::Header> strict = stguard::parse(bytes);
  if (strict) {
    check_file_api(data, size, strict);
    const std::vector<std::uint8_t> canonical = check_round_trip(*strict, data);
    check_writer_refusals(*strict, data, stguard_fuzz::load_le64(canonical.data()));
    return 0;
  }
  stguard::ParseOptions reference_options;
  reference_options.profile = stguard::Profile::kReference;
  const stguard::Result<stguard::Header> reference = stguard::parse(bytes, reference_options);
  if (reference) {
    // Through the file API too, strict's refusal: the same reason and offset.
    check_file_api(data, size, strict);
    check_reference_only(*reference, data);
  }
  return 0;
}
