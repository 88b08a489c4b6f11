// Shared by the doctest files: the device under test, opened once with validation on.
#pragma once

#include <doctest/doctest.h>

#include <weft/weft.h>

#include "conformance.h"

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

template <class F>
ErrorCode error_code_of(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  return ErrorCode(-1);
}

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
