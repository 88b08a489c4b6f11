// The token VM on the device against its CPU reference: a golden per-step trace (a loop whose
// min/max bounds override the model, written out by hand from workflow.h's semantics), and a
// small randomized differential run (random workflows x pattern-biased random streams, tool
// calls and feeds through the host API), both bit-exact.
#include <random>

#include "conformance.h"
#include "device_vm.h"
#include "differential.h"
#include "machine.h"
#include "random_workflow.h"
#include "reference.h"
#include "test_tokenizer.h"

namespace weft::conformance {

namespace {

using namespace weft::token_vm;

Result golden_loop(Device& dev) {
  // Decision zone 0 ("?" then the model: "." = body, "!" = exit), body 1, exit 2; min 2, max 3.
  Workflow w;
  w.pad_token = 256;
  const uint32_t dot = add_byte_pattern(w, "."), bang = add_byte_pattern(w, "!"), b = add_byte_pattern(w, "b"), e = add_byte_pattern(w, "E");
  w.control_pattern = bang;
  w.loops = {{2, 3}};
  add_byte_zone(w, "?", {.next_addr = 1, .jump_addr = 2, .flags = kAdvanceActive | kJumpActive | kLoopDecision, .timeout = 8,
                    .close_pattern = dot, .loop = 0});
  add_byte_zone(w, "b", {.next_addr = 0, .flags = kAdvanceActive, .timeout = 8, .close_pattern = b});
  add_byte_zone(w, "E", {.next_addr = 3, .flags = kAdvanceActive, .timeout = 8, .close_pattern = e});
  const TableTokenizer tok;
  VmConfig c;
  c.batch = 1;
  Machine m(w, tok, std::make_unique<DeviceVm>(dev, w, c, token_vm::DeviceVmOptions{4, 0}));
  const std::string sampled = "_!__!__!____";
  std::vector<Token> t(sampled.begin(), sampled.end());
  m.run(t, uint32_t(t.size()));
  const std::vector<std::string> want = {
      "pc 0 tn 0 tok 63 tags 0 forced", "pc 0 tn 1 tok 33 tags 0 sampled control jump loop_forced",
      "pc 1 tn 0 tok 98 tags 0 forced close advance", "pc 0 tn 0 tok 63 tags 0 forced",
      "pc 0 tn 1 tok 33 tags 0 sampled control jump loop_forced", "pc 1 tn 0 tok 98 tags 0 forced close advance",
      "pc 0 tn 0 tok 63 tags 0 forced", "pc 0 tn 1 tok 33 tags 0 sampled control jump",
      "pc 2 tn 0 tok 69 tags 0 forced close advance", "pc 3 tn 0 tok 256 tags 0 done",
      "pc 3 tn 0 tok 256 tags 0 done", "pc 3 tn 0 tok 256 tags 0 done"};
  for (size_t i = 0; i < want.size(); ++i) {
    const std::string got = describe(m.status()[0][i]);
    if (got != want[i]) return Result::fail("step " + std::to_string(i) + ": got {" + got + "}, want {" + want[i] + "}");
  }
  if (!m.done()) return Result::fail("not DONE after the exit zone");
  return Result::pass("12 steps in 3 submissions of 4 match the hand-written trace");
}

Result random_differential(Device& dev) {
  uint64_t runs = 0;
  for (uint32_t k = 0; k < 8; ++k) {
    std::mt19937 rng(4242 + k);
    const MatchMode mode = k % 2 ? MatchMode::Byte : MatchMode::Token;
    const RandomWorkflow rw = random_workflow(rng, mode);
    const TableTokenizer tok(rw.extra_vocab);
    VmConfig c;
    c.batch = 32;
    c.feed_capacity = 8;
    if (mode == MatchMode::Byte) c.vocab_bytes = vocab_bytes(tok);
    const uint32_t steps = 32, chunk = k % 3 == 0 ? 1 : 8;
    const std::vector<Token> tokens = random_tokens(rng, rw, c.batch, steps);
    Machine ref(rw.workflow, tok, std::make_unique<Reference>(rw.workflow, c));
    Machine gpu(rw.workflow, tok, std::make_unique<DeviceVm>(dev, rw.workflow, c, token_vm::DeviceVmOptions{chunk, 0}));
    for (Machine* m : {&ref, &gpu}) {
      for (const std::string& name : rw.workflow.tools) m->set_tool(name, [](const std::string& s) { return s.substr(0, 3); });
      for (uint32_t s = 0; s < steps; s += chunk) {
        m->run(std::span<const Token>(tokens).subspan(size_t(s) * c.batch, size_t(chunk) * c.batch), chunk);
        m->resolve_callbacks();
        const auto st = m->stream_status();
        for (uint32_t b = 0; b < c.batch; ++b)
          if (st[b] == TVM_WAIT_TOOL && (b + s) % 3 == 0) m->feed(b, "a]");
      }
    }
    if (std::string d = difference(ref, gpu); !d.empty()) return Result::fail("workflow " + std::to_string(k) + ": " + d);
    runs += c.batch;
  }
  return Result::pass(std::to_string(runs) + " random stream runs, every step's token/tags/pc/token_num/triggers equal");
}

}  // namespace

std::vector<Case> token_vm_cases() {
  return {
      {"token_vm.golden_loop_trace", "exact (hand-written per-step trace)", golden_loop},
      {"token_vm.random_device_vs_reference", "exact (bit-identical traces and state vs the CPU reference)", random_differential},
  };
}

}  // namespace weft::conformance
