// The device every doctest suite tests on, and the guard that fails a test case on any validation
// message. Depends on the engine and doctest only, so workload suites share it too.
#pragma once

#include <doctest/doctest.h>

#include <memory>

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

}  // namespace weft::test
