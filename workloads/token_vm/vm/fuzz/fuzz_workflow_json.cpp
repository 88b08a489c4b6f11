// libFuzzer target for the workflow loader (fuzz_workflow_input.h): only weft::Error(BadInput)
// is an accepted outcome; a crash, a sanitizer report or any other exception is a finding.
#include <cstddef>
#include <cstdint>
#include <string>

#include <weft/error.h>

#include "fuzz_workflow_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    weft::token_vm::fuzz_detail::fuzz_workflow_input(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const weft::Error& e) {
    if (e.code() != weft::ErrorCode::BadInput) __builtin_trap();
  }
  return 0;
}
