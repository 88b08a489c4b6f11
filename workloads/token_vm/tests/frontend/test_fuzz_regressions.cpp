// Replays every input kept in fuzz_regressions/ through the fuzz target's code: each must parse,
// compile to a valid workflow and run on the CPU reference, or fail with weft::Error(BadInput);
// never crash or throw anything else.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>

#include <weft/error.h>

#include "../../../../workloads/token_vm/frontend/fuzz/fuzz_udpl_input.h"

TEST_CASE("token_vm frontend: fuzz regressions replay cleanly") {
  namespace fs = std::filesystem;
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(WEFT_TOKEN_VM_FUZZ_REGRESSIONS_DIR))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(!files.empty());
  for (const fs::path& f : files) {
    CAPTURE(f.filename().string());
    std::ifstream in(f, std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      weft::token_vm::fuzz_udpl_input(reinterpret_cast<const uint8_t*>(data.data()), data.size());
    } catch (const weft::Error& e) {
      CHECK(e.code() == weft::ErrorCode::BadInput);
    }
  }
}
