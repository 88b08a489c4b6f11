// The Vulkan implementation of HypothesisBackend: both updaters (default and burst sampling),
// every threshold mode, float32, every step entirely on the device.
//
// One device program (vulkan_program.h) per LM group (set_groups; without groups, or for the
// LMs no group names, one program of them): object models in Heap (uploaded once), hypotheses
// and slope trackers resident in Globals, all (LM, graph) spaces of the group stacked into the
// same 9-12 dispatches. dispatch() submits each group's program on its own (its own command
// buffer, queue submission and timeline value), so independent groups can be in flight together;
// wait() is the join that waits for all of them. An LM's results do not depend on the group it
// is in: grouped and ungrouped runs agree bit for bit. Each program is recorded on the first
// dispatch after set-up (or after reset_episode() when LMs were added) and replayed by every
// step: hypothesis counts change on the device (deletion, burst sampling) inside fixed
// per-space capacities, and the host never reads them mid-step. Per step only the step inputs
// go up (displacement, per channel the sensed pose, features and curvature scale, and channel
// 0's sensed frames, ~150 words per LM); wait() reads back one overflow word per LM; the read
// calls copy back only the arrays asked for. With set_votes the vote between LMs (votes.h) runs
// as two more stages of the same program (vote_send, vote_receive), so a step with votes is
// still one submission per group; an LM and its senders must share a group.
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
  void set_votes(const std::vector<std::vector<int>>& senders_of, const VoteOptions& options = {}) override;
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
  // Set-ups recorded so far (each records every group's program once; steps replay them).
  size_t programs_recorded() const { return programs_recorded_; }
  // Device programs of the current set-up, one per group (0 before the first dispatch).
  size_t group_count() const { return groups_.size(); }
  // GPU time of the last step of group `group` (timestamps around every stage), when the device
  // has timestamps; without groups there is one.
  Timings last_step_timings(size_t group = 0) const;
  // The program of group `group` (nullptr before the first dispatch or past the groups).
  const BackendProgram* program(size_t group = 0) const {
    return group < groups_.size() && groups_[group].program.exe ? &groups_[group].program : nullptr;
  }

 private:
  struct LmState {
    UpdaterConfig config;
    std::vector<int> graph_ids;
    bool started = false;
    bool updated = false;  // the LM had input in the last dispatch
  };

  // One device program and its in-flight submission; `lms` are backend LM ids in program order.
  struct Group {
    std::vector<int> lms;
    BackendProgram program;
    std::optional<Ticket> ticket;
  };
  // Where an LM lives: its group's program and its index there.
  struct Placement {
    const BackendProgram* program;
    uint32_t local;
  };

  void validate(const std::vector<StepInput>& inputs) const;
  std::vector<std::vector<int>> partition(const std::vector<std::vector<int>>& lists) const;
  void ensure_program();
  void write_inputs(Group& group, const std::vector<StepInput>& inputs);
  void write_vote_locations(Group& group, const std::vector<StepInput>& inputs);
  void require_votes_within_groups() const;
  void check_overflow(const Group& group);
  Placement placed(int lm) const;
  const LmState& lm_at(int lm, const char* what) const;
  size_t local_graph(const LmState& lm, int graph, const char* what) const;
  void require_idle(const char* what) const;
  void require_setup_allowed(const char* what) const;
  std::vector<uint32_t> stats(int lm, size_t local_graph) const;
  std::vector<uint32_t> lm_state(int lm) const;

  Device& device_;
  // Set-up checks (graph and config validation) run on this host backend, which also keeps the
  // graphs; it never runs a step.
  CpuBackend host_{1};
  std::vector<const ObjectGraph*> graphs_;
  std::vector<std::unique_ptr<LmState>> lms_;
  std::vector<std::vector<int>> senders_of_;   // the vote matrix; empty: no voting
  VoteOptions vote_options_;
  std::vector<std::vector<int>> group_lists_;  // as set_groups received them
  std::vector<Group> groups_;                   // the recorded programs
  std::vector<std::pair<uint32_t, uint32_t>> lm_slot_;  // per LM: group, index in its program
  bool dirty_ = true;  // set-up changed since the programs were recorded
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
