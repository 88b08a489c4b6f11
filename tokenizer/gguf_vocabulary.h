// A GGUF file's tokenizer: the tokenizer.ggml.* metadata, tokenized the way llama.cpp tokenizes
// it, so a model gets the prompt ids it gets under llama.cpp.
//
// Supported: "gpt2" vocabularies (byte-level BPE with merges, pre-tokenized by the regular
// expressions llama.cpp attaches to the tokenizer.ggml.pre name) and "llama" vocabularies
// (SentencePiece-style: pieces merged by score, byte tokens for the rest). Control, user-defined
// and unknown tokens are cut out of the text first, longest token first, as llama.cpp does with
// special-token parsing on. Other vocabulary types and pre-tokenizer names are refused, naming
// the key and the value.
//
// The reading of the GGUF file itself belongs to its front end (the attention workload's model
// loader); this module sees only the values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer.h"

namespace weft::tokenizer {

// llama.cpp's token types (tokenizer.ggml.token_type).
enum class GgufTokenType : int32_t { Undefined = 0, Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

struct GgufVocabulary {
  std::string source;                    // the file's name, for messages
  std::string general_name;              // general.name (llama.cpp keys a few token rules on it)
  std::string model;                     // tokenizer.ggml.model
  std::string pre;                       // tokenizer.ggml.pre ("" when absent)
  std::vector<std::string> tokens;       // tokenizer.ggml.tokens
  std::vector<float> scores;             // tokenizer.ggml.scores (empty when absent)
  std::vector<int32_t> token_types;      // tokenizer.ggml.token_type (empty when absent)
  std::vector<std::string> merges;       // tokenizer.ggml.merges ("left right")
  std::optional<uint32_t> bos, eos, unk;  // tokenizer.ggml.{bos,eos,unknown}_token_id
  std::optional<bool> add_bos, add_eos, add_space_prefix;  // tokenizer.ggml.add_*
};

// The tokenizer llama.cpp builds from these values. encode(text, add_special_tokens) gives what
// llama_tokenize gives with parse_special on and add_special as asked; decode(ids, true) what
// llama_detokenize gives without special tokens. BadInput naming the key for what is refused.
Tokenizer tokenizer_from_gguf(const GgufVocabulary& vocabulary);

// The tokenizer.ggml.* values llama.cpp's converter writes for a tokenizer.json: byte-level BPE
// files become "gpt2" vocabularies with the pre-tokenizer name `pre` (required for them: the
// converter identifies it by hashing the tokenizer's output, Weft by the caller's word), and
// SentencePiece-style BPE files (byte fallback, U+2581 for spaces) become "llama" vocabularies
// whose scores are minus the token id (the order SentencePiece gives BPE pieces). Added tokens
// become control tokens when special, user-defined otherwise. Other files are refused.
GgufVocabulary gguf_vocabulary_from_tokenizer_file(const std::string& path, const std::string& pre);
// The same from the file's text; `name` stands for the file in messages.
GgufVocabulary gguf_vocabulary_from_tokenizer_json(std::string_view json, const std::string& name, const std::string& pre);

// The tokenizer.ggml.pre names Weft implements.
std::vector<std::string> supported_gguf_pre_tokenizers();

}  // namespace weft::tokenizer
