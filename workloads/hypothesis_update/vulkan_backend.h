// The Vulkan implementation of HypothesisBackend: both updaters (default and burst sampling),
// every threshold mode, float32, every step entirely on the device.
//
// One device program (vulkan_program.h) holds every LM: object models in Heap (uploaded once),
// hypotheses and slope trackers resident in Globals, all (LM, graph) spaces stacked into the
// same 9-12 dispatches, so every LM group runs in the same dispatches and dispatch() is a single
// submission. It is recorded on the first dispatch after set-up (or after reset_episode() when
// LMs were added) and replayed by every step: hypothesis counts change on the device (deletion,
// burst sampling) inside fixed per-space capacities, and the host never reads them mid-step.
// Per step only the step inputs go up (displacement, per channel the sensed pose, features and
// curvature scale, and channel 0's sensed frames, ~150 words per LM); wait() reads back one
// overflow word per LM; the read calls copy back only the arrays asked for.
#pragma once

#include <weft/weft.h>

#include <memory>
#include <optional>
#include <vector>

#include "cpu_backend.h"
#include "hypothesis_backend.h"
#include "vulkan_program.h"

namespace weft::hypothesis_update {

class VulkanBackend final : public HypothesisBackend {
 public:
  explicit VulkanBackend(Device& device) : device_(device) {}

  int add_graph(const ObjectGraph& graph) override;
  int add_learning_module(const UpdaterConfig& config, const std::vector<int>& graph_ids) override;
  void set_groups(const std::vector<std::vector<int>>& groups) override;
  void reset_episode() override;

  void dispatch(const std::vector<StepInput>& inputs) override;
  void wait() override;

  HypothesisArrays hypotheses(int lm, int graph) const override;
  GraphStepInfo step_info(int lm, int graph) const override;
  BurstTelemetry burst_telemetry(int lm, int graph) const override;
  MostLikely most_likely(int lm) const override;

  int num_graphs() const override { return int(graphs_.size()); }
  int num_learning_modules() const override { return int(lms_.size()); }
  const ObjectGraph& graph(int id) const override;

  // Channel 0's tested hypotheses, location evidence and (when tracing) nearest nodes, custom
  // distances and rotated normals of the last step, read back from the device.
  ChannelEvidence last_channel_evidence(int lm, int graph, size_t channel) const;
  // The next step records the program anew with the trace on (exact brute-force K nearest) or
  // off (grid search). Like the other set-up calls: before an episode's first step.
  void set_kernel_trace(bool on);
  // Hypothesis rows per graph node each (LM, graph) may hold; 0 (default): see space_capacity.
  // Set-up like the others (before an episode's first step). A step that would exceed it fails
  // in wait() with OutOfMemory.
  void set_capacity_per_node(double rows_per_node);
  // Widest row dispatch (row stages run as a 2D grid of workgroups); tests narrow it to cover
  // the wrap-around that only programs of millions of rows would otherwise reach.
  void set_row_dispatch_width(uint32_t workgroups);
  // Where the hypothesis rows live (vulkan_program.h); Auto (default): in the bound window when
  // the program fits it, else in far segments. Set-up like the others. Far on a device without
  // bufferDeviceAddress fails at the next dispatch with MissingFeature.
  void set_row_placement(RowPlacement placement);
  // Whether the grid search may read neighbour lists (default on; device_grid.h): off, every
  // query walks the grid's cells. The same nodes either way; tests compare the two.
  void set_neighbour_lists(bool on);
  Device& device() const { return device_; }
  // Programs recorded so far (one per set-up; steps replay it).
  size_t programs_recorded() const { return programs_recorded_; }
  // GPU time of the last step (timestamps around every stage), when the device has timestamps.
  Timings last_step_timings() const;
  const BackendProgram* program() const { return program_.exe ? &program_ : nullptr; }

 private:
  struct LmState {
    UpdaterConfig config;
    std::vector<int> graph_ids;
    bool started = false;
    bool updated = false;  // the LM had input in the last dispatch
  };

  void validate(const std::vector<StepInput>& inputs) const;
  void ensure_program();
  void write_inputs(const std::vector<StepInput>& inputs);
  const LmState& lm_at(int lm, const char* what) const;
  size_t local_graph(const LmState& lm, int graph, const char* what) const;
  void require_idle(const char* what) const;
  void require_setup_allowed(const char* what) const;
  uint32_t space(int lm, size_t local) const { return program_.space_of_lm[size_t(lm)] + uint32_t(local); }
  std::vector<uint32_t> stats(uint32_t space) const;
  std::vector<uint32_t> lm_state(int lm) const;

  Device& device_;
  // Set-up checks (graph and config validation) run on this host backend, which also keeps the
  // graphs; it never runs a step.
  CpuBackend host_{1};
  std::vector<const ObjectGraph*> graphs_;
  std::vector<std::unique_ptr<LmState>> lms_;
  BackendProgram program_;
  bool dirty_ = true;  // set-up changed since the program was recorded
  std::optional<Ticket> ticket_;
  bool pending_ = false;
  bool trace_ = false;
  double capacity_per_node_ = 0;
  uint32_t row_width_ = 32768;
  RowPlacement row_placement_ = RowPlacement::Auto;
  bool neighbour_lists_ = true;
  size_t programs_recorded_ = 0;
};

std::unique_ptr<HypothesisBackend> make_vulkan_backend(Device& device);

}  // namespace weft::hypothesis_update
