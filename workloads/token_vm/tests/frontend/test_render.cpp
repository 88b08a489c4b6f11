// Dump and DOT views of a compiled workflow.
#include <doctest/doctest.h>

#include "byte_tokenizer.h"
#include "flow.h"
#include "render.h"
#include "support.h"

using namespace weft::token_vm;
using namespace weft::token_vm::test;

namespace {

const std::string kPrompts = R"([config]
zone_patterns = ["[A]", "[E]"]
valid_tags = ["x", "y"]
default_max_token_length = 5
sequences = ["a", "ctl", "tool"]
control_pattern = "[J]"
tools = ["calc"]
[[a]]
text = "say \"hi\"\n[A]a[E]"
tags = [["x"]]
[[ctl]]
text = "go?[A]"
tags = [[]]
[[tool]]
text = "expr:[A]"
tags = [["y"]]
)";

Workflow example() {
  Program p(prompts_from(kPrompts));
  p.loop("ctl", 1, 3, [](Program& b) { b.run("a"); }).capture("tool", "calc").extract("xs", {"x"});
  return p.compile(ByteTokenizer());
}

}  // namespace

TEST_CASE("token_vm frontend: the dump lists every zone with its text, exits, tags, flags, tool, timeout and loop") {
  const std::string d = dump_workflow(example(), ByteTokenizer());
  CHECK_CONTAINS(d, "zones 6, forced tokens 30, match token, pad 256\n");
  CHECK_CONTAINS(d, "zone 0  ctl/0/0  forced \"go?[A]\" (6 tokens)  next 1  jump -  close \"[A]\"  tags {}  flags advance  tool -  timeout 5\n");
  CHECK_CONTAINS(d, "zone 1  ctl/0/1  forced \"\" (0 tokens)  next 2  jump 4  close \"[E]\"  tags {}  flags advance,jump,loop  tool -  timeout 5  loop 0 [min 1, max 3]\n");
  CHECK_CONTAINS(d, "zone 2  a/0/0  forced \"say \\\"hi\\\"\\n[A]\" (12 tokens)  next 3");
  CHECK_CONTAINS(d, "zone 3  a/0/1  forced \"a[E]\" (4 tokens)  next 0  jump -  close \"[E]\"  tags {x}  flags advance");
  CHECK_CONTAINS(d, "zone 5  tool/0/1  forced \"\" (0 tokens)  next DONE  jump -  close \"[E]\"  tags {y}  flags advance,output  tool calc  timeout 5\n");
  CHECK_CONTAINS(d, "patterns:  0=\"[A]\"(3 tokens)  1=\"[E]\"(3 tokens)  2=\"[J]\" control(3 tokens)\n");
  CHECK_CONTAINS(d, "extractions:  xs={x}\n");
}

TEST_CASE("token_vm frontend: DOT output has a node per zone and labelled next/jump edges") {
  const std::string dot = workflow_dot(example(), ByteTokenizer());
  CHECK(dot.rfind("digraph workflow {", 0) == 0);
  CHECK_CONTAINS(dot, "  z1 [label=\"1: ctl/0/1\\n\\\"\\\"\\nloop 0 [min 1, max 3]\", shape=diamond];\n");
  CHECK_CONTAINS(dot, "  z2 [label=\"2: a/0/0\\n\\\"say \\\\\\\"hi\\\\\\\"\\\\n[A]\\\"\"];\n");
  CHECK_CONTAINS(dot, "  z5 [label=\"5: tool/0/1\\n\\\"\\\"\\noutput -> calc\"];\n");
  CHECK_CONTAINS(dot, "  z0 -> z1 [label=\"next\"];\n");
  CHECK_CONTAINS(dot, "  z1 -> z2 [label=\"next\"];\n");
  CHECK_CONTAINS(dot, "  z1 -> z4 [label=\"jump\", style=dashed];\n");
  CHECK_CONTAINS(dot, "  z3 -> z0 [label=\"next\"];\n");  // the body back to the control head
  CHECK_CONTAINS(dot, "  z5 -> done [label=\"next\"];\n");
  CHECK_CONTAINS(dot, "  done [label=\"DONE\", shape=doublecircle];\n");
  size_t edges = 0;
  for (size_t at = dot.find(" -> "); at != std::string::npos; at = dot.find(" -> ", at + 1)) ++edges;
  CHECK(edges == 6 + 1 + 1);  // six next edges, one jump edge, and "output -> calc" inside a label
  CHECK(dot.substr(dot.size() - 2) == "}\n");
}

TEST_CASE("token_vm frontend: quote_text escapes only what would break a line") {
  CHECK(quote_text("a \"b\"\\\n\t\x01 é") == "\"a \\\"b\\\"\\\\\\n\\t\\x01 é\"");
}
