#include <algorithm>
#include <functional>
#include <map>

#include "models.h"

namespace weft::tokenizer {

void check_dense_id(uint64_t id, size_t tokens, const JsonPath& at) {
  const uint64_t limit = 16 * uint64_t(tokens) + 65536;
  if (id >= limit)
    fail_at(at, "id " + std::to_string(id) + " is far past the vocabulary's " + std::to_string(tokens) +
                    " tokens (ids must be dense: below " + std::to_string(limit) + ")");
}

TokenVocabulary::TokenVocabulary(const Json& object, const JsonPath& at) {
  if (!object.is_object()) fail_at(at, "expected an object of token -> id");
  ids_.reserve(object.size());
  for (const auto& [token, id] : object.items()) {
    if (!id.is_number_unsigned() || id.get<uint64_t>() >= (1u << 31)) fail_at(at / token, "expected an id below 2^31");
    check_dense_id(id.get<uint64_t>(), object.size(), at / token);
    const TokenId v = TokenId(id.get<uint64_t>());
    ids_.emplace(token, v);
    longest_ = std::max(longest_, token.size());
    if (v >= tokens_.size()) tokens_.resize(v + 1), has_id_.resize(v + 1);
    tokens_[v] = token;
    has_id_[v] = true;
  }
}

namespace {

// Files older than the "type" member: Hugging Face tries BPE, WordPiece, WordLevel, Unigram in
// that order and takes the first whose required members are all there.
std::string untyped_model_type(const Json& j) {
  const auto has = [&](std::initializer_list<const char*> keys) {
    return std::all_of(keys.begin(), keys.end(), [&](const char* k) { return j.contains(k); });
  };
  if (has({"vocab", "merges"})) return "BPE";
  if (has({"vocab", "unk_token", "continuing_subword_prefix", "max_input_chars_per_word"})) return "WordPiece";
  if (has({"vocab", "unk_token"})) return "WordLevel";
  if (has({"vocab"}) && j["vocab"].is_array()) return "Unigram";
  return "BPE";  // whose loader names what is missing
}

}  // namespace

std::unique_ptr<Model> make_model(const Json& j, const JsonPath& at) {
  using Factory = std::function<std::unique_ptr<Model>(const Json&, const JsonPath&)>;
  static const std::map<std::string, Factory> table = {
      {"BPE", make_bpe},
      {"WordPiece", make_wordpiece},
      {"WordLevel", make_wordlevel},
      {"Unigram", make_unigram},
  };
  if (j.is_null()) fail_at(at, "a tokenizer needs a model");
  const std::string type = j.contains("type") ? string_member(j, "type", at) : untyped_model_type(j);
  const auto it = table.find(type);
  if (it == table.end()) unsupported(at / "type", "the model \"" + type + "\"");
  return it->second(j, at);
}

}  // namespace weft::tokenizer
