// The WordPiece, WordLevel and Unigram models and the Precompiled normalizer, each behaviour
// on a small inline tokenizer.json. Expected ids are what Hugging Face's reference (the npm
// package `tokenizers` 0.23) gives for the same model and text.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <weft/error.h>

#include "tokenizer.h"

namespace {

using weft::tokenizer::Tokenizer;
using Ids = std::vector<weft::tokenizer::TokenId>;
using Json = nlohmann::json;

// A tokenizer.json with only a model (and optionally a normalizer): no pre-tokenizer, so the
// whole text reaches the model as one word.
Tokenizer with_model(const Json& model, const Json& normalizer = nullptr) {
  return Tokenizer::from_json(Json{{"model", model}, {"normalizer", normalizer}}.dump());
}

// The message loading `model` fails with ("" when it loads).
std::string load_error(const Json& model, const Json& normalizer = nullptr) {
  try {
    with_model(model, normalizer);
  } catch (const weft::Error& e) {
    return e.what();
  }
  return "";
}

Json wordpiece(Json vocab, uint64_t max_chars = 100, const std::string& prefix = "##") {
  return {{"type", "WordPiece"}, {"unk_token", "[UNK]"}, {"continuing_subword_prefix", prefix},
          {"max_input_chars_per_word", max_chars}, {"vocab", std::move(vocab)}};
}

const Json kWordPieceVocab = {{"[UNK]", 0}, {"un", 1}, {"##aff", 2}, {"##able", 3}, {"unaff", 4}, {"##a", 5}, {"a", 6}, {"##b", 7}};

// Unigram's vocabulary is a list of [piece, score] pairs.
Json unigram(const std::vector<std::pair<std::string, double>>& pieces, Json unk_id = 0, bool byte_fallback = false) {
  Json vocab = Json::array();
  for (const auto& [piece, score] : pieces) vocab.push_back(Json::array({piece, score}));
  return {{"type", "Unigram"}, {"unk_id", std::move(unk_id)}, {"vocab", std::move(vocab)}, {"byte_fallback", byte_fallback}};
}

}  // namespace

TEST_CASE("WordPiece takes the longest vocabulary prefix first, then the longest ## continuation") {
  const auto tok = with_model(wordpiece(kWordPieceVocab));
  CHECK(tok.encode("unaffable") == Ids{4, 3});  // unaff ##able, not un ##aff ##able
  CHECK(tok.encode("unaffa") == Ids{4, 5});
}

TEST_CASE("WordPiece continuations carry the file's continuing_subword_prefix") {
  const auto tok = with_model(wordpiece({{"[UNK]", 0}, {"a", 1}, {"@@b", 2}, {"##b", 3}}, 100, "@@"));
  CHECK(tok.encode("ab") == Ids{1, 2});
}

TEST_CASE("WordPiece turns a word with an unmatchable rest into one unknown token, dropping its matched pieces") {
  const auto tok = with_model(wordpiece(kWordPieceVocab));
  CHECK(tok.encode("unaffablex") == Ids{0});
}

TEST_CASE("WordPiece turns a word longer than max_input_chars_per_word characters into one unknown token") {
  const auto tok = with_model(wordpiece({{"[UNK]", 0}, {"a", 6}, {"##a", 5}, {"\xC3\xA9", 8}, {"##\xC3\xA9", 9}}, 5));
  CHECK(tok.encode("aaaaa") == Ids{6, 5, 5, 5, 5});
  CHECK(tok.encode("aaaaaa") == Ids{0});
  // Characters, not bytes: five two-byte é are within the limit.
  CHECK(tok.encode("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9") == Ids{8, 9, 9, 9, 9});
  CHECK(tok.encode("\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9\xC3\xA9") == Ids{0});
}

TEST_CASE("WordPiece without its unknown token in the vocabulary loads, and fails only on a word that needs it") {
  const auto tok = with_model(wordpiece({{"a", 0}}));
  CHECK(tok.encode("a") == Ids{0});
  CHECK_THROWS_AS(tok.encode("b"), weft::Error);
}

TEST_CASE("WordPiece refuses an option it does not know, naming its JSON path") {
  Json model = wordpiece(kWordPieceVocab);
  model["lowercase"] = true;
  CHECK(load_error(model).find("model.lowercase") != std::string::npos);
}

TEST_CASE("WordPiece requires max_input_chars_per_word, as Hugging Face does") {
  Json model = wordpiece(kWordPieceVocab);
  model.erase("max_input_chars_per_word");
  CHECK(load_error(model).find("max_input_chars_per_word") != std::string::npos);
}

TEST_CASE("WordLevel maps a whole word to its id, and an unseen word to the unknown token") {
  const auto tok = with_model({{"type", "WordLevel"}, {"unk_token", "[UNK]"}, {"vocab", {{"[UNK]", 0}, {"hello", 1}}}});
  CHECK(tok.encode("hello") == Ids{1});
  CHECK(tok.encode("world") == Ids{0});
}

TEST_CASE("WordLevel without its unknown token in the vocabulary fails only on an unseen word") {
  const auto tok = with_model({{"type", "WordLevel"}, {"unk_token", "[UNK]"}, {"vocab", {{"hello", 0}}}});
  CHECK(tok.encode("hello") == Ids{0});
  CHECK_THROWS_AS(tok.encode("world"), weft::Error);
}

TEST_CASE("WordLevel refuses an option it does not know, naming its JSON path") {
  const std::string error =
      load_error({{"type", "WordLevel"}, {"unk_token", "[UNK]"}, {"vocab", {{"[UNK]", 0}}}, {"cache_capacity", 10}});
  CHECK(error.find("model.cache_capacity") != std::string::npos);
}

TEST_CASE("Unigram picks the segmentation with the highest total score") {
  const auto tok = with_model(unigram({{"<unk>", 0}, {"a", -1}, {"b", -1}, {"ab", -1.5}}));
  CHECK(tok.encode("ab") == Ids{3});
}

TEST_CASE("Unigram keeps the earlier-starting piece when two segmentations score the same") {
  const auto tok = with_model(unigram({{"<unk>", 0}, {"a", -1}, {"b", -1}, {"ab", -2}}));
  CHECK(tok.encode("ab") == Ids{3});
}

TEST_CASE("Unigram scores an unknown character ten below the vocabulary's lowest score") {
  // Lowest score -50, so an unknown "a" costs -60: unk + bc wins at -95, loses at -105 to ab + c (-100).
  CHECK(with_model(unigram({{"<unk>", 0}, {"ab", -50}, {"c", -50}, {"bc", -35}})).encode("abc") == Ids{0, 3});
  CHECK(with_model(unigram({{"<unk>", 0}, {"ab", -50}, {"c", -50}, {"bc", -45}})).encode("abc") == Ids{1, 2});
}

TEST_CASE("Unigram fuses a run of unknown characters into one unknown token") {
  const auto tok = with_model(unigram({{"<unk>", 0}, {"a", -1}}));
  CHECK(tok.encode("xyza") == Ids{0, 1});
  CHECK(tok.encode("xay") == Ids{0, 1, 0});
}

TEST_CASE("Unigram fuses the unknown piece's own text with neighbouring unknown characters") {
  const auto tok = with_model(unigram({{"<unk>", 0}, {"a", -1}}));
  CHECK(tok.encode("x<unk>a") == Ids{0, 1});
}

TEST_CASE("Unigram byte fallback spells an unknown run in <0xXX> pieces when all its bytes have one") {
  const auto tok = with_model(unigram({{"<unk>", 0}, {"a", -1}, {"<0xC3>", 0}, {"<0xA9>", 0}, {"<0x78>", 0}}, 0, true));
  CHECK(tok.encode("a\xC3\xA9" "a") == Ids{1, 2, 3, 1});
  CHECK(tok.encode("x\xC3\xA9") == Ids{4, 2, 3});  // the fused run "xé", byte by byte
  CHECK(tok.encode("a\xC3\xBC" "a") == Ids{1, 0, 1});  // ü's 0xBC has no piece: the whole run is unknown
}

TEST_CASE("Unigram without unk_id fails only on a character no piece covers") {
  const auto tok = with_model(unigram({{"a", -1}}, nullptr));
  CHECK(tok.encode("a") == Ids{0});
  CHECK_THROWS_AS(tok.encode("ab"), weft::Error);
}

TEST_CASE("Unigram refuses an unk_id outside the vocabulary, naming its JSON path") {
  CHECK(load_error(unigram({{"a", -1}}, 1)).find("model.unk_id") != std::string::npos);
}

TEST_CASE("Unigram refuses an option it does not know, naming its JSON path") {
  Json model = unigram({{"<unk>", 0}});
  model["nbest_size"] = 4;
  CHECK(load_error(model).find("model.nbest_size") != std::string::npos);
}

TEST_CASE("A model without \"type\" is the first of WordPiece, WordLevel, Unigram whose members it has, as in Hugging Face") {
  Json wordpiece_model = wordpiece({{"[UNK]", 0}, {"a", 1}, {"##b", 2}});
  wordpiece_model.erase("type");
  CHECK(with_model(wordpiece_model).encode("ab") == Ids{1, 2});
  CHECK(with_model({{"unk_token", "[UNK]"}, {"vocab", {{"[UNK]", 0}, {"hello", 1}}}}).encode("hello") == Ids{1});
  Json unigram_model = unigram({{"<unk>", 0}, {"a", -1}, {"b", -1}});
  unigram_model.erase("type");
  CHECK(with_model(unigram_model).encode("ab") == Ids{1, 2});
}

namespace {

// Compiled by SentencePiece's spm_train from the rules ™ -> TM, ﬁ -> fi, U+200B -> (nothing),
// a U+0301 -> á, o -> 0 and o U+0308 -> ö.
constexpr const char* kSmallCharsmap =
    "AAQAAACAAQBhPAMAzAACAIEdAAAJAACAAQAAgIgFAAAMAACAgCQCAAAAAICLDQAAohkAAISUAgADAACArHwCAG8pAACBBQAABgAAgBMAAAASAAAAFQAAABQA"
    "AAAXAAAAFgAAABkAAAAYAAAAGwAAABoAAAAdAAAAHAAAAB8AAAAeAAAAIQAAACAAAAAjAAAAIgAAACUAAAAkAAAAJwAAACYAAAApAAAAKAAAACsAAAAqAAAA"
    "LQAAACwAAAAvAAAALgAAADEAAAAwAAAAMwAAADIAAAA1AAAANAAAADcAAAA2AAAAOQAAADgAAAA7AAAAOgAAAD0AAAA8AAAAPwAAAD4AAABBAAAAQAAAAEMA"
    "AABCAAAARQAAAEQAAABHAAAARgAAAEkAAABIAAAASwAAAEoAAABNAAAATAAAAE8AAABOAAAAUQAAAFAAAABTAAAAUgAAAFUAAABUAAAAVwAAAFYAAABZAAAA"
    "WAAAAFsAAABaAAAAXQAAAFwAAABfAAAAXgAAAGEAAABgAAAAYwAAAGIAAABlAAAAZAAAAGcAAABmAAAAaQAAAGgAAABrAAAAagAAAG0AAABsAAAAbwAAAG4A"
    "AABxAAAAcAAAAHMAAAByAAAAdQAAAHQAAAB3AAAAdgAAAHkAAAB4AAAAewAAAHoAAAB9AAAAfAAAAH8AAAB+AAAAgQAAAIAAAADiKAAAggAAAIUAAACEAAAA"
    "hwAAAIYAAACJAAAAiAAAAIsAAACKAAAAjQAAAIwAAACPAAAA77QAAJEAAACQAAAAkwAAAJIAAACVAAAAlAAAAJcAAACWAAAAmQAAAJgAAACbAAAAmgAAAJ0A"
    "AACcAAAAnwAAAJ4AAAChAAAAoAAAAKMAAACiAAAApQAAAKQAAACnAAAApgAAAKkAAACoAAAAqwAAAKoAAACtAAAArAAAAK8AAACuAAAAsQAAALAAAACzAAAA"
    "sgAAALUAAAC0AAAAtwAAALYAAAC5AAAAuAAAALsAAAC6AAAAvQAAALwAAAC/AAAAvgAAAMEAAADAAAAAwwAAAMIAAADFAAAAxAAAAMcAAADGAAAAyQAAAMwc"
    "AQDLAAAAygAAAM0AAADMAAAAzwAAAM4AAADRAAAA0AAAANMAAADSAAAA1QAAANQAAADXAAAA1gAAANkAAADYAAAA2wAAANoAAADdAAAA3AAAAN8AAADeAAAA"
    "4QAAAOAAAADjAAAA4gAAAOUAAADkAAAA5wAAAOYAAADpAAAA6AAAAOsAAADqAAAA7QAAAOwAAADvAAAA7gAAAPEAAADwAAAA8wAAAPIAAAD1AAAA9AAAAPcA"
    "AAD2AAAA+QAAAPgAAAD7AAAA+gAAAP0AAAD8AAAA/wAAAP4AAAAAMABUTQBmaQDDoQDDtgA=";

// Whether the Precompiled normalizer turns `text` into `expected`: the tokenizer's WordLevel
// model knows `expected` alone, and no pre-tokenizer splits the normalized text.
bool normalizes_to(const std::string& text, const std::string& expected) {
  const Json normalizer = {{"type", "Precompiled"}, {"precompiled_charsmap", kSmallCharsmap}};
  const auto tok = with_model({{"type", "WordLevel"}, {"unk_token", "[UNK]"}, {"vocab", {{"[UNK]", 0}, {expected, 1}}}}, normalizer);
  return tok.encode(text) == Ids{1};
}

}  // namespace

TEST_CASE("Precompiled rewrites characters by the charsmap's rules, expanding and removing") {
  CHECK(normalizes_to("\xE2\x84\xA2 \xEF\xAC\x81ne", "TM fine"));
  CHECK(normalizes_to("zero\xE2\x80\x8Bwidth", "zer0width"));
}

TEST_CASE("Precompiled rewrites a short grapheme cluster as a whole") {
  CHECK(normalizes_to("a\xCC\x81 b", "\xC3\xA1 b"));  // a + U+0301 -> á
}

TEST_CASE("Precompiled replaces a whole grapheme by the shortest rule that prefixes it, as Hugging Face does") {
  CHECK(normalizes_to("o\xCC\x88", "0"));  // o + U+0308: the rule for o wins over the one for ö
}

TEST_CASE("Precompiled rewrites a grapheme of 6 bytes or more character by character") {
  CHECK(normalizes_to("o\xCC\x88\xCC\x88\xCC\x88", "0\xCC\x88\xCC\x88\xCC\x88"));
}

TEST_CASE("Precompiled refuses a charsmap that is not base64, naming its JSON path") {
  const Json normalizer = {{"type", "Precompiled"}, {"precompiled_charsmap", "not base64!"}};
  const Json model = {{"type", "WordLevel"}, {"unk_token", "[UNK]"}, {"vocab", {{"[UNK]", 0}}}};
  CHECK(load_error(model, normalizer).find("normalizer.precompiled_charsmap") != std::string::npos);
}

TEST_CASE("Precompiled refuses an option it does not know, naming its JSON path") {
  const Json normalizer = {{"type", "Precompiled"}, {"precompiled_charsmap", kSmallCharsmap}, {"normalization_rule", "nfkc"}};
  const Json model = {{"type", "WordLevel"}, {"unk_token", "[UNK]"}, {"vocab", {{"[UNK]", 0}}}};
  CHECK(load_error(model, normalizer).find("normalizer.normalization_rule") != std::string::npos);
}
