// A Hugging Face tokenizer.json loader for byte-level BPE (GPT-2 style: model.type "BPE",
// model.vocab, model.merges, a ByteLevel pre-tokenizer, added_tokens).
//
// Encoding: the text is cut at added tokens (leftmost, longest first; each becomes its own id),
// the rest is pre-tokenized with the GPT-2 rule (contractions, ' ?letters', ' ?digits',
// ' ?other', whitespace runs), and each piece's bytes are merged by rank. The vocabulary's
// keys are written in the GPT-2 byte<->unicode alphabet; they are turned back into raw bytes at
// load time, so merging works on bytes. Letter/digit/space classes are exact for ASCII and an
// approximation for other scripts (non-ASCII code points count as letters except common
// Unicode spaces, punctuation and digits); that only moves pre-token boundaries, never the
// round trip decode(encode(text)) == text.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <workflow.h>

namespace weft::token_vm {

class BpeTokenizer final : public Tokenizer {
 public:
  // Malformed input throws weft::Error(BadInput) naming the file and the key.
  static BpeTokenizer parse(std::string_view json, const std::string& path);
  static BpeTokenizer load(const std::string& path);

  std::vector<Token> encode(std::string_view text) const override;
  std::string decode(std::span<const Token> tokens) const override;  // unknown ids decode to nothing
  std::string token_bytes(Token token) const override;
  uint32_t vocab_size() const override { return uint32_t(id_bytes_.size()); }

  // An added token named like a pad (<pad>, [PAD], <|pad|>, <|endoftext|>), else vocab_size().
  Token pad_token() const { return pad_; }
  // The GPT-2 byte -> unicode map as UTF-8 (what vocab keys are written in).
  static std::string byte_to_unicode(uint8_t byte);

 private:
  void encode_piece(std::string_view bytes, std::vector<Token>& out) const;
  void encode_plain(std::string_view text, std::vector<Token>& out) const;

  std::string path_;
  std::unordered_map<std::string, Token> vocab_;               // raw bytes -> id
  std::map<std::pair<std::string, std::string>, uint32_t> ranks_;  // merge (raw bytes) -> rank
  struct Added {
    std::string content;
    Token id;
  };
  std::vector<Added> added_;         // longest first
  std::vector<std::string> id_bytes_;  // id -> raw bytes
  bool add_prefix_space_ = false;
  bool use_regex_ = true;
  Token unk_ = kNone;
  Token pad_ = 0;
};

}  // namespace weft::token_vm
