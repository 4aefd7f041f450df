// stguard/result.h: Result<T>, either a value or an stguard::Error.
//
// The member names follow std::expected (C++23) so the type can be swapped for
// it once every supported compiler ships it:
//
//   stguard::Result<stguard::Header> r = stguard::parse(bytes);
//   if (!r.has_value()) return report(r.error());
//   for (const auto& t : r->tensors) use(t);
//
// The error type is a parameter (Error, the parser's reason + offset +
// message, by default), so that code around the parser reports its own
// failures the same way (stguard's tools use Result<T, base::Failure>).
//
// Accessing value() of an error result (or error() of a value result) is a
// programming error and terminates the process; it never throws.
#ifndef STGUARD_RESULT_H_
#define STGUARD_RESULT_H_

#include <cstdlib>
#include <utility>
#include <variant>

#include "stguard/error.h"

namespace stguard {

template <class T, class E = Error>
class [[nodiscard]] Result {
 public:
  using value_type = T;
  using error_type = E;

  // Implicit by design, so that `return value;` and `return error;` both
  // make a Result.
  // NOLINTNEXTLINE(google-explicit-constructor)
  Result(T value) : state_(std::in_place_index<0>, std::move(value)) {}
  // NOLINTNEXTLINE(google-explicit-constructor)
  Result(E error) : state_(std::in_place_index<1>, std::move(error)) {}

  bool has_value() const noexcept { return state_.index() == 0; }
  explicit operator bool() const noexcept { return has_value(); }

  T& value() & { return *checked_value(); }
  const T& value() const& { return *checked_value(); }
  T&& value() && { return std::move(*checked_value()); }

  const E& error() const& {
    const E* e = std::get_if<1>(&state_);
    if (e == nullptr) std::abort();
    return *e;
  }
  E&& error() && {
    E* e = std::get_if<1>(&state_);
    if (e == nullptr) std::abort();
    return std::move(*e);
  }

  T* operator->() { return checked_value(); }
  const T* operator->() const { return checked_value(); }
  T& operator*() & { return *checked_value(); }
  const T& operator*() const& { return *checked_value(); }

 private:
  T* checked_value() {
    T* v = std::get_if<0>(&state_);
    if (v == nullptr) std::abort();
    return v;
  }
  const T* checked_value() const {
    const T* v = std::get_if<0>(&state_);
    if (v == nullptr) std::abort();
    return v;
  }

  std::variant<T, E> state_;
};

// Result<void>: success carries nothing.
template <class E>
class [[nodiscard]] Result<void, E> {
 public:
  using value_type = void;
  using error_type = E;

  Result() = default;
  // NOLINTNEXTLINE(google-explicit-constructor): `return error;`, as above
  Result(E error) : error_(std::move(error)), ok_(false) {}

  bool has_value() const noexcept { return ok_; }
  explicit operator bool() const noexcept { return ok_; }
  void value() const {
    if (!ok_) std::abort();
  }
  const E& error() const {
    if (ok_) std::abort();
    return error_;
  }

 private:
  E error_{};
  bool ok_ = true;
};

}  // namespace stguard

#endif  // STGUARD_RESULT_H_
