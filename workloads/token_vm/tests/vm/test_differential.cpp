// The randomized differential test: random valid workflows (zone graphs, prompts, patterns,
// loops, escapes, tools, feeds) x random sampled streams biased to spell the patterns, run on
// the device and on the CPU reference through the same host API; every step's token, tags,
// pc, token_num and trigger bits, and the final state, must be bit-identical.
#include "differential.h"
#include "helpers.h"

namespace weft::token_vm::test {
namespace {

void register_tools(Machine& m, const Workflow& w) {
  for (size_t t = 0; t < w.tools.size(); ++t)
    m.set_tool(w.tools[t], [t](const std::string& text) {
      std::string r(text.rbegin(), text.rend());
      return std::string(1, kRandomAlphabet[t]) + r.substr(0, 4);
    });
}

// `workflows` random workflows of `batch` streams each (differential.h); submissions of 1, 4
// or 16 steps in turn; every 4th run's tokens drawn by the samplers.
void differential(MatchMode mode, uint32_t workflows, uint32_t batch, uint32_t steps, uint32_t seed) {
  weft::test::ValidationClean clean;
  DifferentialStats stats;
  for (uint32_t k = 0; k < workflows; ++k) {
    DifferentialRun run{seed + k, mode, batch, steps, std::array<uint32_t, 3>{1, 4, 16}[k % 3]};
    run.sampler = k % 4 == 3;  // tokens drawn by the samplers, the device kernel alternating
    run.sampler_kernel = k % 8 == 3 ? SamplerKernel::PerStream : SamplerKernel::PerRow;
    CAPTURE(run.seed);
    CAPTURE(run.steps_per_submit);
    const std::string diff = differential_run(weft::test::device(), run, &stats);
    if (!diff.empty()) FAIL(diff);
  }
  MESSAGE(workflows << " workflows, " << stats.streams << " stream runs: " << stats.transitions << " transitions, "
                    << stats.calls << " tool calls, " << stats.feed_tokens << " feed tokens, " << stats.waits << " waiting steps");
  // The generator must actually exercise the machinery it claims to.
  CHECK(stats.transitions > stats.streams);
  CHECK(stats.calls > 0);
  CHECK(stats.feed_tokens > 0);
  CHECK(stats.waits > 0);
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

namespace weft::token_vm::test {
namespace {

// A one-zone workflow that samples on every step: the trace's tokens are the sampler's draws.
Workflow sampling_only() {
  Workflow w;
  w.pad_token = 70000;
  zone(w, "", {.next_addr = 1, .flags = kAdvanceActive, .timeout = 1000, .close_pattern = pattern(w, "\x01\x02\x03")});
  return w;
}

TEST_CASE("token_vm differential: both sampler kernels, the per-stream one fused into the step and not, on edge rows (ties, NaN, infinities, V not a multiple of 64)") {
  weft::test::ValidationClean clean;
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (uint32_t V : {1u, 7u, 64u, 65u, 300u, 4099u}) {
    std::mt19937 rng(V);
    const Workflow w = sampling_only();
    const TableTokenizer tok(std::vector<std::string>(V > 256 ? V - 256 : 0, "x"));
    VmConfig c;
    c.batch = 12;
    std::vector<float> logits(size_t(c.batch) * V);
    std::normal_distribution<float> normal(0.0f, 3.0f);
    for (uint32_t b = 0; b < c.batch; ++b) {
      float* row = &logits[size_t(b) * V];
      for (uint32_t i = 0; i < V; ++i) row[i] = normal(rng);
      switch (b) {
        case 0: std::fill(row, row + V, 1.5f); break;                         // all tied: lowest index
        case 1: row[0] = nan; break;                                           // NaN first: index 0
        case 2: for (uint32_t i = 0; i < V; i += 3) row[i] = nan; if (V > 1) row[1] = 0.5f; break;
        case 3: row[V - 1] = inf; if (V > 2) row[V / 2] = inf; break;          // tied infinities
        case 4: std::fill(row, row + V, -inf); break;
        case 5: for (uint32_t i = 0; i < V; ++i) row[i] = float(i % 5); break;  // many ties at the maximum
        case 6: for (uint32_t i = 0; i < V; ++i) row[i] = -1000.0f * float(i); break;  // one token has all the weight
        case 7: row[V / 3] = -0.0f; if (V > 1) row[V / 3 + (V / 3 + 1 < V)] = 0.0f; break;
        default: break;
      }
    }
    for (uint32_t mode : {uint32_t(TVM_SAMPLE_ARGMAX), uint32_t(TVM_SAMPLE_QUANTIZED)})
    for (const DeviceVmOptions options : {DeviceVmOptions{4, V, SamplerKernel::PerStream},  // fused into the step
                                          DeviceVmOptions{4, V, SamplerKernel::PerStream, false},
                                          DeviceVmOptions{4, V, SamplerKernel::PerRow}}) {
      Machine ref(w, tok, std::make_unique<Reference>(w, c));
      Machine dev(w, tok, std::make_unique<DeviceVm>(weft::test::device(), w, c, options));
      const SamplerConfig sampler{mode, 99u + V, 23.0831f};
      for (int round = 0; round < 2; ++round) {
        ref.run_sampler(logits, V, sampler, 4);
        dev.run_sampler(logits, V, sampler, 4);
      }
      CAPTURE(V);
      CAPTURE(mode);
      CAPTURE(uint32_t(options.sampler_kernel));
      CAPTURE(options.fuse_sampler);
      check_same(ref, dev);
    }
  }
}

TEST_CASE("token_vm differential: the per-stream sampler past the driver's loop cap is refused, not sampled short") {
  // 30,000 logits scanned up to three times by one invocation: 90,000 loop steps. llvmpipe stops
  // loops after 65535 and the sampled token would be wrong; the per-row sampler has no such issue.
  const uint32_t V = 30000;
  const Workflow w = sampling_only();
  VmConfig c;
  c.batch = 2;
  if (weft::test::device().loop_iteration_limit() < 3 * V + 8) {
    const std::string msg = weft::test::error_message_of(
        [&] { DeviceVm(weft::test::device(), w, c, DeviceVmOptions{1, V, SamplerKernel::PerStream}); });
    CHECK(msg.find("missing feature: token_vm: the per-stream sampler scans 30000 logits") == 0);
  }
  CHECK_NOTHROW(DeviceVm(weft::test::device(), w, c, DeviceVmOptions{1, V, SamplerKernel::PerRow}));
}

}  // namespace
}  // namespace weft::token_vm::test
