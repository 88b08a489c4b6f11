// The TOML flow file: the same program as the C++ builder, and errors naming file, line, step.
#include <doctest/doctest.h>

#include <cstring>

#include "byte_tokenizer.h"
#include "flow_file.h"
#include "support.h"

using namespace weft::token_vm;
using namespace weft::token_vm::test;

namespace {

const std::string kPrompts = R"([config]
zone_patterns = ["[A]", "[E]"]
valid_tags = ["x", "y"]
default_max_token_length = 5
sequences = ["a", "b", "c", "ctl"]
control_pattern = "[J]"
tools = ["calc"]
[[a]]
text = "a[A]a[E]"
tags = [["x"]]
[[b]]
text = "b[A]b"
tags = [["y"]]
[[c]]
text = "c[A]"
tags = [["x", "y"]]
[[ctl]]
text = "go?[A]"
tags = [[]]
)";

bool same_zones(const Workflow& a, const Workflow& b) {
  if (a.zones.size() != b.zones.size()) return false;
  return std::memcmp(a.zones.data(), b.zones.data(), a.zones.size() * sizeof(Zone)) == 0 && a.token_data == b.token_data &&
         a.loops.size() == b.loops.size() &&
         std::memcmp(a.loops.data(), b.loops.data(), a.loops.size() * sizeof(Loop)) == 0;
}

}  // namespace

TEST_CASE("token_vm frontend: a flow file builds the same workflow as the C++ builder") {
  auto ps = prompts_from(kPrompts);
  const Program from_file = parse_flow(R"(
flow = [
  { run = "a" },
  { loop = "ctl", min = 1, max = 3, body = [
      { when = "ctl", then = [ { run = "b" } ], else = [ { subroutine = "tail" } ] },
  ] },
  { capture = "c", tool = "calc" },
  { feed = "b" },
  { subroutine = "tail" },
  { extract = "final", tags = ["x", "y"] },
]

[subroutines]
tail = [ { run = "c" }, { subroutine = "inner" } ]
inner = [ { run = "a" } ]
)", "f.toml", ps);

  Program inner(ps);
  inner.run("a");
  Program tail(ps);
  tail.run("c").subroutine(inner);
  Program built(ps);
  built.run("a")
      .loop("ctl", 1, 3, [&](Program& body) {
        body.when("ctl", [](Program& t) { t.run("b"); }, [&](Program& e) { e.subroutine(tail); });
      })
      .capture("c", "calc")
      .feed("b")
      .subroutine(tail)
      .extract("final", {"x", "y"});

  const Workflow a = from_file.compile(ByteTokenizer());
  const Workflow b = built.compile(ByteTokenizer());
  CHECK(a.zones.size() == 20);
  CHECK(same_zones(a, b));
  REQUIRE(a.extractions.size() == 1);
  CHECK(a.extractions[0].tags == 0b11);
}

TEST_CASE("token_vm frontend: flow file errors name the file, the line and the step") {
  auto ps = prompts_from(kPrompts);
  auto error = [&](const std::string& text) { return bad_input([&] { parse_flow(text, "f.toml", ps); }); };
  CHECK_CONTAINS(error("flow = [ { run = \"nope\" } ]"), "f.toml:1: flow[0]: unknown sequence 'nope'");
  CHECK_CONTAINS(error("flow = [\n { run = \"a\" },\n { loop = \"ctl\", max = 2, body = [ { run = \"zz\" } ] },\n]"),
                 "f.toml:3: flow[1].body[0]: unknown sequence 'zz'");
  CHECK_CONTAINS(error("flow = [ { loop = \"ctl\", body = [ { run = \"a\" } ] } ]"), "f.toml:1: flow[0]: missing 'max'");
  CHECK_CONTAINS(error("flow = [ { loop = \"ctl\", max = 2 } ]"), "flow[0]: missing 'body'");
  CHECK_CONTAINS(error("flow = [ { loop = \"ctl\", min = 3, max = 2, body = [ { run = \"a\" } ] } ]"),
                 "flow[0]: loop 'ctl': bounds need 1 <= max and min <= max, got min 3 max 2");
  CHECK_CONTAINS(error("flow = [ { loop = \"ctl\", max = -1, body = [] } ]"), "flow[0].max: expected an integer in [0, 2^31)");
  CHECK_CONTAINS(error("flow = [ { loop = \"ctl\", max = 1, body = [] } ]"), "flow[0]: loop 'ctl': the body is empty");
  CHECK_CONTAINS(error("flow = [ { run = \"a\", feed = \"b\" } ]"), "flow[0]: a step has one kind; found both");
  CHECK_CONTAINS(error("flow = [ { go = \"a\" } ]"), "flow[0]: no step kind");
  CHECK_CONTAINS(error("flow = [ { run = \"a\", tool = \"calc\" } ]"), "flow[0].tool: unknown key for a 'run' step");
  CHECK_CONTAINS(error("flow = [ { run = 3 } ]"), "flow[0].run: expected a string");
  CHECK_CONTAINS(error("flow = [ \"a\" ]"), "flow[0]: expected a step table");
  CHECK_CONTAINS(error("flow = { run = \"a\" }"), "flow: expected an array of steps");
  CHECK_CONTAINS(error("steps = []"), "f.toml:1: steps: unknown key");
  CHECK_CONTAINS(error("subroutines = []"), "f.toml:1: subroutines: expected a table of step lists");
  CHECK_CONTAINS(error("[subroutines]\nx = []"), "flow: missing");
  CHECK_CONTAINS(error("flow = [ { capture = \"c\" } ]"), "flow[0]: missing 'tool'");
  CHECK_CONTAINS(error("flow = [ { capture = \"c\", tool = \"web\" } ]"), "flow[0]: capture 'c': tool 'web' is not declared");
  CHECK_CONTAINS(error("flow = [ { extract = \"e\" } ]"), "flow[0]: missing 'tags'");
  CHECK_CONTAINS(error("flow = [ { extract = \"e\", tags = [\"q\"] } ]"), "flow[0]: extract 'e': tag 'q' is not one of valid_tags");
  CHECK_CONTAINS(error("flow = [ { extract = \"e\", tags = [1] } ]"), "flow[0].tags: expected tag names");
  CHECK_CONTAINS(error("flow = [ { subroutine = \"s\" } ]"), "flow[0]: no subroutine 's' in [subroutines]");
  CHECK_CONTAINS(error("flow = [ { subroutine = \"s\" } ]\n[subroutines]\ns = [ { subroutine = \"t\" } ]\nt = [ { subroutine = \"s\" } ]"),
                 "subroutines.t[0]: subroutine 's' calls itself");
  CHECK_CONTAINS(error("flow = [ { when = \"ctl\", then = [ { run = \"q\" } ] } ]"), "flow[0].then[0]: unknown sequence 'q'");
  CHECK_CONTAINS(error("flow = [ { when = \"ctl\", else = 3 } ]"), "flow[0].else: expected an array of steps");
  CHECK_CONTAINS(error("flow = [ { run = \"a\" "), "f.toml:1:");
  CHECK_CONTAINS(error("flow = [ { run = \"a\" "), "TOML syntax error");
}

TEST_CASE("token_vm frontend: subroutine calls that unfold too far are refused") {
  auto ps = prompts_from(kPrompts);
  std::string text = "flow = [ { subroutine = \"s0\" } ]\n[subroutines]\n";
  for (int i = 0; i < 24; ++i)
    text += "s" + std::to_string(i) + " = [ { subroutine = \"s" + std::to_string(i + 1) + "\" }, { subroutine = \"s" +
            std::to_string(i + 1) + "\" } ]\n";
  text += "s24 = [ { run = \"a\" } ]\n";
  CHECK_CONTAINS(bad_input([&] { parse_flow(text, "f.toml", ps); }), "the flow unfolds to more than 100000 steps");
}

TEST_CASE("token_vm frontend: a flow of more plain steps than the limit is refused at the step past it") {
  // Regression: only subroutine, loop and when steps were counted, so 100,001 runs passed.
  auto ps = prompts_from(kPrompts);
  std::string text = "flow = [\n";
  for (int i = 0; i < 100001; ++i) text += "{ run = \"a\" },\n";
  text += "]\n";
  const std::string msg = bad_input([&] { parse_flow(text, "f.toml", ps); });
  CHECK_CONTAINS(msg, "f.toml:100002: flow[100000]: the flow unfolds to more than 100000 steps");
  text = "flow = [ { loop = \"a\", max = 3, body = [ { run = \"a\" } ] } ]\n";
  CHECK_NOTHROW(parse_flow(text, "f.toml", ps));
}
