// tests/base/json_test.cc: base::JsonStream writes the bytes json_line()
// writes for the same value, including invalid UTF-8, empty containers and
// values past its flush threshold.
#include "base/json.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace base = stguard::base;
using nlohmann::ordered_json;

TEST(JsonStream, WritesWhatJsonLineWrites) {
  const std::vector<std::uint64_t> shape = {0, 1, std::numeric_limits<std::uint64_t>::max()};
  ordered_json record;
  record["file"] = "a\xff\"b\\";  // not UTF-8, and characters to escape
  record["ok"] = true;
  record["nested"] = {{"x", nullptr}, {"y", ordered_json::array()}};
  ordered_json tensor;
  tensor["name"] = "w\x01";
  tensor["shape"] = shape;
  tensor["empty"] = ordered_json::array();
  tensor["none"] = ordered_json::object();
  tensor["offsets"] = {std::uint64_t{3}, std::uint64_t{17}};
  ordered_json expected = record;
  expected["tensors"] = {tensor, tensor};

  std::ostringstream out;
  {
    base::JsonStream json(out);
    json.begin_object().members(record).key("tensors").begin_array();
    for (int i = 0; i < 2; ++i) {
      json.begin_object().key("name").value(std::string("w\x01")).key("shape").numbers(shape);
      json.key("empty").numbers({}).key("none").begin_object().end_object();
      json.key("offsets").numbers(std::array<std::uint64_t, 2>{3, 17}).end_object();
    }
    json.end_array().end_object();
  }  // the destructor flushes
  EXPECT_EQ(out.str(), base::json_line(expected));
}

TEST(JsonStream, LongOutputCrossesTheFlushThresholdIntact) {
  std::vector<std::uint64_t> many(300'000);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = i * 1'000'003;
  std::ostringstream out;
  base::JsonStream json(out);
  json.begin_object().key("shape").numbers(many).key("after").value(1).end_object();
  json.flush();
  EXPECT_EQ(out.str(), base::json_line(ordered_json{{"shape", many}, {"after", 1}}));
}

}  // namespace
