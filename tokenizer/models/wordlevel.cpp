// The WordLevel model: a whole pre-token is one vocabulary entry, or the unknown token.
#include <weft/error.h>

#include "../pipeline.h"
#include "models.h"

namespace weft::tokenizer {
namespace {

class WordLevel final : public Model {
 public:
  WordLevel(const Json& j, const JsonPath& at)
      : vocab_(member(j, "vocab", at), at / "vocab"), unk_token_(string_member(j, "unk_token", at)), unk_(vocab_.find(unk_token_)) {}

  void tokenize(std::string_view word, std::vector<TokenId>& ids) const override {
    if (const auto id = vocab_.find(word)) return ids.push_back(*id);
    // As in Hugging Face, a vocabulary without its unknown token fails only once a word needs it.
    if (!unk_) fail(ErrorCode::BadInput, "WordLevel: the unknown token \"" + unk_token_ + "\" is not in the vocabulary");
    ids.push_back(*unk_);
  }
  std::optional<TokenId> token_to_id(std::string_view token) const override { return vocab_.find(token); }
  std::optional<std::string> id_to_token(TokenId id) const override { return vocab_.token(id); }
  size_t vocab_size() const override { return vocab_.size(); }
  uint32_t id_limit() const override { return vocab_.id_limit(); }

 private:
  TokenVocabulary vocab_;
  std::string unk_token_;
  std::optional<TokenId> unk_;
};

}  // namespace

std::unique_ptr<Model> make_wordlevel(const Json& j, const JsonPath& at) {
  only_members(j, {"vocab", "unk_token"}, at);
  return std::make_unique<WordLevel>(j, at);
}

}  // namespace weft::tokenizer
