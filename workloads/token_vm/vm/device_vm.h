// The token VM on a Weft device: the tables in Heap, the per-stream state in Globals, and one
// recorded command buffer of `steps_per_submit` unrolled steps (each an indirect dispatch from
// its own Control slot, so a run of k <= steps_per_submit steps zeroes the slots of the rest).
// With a sampler, each step is preceded by a sampler stage turning device-resident logits into
// that step's sampled tokens, so a whole generation loop needs no host round trip.
#pragma once

#include <memory>

#include <weft/weft.h>

#include "vm.h"

namespace weft::token_vm {

// Which sampler kernel: one invocation per stream walking its row (sample.comp; cheap for small
// vocabularies and on CPU drivers, where workgroup barriers are costly), or one workgroup per
// stream splitting the row (sample_rows.comp; for large vocabularies on GPUs). Both give the
// CPU sampler's bits.
enum class SamplerKernel : uint32_t { Auto, PerStream, PerRow };
inline constexpr uint32_t kRowSamplerMinVocab = 4096;  // Auto picks PerRow from this V on

struct DeviceVmOptions {
  uint32_t steps_per_submit = 1;
  uint32_t sampler_vocab = 0;  // V of the logits rows; 0: no sampler stages
  SamplerKernel sampler_kernel = SamplerKernel::Auto;
  // The per-stream sampler inside the step kernel (vm_step_sampled), or as a stage of its own
  // before it (the bench compares the two).
  bool fuse_sampler = true;
};

// Append-style entry points for compositions: the VM's tables, state, sampled rows and trace
// as segments "<prefix>tvm" (Heap) and "<prefix>state|sampled|trace" (Globals) of a caller's
// Program, and the step stage that reads sampled row `step` and writes trace row `step`. The
// caller adds the stages where it wants them (another workload's stage writes the sampled row
// before, one reads the trace row after). `resolved` is resolve_config()'s result.
struct VmSegments {
  std::string prefix;
  InstanceId instance;
  uint32_t steps = 0;
  StateLayout layout;
  // Segments "sampled" (u32[steps][batch]: step i's row is what the streams sampled, read by
  // vm_step i), "trace" (u32[steps][batch][TVM_TRACE_WORDS]: what step i emitted) and "state";
  // instance "vm".
  Ports ports;
};
VmSegments add_vm(Program& program, const Workflow& workflow, const VmConfig& resolved, uint32_t steps, const std::string& prefix);
StageSpec vm_step_stage(Program& program, const VmSegments& vm, uint32_t step);
// Writes the tables and the initial state (every stream at zone 0) into the Executable.
void upload_vm(Executable& exe, const VmSegments& vm, const Workflow& workflow, const VmConfig& resolved);

class DeviceVm final : public Backend {
 public:
  DeviceVm(Device& device, const Workflow& workflow, const VmConfig& config, const DeviceVmOptions& options = {});
  ~DeviceVm() override;

  const StateLayout& layout() const override { return layout_; }
  const char* name() const override { return "device"; }
  uint32_t max_steps() const override { return options_.steps_per_submit; }
  void run(std::span<const Token> sampled, uint32_t steps, std::vector<uint32_t>& trace) override;
  void set_logits(std::span<const float> logits, uint32_t vocab) override;
  void run_sampler(const SamplerConfig& sampler, uint32_t first_step, uint32_t steps, std::vector<uint32_t>& trace) override;
  void read_state(uint64_t word, std::span<uint32_t> out) override;
  void write_state(uint64_t word, std::span<const uint32_t> in) override;

  // GPU time of the last run (timestamps), and the executable for benchmarks.
  double last_gpu_ns();
  Executable& executable() { return *exe_; }
  // Runs the recorded steps again without reading the trace back (benchmarks).
  void replay(uint32_t steps, bool sampler);

 private:
  void gate(uint32_t steps, bool sampler);
  void read_trace(uint32_t steps, std::vector<uint32_t>& trace);

  Workflow w_;
  VmConfig config_;
  DeviceVmOptions options_;
  StateLayout layout_;
  weft::Loop loop_;
  std::unique_ptr<Executable> exe_;
  uint64_t state_offset_ = 0;  // bytes in Globals
  std::vector<uint32_t> slot_x_;  // the current x of every step slot (avoids rewriting Control)
  uint32_t groups_ = 1;    // step workgroups (64 streams each)
  uint32_t sample_x_ = 0;  // sampler workgroups in x (one per stream, 2D beyond the x limit)
  bool fused_sampler_ = false;  // the per-stream sampler runs inside the step (vm_step_sampled)
};

}  // namespace weft::token_vm
