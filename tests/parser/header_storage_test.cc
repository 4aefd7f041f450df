// A parsed Header keeps every name and every shape in one shared buffer each
// (no allocation per tensor), and its TensorInfo views stay valid
// for as long as the Header or any copy of it lives. Under AddressSanitizer a
// view into freed storage fails these tests.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "stguard/header.h"
#include "tests/support/file_builder.h"
#include "tests/support/test_util.h"

namespace {

using stguard_test::Accepts;
using stguard_test::entry;
using stguard_test::make_file;

// Three tensors; the second name has escapes, so it is decoded, not copied.
const std::string kHeader = "{" + entry("model.embed_tokens.weight", "U8", "2,3", 0, 6) + "," +
                            entry(R"(esc\"aped\u00e9.name)", "U8", "", 6, 7) + "," +
                            entry("lm_head.weight", "U8", "1,1,2", 7, 9) + "}";

bool lies_within(const void* p, std::size_t n, const void* first, std::size_t size) {
  const auto* at = static_cast<const char*>(p);
  const auto* begin = static_cast<const char*>(first);
  return at >= begin && at + n <= begin + size;
}

void expect_contents(const stguard::Header& h) {
  ASSERT_EQ(h.tensors.size(), 3U);
  EXPECT_EQ(h.tensors[0].name, "model.embed_tokens.weight");
  EXPECT_EQ(h.tensors[0].shape, (std::vector<std::uint64_t>{2, 3}));
  EXPECT_EQ(h.tensors[1].name, "esc\"aped\xC3\xA9.name");
  EXPECT_TRUE(h.tensors[1].shape.empty());
  EXPECT_EQ(h.tensors[2].name, "lm_head.weight");
  EXPECT_EQ(h.tensors[2].shape, (std::vector<std::uint64_t>{1, 1, 2}));
}

// A Shape views; one made from a temporary vector would dangle at once, so
// it does not compile. Comparing with a temporary is fine.
static_assert(!std::is_constructible_v<stguard::Shape, std::vector<std::uint64_t>&&>);
static_assert(!std::is_assignable_v<stguard::Shape&, std::vector<std::uint64_t>&&>);
static_assert(std::is_constructible_v<stguard::Shape, std::vector<std::uint64_t>&>);
static_assert(std::is_constructible_v<stguard::Shape, const std::vector<std::uint64_t>&>);

TEST(HeaderStorage, ShapeComparesWithTemporaryVectors) {
  const std::vector<std::uint64_t> dims = {4096, 4096};
  const stguard::Shape shape = dims;
  EXPECT_TRUE(shape == std::vector<std::uint64_t>({4096, 4096}));
  EXPECT_TRUE(std::vector<std::uint64_t>({4096, 4096}) == shape);
  EXPECT_FALSE(shape == std::vector<std::uint64_t>({4096}));
  EXPECT_TRUE(shape != std::vector<std::uint64_t>({4096, 1}));
}

TEST(HeaderStorage, NamesAndShapesViewOneBufferEach) {
  const std::vector<std::uint8_t> file = make_file(kHeader, 9);
  const stguard::Result<stguard::Header> h = stguard::parse(file);
  ASSERT_TRUE(Accepts(h));
  expect_contents(*h);
  ASSERT_NE(h->storage, nullptr);
  const stguard::HeaderStorage& storage = *h->storage;
  // Exactly the names, back to back; exactly the dimensions, back to back.
  EXPECT_EQ(storage.names, "model.embed_tokens.weightesc\"aped\xC3\xA9.namelm_head.weight");
  EXPECT_EQ(storage.dims, (std::vector<std::uint64_t>{2, 3, 1, 1, 2}));
  for (const stguard::TensorInfo& t : h->tensors) {
    EXPECT_TRUE(
        lies_within(t.name.data(), t.name.size(), storage.names.data(), storage.names.size()))
        << t.name;
    if (!t.shape.empty()) {
      EXPECT_TRUE(lies_within(t.shape.data(), t.shape.size_bytes(), storage.dims.data(),
                              storage.dims.size() * sizeof(std::uint64_t)))
          << t.name;
    }
  }
  // Nothing points into the caller's bytes, which may go away.
  for (const stguard::TensorInfo& t : h->tensors) {
    EXPECT_FALSE(lies_within(t.name.data(), t.name.size(), file.data(), file.size())) << t.name;
  }
}

// Tensors whose shapes are written alike view one copy of the dimensions.
// (Spaces after the object keep every entry clear of the header's end, where
// the reader of the common form hands over to the general one.)
TEST(HeaderStorage, RepeatedShapesAreKeptOnce) {
  const std::string header = "{" + entry("a", "U8", "4,5", 0, 20) + "," +
                             entry("b", "U8", "6", 20, 26) + "," + entry("c", "U8", "4,5", 26, 46) +
                             "," + entry("d", "U8", "4,5", 46, 66) + "," +
                             entry("e", "U8", "6", 66, 72) + "}" + std::string(64, ' ');
  for (const stguard::Profile profile : {stguard::Profile::kStrict, stguard::Profile::kReference}) {
    stguard::ParseOptions options;
    options.profile = profile;
    const stguard::Result<stguard::Header> h = stguard::parse(make_file(header, 72), options);
    ASSERT_TRUE(Accepts(h));
    ASSERT_EQ(h->tensors.size(), 5U);
    EXPECT_EQ(h->storage->dims, (std::vector<std::uint64_t>{4, 5, 6}));
    for (const std::size_t i : {0U, 2U, 3U}) {
      EXPECT_EQ(h->tensors[i].shape, (std::vector<std::uint64_t>{4, 5})) << i;
      EXPECT_EQ(h->tensors[i].shape.data(), h->storage->dims.data()) << i;
    }
    for (const std::size_t i : {1U, 4U}) {
      EXPECT_EQ(h->tensors[i].shape, std::vector<std::uint64_t>{6}) << i;
      EXPECT_EQ(h->tensors[i].shape.data(), h->storage->dims.data() + 2) << i;
    }
  }
}

TEST(HeaderStorage, ViewsOutliveTheInputBytes) {
  std::optional<stguard::Header> kept;
  {
    const std::vector<std::uint8_t> file = make_file(kHeader, 9);
    stguard::Result<stguard::Header> h = stguard::parse(file);
    ASSERT_TRUE(Accepts(h));
    kept = std::move(*h);
  }  // the file's bytes are freed here
  expect_contents(*kept);
}

TEST(HeaderStorage, CopiesAndMovesKeepTheViewsValid) {
  std::optional<stguard::Header> copy;
  std::optional<stguard::Header> moved;
  {
    stguard::Result<stguard::Header> h = stguard::parse(make_file(kHeader, 9));
    ASSERT_TRUE(Accepts(h));
    copy = *h;  // shares the storage
    stguard::Header original = std::move(*h);
    moved = std::move(original);
  }  // the parse's own Header is gone
  expect_contents(*copy);
  expect_contents(*moved);
  EXPECT_EQ(copy->tensors, moved->tensors);
  // Copy-assignment over an existing Header, then the source destroyed.
  stguard::Header assigned;
  {
    stguard::Header source = *copy;
    assigned = source;
  }
  copy.reset();
  moved.reset();
  expect_contents(assigned);
}

TEST(HeaderStorage, TensorInfoComparesByValue) {
  const std::vector<std::uint64_t> dims_a = {4, 5};
  const std::vector<std::uint64_t> dims_b = {4, 5};
  const std::string name_a = "t";
  const std::string name_b = "t";
  stguard::TensorInfo a;
  a.name = name_a;
  a.shape = dims_a;
  stguard::TensorInfo b = a;
  b.name = name_b;
  b.shape = dims_b;
  EXPECT_EQ(a, b);  // different buffers, same values
  EXPECT_EQ(a.shape.to_vector(), dims_a);
  const std::vector<std::uint64_t> other = {4, 6};
  b.shape = other;
  EXPECT_NE(a, b);
  b.shape = dims_b;
  b.end = 1;
  EXPECT_NE(a, b);
}

TEST(HeaderStorage, ReferenceDuplicatesViewTheLastContent) {
  // Reference: a repeated name keeps its first position and its last content.
  const std::string text = "{" + entry("a", "U8", "1", 0, 1) + "," + entry("b", "U8", "2", 0, 2) +
                           "," + entry("a", "U8", "3", 2, 5) + "}";
  stguard::ParseOptions options;
  options.profile = stguard::Profile::kReference;
  const stguard::Result<stguard::Header> h = stguard::parse(make_file(text, 5), options);
  ASSERT_TRUE(Accepts(h));
  ASSERT_EQ(h->tensors.size(), 2U);
  EXPECT_EQ(h->tensors[0].name, "a");
  EXPECT_EQ(h->tensors[0].shape, (std::vector<std::uint64_t>{3}));
  EXPECT_EQ(h->tensors[0].begin, 2U);
  EXPECT_EQ(h->tensors[1].name, "b");
  EXPECT_EQ(h->tensors[1].shape, (std::vector<std::uint64_t>{2}));
}

}  // namespace
