// The token VM's view of a model's own tokenizer (weft::tokenizer::Tokenizer, loaded from a
// Hugging Face tokenizer.json): prompts are encoded exactly as the model's tokenizer encodes
// them, without the post-processor's BOS/EOS (the host decides those).
#pragma once

#include <memory>
#include <string>

#include <tokenizer.h>
#include <workflow.h>

namespace weft::token_vm {

class ModelTokenizer final : public Tokenizer {
 public:
  explicit ModelTokenizer(tokenizer::Tokenizer tokenizer);
  // BadInput naming the file and the JSON path of anything malformed or unsupported.
  static ModelTokenizer load(const std::string& path);
  // A view of `tokenizer`, which must outlive it (a model's own vocabulary, e.g. from GGUF).
  static ModelTokenizer borrowing(const tokenizer::Tokenizer& tokenizer);

  std::vector<Token> encode(std::string_view text) const override { return tokenizer_->encode(text); }
  std::string decode(std::span<const Token> tokens) const override { return tokenizer_->decode(tokens); }
  std::string token_bytes(Token token) const override { return tokenizer_->token_bytes(token); }
  uint32_t vocab_size() const override { return tokenizer_->vocab_size(); }
  std::string identity() const override { return "tokenizer.json fnv1a-64 " + tokenizer_->fingerprint(); }

  // The token named like a pad (<pad>, [PAD], <|pad|>, <|endoftext|>), else vocab_size().
  Token pad_token() const { return pad_; }
  const tokenizer::Tokenizer& tokenizer() const { return *tokenizer_; }

 private:
  explicit ModelTokenizer(std::shared_ptr<const tokenizer::Tokenizer> tokenizer);
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer_;  // owned, or borrowed (no-op deleter)
  Token pad_;
};

}  // namespace weft::token_vm
