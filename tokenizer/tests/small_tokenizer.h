// A small byte-level BPE tokenizer.json written in code, for tests that need exact ids worked
// out by hand: ids 0..255 are the byte symbols (GPT-2's byte-level alphabet), 256.. the merge
// results in rank order, then two added tokens.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "byte_level.h"
#include "unicode.h"

namespace weft::tokenizer::test {

inline const std::vector<std::pair<std::string, std::string>> kSmallMerges = {
    {"h", "e"}, {"l", "l"}, {"he", "ll"}, {"hell", "o"}, {"Ġ", "w"}, {"o", "r"},
    {"Ġw", "or"}, {"l", "d"}, {"Ġwor", "ld"}, {"e", "l"}, {"Ġ", "Ġ"}, {"b", "1"}};
inline constexpr uint32_t kHe = 256, kLl = 257, kHello = 259, kWorld = 264, kSpaceSpace = 266, kEndOfText = 268, kTool = 269;

struct SmallSpec {
  bool merges_as_pairs = false;
  std::string pre_tokenizer = R"({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true})";
  std::string normalizer = "null";
  std::string extra_model_members;  // e.g. R"(, "ignore_merges": true)"
};

inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += char(c);
  }
  return out + "\"";
}

inline std::string small_tokenizer_json(const SmallSpec& spec = {}) {
  std::string vocab;
  for (int b = 0; b < 256; ++b) {
    std::string symbol;
    unicode::append(symbol, byte_level::byte_to_char(uint8_t(b)));
    vocab += (vocab.empty() ? "" : ", ") + json_string(symbol) + ": " + std::to_string(b);
  }
  std::string merges;
  for (size_t i = 0; i < kSmallMerges.size(); ++i) {
    const auto& [a, b] = kSmallMerges[i];
    vocab += ", " + json_string(a + b) + ": " + std::to_string(256 + i);
    merges += (i ? ", " : "") + (spec.merges_as_pairs ? "[" + json_string(a) + ", " + json_string(b) + "]" : json_string(a + " " + b));
  }
  return R"({
  "version": "1.0",
  "added_tokens": [
    {"id": 268, "content": "<|endoftext|>", "special": true},
    {"id": 269, "content": "<tool>", "special": false}
  ],
  "normalizer": )" + spec.normalizer + R"(,
  "pre_tokenizer": )" + spec.pre_tokenizer + R"(,
  "decoder": {"type": "ByteLevel"},
  "model": {"type": "BPE", "dropout": null, "unk_token": null)" + spec.extra_model_members + R"(,
            "vocab": {)" + vocab + R"(},
            "merges": [)" + merges + R"(]}
})";
}

}  // namespace weft::tokenizer::test
