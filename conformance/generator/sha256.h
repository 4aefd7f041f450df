// generator/sha256.h: SHA-256 as lowercase hex, for the manifest (file and
// tensor hashes). Backed by OpenSSL libcrypto.
//
//   std::string h = stguard::conformance::sha256_hex(bytes);  // 64 hex digits
#ifndef STGUARD_CONFORMANCE_GENERATOR_SHA256_H_
#define STGUARD_CONFORMANCE_GENERATOR_SHA256_H_

#include <cstdint>
#include <span>
#include <string>

namespace stguard::conformance {

std::string sha256_hex(std::span<const std::uint8_t> bytes);

}  // namespace stguard::conformance

#endif  // STGUARD_CONFORMANCE_GENERATOR_SHA256_H_
