// The token VM's tokenizers: the byte-level one, and the model tokenizer (Weft's tokenizer
// library behind the VM's Tokenizer interface) on a small byte-level BPE vocabulary written in
// code, with ids worked out by hand, and on random texts against an independent Python GPT-2
// encoder (bpe_reference.py). The tokenizer library's own suite checks real tokenizer.json
// files against Hugging Face's reference.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>

#include <nlohmann/json.hpp>

#include "byte_tokenizer.h"
#include "flow.h"
#include "model_tokenizer.h"
#include "serialize.h"
#include "small_tokenizer.h"
#include "support.h"

using namespace weft::token_vm;
using namespace weft::token_vm::test;
using weft::tokenizer::test::kEndOfText;
using weft::tokenizer::test::kHello;
using weft::tokenizer::test::kTool;
using weft::tokenizer::test::kWorld;
using weft::tokenizer::test::small_tokenizer_json;

namespace {

ModelTokenizer small() { return ModelTokenizer(weft::tokenizer::Tokenizer::from_json(small_tokenizer_json())); }

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

TEST_CASE("token_vm frontend: the model tokenizer encodes added tokens and finds its pad token") {
  const ModelTokenizer t = small();
  CHECK(t.encode("hello<|endoftext|> world") == std::vector<Token>{kHello, kEndOfText, kWorld});
  CHECK(t.encode("<tool><tool>hello") == std::vector<Token>{kTool, kTool, kHello});
  CHECK(t.decode(std::vector<Token>{kHello, kEndOfText, kWorld}) == "hello<|endoftext|> world");
  CHECK(t.token_bytes(kEndOfText) == "<|endoftext|>");
  CHECK(t.token_bytes(kWorld) == " world");
  CHECK(t.vocab_size() == 270);
  CHECK(t.pad_token() == kEndOfText);
  CHECK(default_pad_token(t) == kEndOfText);
  CHECK(t.decode(std::vector<Token>{9999, kHello}) == "hello");  // unknown ids decode to nothing
}

TEST_CASE("token_vm frontend: the model tokenizer's token bytes spell the text, byte by byte") {
  const ModelTokenizer t = small();
  const std::string texts[] = {"hello world", "Hello, world! 123 don't\n\n  spaced  ", "é ☃ 日本語 \x01\x7f tail",
                               "tabs\tand\r\nnewlines", "<|endoftext|><tool>", "", "hellohello world world"};
  for (const std::string& s : texts) {
    CAPTURE(s);
    CHECK(t.decode(t.encode(s)) == s);
    std::string joined;
    for (Token id : t.encode(s)) joined += t.token_bytes(id);
    CHECK(joined == s);
  }
}

TEST_CASE("token_vm frontend: the model tokenizer refuses text that is not UTF-8, naming the byte") {
  CHECK_CONTAINS(bad_input([&] { small().encode("ok \xff"); }), "not valid UTF-8 at byte 3");
}

TEST_CASE("token_vm frontend: a workflow compiled with the model tokenizer takes its patterns' ids and records it") {
  const auto path = std::filesystem::temp_directory_path() / ("weft_bpe_" + std::to_string(std::rand()) + ".json");
  std::ofstream(path) << small_tokenizer_json();
  const ModelTokenizer t = ModelTokenizer::load(path.string());
  std::filesystem::remove(path);
  CHECK(t.encode("hello world") == std::vector<Token>{kHello, kWorld});
  CHECK_CONTAINS(bad_input([&] { ModelTokenizer::load(path.string()); }), "cannot open the tokenizer file");

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
  CHECK(w.tokenizer == t.identity());
}

TEST_CASE("token_vm frontend: a saved workflow runs only with the tokenizer it was compiled with") {
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
  const ModelTokenizer model = small();
  const Workflow loaded = workflow_from_json(workflow_to_json(default_program(ps).compile(model)), "w.json");
  CHECK(loaded.tokenizer.find("tokenizer.json fnv1a-64 ") == 0);
  check_runs_with(loaded, model, "w.json");
  CHECK_CONTAINS(bad_input([&] { check_runs_with(loaded, ByteTokenizer(), "w.json"); }),
                 "w.json: the workflow was compiled with the tokenizer \"tokenizer.json fnv1a-64 ");
  const Workflow bytes = workflow_from_json(workflow_to_json(default_program(ps).compile(ByteTokenizer())), "b.json");
  CHECK(bytes.tokenizer == "bytes");
}

TEST_CASE("token_vm frontend: BPE encodes random texts exactly as the Python GPT-2 reference") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("weft_bpe_reference_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path tok = dir / "tokenizer.json", in = dir / "inputs.jsonl", out = dir / "outputs.jsonl";
  std::ofstream(tok) << small_tokenizer_json();

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

  const ModelTokenizer t = small();
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
