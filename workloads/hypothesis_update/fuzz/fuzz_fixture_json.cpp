// libFuzzer target: a Monty fixture run's JSON (run.json and objects.json) through
// parse_fixture_json, the reader and checks load_fixture_run applies before any .npy array is
// read (which engine/fuzz/fuzz_npy.cpp covers). The input is run.json, a NUL byte, then
// objects.json; without a NUL both are the whole input (one object may hold both files' keys).
// Only weft::Error(BadInput) is an accepted refusal; a crash, a sanitizer report or any other
// exception is a finding, and so is an accepted run whose config its own validate() refuses.
#include <cstddef>
#include <cstdint>
#include <string>

#include <weft/error.h>

#include "fixture_io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  const std::string run_json = input.substr(0, nul);
  const std::string objects_json = nul == std::string::npos ? input : input.substr(nul + 1);
  try {
    const weft::hypothesis_update::FixtureRun run =
        weft::hypothesis_update::parse_fixture_json({"fuzz/run.json", run_json}, {"fuzz/objects/objects.json", objects_json});
    if (run.num_steps == 0) __builtin_trap();
    try {
      run.config.validate();
    } catch (const weft::Error&) {
      __builtin_trap();  // parse_fixture_json validates the config it returns
    }
  } catch (const weft::Error& e) {
    if (e.code() != weft::ErrorCode::BadInput) __builtin_trap();
  }
  return 0;
}
