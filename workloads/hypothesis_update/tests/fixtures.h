// Where the tests find Monty's recorded runs: the subset in the repository (../data/monty), or
// the full recordings when WEFT_MONTY_FIXTURES names them (an optional, longer check).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace weft::hypothesis_update::test {

inline std::string monty_fixtures() {
  const char* full = std::getenv("WEFT_MONTY_FIXTURES");
  return full && *full ? full : WEFT_MONTY_SUBSET;
}

// The steps a run holds (its stepNN folders): 12 in the full recordings, fewer in the subset.
inline size_t recorded_steps(const std::string& run_dir) {
  size_t n = 0;
  while (std::filesystem::is_directory(run_dir + "/step" + (n < 10 ? "0" : "") + std::to_string(n))) ++n;
  return n;
}

}  // namespace weft::hypothesis_update::test
