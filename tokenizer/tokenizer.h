// Weft's tokenizer: a Hugging Face tokenizer.json, the whole pipeline — added tokens,
// normalizer, pre-tokenizer, model, post-processor, decoder — giving the ids the model's own
// tokenizer gives. Anything in the file it does not implement is refused when the file is
// loaded (weft::Error BadInput naming the component and its JSON path), never skipped.
//
// A Tokenizer is immutable once loaded; encode and decode may run on many threads at once.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace weft::tokenizer {

using TokenId = uint32_t;
struct TokenizerParts;  // the stages of a tokenizer built in code (pipeline.h)

class Tokenizer {
 public:
  // `name` is what error messages call the file.
  static Tokenizer from_json(std::string_view json, const std::string& name = "tokenizer.json");
  static Tokenizer load(const std::string& path);
  // A tokenizer from stages built in code (a GGUF vocabulary, for one).
  static Tokenizer from_parts(TokenizerParts parts);
  ~Tokenizer();
  Tokenizer(Tokenizer&&) noexcept;
  Tokenizer& operator=(Tokenizer&&) noexcept;

  // Text must be valid UTF-8 (BadInput naming the byte otherwise). With add_special_tokens the
  // post-processor's tokens (BOS, [CLS] ...) surround the ids, as Hugging Face's default does.
  std::vector<TokenId> encode(std::string_view text, bool add_special_tokens = false) const;
  // Each text on its own, spread over `threads` threads (0: all hardware threads; at most four
  // per hardware thread are started, whatever is asked).
  std::vector<std::vector<TokenId>> encode_batch(std::span<const std::string> texts, bool add_special_tokens = false,
                                                 unsigned threads = 0) const;
  // Hugging Face's decode: ids outside the vocabulary are left out; invalid UTF-8 the decoder
  // produces becomes U+FFFD.
  std::string decode(std::span<const TokenId> ids, bool skip_special_tokens = false) const;
  // The raw bytes one token stands for inside a text (byte tokens as their byte, byte-level
  // tokens as their bytes, even when those are not whole UTF-8 characters).
  std::string token_bytes(TokenId id) const;

  std::optional<TokenId> token_to_id(std::string_view token) const;
  std::optional<std::string> id_to_token(TokenId id) const;
  bool is_special(TokenId id) const;
  // One past the largest id of the model and the added tokens.
  uint32_t vocab_size() const;
  // A content hash of the file the tokenizer was loaded from (FNV-1a 64, hex), so a saved
  // workflow can say which tokenizer it was compiled with.
  const std::string& fingerprint() const;
  const std::string& name() const;

 private:
  struct Impl;
  explicit Tokenizer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace weft::tokenizer
