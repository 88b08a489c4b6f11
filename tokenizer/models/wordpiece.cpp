// The WordPiece model (BERT's): a word becomes its longest vocabulary prefix, then the longest
// "##"-prefixed continuation, and so on; a word with any unmatchable rest, or longer than
// max_input_chars_per_word characters, becomes the single unknown token — as Hugging Face does.
#include <algorithm>

#include <weft/error.h>

#include "../pipeline.h"
#include "models.h"

namespace weft::tokenizer {
namespace {

class WordPiece final : public Model {
 public:
  WordPiece(const Json& j, const JsonPath& at)
      : vocab_(member(j, "vocab", at), at / "vocab"),
        unk_token_(string_member(j, "unk_token", at)),
        prefix_(string_member(j, "continuing_subword_prefix", at)),
        max_chars_(uint_member(j, "max_input_chars_per_word", at)),
        unk_(vocab_.find(unk_token_)) {}

  void tokenize(std::string_view word, std::vector<TokenId>& ids) const override;
  std::optional<TokenId> token_to_id(std::string_view token) const override { return vocab_.find(token); }
  std::optional<std::string> id_to_token(TokenId id) const override { return vocab_.token(id); }
  size_t vocab_size() const override { return vocab_.size(); }
  uint32_t id_limit() const override { return vocab_.id_limit(); }

 private:
  std::optional<TokenId> longest_piece(std::string_view word, size_t start, size_t& end) const;
  TokenId unknown() const;

  TokenVocabulary vocab_;
  std::string unk_token_, prefix_;
  uint64_t max_chars_;
  std::optional<TokenId> unk_;
};

size_t char_count(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += (uint8_t(c) & 0xC0) != 0x80;
  return n;
}

// Hugging Face loads a vocabulary without the unknown token and fails only when a word needs it.
TokenId WordPiece::unknown() const {
  if (!unk_) fail(ErrorCode::BadInput, "WordPiece: the unknown token \"" + unk_token_ + "\" is not in the vocabulary");
  return *unk_;
}

// The id of the longest vocabulary piece word[start, end) (prefixed unless at the word's start),
// shrinking `end` a character at a time; nullopt when not even one character matches. Pieces
// longer than the vocabulary's longest token are skipped unprobed, which keeps a long word
// (when max_input_chars_per_word allows one) linear rather than quadratic.
std::optional<TokenId> WordPiece::longest_piece(std::string_view word, size_t start, size_t& end) const {
  thread_local std::string candidate;
  end = std::min(word.size(), start + vocab_.longest_token_bytes());
  while (end < word.size() && (uint8_t(word[end]) & 0xC0) == 0x80) --end;  // back to a character boundary
  while (end > start) {
    candidate.assign(start > 0 ? prefix_ : std::string());
    candidate.append(word.substr(start, end - start));
    if (const auto id = vocab_.find(candidate)) return id;
    do --end;
    while (end > start && (uint8_t(word[end]) & 0xC0) == 0x80);
  }
  return std::nullopt;
}

void WordPiece::tokenize(std::string_view word, std::vector<TokenId>& ids) const {
  if (char_count(word) > max_chars_) return ids.push_back(unknown());
  const size_t first = ids.size();
  for (size_t start = 0, end = 0; start < word.size(); start = end) {
    const auto id = longest_piece(word, start, end);
    if (!id) {
      ids.resize(first);
      return ids.push_back(unknown());
    }
    ids.push_back(*id);
  }
}

}  // namespace

std::unique_ptr<Model> make_wordpiece(const Json& j, const JsonPath& at) {
  // Hugging Face requires all four; its trainer-only "files" never reaches tokenizer.json.
  only_members(j, {"unk_token", "continuing_subword_prefix", "max_input_chars_per_word", "vocab"}, at);
  return std::make_unique<WordPiece>(j, at);
}

}  // namespace weft::tokenizer
