// The backend API of spec §1: one object shared by all learning modules (LMs).
//
//   auto backend = weft::hypothesis_update::make_cpu_backend();
//   int cyl = backend->add_graph(graph);                  // object models upload once
//   int lm = backend->add_learning_module(config, {cyl}); // hypotheses live in the backend
//   backend->set_groups({{lm0, lm1}, {lm2}});             // LM groups, list of lists
//   backend->set_votes({{1}, {0}, {}});                   // optional: LM 0 and 1 vote for each other
//   backend->dispatch(inputs);  // non-blocking; LMs without an input are no-ops this step
//   backend->wait();            // once, for everything dispatched
//   backend->hypotheses(lm, cyl); backend->most_likely(lm); ...
//
// A Vulkan backend implements the same class: dispatch submits one command buffer per group (a
// group's LMs stacked into the same dispatches), wait joins them all, and the read calls copy
// only the requested results back. Groups never change an LM's results. Nothing here assumes
// host memory.
#pragma once

#include <memory>
#include <vector>

#include "hypothesis_types.h"

namespace weft::hypothesis_update {

class HypothesisBackend {
 public:
  virtual ~HypothesisBackend() = default;

  // Set-up, before the first dispatch (or between episodes). BadInput on malformed graphs,
  // configs, unknown graph ids, or LMs named twice in the groups.
  virtual int add_graph(const ObjectGraph& graph) = 0;
  virtual int add_learning_module(const UpdaterConfig& config, const std::vector<int>& graph_ids) = 0;
  virtual void set_groups(const std::vector<std::vector<int>>& groups) = 0;
  // Monty's voting (votes.h), run after every step's evidence update: senders_of[i] lists the
  // LMs whose votes LM i receives (Monty's lm_to_lm_vote_matrix); empty: no voting (default).
  // An LM with input in a step sends (and, when it has senders, receives) and then needs
  // StepInput::sensed_location; an LM without input neither sends nor receives. BadInput for a
  // malformed matrix (validate_vote_matrix) or options.
  virtual void set_votes(const std::vector<std::vector<int>>& senders_of, const VoteOptions& options = {}) = 0;
  // Drops every LM's hypotheses and trackers (a new episode); graphs and configs stay.
  virtual void reset_episode() = 0;

  // Validates every input first (BadInput naming the LM and field; nothing is changed then),
  // then queues the work. At most one input per LM.
  virtual void dispatch(const std::vector<StepInput>& inputs) = 0;
  // Blocks until the dispatched step is done; rethrows a failure from it.
  virtual void wait() = 0;

  // Reads; valid after wait(). BadInput for an unknown LM or a graph the LM does not hold.
  virtual HypothesisArrays hypotheses(int lm, int graph) const = 0;
  virtual GraphStepInfo step_info(int lm, int graph) const = 0;
  virtual BurstTelemetry burst_telemetry(int lm, int graph) const = 0;
  virtual MostLikely most_likely(int lm) const = 0;

  virtual int num_graphs() const = 0;
  virtual int num_learning_modules() const = 0;
  virtual const ObjectGraph& graph(int id) const = 0;
};

// `threads` = 0: one per hardware thread. Results do not depend on the thread count.
std::unique_ptr<HypothesisBackend> make_cpu_backend(unsigned threads = 0);

}  // namespace weft::hypothesis_update
