// CHECK that `haystack` contains `needle`, printing the haystack when it does not.
#pragma once

#include <string>

#include <doctest/doctest.h>

#define CHECK_CONTAINS(haystack, needle)                                                   \
  do {                                                                                     \
    const std::string check_contains_text = (haystack);                                    \
    CHECK_MESSAGE(check_contains_text.find(needle) != std::string::npos, check_contains_text); \
  } while (0)
