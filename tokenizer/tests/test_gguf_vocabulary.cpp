// GGUF vocabularies against llama.cpp: each committed tokenizer.json becomes the tokenizer.ggml.*
// values llama.cpp's converter writes (what `weft attention write-model --vocab` puts in a file),
// and Weft's tokenizer for them must give the ids llama.cpp gave for the corpus through
// node-llama-cpp (goldens/make_gguf_goldens.mjs: NAME.gguf_ids.jsonl), and its decode.
// WEFT_TOKENIZER_GOLDENS_EXTRA: a folder of further NAME.tokenizer.json + NAME.gguf_ids.jsonl.
#include <doctest/doctest.h>

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include <weft/error.h>

#include "checks.h"
#include "gguf_vocabulary.h"
#include "golden_files.h"

namespace fs = std::filesystem;
using namespace weft::tokenizer;

namespace {

struct GgufGoldens {
  std::string pre;
  std::vector<std::vector<TokenId>> ids;
  std::vector<std::string> decoded;
};

GgufGoldens read_goldens(const fs::path& file) {
  GgufGoldens g;
  std::istringstream in(weft::test::read_maybe_xz(file));
  std::string line;
  std::getline(in, line);
  g.pre = nlohmann::json::parse(line).value("pre", std::string());
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line);
    g.ids.push_back(j["ids"].get<std::vector<TokenId>>());
    g.decoded.push_back(j["decoded"].get<std::string>());
  }
  return g;
}

void check_against_llama_cpp(const std::string& name, const fs::path& tokenizer_file, const fs::path& ids_file) {
  const GgufGoldens want = read_goldens(ids_file);
  const GgufVocabulary vocabulary = gguf_vocabulary_from_tokenizer_json(weft::test::read_maybe_xz(tokenizer_file), name, want.pre);
  const Tokenizer tok = tokenizer_from_gguf(vocabulary);
  const std::vector<std::string> texts = weft::test::golden_corpus();
  REQUIRE(want.ids.size() == texts.size());
  size_t exact = 0, decoded = 0, shown = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const auto ids = tok.encode(texts[i]);
    if (ids == want.ids[i]) ++exact;
    else if (shown++ < 3) MESSAGE(name << " text " << i << " " << weft::test::first_difference(want.ids[i], ids));
    if (tok.decode(want.ids[i], true) == want.decoded[i]) ++decoded;
  }
  MESSAGE(name << " (" << vocabulary.model << (want.pre.empty() ? "" : ", pre " + want.pre) << "): ids " << exact << "/"
               << texts.size() << " as llama.cpp, decode " << decoded << "/" << texts.size());
  CHECK(exact == texts.size());
  CHECK(decoded == texts.size());
}

}  // namespace

TEST_CASE("a GGUF vocabulary made from each committed tokenizer tokenizes the corpus as llama.cpp does") {
  const fs::path dir = WEFT_TOKENIZER_GOLDENS_DIR;
  const auto files = weft::test::named_files(dir, ".gguf_ids.jsonl");
  for (const auto& [name, ids] : files)
    SUBCASE(name.c_str()) { check_against_llama_cpp(name, weft::test::existing_maybe_xz(dir / (name + ".tokenizer.json")), ids); }
  CHECK(files.size() >= 4);
}

TEST_CASE("GGUF vocabularies outside the repository are checked when WEFT_TOKENIZER_GOLDENS_EXTRA names them") {
  const fs::path extra = weft::test::extra_goldens_dir();
  if (extra.empty()) return;
  for (const auto& [name, ids] : weft::test::named_files(extra, ".gguf_ids.jsonl"))
    SUBCASE(name.c_str()) { check_against_llama_cpp(name, weft::test::existing_maybe_xz(extra / (name + ".tokenizer.json")), ids); }
}

// ---- behaviours, on small hand-made vocabularies ------------------------------------------------

namespace {

const std::string kSpace = "\xE2\x96\x81";  // U+2581

// A SentencePiece vocabulary: <unk> <s> </s>, the 256 byte tokens, then pieces with scores.
GgufVocabulary spm(std::vector<std::pair<std::string, float>> pieces) {
  GgufVocabulary v;
  v.source = "spm.gguf";
  v.model = "llama";
  v.tokens = {"<unk>", "<s>", "</s>"};
  v.token_types = {2, 3, 3};
  v.scores = {0, 0, 0};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    v.tokens.push_back(name), v.token_types.push_back(6), v.scores.push_back(0);
  }
  for (auto& [text, score] : pieces) v.tokens.push_back(text), v.token_types.push_back(1), v.scores.push_back(score);
  return v;
}
constexpr TokenId kFirstPiece = 259;

std::string refusal(const GgufVocabulary& v) {
  try {
    tokenizer_from_gguf(v);
  } catch (const weft::Error& e) {
    CHECK(e.code() == weft::ErrorCode::BadInput);
    return e.what();
  }
  FAIL("the vocabulary was accepted");
  return {};
}

}  // namespace

TEST_CASE("gguf spm: the adjacent pair forming the highest-scoring piece merges first") {
  // "abc": "ab" (-2) and "bc" (-1) compete; "bc" wins, and "a" + "bc" forms no piece.
  const Tokenizer tok = tokenizer_from_gguf(spm({{"a", -5}, {"b", -5}, {"c", -5}, {"ab", -2}, {"bc", -1}, {kSpace, -3}}));
  CHECK(tok.encode("abc") == std::vector<TokenId>{kFirstPiece + 5, kFirstPiece + 0, kFirstPiece + 4});
}

TEST_CASE("gguf spm: equal scores merge leftmost first") {
  const Tokenizer tok = tokenizer_from_gguf(spm({{"a", -5}, {"aa", -1}, {kSpace, -3}}));
  // "aaa" with a space prefix: ▁ a a a; "aa" at 1-2 wins over 2-3.
  CHECK(tok.encode("aaa") == std::vector<TokenId>{kFirstPiece + 2, kFirstPiece + 1, kFirstPiece + 0});
}

TEST_CASE("gguf spm: a character with no piece is written as its byte tokens") {
  const Tokenizer tok = tokenizer_from_gguf(spm({{kSpace, -1}}));
  CHECK(tok.encode("\xC3\xA9") == std::vector<TokenId>{kFirstPiece, 3 + 0xC3, 3 + 0xA9});
  CHECK(tok.decode(tok.encode("\xC3\xA9 x")) == "\xC3\xA9 x");
}

TEST_CASE("gguf spm: every text piece gets the space prefix, also after a control token, and BOS is added") {
  GgufVocabulary v = spm({{kSpace, -1}, {"a", -2}, {kSpace + "a", -1}});
  const Tokenizer tok = tokenizer_from_gguf(v);
  const TokenId space_a = kFirstPiece + 2;
  CHECK(tok.encode("a</s>a") == std::vector<TokenId>{space_a, 2, space_a});
  CHECK(tok.encode("a", true) == std::vector<TokenId>{1, space_a});
  v.add_space_prefix = false;
  v.add_bos = false;
  const Tokenizer plain = tokenizer_from_gguf(v);
  CHECK(plain.encode("a", true) == std::vector<TokenId>{kFirstPiece + 1});
}

TEST_CASE("gguf: a longer special token wins over a shorter one that starts earlier") {
  GgufVocabulary v = spm({{kSpace, -1}});
  v.add_space_prefix = false;
  v.tokens.push_back("<a"), v.token_types.push_back(3), v.scores.push_back(0);     // kFirstPiece + 1
  v.tokens.push_back("a_b>"), v.token_types.push_back(3), v.scores.push_back(0);  // kFirstPiece + 2
  const Tokenizer tok = tokenizer_from_gguf(v);
  // Leftmost-longest would take "<a" and leave "_b>"; llama.cpp cuts "a_b>" out first.
  CHECK(tok.encode("<a_b>") == std::vector<TokenId>{3 + '<', kFirstPiece + 2});
}

TEST_CASE("gguf: Phi-3 special tokens take the whitespace after them, as llama.cpp's rule for that name says") {
  GgufVocabulary v = spm({{kSpace, -1}});
  v.add_space_prefix = false;
  v.tokens.push_back("<|end|>"), v.token_types.push_back(3), v.scores.push_back(0);
  v.general_name = "Phi-3-mini";
  CHECK(tokenizer_from_gguf(v).encode("<|end|>\n x") == std::vector<TokenId>{kFirstPiece + 1, 3 + 'x'});
  v.general_name = "other";
  CHECK(tokenizer_from_gguf(v).encode("<|end|>\n") == std::vector<TokenId>{kFirstPiece + 1, 3 + '\n'});
}

TEST_CASE("gguf: what llama.cpp does not know, or Weft does not implement, is refused naming the key") {
  GgufVocabulary v = spm({});
  v.model = "bert";
  CHECK_CONTAINS(refusal(v), "spm.gguf: tokenizer.ggml.model 'bert' is not supported");
  v.model = "gpt2";
  v.pre = "jais-2";
  CHECK_CONTAINS(refusal(v), "tokenizer.ggml.pre 'jais-2' is not supported (Weft implements: default, gpt-2");
  v = spm({});
  v.tokens[5] = v.tokens[4];
  CHECK_CONTAINS(refusal(v), "lists '<0x01>' twice (ids 4 and 5)");
  v = spm({});
  v.scores.resize(10);
  CHECK_CONTAINS(refusal(v), "tokenizer.ggml.scores has 10 entries for 259 tokens");
  v = spm({});
  v.bos.reset();
  v.tokens.resize(1), v.scores.resize(1), v.token_types.resize(1);  // the default BOS (1) is outside
  CHECK_CONTAINS(refusal(v), "tokenizer.ggml.add_bos_token is true but there is no BOS token id");
  v = spm({});
  v.eos = 9999;
  CHECK_CONTAINS(refusal(v), "tokenizer.ggml.eos_token_id = 9999 is not a token id");
  GgufVocabulary bpe;
  bpe.source = "bpe.gguf", bpe.model = "gpt2", bpe.pre = "gpt-2", bpe.tokens = {"a", "b", "ab"}, bpe.merges = {"ab"};
  CHECK_CONTAINS(refusal(bpe), "tokenizer.ggml.merges[0] = 'ab' has no space between its two tokens");
}

TEST_CASE("gguf: a tokenizer.json that no GGUF vocabulary kind fits is refused by the converter") {
  const std::string wordpiece = weft::test::read_maybe_xz(fs::path(WEFT_TOKENIZER_GOLDENS_DIR) / "bert_wordpiece.tokenizer.json");
  try {
    gguf_vocabulary_from_tokenizer_json(wordpiece, "bert.json", "");
    FAIL("accepted");
  } catch (const weft::Error& e) {
    CHECK_CONTAINS(std::string(e.what()), "bert.json: model.type must be BPE");
  }
  const std::string gpt2 = weft::test::read_maybe_xz(fs::path(WEFT_TOKENIZER_GOLDENS_DIR) / "gpt2.tokenizer.json.xz");
  try {
    gguf_vocabulary_from_tokenizer_json(gpt2, "gpt2.json", "");
    FAIL("accepted");
  } catch (const weft::Error& e) {
    CHECK_CONTAINS(std::string(e.what()), "gpt2.json: a byte-level BPE vocabulary needs its tokenizer.ggml.pre name (--pre)");
  }
}
