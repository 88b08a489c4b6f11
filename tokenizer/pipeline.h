// The stages a tokenizer.json describes, as the loader builds them: normalizer, pre-tokenizer,
// model, post-processor, decoder. Each stage kind has one factory that reads its JSON object
// and refuses, naming the JSON path, any type or option it does not implement.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace weft::tokenizer {

using Json = nlohmann::json;
using TokenId = uint32_t;

// Where a JSON value sits in the file, for messages: `pre_tokenizer.pretokenizers[1].pattern`.
struct JsonPath {
  std::string file;  // the file's name, or "tokenizer.json" for text given directly
  std::string path;
  JsonPath operator/(std::string_view key) const;
  JsonPath operator[](size_t index) const;
  std::string str() const;  // "tok.json: pre_tokenizer.pretokenizers[1]"
};

// BadInput errors naming the file and the path.
[[noreturn]] void fail_at(const JsonPath& at, const std::string& what);
[[noreturn]] void unsupported(const JsonPath& at, const std::string& what);

// Typed reads of an object's member, refusing a missing or mistyped one.
const Json& member(const Json& object, const char* key, const JsonPath& at);
std::string string_member(const Json& object, const char* key, const JsonPath& at);
bool bool_member(const Json& object, const char* key, const JsonPath& at, std::optional<bool> fallback = {});
uint64_t uint_member(const Json& object, const char* key, const JsonPath& at);
// A member that may be absent or null; anything else must be a string.
std::optional<std::string> optional_string(const Json& object, const char* key, const JsonPath& at);
// Refuses members other than `known` (and "type"), so an option Weft does not implement is
// never silently ignored.
void only_members(const Json& object, std::initializer_list<const char*> known, const JsonPath& at);

// A piece of text on its way to the model. `at_origin` is true when the piece starts at byte 0
// of the text the caller gave (Metaspace's "first" prepend scheme depends on it); `token` is set
// once an added token or the model has decided the piece's ids.
struct Split {
  std::string text;
  bool at_origin = false;
  std::optional<TokenId> added;  // an added token's id: the piece is final
};

class Normalizer {
 public:
  virtual ~Normalizer() = default;
  virtual void normalize(std::string& text) const = 0;
};

class PreTokenizer {
 public:
  virtual ~PreTokenizer() = default;
  // Replaces each piece without `added` by the pieces it splits into (empty ones dropped).
  virtual void pre_tokenize(std::vector<Split>& splits) const = 0;
};

class Model {
 public:
  virtual ~Model() = default;
  // Appends the ids of one pre-token (never empty).
  virtual void tokenize(std::string_view word, std::vector<TokenId>& ids) const = 0;
  virtual std::optional<TokenId> token_to_id(std::string_view token) const = 0;
  virtual std::optional<std::string> id_to_token(TokenId id) const = 0;
  virtual size_t vocab_size() const = 0;  // how many tokens
  virtual uint32_t id_limit() const = 0;  // one past the largest id
};

class Decoder {
 public:
  virtual ~Decoder() = default;
  // Rewrites the token strings in place; the decoded text is their concatenation.
  virtual void decode_chain(std::vector<std::string>& tokens) const = 0;
  // The raw bytes one token stands for in the middle of a text: the per-token part of the
  // chain, with byte tokens as their bytes and nothing trimmed at the text's ends.
  virtual void piece(std::string& token) const = 0;
};

// Rust's String::from_utf8_lossy: each maximal invalid subsequence becomes one U+FFFD.
std::string utf8_lossy(std::string_view bytes);
// Every occurrence of `from` (non-empty) replaced by `to`, left to right.
std::string replace_all(const std::string& text, std::string_view from, std::string_view to);

class PostProcessor {
 public:
  virtual ~PostProcessor() = default;
  // Surrounds one encoded sequence with the special tokens the processor adds.
  virtual std::vector<TokenId> process(std::vector<TokenId> ids) const = 0;
};

struct AddedToken;

// What a Tokenizer is made of, for front ends that build one in code (Tokenizer::from_parts)
// rather than from a tokenizer.json file. Only `model` is required.
struct TokenizerParts {
  std::string name;         // for messages
  std::string fingerprint;  // identifies the vocabulary (a content hash)
  std::unique_ptr<Normalizer> normalizer;
  std::unique_ptr<PreTokenizer> pre_tokenizer;
  std::unique_ptr<Model> model;
  std::unique_ptr<PostProcessor> post_processor;
  std::unique_ptr<Decoder> decoder;
  std::vector<AddedToken> added_tokens;
  // Hugging Face finds added tokens leftmost-longest; llama.cpp cuts them out longest first
  // (LongestFirstSplitter), matching every one in the text as given.
  enum class AddedTokenMatching { LeftmostLongest, LongestFirst } matching = AddedTokenMatching::LeftmostLongest;
  // llama.cpp: a special token a decode leaves out still holds its place (the decoder sees an
  // empty string), so it can be the first token whose leading space is dropped.
  bool skipped_tokens_keep_place = false;
};

std::unique_ptr<Normalizer> make_normalizer(const Json& j, const JsonPath& at);
std::unique_ptr<PreTokenizer> make_pre_tokenizer(const Json& j, const JsonPath& at);
std::unique_ptr<Model> make_model(const Json& j, const JsonPath& at);
std::unique_ptr<Decoder> make_decoder(const Json& j, const JsonPath& at);
std::unique_ptr<PostProcessor> make_post_processor(const Json& j, const JsonPath& at);

// Splits every piece without `added` by `matches`: (begin, end, is_match) runs that cover the
// piece, shaped by one of Hugging Face's delimiter behaviours.
enum class SplitBehavior { Removed, Isolated, MergedWithPrevious, MergedWithNext, Contiguous };
SplitBehavior split_behavior(const Json& j, const JsonPath& at);
struct MatchRun {
  size_t begin, end;
  bool is_match;
};
void split_piece(const Split& piece, std::vector<MatchRun> runs, SplitBehavior behavior, std::vector<Split>& out);

}  // namespace weft::tokenizer
