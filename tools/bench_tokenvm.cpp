// weft bench tokenvm (= weft tokenvm bench): JSON lines, GPU-timestamp cost per step at
// B = 64, 256, 1024, 4096 streams, one step per submission and N steps per submission
// (scripted tokens from a device buffer, and the device sampler over fixed logits), against the
// CPU reference stepping the same workflow and tokens in the same run.
#include <algorithm>
#include <chrono>
#include <random>
#include <string>

#include <weft/weft.h>

#include "bench.h"
#include "cli.h"
#include "device_vm.h"
#include "random_workflow.h"
#include "reference.h"
#include "tokenvm_cli.h"

namespace weft::token_vm::cli_commands {
namespace {

uint32_t u32(const cli::Args& a, const char* name, uint32_t fallback) {
  const uint64_t v = a.get_uint(name, fallback);
  if (v > 0xFFFFFFFFu) fail(ErrorCode::BadInput, std::string("--") + name + " is too large");
  return uint32_t(v);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int bench(int argc, char** argv) {
  const cli::Args a = cli::parse(argc, argv, 2, {"device", "steps", "reps"}, {});
  weft::DeviceOptions o;
  o.select = a.get("device");
  auto dev = weft::Device::open(o);
  const uint32_t steps = std::max<uint32_t>(1, u32(a, "steps", 32)), reps = std::max<uint32_t>(1, u32(a, "reps", 5));
  std::mt19937 rng(7);
  RandomWorkflow rw;
  do rw = random_workflow(rng, MatchMode::Token, 8);
  while (rw.workflow.zones.size() < 6);
  const uint32_t V = 256;
  for (uint32_t B : {64u, 256u, 1024u, 4096u}) {
    VmConfig c;
    c.batch = B;
    c.feed_capacity = 16;
    const std::vector<Token> tokens = random_tokens(rng, rw, B, steps);
    const std::vector<uint32_t> init = initial_state(StateLayout(rw.workflow, resolve_config(rw.workflow, c)));
    // CPU reference: wall clock around `steps` steps from the initial state.
    std::vector<double> cpu;
    for (uint32_t r = 0; r < reps; ++r) {
      Reference ref(rw.workflow, c);
      std::vector<uint32_t> trace;
      const auto t0 = std::chrono::steady_clock::now();
      ref.run(tokens, steps, trace);
      cpu.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / steps);
    }
    const double cpu_ns = median(cpu);
    struct Variant {
      const char* mode;
      uint32_t per_submit;
      bool sampler;
    };
    for (const Variant& v : {Variant{"single_step", 1, false}, Variant{"n_steps_scripted", steps, false},
                             Variant{"n_steps_sampler", steps, true}}) {
      DeviceVm vm(*dev, rw.workflow, c, DeviceVmOptions{v.per_submit, v.sampler ? V : 0});
      std::vector<uint32_t> trace;
      vm.run(std::span<const Token>(tokens).first(size_t(v.per_submit) * B), v.per_submit, trace);  // uploads the tokens
      if (v.sampler) {
        std::vector<float> logits(size_t(B) * V);
        std::normal_distribution<float> normal(0.0f, 2.0f);
        for (float& x : logits) x = normal(rng);
        vm.set_logits(logits, V);
        const uint32_t params[TVM_P_WORDS] = {TVM_SAMPLE_QUANTIZED, 1u, f32_bits(2.0f), 0u};
        vm.executable().write_segment(Binding::Globals, "sampler", params, sizeof(params));
      }
      std::vector<double> gpu, wall;
      for (uint32_t r = 0; r < reps; ++r) {
        vm.write_state(0, init);
        double gpu_sum = 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (uint32_t done = 0; done < steps; done += v.per_submit) {
          vm.replay(v.per_submit, v.sampler);
          gpu_sum += vm.last_gpu_ns();
        }
        wall.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / steps);
        gpu.push_back(gpu_sum / steps);
      }
      const double gpu_ns = median(gpu);
      bench::Line("tokenvm.step", *dev)
          .str("mode", v.mode)
          .num("batch", B)
          .num("steps", steps)
          .num("steps_per_submit", v.per_submit)
          .num("zones", double(rw.workflow.zones.size()))
          .num("gpu_ns_per_step", gpu_ns)
          .num("gpu_ns_per_stream_step", gpu_ns / B)
          .num("wall_ns_per_step", median(wall))
          .num("cpu_reference_ns_per_step", cpu_ns)
          .num("cpu_reference_ns_per_stream_step", cpu_ns / B)
          .num("speedup_vs_cpu_reference", cpu_ns / gpu_ns)
          .print();
    }
  }
  return 0;
}


}  // namespace weft::token_vm::cli_commands
