// libFuzzer: arbitrary bytes as a tokenizer.json. Loading either succeeds or throws weft::Error;
// a tokenizer that loads must encode and decode a mixed text without crashing.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include <weft/error.h>

#include "tokenizer.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const auto tok = weft::tokenizer::Tokenizer::from_json(std::string_view(reinterpret_cast<const char*>(data), size));
    const auto ids = tok.encode("Hello, wörld! 12345 <s> 日本語 \t\n  x");
    (void)tok.decode(ids);
    for (uint32_t id : ids) (void)tok.token_bytes(id);
  } catch (const weft::Error&) {
  }
  return 0;
}
