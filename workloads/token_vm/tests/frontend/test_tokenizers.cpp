// Tokenizers: the byte-level one, and the tokenizer.json byte-level BPE loader on a small
// vocabulary written here (ids 0..255 the 256 byte symbols, then merge results, then added
// tokens), with expectations worked out by hand from the merge ranks, and random texts against
// the Python GPT-2 reference encoder (bpe_reference.py).
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "bpe_tokenizer.h"
#include "byte_tokenizer.h"
#include "flow.h"
#include "support.h"

using namespace weft::token_vm;
using namespace weft::token_vm::test;

namespace {

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += char(c);
  }
  return out + "\"";
}

// Merges in rank order; each result gets the next id after the 256 byte symbols.
const std::vector<std::pair<std::string, std::string>> kMerges = {
    {"h", "e"}, {"l", "l"}, {"he", "ll"}, {"hell", "o"}, {"Ġ", "w"}, {"o", "r"},
    {"Ġw", "or"}, {"l", "d"}, {"Ġwor", "ld"}, {"e", "l"}, {"Ġ", "Ġ"}, {"b", "1"}};
constexpr Token kHe = 256, kLl = 257, kHello = 259, kWorld = 264, kEndOfText = 300, kTool = 301;

struct Spec {
  bool merges_as_pairs = false;
  std::string pre_tokenizer = R"({"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true})";
  bool all_bytes = true;
  std::string unk_token = "null";
};

std::string tokenizer_json(const Spec& spec = {}) {
  std::string vocab;
  for (int b = 0; b < 256; ++b)
    if (spec.all_bytes || b == 'h' || b == 'e' || b == 'l' || b == 'o' || b == ' ' || b == 'w' || b == 'r' || b == 'd' ||
        b == 'b' || b == '1')
      vocab += (vocab.empty() ? "" : ", ") + json_string(BpeTokenizer::byte_to_unicode(uint8_t(b))) + ": " + std::to_string(b);
  std::string merges;
  for (size_t i = 0; i < kMerges.size(); ++i) {
    vocab += ", " + json_string(kMerges[i].first + kMerges[i].second) + ": " + std::to_string(256 + i);
    merges += (i ? ", " : "") + (spec.merges_as_pairs ? "[" + json_string(kMerges[i].first) + ", " + json_string(kMerges[i].second) + "]"
                                                      : json_string(kMerges[i].first + " " + kMerges[i].second));
  }
  return R"({
  "version": "1.0",
  "added_tokens": [
    {"id": 300, "content": "<|endoftext|>", "special": true},
    {"id": 301, "content": "<tool>", "special": false}
  ],
  "normalizer": null,
  "pre_tokenizer": )" + spec.pre_tokenizer + R"(,
  "decoder": {"type": "ByteLevel"},
  "model": {"type": "BPE", "dropout": null, "unk_token": )" + spec.unk_token + R"(,
            "vocab": {)" + vocab + R"(},
            "merges": [)" + merges + R"(]}
})";
}

BpeTokenizer bpe(const Spec& spec = {}) { return BpeTokenizer::parse(tokenizer_json(spec), "tokenizer.json"); }

std::vector<Token> bytes(const std::string& s) { return ByteTokenizer().encode(s); }

std::string malformed(const std::string& json) {
  return bad_input([&] { BpeTokenizer::parse(json, "tok.json"); });
}

}  // namespace

TEST_CASE("token_vm frontend: byte tokenizer") {
  const ByteTokenizer t;
  const std::string all = [] {
    std::string s;
    for (int b = 0; b < 256; ++b) s += char(b);
    return s;
  }();
  const std::vector<Token> ids = t.encode(all);
  REQUIRE(ids.size() == 256);
  for (Token i = 0; i < 256; ++i) CHECK(ids[i] == i);
  CHECK(t.decode(ids) == all);
  CHECK(t.vocab_size() == 257);
  CHECK(t.token_bytes('A') == "A");
  CHECK(t.token_bytes(ByteTokenizer::kPad).empty());
  const std::vector<Token> padded = {'o', ByteTokenizer::kPad, 'k', 9999};
  CHECK(t.decode(padded) == "ok");
  CHECK(default_pad_token(t) == 256);
}

TEST_CASE("token_vm frontend: GPT-2 byte to unicode map") {
  CHECK(BpeTokenizer::byte_to_unicode(' ') == "Ġ");   // U+0120
  CHECK(BpeTokenizer::byte_to_unicode('\n') == "Ċ");  // U+010A
  CHECK(BpeTokenizer::byte_to_unicode(0) == "Ā");     // U+0100
  CHECK(BpeTokenizer::byte_to_unicode(0xAD) == "Ń");  // U+0143, the last remapped byte
  CHECK(BpeTokenizer::byte_to_unicode('a') == "a");
  CHECK(BpeTokenizer::byte_to_unicode(0xE9) == "é");  // printable Latin-1 stays
}

TEST_CASE("token_vm frontend: BPE merges apply in rank order") {
  const BpeTokenizer t = bpe();
  CHECK(t.encode("hello") == std::vector<Token>{kHello});
  // (l,l) ranks before (e,l): "ell" is e + ll, not el + l.
  CHECK(t.encode("ell") == std::vector<Token>{'e', kLl});
  CHECK(t.encode("hel") == std::vector<Token>{kHe, 'l'});
  CHECK(t.encode("hello world") == std::vector<Token>{kHello, kWorld});
  CHECK(t.token_bytes(kWorld) == " world");
  CHECK(t.token_bytes(kHello) == "hello");
  // Merges written as pairs (the newer tokenizer.json form) mean the same.
  Spec pairs;
  pairs.merges_as_pairs = true;
  CHECK(bpe(pairs).encode("hello world ell") == t.encode("hello world ell"));
}

TEST_CASE("token_vm frontend: BPE pre-tokenization keeps merges inside GPT-2 pieces") {
  const BpeTokenizer t = bpe();
  // "a", " ", " b": the double space is split, so the (Ġ,Ġ) merge never applies across it.
  CHECK(t.encode("a  b") == bytes("a  b"));
  // A run of spaces at the end is one piece: (Ġ,Ġ) merges there.
  CHECK(t.encode("a  ") == std::vector<Token>{'a', 256 + 10});
  // Letters and digits are separate pieces: no (b,1) merge in "ab12".
  CHECK(t.encode("ab12") == bytes("ab12"));
  CHECK(t.encode("b1") == bytes("b1"));  // "b" and "1" are still separate pieces
}

TEST_CASE("token_vm frontend: BPE added and special tokens") {
  const BpeTokenizer t = bpe();
  CHECK(t.encode("hello<|endoftext|> world") == std::vector<Token>{kHello, kEndOfText, kWorld});
  CHECK(t.encode("<tool><tool>hello") == std::vector<Token>{kTool, kTool, kHello});
  CHECK(t.decode(std::vector<Token>{kHello, kEndOfText, kWorld}) == "hello<|endoftext|> world");
  CHECK(t.token_bytes(kEndOfText) == "<|endoftext|>");
  CHECK(t.vocab_size() == 302);
  CHECK(t.pad_token() == kEndOfText);
  CHECK(default_pad_token(t) == kEndOfText);
  CHECK(t.decode(std::vector<Token>{9999, kHello}) == "hello");  // unknown ids decode to nothing
}

TEST_CASE("token_vm frontend: BPE round trip on mixed text") {
  const BpeTokenizer t = bpe();
  const std::string texts[] = {"hello world", "Hello, world! 123 don't\n\n  spaced  ", "é ☃ 日本語 \x01\x7f\xff tail",
                               "tabs\tand\r\nnewlines", "<|endoftext|><tool>", "", "\xe2\x82", "hellohello world world"};
  for (const std::string& s : texts) {
    CAPTURE(s);
    CHECK(t.decode(t.encode(s)) == s);
    std::string joined;
    for (Token id : t.encode(s)) joined += t.token_bytes(id);
    CHECK(joined == s);
  }
}

TEST_CASE("token_vm frontend: BPE options: add_prefix_space, a Sequence pre-tokenizer, unk_token") {
  Spec prefix;
  prefix.pre_tokenizer = R"({"type": "Sequence", "pretokenizers": [
      {"type": "Split", "pattern": {"Regex": "x"}, "behavior": "Isolated", "invert": false},
      {"type": "ByteLevel", "add_prefix_space": true, "use_regex": true}]})";
  CHECK(bpe(prefix).encode("world") == std::vector<Token>{kWorld});

  Spec sparse;
  sparse.all_bytes = false;
  CHECK_CONTAINS(bad_input([&] { bpe(sparse).encode("hello!"); }),
                 "tokenizer.json: cannot encode '!': not in model.vocab and no model.unk_token");
  sparse.unk_token = "\"o\"";
  CHECK(bpe(sparse).encode("hello!") == std::vector<Token>{kHello, 'o'});
}

TEST_CASE("token_vm frontend: BPE loads from a file and compiles patterns") {
  const auto path = std::filesystem::temp_directory_path() / ("weft_bpe_" + std::to_string(std::rand()) + ".json");
  std::ofstream(path) << tokenizer_json();
  const BpeTokenizer t = BpeTokenizer::load(path.string());
  std::filesystem::remove(path);
  CHECK(t.encode("hello world") == std::vector<Token>{kHello, kWorld});
  CHECK_CONTAINS(bad_input([&] { BpeTokenizer::load(path.string()); }), "cannot open the tokenizer file");

  auto ps = prompts_from(R"([config]
zone_patterns = ["hello", " world"]
valid_tags = []
default_max_token_length = 4
sequences = ["s"]
control_pattern = "<tool>"
[[s]]
text = "say hello world"
tags = [[]]
)");
  const Workflow w = default_program(ps).compile(t);
  CHECK(w.pattern_tokens == std::vector<Token>{kHello, kWorld, kTool});
  CHECK(w.pad_token == kEndOfText);
  // Token mode: each occurrence takes the pattern's own tokens, the text between is encoded.
  const std::vector<Token> zone0(w.token_data.begin() + w.zones[0].token_start, w.token_data.begin() + w.zones[0].token_end);
  CHECK(zone0 == std::vector<Token>{'s', 'a', 'y', ' ', kHello});
}

TEST_CASE("token_vm frontend: malformed tokenizer.json names the key") {
  const std::string good = tokenizer_json();
  auto replace = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from);
    REQUIRE(at != std::string::npos);
    return s.replace(at, from.size(), to);
  };
  CHECK_CONTAINS(malformed("{\"model\": "), "tok.json: JSON syntax error at byte");
  CHECK_CONTAINS(malformed("[1, 2]"), "tok.json: expected a JSON object at the top level");
  CHECK_CONTAINS(malformed("{}"), "tok.json: key 'model': missing");
  CHECK_CONTAINS(malformed(replace("\"type\": \"BPE\"", "\"type\": \"WordPiece\"")),
                 "key 'model.type': 'WordPiece' is not supported (only byte-level BPE)");
  CHECK_CONTAINS(malformed(replace("\"type\": \"BPE\", ", "")), "key 'model.type': missing");
  CHECK_CONTAINS(malformed(R"({"model": {"type": "BPE", "vocab": [], "merges": []}})"), "key 'model.vocab': expected an object");
  CHECK_CONTAINS(malformed(R"({"model": {"type": "BPE", "vocab": {"a": "x"}, "merges": []}})"),
                 "key 'model.vocab.a': expected an id");
  CHECK_CONTAINS(malformed(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 0}, "merges": []}})"),
                 "key 'model.vocab.b': id 0 is given to two tokens");
  CHECK_CONTAINS(malformed(R"({"model": {"type": "BPE", "vocab": {"☃": 0}, "merges": []}})"),
                 "key 'model.vocab.☃': '☃' has a character outside the GPT-2 byte-level alphabet");
  CHECK_CONTAINS(malformed(R"({"model": {"type": "BPE", "vocab": {"a": 0}}})"), "key 'model.merges': expected an array");
  CHECK_CONTAINS(malformed(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a"]}})"),
                 "key 'model.merges[0]': expected \"left right\"");
  CHECK_CONTAINS(malformed(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [7]}})"), "key 'model.merges[0]'");
  CHECK_CONTAINS(malformed(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": ["a z"]}})"),
                 "key 'model.merges[0]': part 'z' is not in model.vocab");
  CHECK_CONTAINS(malformed(R"({"model": {"type": "BPE", "vocab": {"a": 0, "b": 1}, "merges": ["a b"]}})"),
                 "key 'model.merges[0]': merged token 'ab' is not in model.vocab");
  CHECK_CONTAINS(malformed(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": [], "continuing_subword_prefix": "##"}})"),
                 "key 'model.continuing_subword_prefix': is not supported");
  CHECK_CONTAINS(malformed(R"({"model": {"type": "BPE", "vocab": {"a": 0}, "merges": []}})"),
                 "key 'pre_tokenizer': byte-level BPE needs a ByteLevel pre-tokenizer");
  CHECK_CONTAINS(malformed(replace("\"type\": \"ByteLevel\", \"add_prefix_space\"", "\"type\": \"Whitespace\", \"add_prefix_space\"")),
                 "key 'pre_tokenizer.type': expected \"ByteLevel\"");
  CHECK_CONTAINS(malformed(replace("\"add_prefix_space\": false", "\"add_prefix_space\": \"no\"")),
                 "key 'pre_tokenizer.add_prefix_space': expected true or false");
  CHECK_CONTAINS(malformed(replace("{\"id\": 301, ", "{")), "key 'added_tokens[1].id'");
  CHECK_CONTAINS(malformed(replace("\"content\": \"<tool>\"", "\"content\": \"\"")), "key 'added_tokens[1].content'");
  CHECK_CONTAINS(malformed(replace("\"id\": 301", "\"id\": 5")), "key 'added_tokens[1].id': id 5 already belongs to another token");
  CHECK_CONTAINS(malformed(replace("\"added_tokens\": [", "\"added_tokens\": 3, \"x\": [")), "key 'added_tokens': expected an array");
  // Regression: a number beyond double's range was an "unexpected error".
  CHECK_CONTAINS(malformed(R"({"model": {"type": "BPE", "vocab": {"a": 1e400}, "merges": []}})"), "tok.json: JSON number");
  CHECK_CONTAINS(malformed(R"({"model": {"type": "BPE", "vocab": {"a": 1e10}, "merges": []}})"), "key 'model.vocab.a': expected an id");
}

// An independent reference: bpe_reference.py runs GPT-2's encoder (the pre-tokenizer regex with
// real Unicode classes from Python's `regex` module, rank-ordered merges) on the same
// tokenizer.json. Random texts mix the merged words, digits, punctuation, contractions,
// whitespace runs, non-ASCII letters and numbers, and the added tokens.
TEST_CASE("token_vm frontend: BPE encodes random texts exactly as the Python GPT-2 reference") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("weft_bpe_reference_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path tok = dir / "tokenizer.json", in = dir / "inputs.jsonl", out = dir / "outputs.jsonl";
  std::ofstream(tok) << tokenizer_json();

  const std::vector<std::string> atoms = {"hello", "hell", "world", " world", "he", "ll", "b1", "ab", "12", "7", " ", "  ",
                                          "\n", "\t", "\r\n", ",", "!", "?!", "'s", "'ll", "don't", "é", "日本", "٣", "Ⅻ",
                                          "☃", "ß", "<|endoftext|>", "<tool>", "<", "|", "old", "or", "d", "w"};
  std::mt19937 rng(2026);
  std::vector<std::string> texts;
  for (int i = 0; i < 400; ++i) {
    std::string s;
    for (int n = std::uniform_int_distribution<int>(0, 12)(rng); n > 0; --n)
      s += atoms[std::uniform_int_distribution<size_t>(0, atoms.size() - 1)(rng)];
    texts.push_back(s);
  }
  {
    std::ofstream f(in);
    for (const std::string& s : texts) f << nlohmann::json(s).dump() << "\n";
  }
  const std::string cmd = std::string("\"") + WEFT_PYTHON3 + "\" \"" + WEFT_TOKEN_VM_BPE_REFERENCE + "\" \"" + tok.string() + "\" \"" +
                          in.string() + "\" > \"" + out.string() + "\"";
  const int status = std::system(cmd.c_str());
  REQUIRE_MESSAGE(WIFEXITED(status), cmd);
  REQUIRE_MESSAGE(WEXITSTATUS(status) != 77, "bpe_reference.py needs the Python 'regex' module (python3-regex)");
  REQUIRE_MESSAGE(WEXITSTATUS(status) == 0, cmd);

  const BpeTokenizer t = bpe();
  std::ifstream f(out);
  size_t n = 0;
  for (std::string line; std::getline(f, line); ++n) {
    REQUIRE(n < texts.size());
    CAPTURE(texts[n]);
    const std::vector<Token> want = nlohmann::json::parse(line).at("ids").get<std::vector<Token>>();
    CHECK(t.encode(texts[n]) == want);
  }
  CHECK(n == texts.size());
  fs::remove_all(dir);
}
