// Shared by the doctest files: the device under test, opened once with validation on.
#pragma once

#include <doctest/doctest.h>

#include <weft/weft.h>

#include "conformance.h"
#include "device_under_test.h"

namespace weft::test {

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
