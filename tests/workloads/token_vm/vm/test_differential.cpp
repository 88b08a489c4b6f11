// The randomized differential test: random valid workflows (zone graphs, prompts, patterns,
// loops, escapes, tools, feeds) x random sampled streams biased to spell the patterns, run on
// the device and on the CPU reference through the same host API; every step's token, tags,
// pc, token_num and trigger bits, and the final state, must be bit-identical.
#include "helpers.h"

namespace weft::token_vm::test {
namespace {

// The host side of a run, identical for both machines: submissions of `chunk` steps; after
// each, tool calls are resolved and waiting streams are sometimes given an input message.
void drive(Machine& m, const std::vector<Token>& tokens, uint32_t steps, uint32_t chunk, uint32_t seed) {
  std::mt19937 rng(seed);
  const uint32_t B = m.batch();
  for (uint32_t s = 0; s < steps; s += chunk) {
    const uint32_t k = std::min(chunk, steps - s);
    m.run(std::span<const Token>(tokens).subspan(size_t(s) * B, size_t(k) * B), k);
    m.resolve_callbacks();
    const std::vector<uint32_t> st = m.stream_status();
    for (uint32_t b = 0; b < B; ++b)
      if (st[b] == TVM_WAIT_TOOL && std::bernoulli_distribution(0.5)(rng)) {
        std::string text;
        for (uint32_t i = std::uniform_int_distribution<uint32_t>(0, 5)(rng); i > 0; --i)
          text += kRandomAlphabet[std::uniform_int_distribution<uint32_t>(0, 7)(rng)];
        m.feed(b, text);
      }
  }
}

void register_tools(Machine& m, const Workflow& w) {
  for (size_t t = 0; t < w.tools.size(); ++t)
    m.set_tool(w.tools[t], [t](const std::string& text) {
      std::string r(text.rbegin(), text.rend());
      return std::string(1, kRandomAlphabet[t]) + r.substr(0, 4);
    });
}

void differential(MatchMode mode, uint32_t workflows, uint32_t batch, uint32_t steps, uint32_t seed) {
  weft::test::ValidationClean clean;
  uint64_t runs = 0, transitions = 0, calls = 0, feeds = 0, waits = 0;
  for (uint32_t k = 0; k < workflows; ++k) {
    std::mt19937 rng(seed + k);
    const RandomWorkflow rw = random_workflow(rng, mode);
    const TableTokenizer tok(rw.extra_vocab);
    VmConfig c;
    c.batch = batch;
    c.feed_capacity = 8;
    if (mode == MatchMode::Byte) c.vocab_bytes = vocab_bytes(tok);
    const uint32_t chunk = std::array<uint32_t, 3>{1, 4, 16}[k % 3];
    const std::vector<Token> tokens = random_tokens(rng, rw, batch, steps);
    CAPTURE(k);
    CAPTURE(chunk);
    Pair p(rw.workflow, tok, c, chunk);
    register_tools(p.ref, rw.workflow);
    register_tools(p.dev, rw.workflow);
    drive(p.ref, tokens, steps, chunk, seed * 7 + k);
    drive(p.dev, tokens, steps, chunk, seed * 7 + k);
    check_same(p.ref, p.dev);
    runs += batch;
    for (const auto& stream : p.ref.status())
      for (const TraceRecord& r : stream) {
        transitions += r.transition() != TVM_TR_NONE;
        calls += (r.bits & TVM_CALL_READY) != 0;
        feeds += r.source() == TVM_SRC_FEED;
        waits += r.source() == TVM_SRC_WAIT;
      }
  }
  MESSAGE(runs << " runs: " << transitions << " transitions, " << calls << " tool calls, " << feeds << " feed tokens, "
               << waits << " waiting steps");
  // The generator must actually exercise the machinery it claims to.
  CHECK(transitions > runs);
  CHECK(calls > 0);
  CHECK(feeds > 0);
  CHECK(waits > 0);
}

TEST_CASE("token_vm differential: token-level matching, device == reference bit-exact") {
  differential(MatchMode::Token, 90, 64, 64, 1000);
}

TEST_CASE("token_vm differential: byte-level matching over multi-byte tokens, device == reference bit-exact") {
  differential(MatchMode::Byte, 90, 64, 64, 5000);
}

TEST_CASE("token_vm differential: the device sampler equals the CPU sampler, N steps per submission") {
  weft::test::ValidationClean clean;
  for (uint32_t k = 0; k < 6; ++k) {
    std::mt19937 rng(77 + k);
    const RandomWorkflow rw = random_workflow(rng, k % 2 ? MatchMode::Byte : MatchMode::Token);
    const TableTokenizer tok(rw.extra_vocab);
    VmConfig c;
    c.batch = 40;
    if (rw.workflow.match_mode == MatchMode::Byte) c.vocab_bytes = vocab_bytes(tok);
    const uint32_t V = tok.vocab_size();
    std::vector<float> logits(size_t(c.batch) * V);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    for (float& x : logits) x = normal(rng);
    for (uint32_t b = 0; b < c.batch; ++b)  // make the alphabet likely
      for (const char* a = kRandomAlphabet; *a; ++a) logits[size_t(b) * V + uint8_t(*a)] += 6.0f;
    Machine ref(rw.workflow, tok, std::make_unique<Reference>(rw.workflow, c));
    Machine dev(rw.workflow, tok, std::make_unique<DeviceVm>(weft::test::device(), rw.workflow, c, DeviceVmOptions{8, V}));
    register_tools(ref, rw.workflow);
    register_tools(dev, rw.workflow);
    const SamplerConfig sampler{k < 2 ? uint32_t(TVM_SAMPLE_ARGMAX) : uint32_t(TVM_SAMPLE_QUANTIZED), 1234u + k, 4.0f};
    for (int round = 0; round < 3; ++round) {
      ref.run_sampler(logits, V, sampler, 8);
      dev.run_sampler(logits, V, sampler, 8);
      ref.resolve_callbacks();
      dev.resolve_callbacks();
    }
    CAPTURE(k);
    check_same(ref, dev);
  }
}

}  // namespace
}  // namespace weft::token_vm::test
