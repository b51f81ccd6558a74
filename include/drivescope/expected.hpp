// A small result-or-error value. C++20 has no std::expected; results are values, never sticky
// error state (see docs/architecture.md), so every fallible call returns one of these.
#pragma once
#include <string>
#include <utility>
#include <variant>

namespace ds {

struct Error {
  int code = 0;         // errno-style code when there is one, else 0
  std::string message;  // what went wrong, phrased for a user
};

template <class T>
class Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}            // NOLINT: implicit on purpose
  Expected(Error error) : v_(std::move(error)) {}        // NOLINT
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

inline Error make_error(std::string message, int code = 0) { return Error{code, std::move(message)}; }

}  // namespace ds
