// Every lint rule of spec §1.1: each error names the file, the sequence, the block, the field
// and the line.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "support.h"

using namespace weft::token_vm;
using namespace weft::token_vm::test;

namespace {

const std::string kConfig = R"([config]
zone_patterns = ["[Prompt]", "[Answer]", "[EOS]"]
required_patterns = ["[Prompt]", "[Answer]"]
valid_tags = ["Training", "Correct", "Feedback"]
default_max_token_length = 100
sequences = ["setup", "decide"]
control_pattern = "[Jump]"
escape_patterns = ["[Escape]", "[EndEscape]"]
tools = ["calc"]
)";

const std::string kSetup = R"(
[[setup]]
text = "[Prompt] Think. [Answer]"
tags = [["Training"], ["Correct", "Feedback"]]
max_gen_tokens = 7
)";

const std::string kDecide = R"(
[[decide]]
text = "[Prompt] Again? [Answer]"
tags = [[], []]
)";

std::string lint(const std::string& toml) {
  return bad_input([&] { parse_udpl(toml, "p.toml"); });
}

// kConfig with one line replaced (by its key) or removed (empty replacement).
std::string config_with(const std::string& key, const std::string& line) {
  std::string c = kConfig;
  const size_t at = c.find("\n" + key + " =");
  REQUIRE(at != std::string::npos);
  const size_t end = c.find('\n', at + 1);
  c.replace(at + 1, end - at - 1, line);
  return c;
}

}  // namespace

TEST_CASE("token_vm frontend: a valid prompt file parses into blocks with masks and timeouts") {
  const Prompts p = parse_udpl(kConfig + kSetup + kDecide, "p.toml");
  CHECK(p.config.zone_patterns.size() == 3);
  CHECK(p.config.control_pattern == "[Jump]");
  CHECK(p.config.escape_open == "[Escape]");
  CHECK(p.config.escape_close == "[EndEscape]");
  REQUIRE(p.sequences.size() == 2);
  REQUIRE(p.sequences[0].blocks.size() == 1);
  const Block& b = p.sequences[0].blocks[0];
  CHECK(b.zone_tags == std::vector<uint32_t>{0, 0b001, 0b110});  // lead-in untagged; Training; Correct|Feedback
  CHECK(b.timeout == 7);
  CHECK(b.line == 12);
  CHECK(p.sequences[1].blocks[0].timeout == 100);  // default_max_token_length
  CHECK(p.warnings.empty());
}

TEST_CASE("token_vm frontend: repeats and tagset make block copies") {
  const Prompts p = parse_udpl(kConfig + R"(
[[setup]]
text = "[Prompt] a [Answer]"
tags = [["Training"], []]
repeats = 3
[[setup]]
text = "[Prompt] b [Answer]"
tagset = [[["Correct"], []], [[], ["Feedback"]]]
)" + kDecide, "p.toml");
  const std::vector<Block>& blocks = p.sequences[0].blocks;
  REQUIRE(blocks.size() == 5);
  for (int i = 0; i < 3; ++i) {
    CHECK(blocks[i].source_block == 0);
    CHECK(blocks[i].zone_tags == std::vector<uint32_t>{0, 0b001, 0});
  }
  CHECK(blocks[3].source_block == 1);
  CHECK(blocks[3].zone_tags == std::vector<uint32_t>{0, 0b010, 0});
  CHECK(blocks[4].zone_tags == std::vector<uint32_t>{0, 0, 0b100});
  CHECK(blocks[4].text == "[Prompt] b [Answer]");
}

TEST_CASE("token_vm frontend: block copies past the expansion limit are refused before they are made") {
  // Regression: a 1 MiB file with repeats = 4096 grew to ~6 GiB and ended in bad_alloc.
  const std::string text = "[Prompt] " + std::string(100000, 'x') + " [Answer]";
  const std::string msg = bad_input([&] {
    parse_udpl(kConfig + "[[setup]]\ntext = \"" + text + "\"\ntags = [[\"Training\"], []]\nrepeats = 4096\n" + kDecide, "p.toml");
  });
  CHECK_CONTAINS(msg, "p.toml:");
  CHECK_CONTAINS(msg, "field 'repeats': expanded text size 409673728 is over the limit of 268435456");
  CHECK_CONTAINS(msg, "WEFT_MAX_EXPANDED_TEXT_BYTES");
}

TEST_CASE("token_vm frontend: config lint errors name the file, [config], the field and the line") {
  struct Case {
    std::string key, line, expect;
  };
  const Case cases[] = {
      {"zone_patterns", "zone_patterns = [\"[Prompt]\"]", "p.toml:2: [config]: field 'zone_patterns': needs at least 2 entries, has 1"},
      {"zone_patterns", "zone_patterns = [\"[Prompt]\", \"\"]", "field 'zone_patterns[1]': must not be empty"},
      {"zone_patterns", "zone_patterns = [\"[A]\", \"[A]\"]", "field 'zone_patterns[1]': '[A]' appears twice"},
      {"zone_patterns", "zone_patterns = \"[Prompt]\"", "field 'zone_patterns': expected an array of strings, got a string"},
      {"zone_patterns", "zone_patterns = [\"[Prompt]\", 3]", "field 'zone_patterns[1]': expected a string, got an integer"},
      {"zone_patterns", "", "field 'zone_patterns': missing"},
      {"required_patterns", "required_patterns = [\"[Nope]\"]",
       "p.toml:3: [config]: field 'required_patterns[0]': '[Nope]' is not one of zone_patterns"},
      {"valid_tags", "", "field 'valid_tags': missing"},
      {"default_max_token_length", "default_max_token_length = 0",
       "p.toml:5: [config]: field 'default_max_token_length': value 0 is outside [1, 2147483648]"},
      {"default_max_token_length", "default_max_token_length = \"many\"", "expected an integer, got a string"},
      {"default_max_token_length", "", "field 'default_max_token_length': missing"},
      {"sequences", "sequences = []", "field 'sequences': needs at least 1 entries, has 0"},
      {"sequences", "sequences = [\"config\"]", "field 'sequences[0]': 'config' is reserved"},
      {"control_pattern", "", "field 'control_pattern': missing"},
      {"control_pattern", "control_pattern = \"\"", "field 'control_pattern': must not be empty"},
      {"control_pattern", "control_pattern = \"[Answer]\"", "field 'control_pattern': pattern '[Answer]' is also zone_patterns[1]"},
      {"control_pattern", "control_pattern = \"Answer\"",
       "pattern 'Answer' (control_pattern) occurs inside pattern '[Answer]' (zone_patterns[1]); no pattern may contain another"},
      {"escape_patterns", "escape_patterns = [\"[Escape]\"]", "field 'escape_patterns': needs exactly 2 patterns (open, close), has 1"},
      {"escape_patterns", "escape_patterns = [\"[Escape]\", \"[Escape]]\"]", "field 'escape_patterns[1]': pattern '[Escape]' (escape_patterns[0]) occurs inside"},
      {"tools", "tools = [\"calc\", \"calc\"]", "field 'tools[1]': 'calc' appears twice"},
      {"tools", "tool = [\"calc\"]", "p.toml:9: [config]: field 'tool': unknown key"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.line);
    const std::string message = lint(config_with(c.key, c.line) + kSetup + kDecide);
    CHECK_CONTAINS(message, c.expect);
    CHECK_CONTAINS(message, "p.toml");
    CHECK_CONTAINS(message, "[config]");
  }
  CHECK_CONTAINS(lint(config_with("valid_tags", "valid_tags = [\"t0\",\"t1\",\"t2\",\"t3\",\"t4\",\"t5\",\"t6\",\"t7\",\"t8\",\"t9\","
                                                "\"t10\",\"t11\",\"t12\",\"t13\",\"t14\",\"t15\",\"t16\",\"t17\",\"t18\",\"t19\",\"t20\","
                                                "\"t21\",\"t22\",\"t23\",\"t24\",\"t25\",\"t26\",\"t27\",\"t28\",\"t29\",\"t30\",\"t31\",\"t32\"]") +
                      kSetup + kDecide),
                 "field 'valid_tags': 33 tags; at most 32");
}

TEST_CASE("token_vm frontend: block lint errors name the file, sequence, block, field and line") {
  struct Case {
    std::string block, expect;
  };
  const Case cases[] = {
      {"[[setup]]\ntags = [[], []]\n", "p.toml:11: sequence 'setup' block 0: field 'text': missing"},
      {"[[setup]]\ntext = 5\ntags = [[], []]\n", "p.toml:12: sequence 'setup' block 0: field 'text': expected a string, got an integer"},
      {"[[setup]]\ntext = \"[Prompt] a [Answer]\"\n", "sequence 'setup' block 0: field 'tags': missing (give tags, or tagset"},
      {"[[setup]]\ntext = \"[Prompt] a [Answer]\"\ntags = [[]]\n",
       "p.toml:13: sequence 'setup' block 0: field 'tags': has 1 tag lists; needs 2 (one per zone between the 3 zone patterns)"},
      {"[[setup]]\ntext = \"[Prompt] a [Answer]\"\ntags = [[\"Nope\"], []]\n",
       "p.toml:13: sequence 'setup' block 0: field 'tags[0][0]': 'Nope' is not one of valid_tags"},
      {"[[setup]]\ntext = \"[Prompt] a [Answer]\"\ntags = [[\"Correct\", \"Correct\"], []]\n",
       "field 'tags[0][1]': tag 'Correct' appears twice in this zone"},
      {"[[setup]]\ntext = \"[Prompt] a [Answer]\"\ntags = [\"Correct\", []]\n", "field 'tags[0]': expected an array of tag names, got a string"},
      {"[[setup]]\ntext = \"[Prompt] a [Answer]\"\ntags = [[], []]\ntagset = [[[], []]]\n",
       "p.toml:14: sequence 'setup' block 0: field 'tagset': give either tags or tagset, not both"},
      {"[[setup]]\ntext = \"[Prompt] a [Answer]\"\ntagset = [[[], []]]\nrepeats = 2\n",
       "p.toml:14: sequence 'setup' block 0: field 'repeats': repeats cannot be combined with tagset"},
      {"[[setup]]\ntext = \"[Prompt] a [Answer]\"\ntagset = []\n", "field 'tagset': expected a non-empty array"},
      {"[[setup]]\ntext = \"[Prompt] a [Answer]\"\ntagset = [[[], []], [[\"X\"], []]]\n",
       "field 'tagset[1][0][0]': 'X' is not one of valid_tags"},
      {"[[setup]]\ntext = \"[Prompt] a [Answer]\"\ntags = [[], []]\nrepeats = 0\n", "field 'repeats': value 0 is outside [1, 4096]"},
      {"[[setup]]\ntext = \"[Prompt] a [Answer]\"\ntags = [[], []]\nmax_gen_tokens = -1\n",
       "p.toml:14: sequence 'setup' block 0: field 'max_gen_tokens': value -1 is outside"},
      {"[[setup]]\ntext = \"[Prompt] a [Answer]\"\ntags = [[], []]\ncolour = \"red\"\n",
       "p.toml:14: sequence 'setup' block 0: field 'colour': unknown key"},
      {"[[setup]]\ntext = \"[Prompt] a\"\ntags = [[], []]\n",
       "p.toml:12: sequence 'setup' block 0: field 'text': required pattern '[Answer]' is missing"},
      {"[[setup]]\ntext = \"[Prompt] a [EOS] [Answer]\"\ntags = [[], []]\n",
       "p.toml:12: sequence 'setup' block 0: field 'text': zone pattern '[EOS]' at offset 11 (text line 1) comes too early"},
      {"[[setup]]\ntext = \"[Prompt] a [Answer] b [EOS] c\"\ntags = [[], []]\n",
       "sequence 'setup' block 0: field 'text': text after the final zone pattern '[EOS]'"},
      {"[[setup]]\ntext = \"[Prompt] a [Escape] [Answer]\"\ntags = [[], []]\n",
       "sequence 'setup' block 0: field 'text': escape opened at offset 11 (text line 1) is never closed"},
      {"[[setup]]\ntext = \"[Prompt] a [EndEscape] [Answer]\"\ntags = [[], []]\n",
       "field 'text': escape close pattern '[EndEscape]' at offset 11 (text line 1) closes no open escape"},
      {"[[setup]]\ntext = \"[Prompt] [Answer]\"\ntags = [[], []]\n[[setup]]\ntext = \"[Prompt]\"\ntags = [[], []]\n",
       "p.toml:15: sequence 'setup' block 1: field 'text': required pattern '[Answer]' is missing"},
  };
  for (const Case& c : cases) {
    CAPTURE(c.block);
    const std::string message = lint(kConfig + "\n" + c.block + kDecide);
    CHECK_CONTAINS(message, c.expect);
    CHECK_CONTAINS(message, "sequence 'setup' block");
  }
}

TEST_CASE("token_vm frontend: file-level lint errors") {
  CHECK_CONTAINS(lint(kConfig + kSetup), "p.toml: [config]: field 'sequences': sequence 'decide' has no [[decide]] blocks");
  CHECK_CONTAINS(lint(kConfig + kSetup + kDecide + "[[other]]\ntext = \"\"\n"),
                 "p.toml:19: 'other' is not a sequence declared in [config] sequences");
  CHECK_CONTAINS(lint(kSetup + kDecide), "p.toml: no [config] table");
  CHECK_CONTAINS(lint("setup = 3\n" + kConfig + kDecide), "p.toml:1: sequence 'setup': expected one or more [[setup]] blocks, got an integer");
  CHECK_CONTAINS(lint("[config\n"), "p.toml:1:");
  CHECK_CONTAINS(lint("[config\n"), "TOML syntax error");
  CHECK_CONTAINS(lint("config = 1\n"), "p.toml:1: [config]: field 'config': expected a table, got an integer");
}

TEST_CASE("token_vm frontend: an unescaped control pattern in prompt text is a warning, not an error") {
  const Prompts p = parse_udpl(kConfig + R"(
[[setup]]
text = "[Prompt] Say [Jump] to stop. [Answer]"
tags = [[], []]
[[decide]]
text = "[Prompt] Say [Escape][Jump][EndEscape] to stop. [Answer]"
tags = [[], []]
)", "p.toml");
  REQUIRE(p.warnings.size() == 1);
  CHECK_CONTAINS(p.warnings[0], "p.toml:12: sequence 'setup' block 0: field 'text': unescaped control pattern '[Jump]' at offset 13");
}

TEST_CASE("token_vm frontend: a folder of UDPL files") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("weft_udpl_folder_" + std::to_string(std::rand()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) { std::ofstream(dir / name) << text; };
  write("config.toml", kConfig);
  write("setup.toml", kSetup);
  write("decide.toml", kDecide);
  write("notes.txt", "not a UDPL file");

  const Prompts p = load_udpl(dir.string());
  CHECK(p.config_file == (dir / "config.toml").string());
  CHECK(p.sequences[0].file == (dir / "setup.toml").string());
  CHECK(p.sequences[1].file == (dir / "decide.toml").string());
  CHECK(p.sequences[0].blocks[0].timeout == 7);

  SUBCASE("a sequence defined in two files") {
    write("more.toml", kDecide);
    const std::string m = bad_input([&] { load_udpl(dir.string()); });
    CHECK_CONTAINS(m, (dir / "more.toml").string() + ":2: sequence 'decide' is already defined in " + (dir / "decide.toml").string());
  }
  SUBCASE("two files with [config]") {
    write("second.toml", kConfig);
    CHECK_CONTAINS(bad_input([&] { load_udpl(dir.string()); }), "a second [config]");
  }
  SUBCASE("no file with [config]") {
    fs::remove(dir / "config.toml");
    CHECK_CONTAINS(bad_input([&] { load_udpl(dir.string()); }), "no [config] table; exactly one UDPL file must hold it");
  }
  SUBCASE("errors inside a folder name the file that holds them") {
    write("setup.toml", "[[setup]]\ntext = \"[Prompt]\"\ntags = [[], []]\n");
    CHECK_CONTAINS(bad_input([&] { load_udpl(dir.string()); }),
                   (dir / "setup.toml").string() + ":2: sequence 'setup' block 0: field 'text': required pattern '[Answer]'");
  }
  SUBCASE("an empty folder") {
    for (const char* f : {"config.toml", "setup.toml", "decide.toml"}) fs::remove(dir / f);
    CHECK_CONTAINS(bad_input([&] { load_udpl(dir.string()); }), "holds no .toml UDPL files");
  }
  fs::remove_all(dir);
  CHECK_CONTAINS(bad_input([&] { load_udpl((dir / "missing.toml").string()); }), "cannot open the file");
}
