#include "differential.h"

#include <algorithm>
#include <memory>
#include <random>

#include "device_vm.h"
#include "random_workflow.h"
#include "reference.h"
#include "test_tokenizer.h"

namespace weft::token_vm {
namespace {

// Tool t answers a marker symbol and the first characters of its reversed capture, so the
// feeds differ by tool and by stream.
void register_tools(Machine& m, const Workflow& w) {
  for (size_t t = 0; t < w.tools.size(); ++t)
    m.set_tool(w.tools[t], [t](const std::string& text) {
      std::string r(text.rbegin(), text.rend());
      return std::string(1, kRandomAlphabet[t % (sizeof kRandomAlphabet - 1)]) + r.substr(0, 4);
    });
}

// The host side of a run, identical for both machines: submissions of `chunk` steps; after
// each, tool calls are resolved and waiting streams are sometimes given an input message.
// With logits, the sampler draws the tokens (seeded by `seed`).
void drive(Machine& m, const std::vector<Token>& tokens, const std::vector<float>& logits, uint32_t vocab, uint32_t steps,
           uint32_t chunk, uint32_t seed) {
  std::mt19937 rng(seed);
  const uint32_t B = m.batch();
  const SamplerConfig sampler{seed % 3 ? uint32_t(TVM_SAMPLE_QUANTIZED) : uint32_t(TVM_SAMPLE_ARGMAX), seed, 4.0f};
  for (uint32_t s = 0; s < steps; s += chunk) {
    const uint32_t k = std::min(chunk, steps - s);
    if (logits.empty()) m.run(std::span<const Token>(tokens).subspan(size_t(s) * B, size_t(k) * B), k);
    else m.run_sampler(logits, vocab, sampler, k);
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

}  // namespace

DifferentialStats& DifferentialStats::operator+=(const DifferentialStats& o) {
  streams += o.streams;
  zones += o.zones;
  transitions += o.transitions;
  calls += o.calls;
  feed_tokens += o.feed_tokens;
  waits += o.waits;
  return *this;
}

std::string difference(Machine& a, Machine& b) {
  if (a.batch() != b.batch()) return "different batch sizes";
  for (uint32_t s = 0; s < a.batch(); ++s) {
    if (a.status()[s].size() != b.status()[s].size()) return "stream " + std::to_string(s) + ": different step counts";
    for (size_t i = 0; i < a.status()[s].size(); ++i)
      if (!(a.status()[s][i] == b.status()[s][i]))
        return "stream " + std::to_string(s) + " step " + std::to_string(i) + ": " + a.backend().name() + " {" +
               describe(a.status()[s][i]) + "} " + b.backend().name() + " {" + describe(b.status()[s][i]) + "}";
  }
  if (a.backend().state() != b.backend().state()) return "final states differ";
  return "";
}

std::string differential_run(Device& device, const DifferentialRun& run, DifferentialStats* stats) {
  std::mt19937 rng(run.seed);
  const RandomWorkflow rw = random_workflow(rng, run.mode);
  const TableTokenizer tok(rw.extra_vocab);
  VmConfig c;
  c.batch = run.batch;
  c.feed_capacity = 8;
  if (run.mode == MatchMode::Byte) c.vocab_bytes = vocab_bytes(tok);
  const std::vector<Token> tokens = random_tokens(rng, rw, run.batch, run.steps);
  const uint32_t V = tok.vocab_size();
  std::vector<float> logits;
  if (run.sampler) {
    logits.resize(size_t(run.batch) * V);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    for (float& x : logits) x = normal(rng);
    for (uint32_t b = 0; b < run.batch; ++b)  // make the patterns' symbols likely
      for (const char* a = kRandomAlphabet; *a; ++a) logits[size_t(b) * V + uint8_t(*a)] += 6.0f;
  }
  Machine ref(rw.workflow, tok, std::make_unique<Reference>(rw.workflow, c));
  Machine dev(rw.workflow, tok,
              std::make_unique<DeviceVm>(device, rw.workflow, c,
                                         DeviceVmOptions{run.steps_per_submit, run.sampler ? V : 0, run.sampler_kernel}));
  register_tools(ref, rw.workflow);
  register_tools(dev, rw.workflow);
  const uint32_t host_seed = run.seed * 7u + 1u;
  drive(ref, tokens, logits, V, run.steps, run.steps_per_submit, host_seed);
  drive(dev, tokens, logits, V, run.steps, run.steps_per_submit, host_seed);
  if (stats) {
    DifferentialStats s;
    s.streams = run.batch;
    s.zones = rw.workflow.zones.size();
    for (const auto& stream : ref.status())
      for (const TraceRecord& r : stream) {
        s.transitions += r.transition() != TVM_TR_NONE;
        s.calls += (r.bits & TVM_CALL_READY) != 0;
        s.feed_tokens += r.source() == TVM_SRC_FEED;
        s.waits += r.source() == TVM_SRC_WAIT;
      }
    *stats += s;
  }
  return difference(ref, dev);
}

}  // namespace weft::token_vm
