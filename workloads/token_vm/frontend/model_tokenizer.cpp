#include "model_tokenizer.h"

namespace weft::token_vm {

ModelTokenizer::ModelTokenizer(tokenizer::Tokenizer tokenizer) : tokenizer_(std::move(tokenizer)), pad_(tokenizer_.vocab_size()) {
  for (const char* name : {"<pad>", "[PAD]", "<|pad|>", "<|endoftext|>"})
    if (const auto id = tokenizer_.token_to_id(name)) {
      pad_ = *id;
      break;
    }
}

ModelTokenizer ModelTokenizer::load(const std::string& path) { return ModelTokenizer(tokenizer::Tokenizer::load(path)); }

}  // namespace weft::token_vm
