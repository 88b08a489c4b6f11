// libFuzzer: arbitrary text through every stage, on the small hand-made BPE vocabulary and the
// committed reference-trained WordPiece, Unigram and WordLevel tokenizers. Text that is not UTF-8
// must be refused with weft::Error; anything else must encode, decode and give token bytes.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

#include <weft/error.h>

#include "small_tokenizer.h"
#include "tokenizer.h"
#include "unicode.h"

namespace {

std::vector<weft::tokenizer::Tokenizer> tokenizers() {
  std::vector<weft::tokenizer::Tokenizer> out;
  out.push_back(weft::tokenizer::Tokenizer::from_json(weft::tokenizer::test::small_tokenizer_json()));
  for (const char* name : {"bert_wordpiece", "unigram_metaspace", "wordlevel_whitespace"})
    out.push_back(weft::tokenizer::Tokenizer::load(std::string(WEFT_TOKENIZER_GOLDENS_DIR) + "/" + name + ".tokenizer.json"));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const auto all = tokenizers();
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const bool valid = weft::tokenizer::unicode::invalid_utf8_at(text) == std::string_view::npos;
  for (const auto& tok : all) {
    try {
      const auto ids = tok.encode(text, true);
      if (!valid) __builtin_trap();  // invalid UTF-8 must be refused
      (void)tok.decode(ids);
      for (uint32_t id : ids) (void)tok.token_bytes(id);
    } catch (const weft::Error&) {
      if (valid) __builtin_trap();  // valid text must encode
    }
  }
  return 0;
}
