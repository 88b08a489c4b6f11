// The byte-level tokenizer: token = byte value, plus a pad token (256) that stands for no bytes.
// Exact for any text, and what the tests and the fuzz targets use.
#pragma once

#include <workflow.h>

namespace weft::token_vm {

class ByteTokenizer final : public Tokenizer {
 public:
  static constexpr Token kPad = 256;

  std::vector<Token> encode(std::string_view text) const override;
  std::string decode(std::span<const Token> tokens) const override;  // the pad and unknown ids decode to nothing
  std::string token_bytes(Token token) const override;
  std::string identity() const override { return "bytes"; }
  uint32_t vocab_size() const override { return 257; }  // 256 bytes + the pad
};

}  // namespace weft::token_vm
