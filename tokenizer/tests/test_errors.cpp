// Malformed and unsupported tokenizer.json files: every refusal is a BadInput naming the file
// and the JSON path of what is wrong, at load time; hostile text is refused naming the byte.
#include <doctest/doctest.h>

#include <filesystem>

#include <nlohmann/json.hpp>

#include <weft/error.h>

#include "checks.h"
#include "small_tokenizer.h"
#include "tokenizer.h"

using namespace weft::tokenizer;
using namespace weft::tokenizer::test;

namespace {

std::string refusal(const std::string& json) {
  try {
    Tokenizer::from_json(json, "tok.json");
  } catch (const weft::Error& e) {
    CHECK(e.code() == weft::ErrorCode::BadInput);
    return e.what();
  }
  FAIL("the file was accepted");
  return {};
}

// The small tokenizer with one member replaced (a JSON pointer such as "/pre_tokenizer").
std::string with(const std::string& pointer, const std::string& value_json) {
  auto j = nlohmann::json::parse(small_tokenizer_json());
  j[nlohmann::json::json_pointer(pointer)] = nlohmann::json::parse(value_json);
  return j.dump();
}

}  // namespace

TEST_CASE("a file that is not JSON, or not an object, is refused") {
  CHECK_CONTAINS(refusal("{\"model\": "), "tok.json: JSON syntax error at byte");
  CHECK_CONTAINS(refusal("[1, 2]"), "tok.json: expected a JSON object at the top level");
  CHECK_CONTAINS(refusal("{}"), "tok.json: missing \"model\"");
  CHECK_CONTAINS(refusal(R"({"model": {"type": "BPE", "vocab": {"a": 1e400}, "merges": []}})"), "tok.json: JSON number");
}

TEST_CASE("an unsupported component is refused naming its JSON path") {
  CHECK_CONTAINS(refusal(with("/pre_tokenizer", R"({"type": "UnicodeScripts"})")),
                 "tok.json: pre_tokenizer.type: the pre-tokenizer \"UnicodeScripts\" is not supported");
  CHECK_CONTAINS(refusal(with("/normalizer", R"({"type": "Sequence", "normalizers": [{"type": "NFC"}, {"type": "Nmt"}]})")),
                 "tok.json: normalizer.normalizers[1].type: the normalizer \"Nmt\" is not supported");
  CHECK_CONTAINS(refusal(with("/decoder", R"({"type": "CTC"})")), "tok.json: decoder.type: the decoder \"CTC\" is not supported");
  CHECK_CONTAINS(refusal(with("/model/type", R"("Mystery")")), "tok.json: model.type: the model \"Mystery\" is not supported");
}

TEST_CASE("an option Weft does not implement is refused, never ignored") {
  CHECK_CONTAINS(refusal(with("/model/dropout", "0.1")), "tok.json: model.dropout: BPE dropout (random merges) is not supported");
  CHECK_CONTAINS(refusal(with("/model/shiny", "true")), "tok.json: model.shiny: the option \"shiny\" is not supported");
  CHECK_CONTAINS(refusal(with("/truncation", R"({"max_length": 512})")), "tok.json: truncation: truncation is not supported");
  CHECK_CONTAINS(refusal(with("/padding", R"({"strategy": "BatchLongest"})")), "tok.json: padding: padding is not supported");
  CHECK_CONTAINS(refusal(with("/unknown_member", "1")), "tok.json: unknown_member: the member \"unknown_member\" is not supported");
}

TEST_CASE("a regular expression PCRE2 would read differently from Oniguruma is refused") {
  const std::string split = R"({"type": "Split", "pattern": {"Regex": "[a[bc]]"}, "behavior": "Isolated", "invert": false})";
  CHECK_CONTAINS(refusal(with("/pre_tokenizer", split)), "tok.json: pre_tokenizer.pattern: a nested character class");
  const std::string bad = R"({"type": "Split", "pattern": {"Regex": "(unclosed"}, "behavior": "Isolated", "invert": false})";
  CHECK_CONTAINS(refusal(with("/pre_tokenizer", bad)), "tok.json: pre_tokenizer.pattern: the pattern does not compile");
}

TEST_CASE("a vocabulary or merge list that does not hold together is refused") {
  CHECK_CONTAINS(refusal(R"({"model": {"type": "BPE", "vocab": [], "merges": []}})"), "tok.json: model.vocab: expected an object");
  CHECK_CONTAINS(refusal(R"({"model": {"type": "BPE", "vocab": {"a": "x"}, "merges": []}})"), "tok.json: model.vocab.a");
  CHECK_CONTAINS(refusal(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a"]}})"),
                 "tok.json: model.merges[0]: a merge must be two tokens separated by one space");
  CHECK_CONTAINS(refusal(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a z"]}})"),
                 "tok.json: model.merges[0]: a merge names a token that is not in the vocabulary");
  CHECK_CONTAINS(refusal(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]}})"),
                 "tok.json: model.merges[0]: the merged token \"ab\" is not in the vocabulary");
  CHECK_CONTAINS(refusal(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "unk_token": "<unk>"}})"),
                 "tok.json: model.unk_token: the unknown token \"<unk>\" is not in the vocabulary");
  CHECK_CONTAINS(refusal(with("/added_tokens/0/id", "-1")), "tok.json: added_tokens[0].id");
}

TEST_CASE("text that is not UTF-8 is refused naming the byte") {
  const Tokenizer t = Tokenizer::from_json(small_tokenizer_json());
  for (const std::string bad : {"ok \xff", "ok \xc3", "ok \xed\xa0\x80", "ok \xc0\xaf"}) {
    CAPTURE(bad);
    try {
      t.encode(bad);
      FAIL("accepted");
    } catch (const weft::Error& e) {
      CHECK(e.code() == weft::ErrorCode::BadInput);
      CHECK_CONTAINS(e.what(), "not valid UTF-8 at byte 3");
    }
  }
}

TEST_CASE("an id far past the vocabulary's size is refused, not allocated for (found by fuzz_load)") {
  CHECK_CONTAINS(refusal(R"({"model": {"type": "WordLevel", "vocab": {"a": 0, "b": 2147483000}, "unk_token": "a"}})"),
                 "tok.json: model.vocab.b: id 2147483000 is far past the vocabulary's 2 tokens (ids must be dense: below 65568)");
  CHECK_CONTAINS(refusal(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1000000}, "merges": []}})"),
                 "model.vocab.b: id 1000000 is far past");
}

TEST_CASE("every input the fuzzers found loads or is refused with BadInput") {
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(WEFT_TOKENIZER_FUZZ_REGRESSIONS)) {
    INFO(entry.path().filename().string());
    try {
      Tokenizer::load(entry.path().string());
    } catch (const weft::Error& e) {
      CHECK(e.code() == weft::ErrorCode::BadInput);
    }
    ++files;
  }
  CHECK(files > 0);
}
