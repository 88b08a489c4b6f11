// The host API: a tool call resolved for one stream while another keeps running, input
// feeds, waiting streams padding without advancing, bad input refused with BadInput.
#include "helpers.h"

namespace weft::token_vm::test {
namespace {

const TableTokenizer kBytes;

// Zone 0 (Output, tool "calc"): "C:" then the model writes an expression ending in ".".
// Zone 1 (Input): "R:" then the tool's answer is fed; the answer's "." closes it.
// Zone 2: "E" -> DONE.
Workflow tool_workflow() {
  Workflow w;
  w.pad_token = 256;
  w.tools = {"calc"};
  w.tags = {"expr", "result"};
  const uint32_t dot = pattern(w, "."), e = pattern(w, "E");
  zone(w, "C:", {.next_addr = 1, .flags = kAdvanceActive | kOutput, .tool_id = 0, .tags = 1, .timeout = 16, .close_pattern = dot});
  zone(w, "R:", {.next_addr = 2, .flags = kAdvanceActive | kInput, .tags = 2, .timeout = 4, .close_pattern = dot});
  zone(w, "E", {.next_addr = 3, .flags = kAdvanceActive, .timeout = 1, .close_pattern = e});
  w.extractions = {{"expr", 1}, {"result", 2}};
  return w;
}

std::vector<Token> column(const std::vector<std::string>& streams, size_t i) {
  std::vector<Token> t;
  for (const std::string& s : streams) t.push_back(i < s.size() ? uint8_t(s[i]) : uint8_t('_'));
  return t;
}

TEST_CASE("token_vm machine: one stream's tool call is resolved while the other keeps generating") {
  weft::test::ValidationClean clean;
  const Workflow w = tool_workflow();
  Pair p(w, kBytes, [] { VmConfig c; c.batch = 2; return c; }());
  std::vector<std::string> calls;
  for (Machine* m : {&p.ref, &p.dev})
    m->set_tool("calc", [&calls](const std::string& text) {
      calls.push_back(text);
      return text == "1+1." ? std::string("2.") : std::string("?.");
    });
  // Stream 0 finishes its expression at step 5; stream 1 keeps generating until step 11.
  const std::vector<std::string> sampled = {"__1+1.", "__22222222*3."};
  for (size_t i = 0; i < 6; ++i) {
    p.ref.step(column(sampled, i));
    p.dev.step(column(sampled, i));
  }
  for (Machine* m : {&p.ref, &p.dev}) {
    REQUIRE(m->callbacks_ready());
    REQUIRE(m->pending_calls().size() == 1);
    CHECK(m->pending_calls()[0].stream == 0);
    CHECK(m->pending_calls()[0].text == "1+1.");
    CHECK(m->pending_calls()[0].tool_name == "calc");
  }
  // Two more steps unresolved: stream 0 forces "R:" then waits (pad, token_num stays); stream 1
  // keeps generating.
  for (size_t i = 6; i < 9; ++i) {
    p.ref.step(column(sampled, i));
    p.dev.step(column(sampled, i));
  }
  for (Machine* m : {&p.ref, &p.dev}) {
    const auto& s0 = m->status()[0];
    CHECK(s0[6].source() == TVM_SRC_FORCED);
    CHECK(s0[7].source() == TVM_SRC_FORCED);
    CHECK(s0[8].source() == TVM_SRC_WAIT);
    CHECK(s0[8].token == 256);
    CHECK(s0[8].token_num == 2);
    CHECK(m->stream_status()[0] == TVM_WAIT_TOOL);
    CHECK(m->stream_status()[1] == TVM_RUNNING);
    CHECK(m->status()[1][8].source() == TVM_SRC_SAMPLED);
    CHECK(m->resolve_callbacks() == 1);
    CHECK(!m->callbacks_ready());
  }
  for (size_t i = 9; i < 20; ++i) {
    p.ref.step(column(sampled, i));
    p.dev.step(column(sampled, i));
  }
  // Stream 1's call became ready at step 12; resolve it, run to the end.
  for (Machine* m : {&p.ref, &p.dev}) {
    REQUIRE(m->pending_calls().size() == 1);
    CHECK(m->pending_calls()[0].stream == 1);
    m->resolve_callbacks();
  }
  for (size_t i = 20; i < 26; ++i) {
    p.ref.step(column(sampled, i));
    p.dev.step(column(sampled, i));
  }
  CHECK(calls == std::vector<std::string>{"1+1.", "1+1.", "22222222*3.", "22222222*3."});
  for (Machine* m : {&p.ref, &p.dev}) {
    CHECK(m->done());
    CHECK(m->generative_sequence()[0] == "C:1+1.R:2.E");
    CHECK(m->generative_sequence()[1] == "C:22222222*3.R:?.E");
    const auto ex = m->extract();
    CHECK(ex[0].at("expr") == "C:1+1.");
    CHECK(ex[0].at("result") == "R:2.");
    CHECK(ex[1].at("result") == "R:?.");
    CHECK(m->decisions()[0] == std::vector<uint32_t>{0, 1, 2});
  }
  check_same(p.ref, p.dev);
}

TEST_CASE("token_vm machine: input feeds are queued per stream and consumed one per Input zone") {
  weft::test::ValidationClean clean;
  // Zone 0 (Input): "Q:" then the fed question; the model then ends it with ".".
  // Zone 1 (Input): fed again, closed by the feed's own ".". Zone 2 -> DONE by timeout.
  Workflow w;
  w.pad_token = 256;
  const uint32_t dot = pattern(w, ".");
  zone(w, "Q:", {.next_addr = 1, .flags = kAdvanceActive | kInput, .timeout = 4, .close_pattern = dot});
  zone(w, "", {.next_addr = 2, .flags = kAdvanceActive | kInput, .timeout = 4, .close_pattern = dot});
  zone(w, "", {.next_addr = 3, .flags = 0, .timeout = 1});
  Pair p(w, kBytes, [] { VmConfig c; c.batch = 2; c.feed_capacity = 4; return c; }(), 1);
  for (Machine* m : {&p.ref, &p.dev}) {
    m->feed(0, "ab");
    m->feed(0, "c.");
    // Stream 1 gets nothing yet.
    CHECK(error_code_of([&] { m->feed(1, "too long"); }) == ErrorCode::BadInput);
    CHECK(error_code_of([&] { m->feed(2, "x"); }) == ErrorCode::BadInput);
  }
  auto steps = [&](int k, char tok) {
    for (int i = 0; i < k; ++i) {
      const std::vector<Token> t = {uint8_t(tok), uint8_t(tok)};
      p.ref.step(t);
      p.dev.step(t);
    }
  };
  steps(4, '.');  // stream 0: Q : a b ; stream 1: Q : wait wait
  for (Machine* m : {&p.ref, &p.dev}) {
    CHECK(m->generative_sequence()[0] == "Q:ab");
    CHECK(m->generative_sequence()[1] == "Q:");
    CHECK(m->stream_status()[1] == TVM_WAIT_TOOL);
    m->feed(1, "z");
  }
  steps(5, '.');
  for (Machine* m : {&p.ref, &p.dev}) {
    // stream 0: "." (sampled, closes zone 0) then the second message "c." closes zone 1,
    // then zone 2's single token times out.
    CHECK(m->generative_sequence()[0] == "Q:ab.c..");
    CHECK(m->status()[0][5].source() == TVM_SRC_FEED);
    CHECK((m->status()[0][6].bits & TVM_FEED_DONE) != 0);
    CHECK(m->done() == false);  // stream 1 waits for its second message
    CHECK(m->generative_sequence()[1] == "Q:z.");
  }
  check_same(p.ref, p.dev);
}

TEST_CASE("token_vm machine: bad input is refused with BadInput naming it") {
  const Workflow w = tool_workflow();
  VmConfig c;
  c.batch = 2;
  Machine m(w, kBytes, std::make_unique<Reference>(w, c));
  CHECK(error_code_of([&] { m.step(std::vector<Token>{1}); }) == ErrorCode::BadInput);
  CHECK(error_message_of([&] { m.step(std::vector<Token>{1, 999}); }).find("999") != std::string::npos);
  CHECK(error_code_of([&] { m.set_tool("nope", {}); }) == ErrorCode::BadInput);
  CHECK(error_code_of([&] { m.resolve(0, "x"); }) == ErrorCode::BadInput);
  // A call with no registered tool stays pending.
  for (const char* s : {"__", "__", ".."}) m.step(std::vector<Token>{uint8_t(s[0]), uint8_t(s[1])});
  CHECK(m.callbacks_ready());
  CHECK(error_code_of([&] { m.resolve_callbacks(); }) == ErrorCode::BadInput);
  CHECK(m.pending_calls().size() == 2);
  m.resolve(1, "5.");
  CHECK(m.pending_calls().size() == 1);
  // Byte-level workflows need the vocabulary; batch and capacities are checked.
  Workflow b = w;
  b.match_mode = MatchMode::Byte;
  CHECK(error_code_of([&] { Reference r(b, c); }) == ErrorCode::BadInput);
  VmConfig zero;
  zero.batch = 0;
  CHECK(error_code_of([&] { Reference r(w, zero); }) == ErrorCode::BadInput);
  VmConfig small = c;
  small.capture_capacity = 3;  // below the Output zone's timeout of 16
  CHECK(error_code_of([&] { Reference r(w, small); }) == ErrorCode::BadInput);
  CHECK(error_code_of([&] { DeviceVm d(weft::test::device(), w, c, DeviceVmOptions{0, 0}); }) == ErrorCode::BadInput);
}

}  // namespace
}  // namespace weft::token_vm::test
