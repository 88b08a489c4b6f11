// One factory per tokenizer.json model type (make_model in models.cpp picks by "type").
#pragma once

#include <array>
#include <functional>
#include <unordered_map>

#include "../pipeline.h"

namespace weft::tokenizer {

std::unique_ptr<Model> make_bpe(const Json& j, const JsonPath& at);
std::unique_ptr<Model> make_wordpiece(const Json& j, const JsonPath& at);
std::unique_ptr<Model> make_wordlevel(const Json& j, const JsonPath& at);
std::unique_ptr<Model> make_unigram(const Json& j, const JsonPath& at);
// llama.cpp's score-merging SentencePiece tokenizer (GGUF "llama" vocabularies; `where` names
// the file in messages). tokens[id] and scores[id] per id.
std::unique_ptr<Model> make_llama_spm(std::vector<std::string> tokens, std::vector<float> scores, std::string where);

// A vocabulary's ids index dense arrays: an id far past the number of tokens (here, past
// 16 x tokens + 65,536) is refused naming it, rather than allocating for every id below it.
void check_dense_id(uint64_t id, size_t tokens, const JsonPath& at);

// SentencePiece's name for a byte token: <0x0A>.
inline std::string byte_token_name(uint8_t byte) {
  static const char* hex = "0123456789ABCDEF";
  return std::string("<0x") + hex[byte >> 4] + hex[byte & 15] + ">";
}

// A string-keyed hash map that string_views can probe without a copy.
struct StringViewHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
template <typename Value>
using StringMap = std::unordered_map<std::string, Value, StringViewHash, std::equal_to<>>;

// A {"token": id, ...} vocabulary with its reverse map, as WordPiece and WordLevel store it.
// Lookups take a string_view so a model can probe substrings without copying them.
class TokenVocabulary {
 public:
  TokenVocabulary(const Json& object, const JsonPath& at);
  std::optional<TokenId> find(std::string_view token) const {
    const auto it = ids_.find(token);
    return it == ids_.end() ? std::nullopt : std::optional<TokenId>(it->second);
  }
  std::optional<std::string> token(TokenId id) const {
    if (id >= tokens_.size() || !has_id_[id]) return std::nullopt;
    return tokens_[id];
  }
  size_t size() const { return ids_.size(); }
  uint32_t id_limit() const { return uint32_t(tokens_.size()); }
  size_t longest_token_bytes() const { return longest_; }

 private:
  StringMap<TokenId> ids_;
  std::vector<std::string> tokens_;
  std::vector<bool> has_id_;
  size_t longest_ = 0;
};

}  // namespace weft::tokenizer
