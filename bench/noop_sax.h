// nlohmann/json's SAX parser with a handler that accepts everything and keeps
// nothing: the cost of tokenising JSON at all, the floor the benchmarks set
// stguard's reading of a header against (stguard_header_bench in process,
// stguard_read_and_sax as a whole process).
#ifndef STGUARD_BENCH_NOOP_SAX_H_
#define STGUARD_BENCH_NOOP_SAX_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace stguard::bench {

struct NoOpSax {
  bool null() { return true; }
  bool boolean(bool /*value*/) { return true; }
  bool number_integer(std::int64_t /*value*/) { return true; }
  bool number_unsigned(std::uint64_t /*value*/) { return true; }
  bool number_float(double /*value*/, const std::string& /*text*/) { return true; }
  bool string(std::string& /*value*/) { return true; }
  bool binary(nlohmann::json::binary_t& /*value*/) { return true; }
  bool start_object(std::size_t /*elements*/) { return true; }
  bool key(std::string& /*value*/) { return true; }
  bool end_object() { return true; }
  bool start_array(std::size_t /*elements*/) { return true; }
  bool end_array() { return true; }
  bool parse_error(std::size_t /*position*/, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& /*ex*/) {
    return false;
  }
};

}  // namespace stguard::bench

#endif  // STGUARD_BENCH_NOOP_SAX_H_
