// weft bench token-vm (= weft token-vm bench): JSON lines, GPU-timestamp cost per step at
// B = 64, 1024, 4096, 16384 streams (--batches), one step per submission and N steps per submission
// (scripted tokens from a device buffer, and the device sampler over fixed logits [B][V] with
// either sampler kernel, the per-stream one fused into the step and as a stage of its own), against the CPU reference stepping the same workflow with the same
// tokens (or its CPU sampler over the same logits) in the same run.
#include <algorithm>
#include <chrono>
#include <random>
#include <sstream>
#include <string>

#include <weft/weft.h>

#include "bench.h"
#include "cli.h"
#include "device_vm.h"
#include "random_workflow.h"
#include "reference.h"
#include "sampler.h"
#include "token_vm_cli.h"

namespace weft::token_vm::cli_commands {
namespace {

using cli::u32;

using bench::median;

// "64,1024": batch sizes of 1 to 2^20 streams.
std::vector<uint32_t> batch_sizes(const std::string& list) {
  std::vector<uint32_t> out;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');) {
    if (item.empty() || item.size() > 7 || item.find_first_not_of("0123456789") != std::string::npos ||
        std::stoul(item) == 0 || std::stoul(item) > (1u << 20))
      fail(ErrorCode::BadInput, "--batches expects batch sizes of 1 to 1048576 separated by commas, got '" + list + "'");
    out.push_back(uint32_t(std::stoul(item)));
  }
  if (out.empty()) fail(ErrorCode::BadInput, "--batches is empty");
  return out;
}

}  // namespace

int bench(int argc, char** argv) {
  const cli::Args a = cli::parse(argc, argv, 2, {"device", "steps", "reps", "vocab", "batches"}, {});
  weft::DeviceOptions o;
  o.select = a.get("device");
  auto dev = weft::Device::open(o);
  const uint32_t steps = std::max<uint32_t>(1, u32(a, "steps", 32)), reps = std::max<uint32_t>(1, u32(a, "reps", 5));
  std::mt19937 rng(7);
  RandomWorkflow rw;
  do rw = random_workflow(rng, MatchMode::Token, 8);
  while (rw.workflow.zones.size() < 6);
  const uint32_t V = std::max<uint32_t>(2, u32(a, "vocab", 256));
  if (V > kMaxSamplerVocab) fail(ErrorCode::BadInput, "--vocab is over " + std::to_string(kMaxSamplerVocab));
  const SamplerConfig sampler{TVM_SAMPLE_QUANTIZED, 1u, 2.0f};
  for (uint32_t B : batch_sizes(a.get("batches", "64,1024,4096,16384"))) {
    VmConfig c;
    c.batch = B;
    c.feed_capacity = 16;
    const std::vector<Token> tokens = random_tokens(rng, rw, B, steps);
    const std::vector<uint32_t> init = initial_state(StateLayout(rw.workflow, resolve_config(rw.workflow, c)));
    std::vector<float> logits(size_t(B) * V);
    std::normal_distribution<float> normal(0.0f, 2.0f);
    for (float& x : logits) x = normal(rng);
    // CPU reference: wall clock around `steps` steps from the initial state, with the given
    // tokens and with the CPU sampler drawing from the same logits.
    std::vector<double> cpu, cpu_sampler;
    for (uint32_t r = 0; r < reps; ++r) {
      Reference ref(rw.workflow, c);
      std::vector<uint32_t> trace;
      auto t0 = std::chrono::steady_clock::now();
      ref.run(tokens, steps, trace);
      cpu.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / steps);
      Reference ref_sampler(rw.workflow, c);
      ref_sampler.set_logits(logits, V);
      t0 = std::chrono::steady_clock::now();
      ref_sampler.run_sampler(sampler, 0, steps, trace);
      cpu_sampler.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / steps);
    }
    struct Variant {
      const char* mode;
      uint32_t per_submit;
      bool sampler;
      SamplerKernel kernel;
      bool fused = true;
    };
    for (const Variant& v : {Variant{"single_step", 1, false, SamplerKernel::Auto},
                             Variant{"n_steps_scripted", steps, false, SamplerKernel::Auto},
                             Variant{"n_steps_sampler_per_stream", steps, true, SamplerKernel::PerStream},
                             Variant{"n_steps_sampler_per_stream_unfused", steps, true, SamplerKernel::PerStream, false},
                             Variant{"n_steps_sampler_per_row", steps, true, SamplerKernel::PerRow}}) {
      DeviceVm vm(*dev, rw.workflow, c, DeviceVmOptions{v.per_submit, v.sampler ? V : 0, v.kernel, v.fused});
      std::vector<uint32_t> trace;
      vm.run(std::span<const Token>(tokens).first(size_t(v.per_submit) * B), v.per_submit, trace);  // uploads the tokens
      if (v.sampler) {
        vm.set_logits(logits, V);
        const uint32_t params[TVM_P_WORDS] = {sampler.mode, sampler.seed, f32_bits(sampler.scale), 0u};
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
      const double gpu_ns = median(gpu), cpu_ns = median(v.sampler ? cpu_sampler : cpu);
      bench::Line("token_vm.step", *dev)
          .str("mode", v.mode)
          .num("batch", B)
          .num("steps", steps)
          .num("steps_per_submit", v.per_submit)
          .num("zones", double(rw.workflow.zones.size()))
          .num("sampler_vocab", v.sampler ? V : 0)
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
