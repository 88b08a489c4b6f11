// libFuzzer target: token scripts (`weft token-vm run --tokens scripted FILE`, token_script.h)
// on arbitrary bytes, then each line through the byte tokenizer as the run command encodes it.
// Only weft::Error(BadInput) is an accepted refusal; a crash, a sanitizer report or any other
// exception is a finding, and so is an accepted script with no line, an empty line (which
// encodes to no token), or a line the byte tokenizer does not give back unchanged.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <weft/error.h>

#include "byte_tokenizer.h"
#include "token_script.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    const std::vector<std::string> lines =
        weft::token_vm::parse_token_script(std::string(reinterpret_cast<const char*>(data), size), "fuzz.txt");
    if (lines.empty()) __builtin_trap();
    const weft::token_vm::ByteTokenizer bytes;
    for (const std::string& line : lines) {
      const std::vector<weft::token_vm::Token> tokens = bytes.encode(line);
      if (tokens.empty() || bytes.decode(tokens) != line) __builtin_trap();
    }
  } catch (const weft::Error& e) {
    if (e.code() != weft::ErrorCode::BadInput) __builtin_trap();
  }
  return 0;
}
