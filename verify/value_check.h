// verify/value_check.h (internal to verify/): the value scan of
// `verify --scan-values`: one ValueScanner per accepted shard, fed by
// whichever read of the shard comes first (the checksum pass hashing it, or
// the value pass itself for shards nothing hashes), then the findings
// tensor_nan, tensor_inf and tensor_all_zero and the report's `values`.
//
//   values.add(shard_name, header.tensors, header.data_offset());   // shards pass
//   read_file_once(reads, name, true, values.claim(name), &done);    // checksum pass
//   check_values(reads, shards, values, findings);  // passes.h: the rest, then findings
#ifndef STGUARD_VERIFY_VALUE_CHECK_H_
#define STGUARD_VERIFY_VALUE_CHECK_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "base/sha256.h"
#include "stguard/header.h"
#include "verify/value_scan.h"

namespace stguard::verify {

class ValueScans {
 public:
  // A scanner for the accepted shard `name`. Called before any read starts.
  void add(const std::string& name, std::span<const TensorInfo> tensors, std::uint64_t data_offset);

  // The sink for a read of `name` that feeds its scanner; empty when `name`
  // has no scanner or an earlier read claimed it (a shard is scanned by one
  // read only). Safe to call from several threads at once, as long as no
  // add() runs meanwhile.
  base::ChunkSink claim(const std::string& name) const;

  // Whether `name` has a scanner, and whether a read claimed it.
  bool has(const std::string& name) const { return shards_.count(name) != 0; }
  bool claimed(const std::string& name) const;

  // The results for `name` (empty when it has no scanner). Once per shard,
  // after every read has finished.
  std::vector<TensorValues> finish(const std::string& name);

 private:
  struct Shard {
    Shard(std::span<const TensorInfo> tensors, std::uint64_t data_offset)
        : scanner(tensors, data_offset) {}
    ValueScanner scanner;
    mutable std::atomic<bool> claimed{false};
  };
  std::map<std::string, std::unique_ptr<Shard>> shards_;
};

}  // namespace stguard::verify

#endif  // STGUARD_VERIFY_VALUE_CHECK_H_
