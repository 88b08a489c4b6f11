// Placeholders: {name} in block text, described by [sequence.name] tables, resolved at compile
// time against standard, argument and custom resources.
#include <doctest/doctest.h>

#include "byte_tokenizer.h"
#include "flow.h"
#include "support.h"

using namespace weft::token_vm;
using namespace weft::token_vm::test;

namespace {

const std::string kConfig = R"([config]
zone_patterns = ["[P]", "[A]", "[E]"]
valid_tags = ["q"]
default_max_token_length = 10
sequences = ["s"]
control_pattern = "[J]"
)";

std::string forced(const Workflow& w, size_t zone) {
  const Zone& z = w.zones[zone];
  return ByteTokenizer().decode(std::span<const Token>(w.token_data.data() + z.token_start, z.token_end - z.token_start));
}

Workflow compile(const std::string& blocks, const Resources& r, std::vector<std::string>* warnings = nullptr) {
  return default_program(prompts_from(kConfig + blocks)).compile(ByteTokenizer(), r, {}, warnings);
}

}  // namespace

TEST_CASE("token_vm frontend: placeholders resolve against standard, argument and custom resources") {
  const std::string blocks = R"(
[[s]]
text = "[P] {rule} / {who} / {pick} / {not a placeholder} {} [A]"
tags = [[], []]
[s.rule]
name = "constitution"
[s.who]
type = "argument"
[s.pick]
type = "custom"
name = "chooser"
arguments = { from = "a,b", index = "1" }
)";
  Resources r;
  r.standard["constitution"] = "be kind";
  r.arguments["who"] = "Ada";
  std::map<std::string, std::string> seen;
  r.custom["chooser"] = [&](const std::map<std::string, std::string>& args) {
    seen = args;
    return std::string("b");
  };
  const Workflow w = compile(blocks, r);
  CHECK(forced(w, 1) == " be kind / Ada / b / {not a placeholder} {} [A]");
  CHECK(seen == std::map<std::string, std::string>{{"from", "a,b"}, {"index", "1"}});
  // The raw text is kept unresolved in the parsed prompts.
  const auto p = prompts_from(kConfig + blocks);
  CHECK(p->sequences[0].blocks[0].placeholders.size() == 3);
  CHECK(p->sequences[0].blocks[0].text.find("{rule}") != std::string::npos);
}

TEST_CASE("token_vm frontend: placeholder lint and resolution errors name file, sequence, block and placeholder") {
  const std::string head = "\n[[s]]\ntext = \"[P] {x} [A]\"\ntags = [[], []]\n";  // text on line 9
  CHECK_CONTAINS(bad_input([&] { prompts_from(kConfig + head); }),
                 "p.toml:9: sequence 's' block 0: field 'text': placeholder {x} has no [s.x] table");
  CHECK_CONTAINS(bad_input([&] { prompts_from(kConfig + head + "[s.x]\n[s.y]\n"); }),
                 "sequence 's' block 0: field 'y': placeholder table for {y}, which the text does not use");
  CHECK_CONTAINS(bad_input([&] { prompts_from(kConfig + head + "[s.x]\ntype = \"magic\"\n"); }),
                 "p.toml:12: sequence 's' block 0: field 'x.type': expected \"standard\", \"custom\" or \"argument\"");
  CHECK_CONTAINS(bad_input([&] { prompts_from(kConfig + head + "[s.x]\narguments = { a = \"1\" }\n"); }),
                 "field 'x.arguments': arguments are only passed to custom resources");
  CHECK_CONTAINS(bad_input([&] { prompts_from(kConfig + head + "[s.x]\ntype = \"custom\"\narguments = { a = 1 }\n"); }),
                 "field 'x.arguments.a': expected a string, got an integer");
  CHECK_CONTAINS(bad_input([&] { prompts_from(kConfig + head + "[s.x]\nkind = \"custom\"\n"); }),
                 "field 'x.kind': unknown key (expected one of: name, type, arguments)");
  CHECK_CONTAINS(bad_input([&] { prompts_from(kConfig + head + "[s.x]\nname = \"\"\n"); }),
                 "field 'x.name': expected a non-empty string");

  CHECK_CONTAINS(bad_input([&] { compile(head + "[s.x]\nname = \"facts\"\n", {}); }),
                 "p.toml:9: sequence 's' block 0: field 'x': standard resource 'facts' for {x} was not supplied");
  CHECK_CONTAINS(bad_input([&] { compile(head + "[s.x]\ntype = \"argument\"\n", {}); }),
                 "field 'x': argument resource 'x' for {x} was not supplied");
  CHECK_CONTAINS(bad_input([&] { compile(head + "[s.x]\ntype = \"custom\"\n", {}); }),
                 "field 'x': custom resource 'x' for {x} was not supplied");
}

TEST_CASE("token_vm frontend: resolved text is linted again") {
  const std::string blocks = "\n[[s]]\ntext = \"[P] {x} [A]\"\ntags = [[], []]\n[s.x]\n";
  SUBCASE("a resource that brings in a zone pattern is an error") {
    Resources r;
    r.standard["x"] = "early [A] close";
    CHECK_CONTAINS(bad_input([&] { compile(blocks, r); }),
                   "p.toml:9: sequence 's' block 0: field 'text' (placeholders resolved): zone pattern '[A]' at offset 20 (text line 1) appears again");
  }
  SUBCASE("a resource that brings in the control pattern is a warning") {
    Resources r;
    r.standard["x"] = "say [J]";
    std::vector<std::string> warnings;
    compile(blocks, r, &warnings);
    REQUIRE(warnings.size() == 1);
    CHECK_CONTAINS(warnings[0], "field 'text' (placeholders resolved): unescaped control pattern '[J]' at offset 8");
  }
}
