// Shared helpers of the front-end tests.
#pragma once

#include <memory>
#include <string>

#include <doctest/doctest.h>
#include <weft/error.h>

#include "udpl.h"

namespace weft::token_vm::test {

inline std::shared_ptr<const Prompts> prompts_from(const std::string& toml, const std::string& path = "p.toml") {
  return std::make_shared<const Prompts>(parse_udpl(toml, path));
}

// The message of the BadInput error `f` throws; fails the test when it throws nothing or
// another code.
template <class F>
std::string bad_input(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::BadInput);
    return e.what();
  }
  FAIL("expected weft::Error(BadInput), nothing was thrown");
  return {};
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace weft::token_vm::test

// CHECK that `haystack` contains `needle`, printing the haystack when it does not.
#define CHECK_CONTAINS(haystack, needle)                                   \
  do {                                                                     \
    const std::string check_contains_text = (haystack);                    \
    CHECK_MESSAGE(::weft::token_vm::test::contains(check_contains_text, needle), check_contains_text); \
  } while (0)
