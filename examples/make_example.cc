// examples/make_example.cc: produces examples/seed-example.safetensors, the
// worked example of seed 000: tensor a (F32, shape [2], values 1.5 and -2.0)
// at data range [0,8) and tensor b (I64, shape [1], value 3) at [8,16).
//
//   stguard_make_example OUT            write the file
//   stguard_make_example --check FILE   exit 0 when FILE is byte for byte
//                                       what this program writes, else 1
//
// The example keeps the seed's layout, a before b. The canonical writer
// (stguard::write_safetensors, the upstream order) would put the I64 tensor
// first, so the header is laid out here by hand and then held against the
// library twice: the strict parser must accept it with exactly these tensors,
// and the writer's canonical file for the same tensors must hold the same
// names, dtypes, shapes and bytes. `stguard inspect` on it therefore shows a
// NON_CANONICAL_ORDER lint: a valid file, not the one the writer would make.
#include <stguard/stguard.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace {

constexpr std::string_view kHeaderJson =
    R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},)"
    R"("b":{"dtype":"I64","shape":[1],"data_offsets":[8,16]}})";

// Little-endian element bytes: F32 1.5 = 0x3FC00000, F32 -2.0 = 0xC0000000,
// I64 3.
constexpr std::array<std::uint8_t, 8> kTensorA = {0x00, 0x00, 0xC0, 0x3F, 0x00, 0x00, 0x00, 0xC0};
constexpr std::array<std::uint8_t, 8> kTensorB = {0x03, 0, 0, 0, 0, 0, 0, 0};

std::vector<std::uint8_t> build_file() {
  std::string header(kHeaderJson);
  header.append((8 - header.size() % 8) % 8, ' ');  // pad to 8 like the writer
  std::vector<std::uint8_t> out;
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(n >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), kTensorA.begin(), kTensorA.end());
  out.insert(out.end(), kTensorB.begin(), kTensorB.end());
  return out;
}

struct Expected {
  std::string_view name;
  stguard::Dtype dtype;
  std::vector<std::uint64_t> shape;
  std::span<const std::uint8_t> data;
};

// The tensors the file must hold, whatever their order.
std::vector<Expected> expected_tensors() {
  return {{"a", stguard::Dtype::kF32, {2}, kTensorA}, {"b", stguard::Dtype::kI64, {1}, kTensorB}};
}

// Empty when `file` holds exactly the expected tensors, else what differs.
std::string compare_contents(std::span<const std::uint8_t> file, std::string_view what) {
  const stguard::Result<stguard::Header> header = stguard::parse(file);
  if (!header) return std::string(what) + " rejected: " + header.error().to_string();
  const std::vector<Expected> expected = expected_tensors();
  if (header->tensors.size() != expected.size()) {
    return std::string(what) + ": wrong tensor count";
  }
  for (const Expected& e : expected) {
    const stguard::TensorInfo* t = header->find(e.name);
    if (t == nullptr || t->dtype != e.dtype || t->shape != e.shape) {
      return std::string(what) + ": tensor " + std::string(e.name) + " differs";
    }
    const std::span<const std::uint8_t> bytes =
        file.subspan(header->data_offset() + t->begin, t->byte_size());
    if (!std::equal(bytes.begin(), bytes.end(), e.data.begin(), e.data.end())) {
      return std::string(what) + ": data of tensor " + std::string(e.name) + " differs";
    }
  }
  return {};
}

// Builds the example and cross-checks it with the library.
std::optional<std::vector<std::uint8_t>> make_checked_example() {
  const std::vector<std::uint8_t> file = build_file();
  if (std::string problem = compare_contents(file, "example"); !problem.empty()) {
    std::cerr << "stguard_make_example: " << problem << "\n";
    return std::nullopt;
  }
  std::vector<stguard::TensorToWrite> to_write;
  for (const Expected& e : expected_tensors()) {
    to_write.push_back({std::string(e.name), e.dtype, e.shape, e.data});
  }
  const stguard::Result<std::vector<std::uint8_t>> canonical = stguard::write_safetensors(to_write);
  if (!canonical) {
    std::cerr << "stguard_make_example: writer refused: " << canonical.error().to_string() << "\n";
    return std::nullopt;
  }
  if (std::string problem = compare_contents(*canonical, "writer output"); !problem.empty()) {
    std::cerr << "stguard_make_example: " << problem << "\n";
    return std::nullopt;
  }
  return file;
}

std::optional<std::vector<std::uint8_t>> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                  std::istreambuf_iterator<char>());
  if (in.bad()) return std::nullopt;
  return bytes;
}

int check(const std::string& path, const std::vector<std::uint8_t>& expected) {
  const std::optional<std::vector<std::uint8_t>> actual = read_file(path);
  if (!actual) {
    std::cerr << "stguard_make_example: cannot read " << path << "\n";
    return 1;
  }
  if (*actual == expected) return 0;
  std::size_t i = 0;
  while (i < actual->size() && i < expected.size() && (*actual)[i] == expected[i]) ++i;
  std::cerr << "stguard_make_example: " << path << " differs from the generated example at byte "
            << i << " (sizes " << actual->size() << " and " << expected.size()
            << "); regenerate it with stguard_make_example " << path << "\n";
  return 1;
}

int write(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    std::cerr << "stguard_make_example: cannot write " << path << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string_view> args(argv + 1, argv + argc);
  const bool check_mode = args.size() == 2 && args[0] == "--check";
  if (!check_mode && (args.size() != 1 || args[0].empty() || args[0][0] == '-')) {
    std::cerr << "usage: stguard_make_example OUT | --check FILE\n";
    return 2;
  }
  const std::optional<std::vector<std::uint8_t>> example = make_checked_example();
  if (!example) return 1;
  const std::string path(check_mode ? args[1] : args[0]);
  return check_mode ? check(path, *example) : write(path, *example);
}
