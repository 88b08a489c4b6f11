// The native, multi-threaded CPU implementation of HypothesisBackend (float64 throughout).
#pragma once

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "cpu_graph_update.h"
#include "hypothesis_backend.h"
#include "thread_pool.h"

namespace weft::hypothesis_update {

// Location evidence one channel gave the tested hypotheses in the last step (for replay checks
// of Monty's kernel intermediates).
struct ChannelEvidence {
  std::vector<uint32_t> tested;     // hypothesis ids, ascending, in the retained set
  std::vector<double> evidence;     // one per tested hypothesis
  std::vector<KernelTrace> traces;  // one per tested hypothesis when tracing (channel 0 only)
};

// Wall time of one phase of the last step (its work runs on every pool thread at once).
struct PhaseTime {
  const char* phase = "";  // a name with static storage: the step records no strings
  double ns = 0;
};

class CpuBackend final : public HypothesisBackend {
 public:
  explicit CpuBackend(unsigned threads = 0);
  ~CpuBackend() override;

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

  ChannelEvidence last_channel_evidence(int lm, int graph, size_t channel) const;
  unsigned threads() const { return pool_.size(); }
  // Records channel 0's kernel intermediates (nearest nodes, distances, rotated normal) from the
  // next step on. Tracing searches exact K nearest by brute force, so it is slower.
  void set_kernel_trace(bool on);
  // The last step's phases in order: burst_trigger, prepare (thresholds, feature evidence,
  // deletion, sampling, displacement), location_evidence, finish (evidence update, prediction
  // error, tracker), most_likely. Read after wait().
  std::vector<PhaseTime> last_step_phases() const;

 private:
  struct LmState {
    UpdaterConfig config;
    std::vector<GraphSpace> spaces;
    std::map<int, size_t> local;  // global graph id -> index in spaces
    MostLikely mlh;
    int burst_steps = 0;
    bool started = false;
  };

  void require_idle(const char* what) const;
  void validate(const std::vector<StepInput>& inputs) const;
  std::vector<int> lm_order() const;
  void run_step(const std::vector<StepInput>& inputs);
  void run_votes(const std::vector<const StepInput*>& input_of);
  static void update_most_likely(LmState& lm);
  const GraphSpace& space(int lm, int graph) const;

  ThreadPool pool_;
  std::vector<std::unique_ptr<ObjectGraph>> graphs_;  // stable addresses: spaces point at them
  std::vector<std::unique_ptr<NodeGrid>> grids_;
  // Neighbour lists per (graph, K, search radius), shared by the LMs that use them.
  std::map<std::tuple<int, int, double>, std::unique_ptr<NeighbourLists>> lists_;
  std::vector<std::unique_ptr<LmState>> lms_;
  std::vector<std::vector<int>> groups_;
  std::vector<std::vector<int>> senders_of_;  // the vote matrix; empty: no voting
  VoteOptions vote_options_;
  // The step runs on one long-lived coordinator thread (a thread per dispatch costs ~50 µs,
  // a sizeable part of a small step); it fans the phases out over the pool.
  void coordinator_loop();
  std::thread coordinator_;
  std::mutex step_mutex_;
  std::condition_variable step_cv_;
  std::vector<StepInput> job_;
  bool has_job_ = false, finished_ = false, stop_ = false;
  std::exception_ptr step_error_;
  bool pending_ = false;  // dispatched and not yet waited for; caller thread only
  bool trace_kernel_ = false;
  std::vector<PhaseTime> phases_;  // of the last step
};

}  // namespace weft::hypothesis_update
