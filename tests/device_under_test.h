// What every doctest suite shares (the engine's and the workloads', through weft_test_support):
// the device they test on, the guard that fails a test case on any validation message, and the
// code and message of the error a call throws. Depends on the engine and doctest only.
#pragma once

#include <doctest/doctest.h>

#include <cstdlib>
#include <memory>
#include <string>

#include <weft/weft.h>

namespace weft::test {

// The default device (WEFT_DEVICE picks another) with the Khronos validation layer enabled.
inline Device& device() {
  static std::unique_ptr<Device> dev = [] {
    DeviceOptions o;
    o.validation = true;
    return Device::open(o);
  }();
  return *dev;
}

// Fails the enclosing test case if the validation layer said anything while it ran.
struct ValidationClean {
  ValidationClean() { device().validation().clear(); }
  ~ValidationClean() {
    for (const auto& m : device().validation().messages()) FAIL_CHECK("validation: " << m);
  }
};

inline bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

template <class F>
ErrorCode error_code_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode(-1);
}

// Sets an environment variable for one scope (the engine's limits and caps read theirs when
// they apply them).
struct ScopedEnv {
  const char* name;
  ScopedEnv(const char* n, const char* value) : name(n) { ::setenv(n, value, 1); }
  ~ScopedEnv() { ::unsetenv(name); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;
};

template <class F>
std::string error_message_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace weft::test
