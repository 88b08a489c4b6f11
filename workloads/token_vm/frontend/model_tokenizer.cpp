#include "model_tokenizer.h"

namespace weft::token_vm {

ModelTokenizer::ModelTokenizer(std::shared_ptr<const tokenizer::Tokenizer> tokenizer)
    : tokenizer_(std::move(tokenizer)), pad_(tokenizer_->vocab_size()) {
  for (const char* name : {"<pad>", "[PAD]", "<|pad|>", "<|endoftext|>"})
    if (const auto id = tokenizer_->token_to_id(name)) {
      pad_ = *id;
      break;
    }
}

ModelTokenizer::ModelTokenizer(tokenizer::Tokenizer tokenizer)
    : ModelTokenizer(std::make_shared<const tokenizer::Tokenizer>(std::move(tokenizer))) {}

ModelTokenizer ModelTokenizer::load(const std::string& path) { return ModelTokenizer(tokenizer::Tokenizer::load(path)); }

ModelTokenizer ModelTokenizer::borrowing(const tokenizer::Tokenizer& tokenizer) {
  return ModelTokenizer(std::shared_ptr<const tokenizer::Tokenizer>(&tokenizer, [](const tokenizer::Tokenizer*) {}));
}

}  // namespace weft::token_vm
