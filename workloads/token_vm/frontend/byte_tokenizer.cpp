#include "byte_tokenizer.h"

namespace weft::token_vm {

std::vector<Token> ByteTokenizer::encode(std::string_view text) const {
  std::vector<Token> out;
  out.reserve(text.size());
  for (char c : text) out.push_back(Token(static_cast<unsigned char>(c)));
  return out;
}

std::string ByteTokenizer::decode(std::span<const Token> tokens) const {
  std::string out;
  out.reserve(tokens.size());
  for (Token t : tokens)
    if (t < 256) out += char(t);
  return out;
}

std::string ByteTokenizer::token_bytes(Token token) const {
  return token < 256 ? std::string(1, char(token)) : std::string();
}

}  // namespace weft::token_vm
