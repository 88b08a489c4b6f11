// Golden per-step traces of hand-built workflows: every step's zone, token_num, token, tags,
// source and triggers written out by hand from workflow.h's semantics, checked on the CPU
// reference; the device must then produce the very same records (and state).
#include "helpers.h"

namespace weft::token_vm::test {
namespace {

std::vector<std::string> trace_of(const Machine& m, uint32_t stream) {
  std::vector<std::string> out;
  for (const TraceRecord& r : m.status()[stream]) out.push_back(describe(r));
  return out;
}

// Steps both machines with per-step tokens (one string per stream, one char per step).
void play(Pair& p, const std::vector<std::string>& streams) {
  size_t steps = 0;
  for (const std::string& s : streams) steps = std::max(steps, s.size());
  for (size_t i = 0; i < steps; ++i) {
    std::vector<Token> t;
    for (const std::string& s : streams) t.push_back(i < s.size() ? uint8_t(s[i]) : uint8_t('_'));
    p.ref.step(t);
    p.dev.step(t);
  }
}

void expect_trace(Pair& p, uint32_t stream, const std::vector<std::string>& want) {
  const std::vector<std::string> got = trace_of(p.ref, stream);
  CHECK(got.size() == want.size());
  for (size_t i = 0; i < std::min(got.size(), want.size()); ++i) CHECK_MESSAGE(got[i] == want[i], "step " << i);
  check_same(p.ref, p.dev);
}

const TableTokenizer kBytes;

VmConfig batch(uint32_t b) {
  VmConfig c;
  c.batch = b;
  return c;
}

// A loop: decision zone 0 ("?" then the model decides: "." = body, "!" = exit), body zone 1,
// exit zone 2. min 2, max 3.
Workflow loop_workflow() {
  Workflow w;
  w.pad_token = 256;
  const uint32_t dot = pattern(w, "."), bang = pattern(w, "!"), b = pattern(w, "b"), e = pattern(w, "E");
  w.control_pattern = bang;
  w.loops = {{2, 3}};
  zone(w, "?", {.next_addr = 1, .jump_addr = 2, .flags = kAdvanceActive | kJumpActive | kLoopDecision, .timeout = 8, .close_pattern = dot, .loop = 0});
  zone(w, "b", {.next_addr = 0, .flags = kAdvanceActive, .timeout = 8, .close_pattern = b});
  zone(w, "E", {.next_addr = 3, .flags = kAdvanceActive, .timeout = 8, .close_pattern = e});
  return w;
}

TEST_CASE("token_vm golden: loop min forces the body, max forces the exit, DONE pads") {
  weft::test::ValidationClean clean;
  const Workflow w = loop_workflow();
  Pair p(w, kBytes, batch(2));
  // Stream 0 wants out at once ("!"), stream 1 wants to stay (".").
  play(p, {"_!__!__!___", "_.__.__.__.___"});
  const std::vector<std::string> exit_early = {
      "pc 0 tn 0 tok 63 tags 0 forced",
      "pc 0 tn 1 tok 33 tags 0 sampled control jump loop_forced",  // counter 0 < min: body
      "pc 1 tn 0 tok 98 tags 0 forced close advance",
      "pc 0 tn 0 tok 63 tags 0 forced",
      "pc 0 tn 1 tok 33 tags 0 sampled control jump loop_forced",  // counter 1 < min: body
      "pc 1 tn 0 tok 98 tags 0 forced close advance",
      "pc 0 tn 0 tok 63 tags 0 forced",
      "pc 0 tn 1 tok 33 tags 0 sampled control jump",  // counter 2: the exit is allowed
      "pc 2 tn 0 tok 69 tags 0 forced close advance",
      "pc 3 tn 0 tok 256 tags 0 done",
      "pc 3 tn 0 tok 256 tags 0 done",
      "pc 3 tn 0 tok 256 tags 0 done",
      "pc 3 tn 0 tok 256 tags 0 done",
      "pc 3 tn 0 tok 256 tags 0 done",
  };
  expect_trace(p, 0, exit_early);
  std::vector<std::string> stay;
  for (int i = 0; i < 3; ++i) {
    stay.push_back("pc 0 tn 0 tok 63 tags 0 forced");
    stay.push_back("pc 0 tn 1 tok 46 tags 0 sampled close advance");
    stay.push_back("pc 1 tn 0 tok 98 tags 0 forced close advance");
  }
  stay.push_back("pc 0 tn 0 tok 63 tags 0 forced");
  stay.push_back("pc 0 tn 1 tok 46 tags 0 sampled close advance loop_forced");  // counter 3 = max: exit
  stay.push_back("pc 2 tn 0 tok 69 tags 0 forced close advance");
  stay.push_back("pc 3 tn 0 tok 256 tags 0 done");
  stay.push_back("pc 3 tn 0 tok 256 tags 0 done");
  expect_trace(p, 1, stay);
  CHECK(p.ref.done());
  CHECK(p.dev.done());
  CHECK(p.ref.decisions()[0] == std::vector<uint32_t>{0, 1, 0, 1, 0, 2});
  CHECK(p.dev.decisions()[1] == std::vector<uint32_t>{0, 1, 0, 1, 0, 1, 0, 2});
}

TEST_CASE("token_vm golden: when/else branches on advance vs jump and merges; tags paint the pre-transition zone") {
  weft::test::ValidationClean clean;
  Workflow w;
  w.pad_token = 256;
  w.tags = {"decision", "yes", "no"};
  const uint32_t y = pattern(w, "y"), bang = pattern(w, "!"), dot = pattern(w, ".");
  w.control_pattern = bang;
  zone(w, "?", {.next_addr = 1, .jump_addr = 2, .flags = kAdvanceActive | kJumpActive, .tags = 1, .timeout = 4, .close_pattern = y});
  zone(w, "Y.", {.next_addr = 3, .flags = kAdvanceActive, .tags = 2, .timeout = 4, .close_pattern = dot});
  zone(w, "N.", {.next_addr = 3, .flags = kAdvanceActive, .tags = 4, .timeout = 4, .close_pattern = dot});
  zone(w, "", {.next_addr = 4, .flags = kAdvanceActive, .timeout = 2, .close_pattern = dot});
  w.extractions = {{"answer", 2 | 4}, {"decision", 1}};
  Pair p(w, kBytes, batch(3));
  play(p, {"_y__ab", "_!__c.", "_zz__xy"});
  expect_trace(p, 0, {"pc 0 tn 0 tok 63 tags 1 forced", "pc 0 tn 1 tok 121 tags 1 sampled close advance",
                      "pc 1 tn 0 tok 89 tags 2 forced", "pc 1 tn 1 tok 46 tags 2 forced close advance",
                      "pc 3 tn 0 tok 97 tags 0 sampled", "pc 3 tn 1 tok 98 tags 0 timeout timeout_exit",
                      "pc 4 tn 0 tok 256 tags 0 done"});
  expect_trace(p, 1, {"pc 0 tn 0 tok 63 tags 1 forced", "pc 0 tn 1 tok 33 tags 1 sampled control jump",
                      "pc 2 tn 0 tok 78 tags 4 forced", "pc 2 tn 1 tok 46 tags 4 forced close advance",
                      "pc 3 tn 0 tok 99 tags 0 sampled", "pc 3 tn 1 tok 46 tags 0 timeout close timeout_exit",
                      "pc 4 tn 0 tok 256 tags 0 done"});
  // Zone 0's timeout is 4: "z", "z", "_" are sampled, the fourth generated token times out.
  expect_trace(p, 2, {"pc 0 tn 0 tok 63 tags 1 forced", "pc 0 tn 1 tok 122 tags 1 sampled", "pc 0 tn 2 tok 122 tags 1 sampled",
                      "pc 0 tn 3 tok 95 tags 1 sampled", "pc 0 tn 4 tok 95 tags 1 timeout timeout_exit",
                      "pc 1 tn 0 tok 89 tags 2 forced", "pc 1 tn 1 tok 46 tags 2 forced close advance"});
  const auto ex = p.dev.extract();
  CHECK(ex[0].at("answer") == "Y.");
  CHECK(ex[0].at("decision") == "?y");
  CHECK(ex[1].at("answer") == "N.");
  CHECK(ex[1].at("decision") == "?!");
  CHECK(p.dev.generative_sequence()[0] == "?yY.ab");
  CHECK(p.ref.extract() == ex);
}

TEST_CASE("token_vm golden: nested escapes suppress triggers; a timeout leaves an open escape") {
  weft::test::ValidationClean clean;
  Workflow w;
  w.pad_token = 256;
  const uint32_t dot = pattern(w, "."), bang = pattern(w, "!");
  w.control_pattern = bang;
  w.escape_open = pattern(w, "{");
  w.escape_close = pattern(w, "}");
  zone(w, "", {.next_addr = 1, .jump_addr = 2, .flags = kAdvanceActive | kJumpActive, .timeout = 20, .close_pattern = dot});
  zone(w, "", {.next_addr = 3, .flags = kAdvanceActive, .timeout = 3, .close_pattern = dot});
  zone(w, "", {.next_addr = 3, .flags = kAdvanceActive, .timeout = 3, .close_pattern = dot});
  Pair p(w, kBytes, batch(2));
  // Stream 0: "{{!}.}!" : "!" and "." inside the escape do nothing; the "}" that closes it
  // does not trigger either; the final "!" jumps. Stream 1 jumps to zone 2 and opens an
  // escape there that never closes: the timeout of 3 must still take it out (no livelock).
  play(p, {"{{!}.}!a", "!{..a"});
  expect_trace(p, 0, {"pc 0 tn 0 tok 123 tags 0 sampled esc_open depth 1", "pc 0 tn 1 tok 123 tags 0 sampled esc_open depth 2",
                      "pc 0 tn 2 tok 33 tags 0 sampled control depth 2", "pc 0 tn 3 tok 125 tags 0 sampled esc_close depth 1",
                      "pc 0 tn 4 tok 46 tags 0 sampled close depth 1", "pc 0 tn 5 tok 125 tags 0 sampled esc_close",
                      "pc 0 tn 6 tok 33 tags 0 sampled control jump", "pc 2 tn 0 tok 97 tags 0 sampled"});
  expect_trace(p, 1, {"pc 0 tn 0 tok 33 tags 0 sampled control jump", "pc 2 tn 0 tok 123 tags 0 sampled esc_open depth 1",
                      "pc 2 tn 1 tok 46 tags 0 sampled close depth 1",
                      "pc 2 tn 2 tok 46 tags 0 timeout close timeout_exit depth 1",  // leaves, escape and all
                      "pc 3 tn 0 tok 256 tags 0 done", "pc 3 tn 0 tok 256 tags 0 done", "pc 3 tn 0 tok 256 tags 0 done",
                      "pc 3 tn 0 tok 256 tags 0 done"});
}

TEST_CASE("token_vm golden: nested loops (an inlined subroutine inside a loop) run their bounds from forced prompts") {
  weft::test::ValidationClean clean;
  // outer head (0) -> inner head (1) -> inner body (2) -> back to 1; inner exit -> outer
  // tail (3) -> back to 0; outer exit -> end (4). Every prompt closes its own zone, so the
  // loop bounds alone decide: min = max = 2 for both.
  Workflow w;
  w.pad_token = 256;
  const uint32_t o = pattern(w, "o"), i = pattern(w, "i"), x = pattern(w, "x"), t = pattern(w, "t"), e = pattern(w, "e");
  w.control_pattern = pattern(w, "!");
  w.loops = {{2, 2}, {2, 2}};
  const uint32_t adv = kAdvanceActive, dec = kAdvanceActive | kJumpActive | kLoopDecision;
  zone(w, "o", {.next_addr = 1, .jump_addr = 4, .flags = dec, .close_pattern = o, .loop = 0});
  zone(w, "i", {.next_addr = 2, .jump_addr = 3, .flags = dec, .close_pattern = i, .loop = 1});
  zone(w, "x", {.next_addr = 1, .flags = adv, .close_pattern = x});
  zone(w, "t", {.next_addr = 0, .flags = adv, .close_pattern = t});
  zone(w, "e", {.next_addr = 5, .flags = adv, .close_pattern = e});
  Pair p(w, kBytes, batch(1), 4);
  std::vector<Token> none(24, '_');
  p.ref.run(std::span<const Token>(none).first(4), 4);  // N steps per submission on both
  p.dev.run(std::span<const Token>(none).first(4), 4);
  p.ref.run(std::span<const Token>(none).subspan(4), 20);
  for (int k = 0; k < 5; ++k) p.dev.run(std::span<const Token>(none).subspan(4 + 4 * k, 4), 4);
  const std::vector<uint32_t> want = {0, 1, 2, 1, 2, 1, 3, 0, 1, 2, 1, 2, 1, 3, 0, 4};
  CHECK(p.ref.decisions()[0] == want);
  CHECK(p.dev.decisions()[0] == want);
  CHECK(p.ref.generative_sequence()[0] == "oixixitoixixitoe");
  check_same(p.ref, p.dev);
}

TEST_CASE("token_vm golden: byte-level matching finds a pattern split across tokens; token-level misses it") {
  weft::test::ValidationClean clean;
  const TableTokenizer tok({"[E", "OS", "]x", "OS]"});  // ids 256..259
  for (MatchMode mode : {MatchMode::Byte, MatchMode::Token}) {
    Workflow w;
    w.pad_token = 300;
    w.match_mode = mode;
    const uint32_t eos = pattern(w, "[EOS]");
    zone(w, "", {.next_addr = 1, .flags = kAdvanceActive, .timeout = 10, .close_pattern = eos});
    VmConfig c = batch(2);
    if (mode == MatchMode::Byte) c.vocab_bytes = vocab_bytes(tok);
    Pair p(w, tok, c);
    // Stream 0: "[E" "OS" "]x": the pattern ends inside the last token. Stream 1: "[" "E" "OS]".
    for (const auto& t : std::vector<std::vector<Token>>{{256, '['}, {257, 'E'}, {258, 259}, {'a', 'a'}}) {
      p.ref.step(t);
      p.dev.step(t);
    }
    CAPTURE(int(mode));
    if (mode == MatchMode::Byte) {
      expect_trace(p, 0, {"pc 0 tn 0 tok 256 tags 0 sampled", "pc 0 tn 1 tok 257 tags 0 sampled",
                          "pc 0 tn 2 tok 258 tags 0 sampled close advance", "pc 1 tn 0 tok 300 tags 0 done"});
      expect_trace(p, 1, {"pc 0 tn 0 tok 91 tags 0 sampled", "pc 0 tn 1 tok 69 tags 0 sampled",
                          "pc 0 tn 2 tok 259 tags 0 sampled close advance", "pc 1 tn 0 tok 300 tags 0 done"});
    } else {
      CHECK(p.ref.status()[0][2].transition() == TVM_TR_NONE);
      CHECK(p.ref.status()[1][2].transition() == TVM_TR_NONE);
      check_same(p.ref, p.dev);
    }
  }
}

}  // namespace
}  // namespace weft::token_vm::test
