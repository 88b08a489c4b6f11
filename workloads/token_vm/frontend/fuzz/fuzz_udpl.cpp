// libFuzzer target: the UDPL parser, lowering of its default program, and the flow file parser
// (fuzz_udpl_input.h). Only weft::Error(BadInput) is an accepted outcome; a crash, a sanitizer
// report or any other exception is a finding.
#include <cstddef>
#include <cstdint>

#include <weft/error.h>

#include "fuzz_udpl_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    weft::token_vm::fuzz_udpl_input(data, size);
  } catch (const weft::Error& e) {
    if (e.code() != weft::ErrorCode::BadInput) __builtin_trap();
  }
  return 0;
}
