// The Vulkan implementation of HypothesisBackend (default updater on the device, float32).
//
// Per LM: one device program (vulkan_program.h) holding its graphs stacked in Heap and its
// hypotheses resident in Globals. An LM's first step (initialisation, spec §3.4) runs on the host
// with the CPU reference code and is uploaded; the program is recorded then, for those counts,
// and replayed by every later step (the default updater never changes the counts). dispatch()
// writes each LM's step input (displacement, sensed pose, features: ~100 words) and submits its
// program without waiting; wait() blocks on all tickets; the read calls copy back only the
// arrays asked for.
#pragma once

#include <weft/weft.h>

#include <memory>
#include <optional>
#include <vector>

#include "cpu_backend.h"
#include "hypothesis_backend.h"
#include "vulkan_program.h"

namespace weft::hyp {

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
  // Takes effect when an LM's program is next recorded (set it before the first step).
  void set_kernel_trace(bool on) { trace_ = on; }
  Device& device() const { return device_; }
  // Programs recorded so far (one per LM and hypothesis-count shape; steps replay them).
  size_t programs_recorded() const { return programs_recorded_; }

 private:
  enum class LastStep { None, Host, Device };
  struct LmState {
    UpdaterConfig config;
    std::vector<int> graph_ids;
    LmProgram program;        // empty until the LM's first step
    bool started = false;
    LastStep last = LastStep::None;  // where the LM's last step with input ran
    bool updated = false;            // the LM had input in the last dispatch
    std::optional<Ticket> ticket;
  };

  void validate(const std::vector<StepInput>& inputs) const;
  void initialise(LmState& lm, int lm_id);
  void write_input(LmState& lm, const StepInput& in);
  const LmState& lm_at(int lm, const char* what) const;
  size_t local_graph(const LmState& lm, int graph, const char* what) const;
  void require_idle(const char* what) const;

  Device& device_;
  // Set-up checks and the LMs' first steps (initialisation) run on this host reference; its
  // results are uploaded and the device carries every later step.
  CpuBackend host_{1};
  std::vector<const ObjectGraph*> graphs_;
  std::vector<std::unique_ptr<LmState>> lms_;
  std::vector<std::vector<int>> groups_;
  bool pending_ = false;
  bool trace_ = false;
  size_t programs_recorded_ = 0;
};

std::unique_ptr<HypothesisBackend> make_vulkan_backend(Device& device);

}  // namespace weft::hyp
