// The pipeline's stages on the small hand-made vocabulary (small_tokenizer.h): BPE merge order,
// byte-level pre-tokenization, added tokens and their flags, decoding, batches. Expected ids
// with added-token flags come from Hugging Face's reference (npm `tokenizers` 0.23.2) on the
// same file.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "byte_level.h"
#include "small_tokenizer.h"
#include "tokenizer.h"

using namespace weft::tokenizer;
using namespace weft::tokenizer::test;
using Ids = std::vector<TokenId>;

namespace {

Tokenizer small(const SmallSpec& spec = {}) { return Tokenizer::from_json(small_tokenizer_json(spec)); }

Ids bytes(const std::string& s) { return Ids(s.begin(), s.end()); }

// The small tokenizer with flags set on the <tool> added token.
Tokenizer with_tool_flags(const nlohmann::json& flags) {
  auto j = nlohmann::json::parse(small_tokenizer_json());
  j["added_tokens"][1].update(flags);
  return Tokenizer::from_json(j.dump());
}

}  // namespace

TEST_CASE("GPT-2's byte-level alphabet maps printable Latin-1 to itself and the rest to U+0100 on") {
  CHECK(byte_level::byte_to_char(' ') == U'Ġ');
  CHECK(byte_level::byte_to_char('\n') == U'Ċ');
  CHECK(byte_level::byte_to_char(0) == U'Ā');
  CHECK(byte_level::byte_to_char(0xAD) == U'Ń');  // the last remapped byte
  CHECK(byte_level::byte_to_char('a') == U'a');
  CHECK(byte_level::byte_to_char(0xE9) == U'é');
  for (int b = 0; b < 256; ++b) CHECK(byte_level::char_to_byte(byte_level::byte_to_char(uint8_t(b))) == uint8_t(b));
}

TEST_CASE("BPE merges apply lowest rank first") {
  const Tokenizer t = small();
  CHECK(t.encode("hello") == Ids{kHello});
  CHECK(t.encode("ell") == Ids{'e', kLl});  // (l,l) ranks before (e,l)
  CHECK(t.encode("hel") == Ids{kHe, 'l'});
  CHECK(t.encode("hello world") == Ids{kHello, kWorld});
}

TEST_CASE("merges written as pairs mean the same as merges written as \"a b\"") {
  SmallSpec pairs;
  pairs.merges_as_pairs = true;
  CHECK(small(pairs).encode("hello world ell") == small().encode("hello world ell"));
}

TEST_CASE("the ByteLevel regex keeps merges inside GPT-2's pieces") {
  const Tokenizer t = small();
  CHECK(t.encode("a  b") == bytes("a  b"));                  // " " and " b": no (Ġ,Ġ) across them
  CHECK(t.encode("a  ") == Ids{'a', kSpaceSpace});          // a trailing run of spaces is one piece
  CHECK(t.encode("ab12") == bytes("ab12"));                  // letters and digits are separate pieces
}

TEST_CASE("ByteLevel's add_prefix_space adds a space to a piece that does not start with one") {
  SmallSpec prefix;
  prefix.pre_tokenizer = R"({"type": "ByteLevel", "add_prefix_space": true, "use_regex": true})";
  CHECK(small(prefix).encode("world") == Ids{kWorld});
}

TEST_CASE("ignore_merges takes a whole pre-token that is in the vocabulary as one id") {
  SmallSpec ignore;
  ignore.extra_model_members = R"(, "ignore_merges": true)";
  CHECK(small(ignore).encode("hell") == Ids{258});
  CHECK(small().encode("hell") == Ids{258});  // here the merges reach the same token
}

TEST_CASE("added tokens are found anywhere, the longest first, and decode to their content") {
  const Tokenizer t = small();
  CHECK(t.encode("hello<|endoftext|> world") == Ids{kHello, kEndOfText, kWorld});
  CHECK(t.encode("<tool><tool>hello") == Ids{kTool, kTool, kHello});
  CHECK(t.decode(Ids{kHello, kEndOfText, kWorld}) == "hello<|endoftext|> world");
  CHECK(t.decode(Ids{kHello, kEndOfText, kWorld}, true) == "hello world");  // special tokens skipped
  CHECK(t.is_special(kEndOfText));
  CHECK_FALSE(t.is_special(kTool));
}

TEST_CASE("an added token's lstrip takes the whitespace before it") {
  const Tokenizer t = with_tool_flags({{"lstrip", true}});
  CHECK(t.encode("hello <tool>") == Ids{kHello, kTool});
  CHECK(t.encode("hello   <tool>world") == Ids{kHello, kTool, 119, 261, 263});
  CHECK(t.encode(" <tool>") == Ids{kTool});
}

TEST_CASE("an added token's rstrip takes the whitespace after it") {
  const Tokenizer t = with_tool_flags({{"rstrip", true}});
  CHECK(t.encode("<tool>  world") == Ids{kTool, 119, 261, 263});
  CHECK(t.encode("<tool> ") == Ids{kTool});
  CHECK(t.encode("hello<tool>\n\nworld") == Ids{kHello, kTool, 119, 261, 263});
}

TEST_CASE("a single_word added token is taken only between non-word characters") {
  const Tokenizer t = with_tool_flags({{"single_word", true}});
  CHECK(t.encode("x<tool>y") == Ids{120, 60, 116, 111, 111, 108, 62, 121});
  CHECK(t.encode("hello <tool> world") == Ids{kHello, 32, kTool, kWorld});
  CHECK(t.encode("<tool>") == Ids{kTool});
  CHECK(t.encode("é<tool>") == Ids{195, 169, 60, 116, 111, 111, 108, 62});  // é is a word character
}

TEST_CASE("added tokens take the ids Hugging Face gives them, not the ones the file writes") {
  auto j = nlohmann::json::parse(small_tokenizer_json());
  j["added_tokens"][0]["id"] = 5000;  // not in the vocabulary: the next id after it
  j["added_tokens"][1]["content"] = "hello";  // in the vocabulary: its vocabulary id
  const Tokenizer t = Tokenizer::from_json(j.dump());
  CHECK(t.token_to_id("<|endoftext|>") == 268u);
  CHECK(t.token_to_id("hello") == kHello);
  CHECK(t.vocab_size() == 269);
}

TEST_CASE("a post-processor's tokens are added only when asked for") {
  auto j = nlohmann::json::parse(small_tokenizer_json());
  j["post_processor"] = nlohmann::json::parse(R"({"type": "TemplateProcessing",
      "single": [{"SpecialToken": {"id": "<|endoftext|>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}],
      "pair": [], "special_tokens": {"<|endoftext|>": {"id": "<|endoftext|>", "ids": [268], "tokens": ["<|endoftext|>"]}}})");
  const Tokenizer t = Tokenizer::from_json(j.dump());
  CHECK(t.encode("hello") == Ids{kHello});
  CHECK(t.encode("hello", true) == Ids{kEndOfText, kHello});
}

TEST_CASE("token bytes are the raw bytes of a token, even part of a UTF-8 character") {
  const Tokenizer t = small();
  CHECK(t.token_bytes(kWorld) == " world");
  CHECK(t.token_bytes(0xC3) == "\xC3");
  CHECK(t.decode(Ids{0xC3}) == "\xEF\xBF\xBD");  // decode, like the reference, gives text: U+FFFD
  std::string joined;
  for (TokenId id : t.encode("é ☃ 日本語 \x01 tail")) joined += t.token_bytes(id);
  CHECK(joined == "é ☃ 日本語 \x01 tail");
}

TEST_CASE("a batch encodes each text as encode does, on several threads") {
  const Tokenizer t = small();
  std::vector<std::string> texts;
  for (int i = 0; i < 200; ++i) texts.push_back(std::string(size_t(i % 7), ' ') + "hello world" + std::to_string(i));
  const auto batch = t.encode_batch(texts, false, 4);
  REQUIRE(batch.size() == texts.size());
  for (size_t i = 0; i < texts.size(); ++i) CHECK(batch[i] == t.encode(texts[i]));
}
