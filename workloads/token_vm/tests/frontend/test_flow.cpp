// Flow constructs lowered to zone tables (addresses, flags, loop bounds), checked two ways:
// against the tables derived by hand from spec §1.2, and by walking the compiled workflow with
// a small independent interpreter of the step semantics (workflow.h) on scripted model output.
#include <doctest/doctest.h>

#include "byte_tokenizer.h"
#include "flow.h"
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
tools = ["calc", "search"]

[[a]]
text = "a[A]a[E]"
tags = [["x"]]
[[b]]
text = "b[A]b[E]"
tags = [["y"]]
[[c]]
text = "c[A]c[E]"
tags = [["x", "y"]]
max_gen_tokens = 3
[[ctl]]
text = "go?[A]"
tags = [[]]
)";

constexpr uint32_t A = kAdvanceActive, J = kJumpActive, L = kLoopDecision;

struct Expect {
  uint32_t next, jump, flags;
  const char* sequence;
  uint32_t zone_in_block;
};

void check_table(const Workflow& w, const std::vector<Expect>& expected) {
  REQUIRE(w.zones.size() == expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    CAPTURE(i);
    const Zone& z = w.zones[i];
    CHECK(z.next_addr == expected[i].next);
    CHECK(z.jump_addr == expected[i].jump);
    CHECK(z.flags == expected[i].flags);
    CHECK(w.sequences[z.sequence] == expected[i].sequence);
    CHECK(z.zone_in_block == expected[i].zone_in_block);
    CHECK(z.close_pattern == expected[i].zone_in_block);  // zone k is closed by zone pattern k
  }
}

std::shared_ptr<const Prompts> prompts() { return prompts_from(kPrompts); }
Workflow compile(const Program& p) { return p.compile(ByteTokenizer()); }

std::string forced(const Workflow& w, size_t zone) {
  const Zone& z = w.zones[zone];
  return ByteTokenizer().decode(std::span<const Token>(w.token_data.data() + z.token_start, z.token_end - z.token_start));
}

// An interpreter of workflow.h's step semantics for one stream, token-level matching with the
// byte tokenizer. The model's output is `script`: one byte per step in which the sampled token
// is used (forced steps do not consume it). Returns the sequence entered at each block-0/zone-0.
struct Walk {
  std::vector<std::string> sequences;
  std::string stream;
  bool done = false;
};

Walk walk(const Workflow& w, const std::string& script) {
  Walk out;
  std::vector<uint32_t> counters(w.loops.size(), 0);
  auto pattern = [&](uint32_t p) {
    const Pattern& pt = w.patterns[p];
    return std::string(w.pattern_tokens.begin() + pt.token_start, w.pattern_tokens.begin() + pt.token_end);
  };
  auto ends_with = [](const std::string& s, const std::string& p) {
    return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
  };
  uint32_t pc = 0, token_num = 0, generated = 0, depth = 0;
  size_t used = 0;
  std::string history;
  bool changed = true;
  while (pc < w.zones.size()) {
    const Zone& z = w.zones[pc];
    if (changed) {
      token_num = generated = depth = 0;
      history.clear();
      if (z.block == 0 && z.zone_in_block == 0) out.sequences.push_back(w.sequences[z.sequence]);
      changed = false;
    }
    Token t;
    bool timeout = false;
    if (token_num < z.token_end - z.token_start) {
      t = w.token_data[z.token_start + token_num];
    } else {
      if (used >= script.size()) return out;  // the script ran out: stop where we are
      t = Token(uint8_t(script[used++]));
      timeout = generated + 1 >= z.timeout;
      ++generated;
    }
    out.stream += char(t);
    history += char(t);
    const uint32_t before = depth;
    if (w.escape_open != kNone && ends_with(history, pattern(w.escape_open))) ++depth;
    if (w.escape_close != kNone && ends_with(history, pattern(w.escape_close)) && depth > 0) --depth;
    const bool free = before == 0 && depth == 0;
    const bool jump = free && (z.flags & kJumpActive) && ends_with(history, pattern(w.control_pattern));
    const bool advance = free && (z.flags & kAdvanceActive) && ends_with(history, pattern(z.close_pattern));
    if (!timeout && !jump && !advance) {
      ++token_num;
      continue;
    }
    uint32_t target = timeout ? z.next_addr : jump ? z.jump_addr : z.next_addr;
    if (z.flags & kLoopDecision) {
      uint32_t& c = counters[z.loop];
      if (c < w.loops[z.loop].min) target = z.next_addr;
      else if (c >= w.loops[z.loop].max) target = z.jump_addr;
      c = target == z.next_addr ? c + 1 : 0;
    }
    pc = target;
    changed = true;
  }
  out.done = true;
  return out;
}

using Seqs = std::vector<std::string>;

}  // namespace

TEST_CASE("token_vm frontend: run lowers to chained zones with forced text, tags, timeouts and patterns") {
  Program p(prompts());
  p.run("a").run("c");
  const Workflow w = compile(p);
  check_table(w, {{1, kNone, A, "a", 0}, {2, kNone, A, "a", 1}, {3, kNone, A, "c", 0}, {4, kNone, A, "c", 1}});
  CHECK(forced(w, 0) == "a[A]");
  CHECK(forced(w, 1) == "a[E]");
  CHECK(w.zones[0].tags == 0);
  CHECK(w.zones[1].tags == 0b01);
  CHECK(w.zones[3].tags == 0b11);
  CHECK(w.zones[1].timeout == 5);  // default_max_token_length
  CHECK(w.zones[3].timeout == 3);  // max_gen_tokens
  CHECK(w.zones[2].block == 0);
  REQUIRE(w.patterns.size() == 3);
  CHECK(std::string(w.pattern_bytes.begin(), w.pattern_bytes.end()) == "[A][E][J]");
  CHECK(w.pattern_tokens == std::vector<Token>{'[', 'A', ']', '[', 'E', ']', '[', 'J', ']'});
  CHECK(w.control_pattern == 2);
  CHECK(w.escape_open == kNone);
  CHECK(w.pad_token == 256);
  CHECK(w.tags == std::vector<std::string>{"x", "y"});
  CHECK(w.tools == std::vector<std::string>{"calc", "search"});
  CHECK(w.sequences == std::vector<std::string>{"a", "b", "c", "ctl"});
  CHECK(walk(w, "").sequences == Seqs{"a", "c"});
  CHECK(walk(w, "").done);
}

TEST_CASE("token_vm frontend: loop lowers to a decision zone with enforced bounds") {
  Program p(prompts());
  p.loop("ctl", 1, 3, [](Program& body) { body.run("a"); }).run("b");
  const Workflow w = compile(p);
  check_table(w, {{1, kNone, A, "ctl", 0},
                  {2, 4, A | J | L, "ctl", 1},  // close pattern -> body, control pattern -> after the loop
                  {3, kNone, A, "a", 0},
                  {0, kNone, A, "a", 1},  // the body's end goes back to the control head
                  {5, kNone, A, "b", 0},
                  {6, kNone, A, "b", 1}});
  CHECK(w.zones[1].loop == 0);
  REQUIRE(w.loops.size() == 1);
  CHECK(w.loops[0].min == 1);
  CHECK(w.loops[0].max == 3);
  // The model says stop at once: min forces one pass through the body.
  CHECK(walk(w, "[J][J]").sequences == Seqs{"ctl", "a", "ctl", "b"});
  // It says continue every time: max forces the exit after three passes.
  const Walk always = walk(w, "[E][E][E][E]");
  CHECK(always.sequences == Seqs{"ctl", "a", "ctl", "a", "ctl", "a", "ctl", "b"});
  CHECK(always.done);
  // Between the bounds the model decides.
  CHECK(walk(w, "[E][E][J]").sequences == Seqs{"ctl", "a", "ctl", "a", "ctl", "b"});
}

TEST_CASE("token_vm frontend: when lowers to next -> then, jump -> else, both merging after") {
  Program p(prompts());
  p.when("ctl", [](Program& t) { t.run("a"); }, [](Program& e) { e.run("b"); }).run("c");
  const Workflow w = compile(p);
  check_table(w, {{1, kNone, A, "ctl", 0},
                  {2, 4, A | J, "ctl", 1},
                  {3, kNone, A, "a", 0},
                  {6, kNone, A, "a", 1},  // then-branch skips the else-branch
                  {5, kNone, A, "b", 0},
                  {6, kNone, A, "b", 1},
                  {7, kNone, A, "c", 0},
                  {8, kNone, A, "c", 1}});
  CHECK(w.loops.empty());
  CHECK(walk(w, "[E]").sequences == Seqs{"ctl", "a", "c"});
  CHECK(walk(w, "[J]").sequences == Seqs{"ctl", "b", "c"});
  // A timeout leaves by next: the model rambles past max tokens (default 5) -> then-branch.
  CHECK(walk(w, "zzzzz").sequences == Seqs{"ctl", "a", "c"});

  SUBCASE("without an else-branch the jump exit goes straight to what follows") {
    Program q(prompts());
    q.when("ctl", [](Program& t) { t.run("a"); }).run("b");
    const Workflow v = compile(q);
    check_table(v, {{1, kNone, A, "ctl", 0}, {2, 4, A | J, "ctl", 1}, {3, kNone, A, "a", 0}, {4, kNone, A, "a", 1},
                    {5, kNone, A, "b", 0}, {6, kNone, A, "b", 1}});
    CHECK(walk(v, "[J]").sequences == Seqs{"ctl", "b"});
  }
  SUBCASE("a when at the end of the program: both exits are DONE") {
    Program q(prompts());
    q.when("ctl", {}, {});
    check_table(compile(q), {{1, kNone, A, "ctl", 0}, {2, 2, A | J, "ctl", 1}});
  }
}

TEST_CASE("token_vm frontend: capture and feed mark the last zone of their sequence") {
  Program p(prompts());
  p.capture("a", "search").feed("b");
  const Workflow w = compile(p);
  check_table(w, {{1, kNone, A, "a", 0}, {2, kNone, A | kOutput, "a", 1}, {3, kNone, A, "b", 0}, {4, kNone, A | kInput, "b", 1}});
  CHECK(w.zones[1].tool_id == 1);
  CHECK(w.zones[0].tool_id == kNone);
  CHECK(w.zones[3].tool_id == kNone);
}

TEST_CASE("token_vm frontend: extractions are tag unions") {
  Program p(prompts());
  p.run("a").extract("both", {"x", "y"}).extract("just_y", {"y"});
  const Workflow w = compile(p);
  REQUIRE(w.extractions.size() == 2);
  CHECK(w.extractions[0].name == "both");
  CHECK(w.extractions[0].tags == 0b11);
  CHECK(w.extractions[1].tags == 0b10);
}

TEST_CASE("token_vm frontend: nested loops: the inner exit returns to the outer head") {
  Program p(prompts());
  p.loop("ctl", 1, 2, [](Program& outer) { outer.loop("ctl", 0, 1, [](Program& inner) { inner.run("a"); }); });
  const Workflow w = compile(p);
  check_table(w, {{1, kNone, A, "ctl", 0},
                  {2, 6, A | J | L, "ctl", 1},
                  {3, kNone, A, "ctl", 0},
                  {4, 0, A | J | L, "ctl", 1},  // leaving the inner loop ends the outer body
                  {5, kNone, A, "a", 0},
                  {2, kNone, A, "a", 1}});
  CHECK(w.zones[1].loop == 0);
  CHECK(w.zones[3].loop == 1);
  CHECK(w.loops[1].min == 0);
  CHECK(w.loops[1].max == 1);
  // outer pass 1 (min 1 forces it); inner: "[E]" -> a, then max 1 forces the inner exit (its
  // counter resets), which ends the outer body; outer "[E]" -> pass 2; inner "[E]" -> a, "[J]"
  // -> out; outer "[E]" but max 2 forces the exit.
  const Walk r = walk(w, "[E][E][E][E][E][J][E]");
  CHECK(r.sequences == Seqs{"ctl", "ctl", "a", "ctl", "ctl", "ctl", "a", "ctl", "ctl"});
  CHECK(r.done);
}

TEST_CASE("token_vm frontend: subroutines inline (nested), each copy with its own zones and loops") {
  auto ps = prompts();
  Program inner(ps);
  inner.run("a").loop("ctl", 0, 2, [](Program& body) { body.run("b"); }).extract("ys", {"y"});
  Program middle(ps);
  middle.run("c").subroutine(inner);
  Program main(ps);
  main.subroutine(middle).subroutine(inner);
  const Workflow w = compile(main);
  check_table(w, {{1, kNone, A, "c", 0},   {2, kNone, A, "c", 1},        {3, kNone, A, "a", 0},   {4, kNone, A, "a", 1},
                  {5, kNone, A, "ctl", 0}, {6, 8, A | J | L, "ctl", 1},  {7, kNone, A, "b", 0},   {4, kNone, A, "b", 1},
                  {9, kNone, A, "a", 0},   {10, kNone, A, "a", 1},       {11, kNone, A, "ctl", 0}, {12, 14, A | J | L, "ctl", 1},
                  {13, kNone, A, "b", 0},  {10, kNone, A, "b", 1}});
  CHECK(w.zones[5].loop == 0);
  CHECK(w.zones[11].loop == 1);
  CHECK(w.loops.size() == 2);
  REQUIRE(w.extractions.size() == 1);  // the same extraction from both copies, merged
  CHECK(w.extractions[0].name == "ys");
  CHECK(walk(w, "[J][E][J]").sequences == Seqs{"c", "a", "ctl", "a", "ctl", "b", "ctl"});
}

TEST_CASE("token_vm frontend: escapes and byte matching reach the workflow") {
  auto ps = prompts_from(R"([config]
zone_patterns = ["[A]", "[E]"]
valid_tags = []
default_max_token_length = 4
sequences = ["s"]
control_pattern = "[J]"
escape_patterns = ["<<", ">>"]
[[s]]
text = "say <<[A]>>[A]"
tags = [[]]
)");
  const Workflow token_mode = default_program(ps).compile(ByteTokenizer());
  CHECK(token_mode.escape_open == 3);
  CHECK(token_mode.escape_close == 4);
  CHECK(forced(token_mode, 0) == "say <<[A]>>[A]");
  CHECK(walk(token_mode, "x[E]").done);  // the escaped [A] does not close zone 0 early
  CHECK(walk(token_mode, "x[E]").stream == "say <<[A]>>[A]x[E]");
  CompileOptions byte_mode;
  byte_mode.match_mode = MatchMode::Byte;
  byte_mode.pad_token = 999;
  const Workflow b = default_program(ps).compile(ByteTokenizer(), {}, byte_mode);
  CHECK(b.match_mode == MatchMode::Byte);
  CHECK(b.pad_token == 999);
  CHECK(b.token_data == token_mode.token_data);
}

TEST_CASE("token_vm frontend: flow builder errors") {
  auto ps = prompts();
  Program p(ps);
  CHECK_CONTAINS(bad_input([&] { p.run("nope"); }), "unknown sequence 'nope' (declared in p.toml: a, b, c, ctl)");
  CHECK_CONTAINS(bad_input([&] { p.loop("ctl", 0, 0, [](Program& b) { b.run("a"); }); }),
                 "loop 'ctl': bounds need 1 <= max and min <= max, got min 0 max 0");
  CHECK_CONTAINS(bad_input([&] { p.loop("ctl", 3, 2, [](Program& b) { b.run("a"); }); }), "got min 3 max 2");
  CHECK_CONTAINS(bad_input([&] { p.loop("ctl", 0, 2, [](Program&) {}); }), "loop 'ctl': the body is empty");
  CHECK_CONTAINS(bad_input([&] { p.capture("a", "shell"); }), "capture 'a': tool 'shell' is not declared in [config] tools (calc, search)");
  CHECK_CONTAINS(bad_input([&] { p.extract("e", {"z"}); }), "extract 'e': tag 'z' is not one of valid_tags");
  CHECK_CONTAINS(bad_input([&] { p.extract("e", {}); }), "extract 'e': needs at least one tag");
  p.extract("e", {"x"});
  CHECK_CONTAINS(bad_input([&] { p.extract("e", {"y"}); }), "extract 'e': defined twice");
  CHECK_CONTAINS(bad_input([&] { compile(Program(ps)); }), "the program runs no sequence");
  Program other(prompts_from(kPrompts, "other.toml"));
  CHECK_CONTAINS(bad_input([&] { p.subroutine(other); }), "built over another prompt set (other.toml)");

  auto long_pattern = prompts_from(R"([config]
zone_patterns = ["[A]", "[0123456789012345678901234567890123]"]
valid_tags = []
default_max_token_length = 4
sequences = ["s"]
control_pattern = "[J]"
[[s]]
text = ""
tags = [[]]
)");
  CHECK_CONTAINS(bad_input([&] { default_program(long_pattern).compile(ByteTokenizer()); }),
                 "p.toml: [config]: field 'zone_patterns[1]': pattern '[0123456789012345678901234567890123]' is 36 tokens long; "
                 "the matcher takes 1..32");
}

TEST_CASE("token_vm frontend: a decision, capture or feed on a fully forced zone is a warning") {
  auto ps = prompts_from(R"([config]
zone_patterns = ["[A]", "[E]"]
valid_tags = []
default_max_token_length = 4
sequences = ["open", "forced"]
control_pattern = "[J]"
tools = ["calc"]
[[open]]
text = "q[A]"
tags = [[]]
[[forced]]
text = "q[A]done[E]"
tags = [[]]
)");
  std::vector<std::string> warnings;
  Program quiet(ps);
  quiet.loop("open", 0, 2, [](Program& b) { b.run("forced"); }).capture("open", "calc").feed("open").run("forced");
  quiet.compile(ByteTokenizer(), {}, {}, &warnings);
  CHECK(warnings.empty());

  Program loud(ps);
  loud.loop("forced", 0, 2, [](Program& b) { b.run("open"); })
      .when("forced", {}, {})
      .capture("forced", "calc")
      .feed("forced")
      .loop("forced", 1, 1, [](Program& b) { b.run("open"); });  // the same warning once
  loud.compile(ByteTokenizer(), {}, {}, &warnings);
  REQUIRE(warnings.size() == 4);
  CHECK(warnings[0] == "flow: loop 'forced': the last zone of sequence 'forced' is fully forced (its text ends with '[E]'), "
                       "so the model never chooses the loop exit (only the bounds decide)");
  CHECK_CONTAINS(warnings[1], "flow: when 'forced': ");
  CHECK_CONTAINS(warnings[1], "always the then-branch");
  CHECK_CONTAINS(warnings[2], "nothing generated is captured");
  CHECK_CONTAINS(warnings[3], "no input is fed");
}
