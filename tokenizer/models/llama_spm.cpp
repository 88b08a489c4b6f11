// llama.cpp's SentencePiece tokenizer for "llama" GGUF vocabularies: the text starts as one
// symbol per character, and the adjacent pair whose joined text is the highest-scoring token
// merges first (leftmost among equal scores), until no adjacent pair spells a token. A symbol
// left over that is no token is written as byte tokens.
//
// Every merge joins two symbols into a token, so a final symbol is either a token or a single
// character; llama.cpp's re-segmentation of non-token symbols therefore reduces to bytes.
#include <queue>

#include <weft/error.h>

#include "../unicode.h"
#include "models.h"

namespace weft::tokenizer {
namespace {

class LlamaSpm final : public Model {
 public:
  LlamaSpm(std::vector<std::string> tokens, std::vector<float> scores, std::string where)
      : tokens_(std::move(tokens)), scores_(std::move(scores)), where_(std::move(where)) {
    ids_.reserve(tokens_.size());
    for (TokenId id = 0; id < tokens_.size(); ++id) ids_.emplace(tokens_[id], id);
    for (int b = 0; b < 256; ++b) {
      if (const auto it = ids_.find(byte_token_name(uint8_t(b))); it != ids_.end()) byte_ids_[b] = it->second;
      else if (const auto raw = ids_.find(std::string(1, char(b))); raw != ids_.end()) byte_ids_[b] = raw->second;
    }
  }

  void tokenize(std::string_view text, std::vector<TokenId>& ids) const override;
  std::optional<TokenId> token_to_id(std::string_view token) const override { return find(token); }
  std::optional<std::string> id_to_token(TokenId id) const override {
    return id < tokens_.size() ? std::optional<std::string>(tokens_[id]) : std::nullopt;
  }
  size_t vocab_size() const override { return tokens_.size(); }
  uint32_t id_limit() const override { return uint32_t(tokens_.size()); }

 private:
  struct Symbol {
    size_t begin, size;
    int32_t prev, next;
  };
  struct Bigram {
    float score;
    int32_t left, right;
    size_t size;
    bool operator<(const Bigram& o) const { return score < o.score || (score == o.score && left > o.left); }
  };

  std::optional<TokenId> find(std::string_view text) const {
    const auto it = ids_.find(text);
    return it == ids_.end() ? std::nullopt : std::optional<TokenId>(it->second);
  }
  void push_bigram(std::string_view text, const std::vector<Symbol>& symbols, int32_t left, int32_t right,
                   std::priority_queue<Bigram>& queue) const {
    if (left < 0 || right < 0) return;
    const size_t size = symbols[left].size + symbols[right].size;
    if (const auto id = find(text.substr(symbols[left].begin, size)))
      queue.push({*id < scores_.size() ? scores_[*id] : 0.0f, left, right, size});
  }
  void spell_bytes(std::string_view piece, std::vector<TokenId>& ids) const {
    for (const char c : piece) {
      const auto id = byte_ids_[uint8_t(c)];
      if (!id) {
        fail(ErrorCode::BadInput, where_ + ": the text needs byte token " + byte_token_name(uint8_t(c)) + ", which this SentencePiece vocabulary lacks");
      }
      ids.push_back(*id);
    }
  }

  std::vector<std::string> tokens_;
  std::vector<float> scores_;
  std::string where_;
  StringMap<TokenId> ids_;
  std::array<std::optional<TokenId>, 256> byte_ids_{};
};

void LlamaSpm::tokenize(std::string_view text, std::vector<TokenId>& ids) const {
  std::vector<Symbol> symbols;
  for (size_t at = 0; at < text.size();) {
    const size_t size = std::min<size_t>(unicode::length(uint8_t(text[at])), text.size() - at);
    const int32_t index = int32_t(symbols.size());
    symbols.push_back({at, size, index - 1, at + size == text.size() ? -1 : index + 1});
    at += size;
  }
  std::priority_queue<Bigram> queue;
  for (int32_t i = 1; i < int32_t(symbols.size()); ++i) push_bigram(text, symbols, i - 1, i, queue);
  while (!queue.empty()) {
    const Bigram b = queue.top();
    queue.pop();
    Symbol& left = symbols[b.left];
    Symbol& right = symbols[b.right];
    if (left.size == 0 || right.size == 0 || left.size + right.size != b.size) continue;  // outdated
    left.size += right.size;
    right.size = 0;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = b.left;
    push_bigram(text, symbols, left.prev, b.left, queue);
    push_bigram(text, symbols, b.left, left.next, queue);
  }
  for (int32_t i = symbols.empty() ? -1 : 0; i != -1; i = symbols[i].next) {
    const std::string_view piece = text.substr(symbols[i].begin, symbols[i].size);
    if (const auto id = find(piece)) ids.push_back(*id);
    else spell_bytes(piece, ids);
  }
}

}  // namespace

std::unique_ptr<Model> make_llama_spm(std::vector<std::string> tokens, std::vector<float> scores, std::string where) {
  return std::make_unique<LlamaSpm>(std::move(tokens), std::move(scores), std::move(where));
}

}  // namespace weft::tokenizer
