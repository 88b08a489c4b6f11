// The native CPU backend: hypotheses live in host vectors; dispatch validates and starts the step
// on a coordinator thread, which fans each phase out over (LM, graph) pairs and hypothesis blocks.
#include "cpu_backend.h"
#include "votes.h"
#include "step_validation.h"

#include <weft/error.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>

namespace weft::hypothesis_update {

namespace {

constexpr size_t kBlock = 256;  // tested hypotheses per evidence work item

[[noreturn]] void bad(const std::string& m) { fail(ErrorCode::BadInput, m); }


}  // namespace

CpuBackend::CpuBackend(unsigned threads) : pool_(threads) {
  coordinator_ = std::thread([this] { coordinator_loop(); });
}

CpuBackend::~CpuBackend() {
  {
    std::lock_guard<std::mutex> lock(step_mutex_);
    stop_ = true;
  }
  step_cv_.notify_all();
  coordinator_.join();  // finishes a step still in flight first
}

void CpuBackend::coordinator_loop() {
  std::unique_lock<std::mutex> lock(step_mutex_);
  for (;;) {
    step_cv_.wait(lock, [&] { return has_job_ || stop_; });
    if (!has_job_) return;
    std::vector<StepInput> inputs = std::move(job_);
    lock.unlock();
    std::exception_ptr error;
    try {
      run_step(inputs);
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    has_job_ = false;
    finished_ = true;
    step_error_ = error;
    step_cv_.notify_all();
  }
}

int CpuBackend::add_graph(const ObjectGraph& graph) {
  require_idle("add_graph");
  if (graph.num_nodes == 0 || graph.pos.size() != graph.num_nodes * 3 ||
      graph.pose_vectors.size() != graph.num_nodes * 9 || graph.pose_defined.size() != graph.num_nodes ||
      graph.features.size() % graph.num_nodes != 0)
    bad("add_graph '" + graph.name + "': arrays do not match num_nodes (build it with ObjectGraph::from_arrays)");
  graphs_.push_back(std::make_unique<ObjectGraph>(graph));
  grids_.push_back(std::make_unique<NodeGrid>(graph.pos));
  return int(graphs_.size()) - 1;
}

int CpuBackend::add_learning_module(const UpdaterConfig& config, const std::vector<int>& graph_ids) {
  require_idle("add_learning_module");
  config.validate();
  if (graph_ids.empty()) bad("add_learning_module: an LM needs at least one graph");
  auto lm = std::make_unique<LmState>();
  lm->config = config;
  for (int id : graph_ids) {
    if (id < 0 || id >= int(graphs_.size()))
      bad("add_learning_module: graph id " + std::to_string(id) + " out of range (have " +
          std::to_string(graphs_.size()) + ")");
    const ObjectGraph& g = *graphs_[size_t(id)];
    if (g.features.size() != g.num_nodes * config.feature_width())
      bad("add_learning_module: graph '" + g.name + "' has " + std::to_string(g.features.size() / g.num_nodes) +
          " feature columns, the config describes " + std::to_string(config.feature_width()));
    if (lm->local.count(id)) bad("add_learning_module: graph id " + std::to_string(id) + " listed twice");
    lm->local[id] = lm->spaces.size();
    GraphSpace space;
    space.graph = id;
    space.model = &g;
    space.grid = grids_[size_t(id)].get();
    auto& lists = lists_[{id, config.max_nneighbors, search_radius(config.max_match_distance)}];
    if (!lists)
      lists = std::make_unique<NeighbourLists>(g.pos, *space.grid, config.max_nneighbors,
                                               search_radius(config.max_match_distance));
    space.lists = lists.get();
    space.trace_kernel = trace_kernel_;
    space.tracker = SlopeTracker(config.burst.slope_window, config.burst.slope_min_age);
    lm->spaces.push_back(std::move(space));
  }
  lms_.push_back(std::move(lm));
  return int(lms_.size()) - 1;
}

void CpuBackend::set_groups(const std::vector<std::vector<int>>& groups) {
  require_idle("set_groups");
  std::set<int> seen;
  for (size_t gi = 0; gi < groups.size(); ++gi)
    for (int lm : groups[gi]) {
      if (lm < 0 || lm >= int(lms_.size()))
        bad("set_groups: group " + std::to_string(gi) + " names LM " + std::to_string(lm) + ", out of range (have " +
            std::to_string(lms_.size()) + ")");
      if (!seen.insert(lm).second) bad("set_groups: LM " + std::to_string(lm) + " is in more than one group");
    }
  groups_ = groups;
}

void CpuBackend::reset_episode() {
  require_idle("reset_episode");
  for (auto& lm : lms_) {
    lm->started = false;
    lm->burst_steps = 0;
    lm->mlh = {};
    for (GraphSpace& s : lm->spaces) {
      GraphSpace fresh;
      fresh.graph = s.graph;
      fresh.model = s.model;
      fresh.grid = s.grid;
      fresh.lists = s.lists;
      fresh.trace_kernel = s.trace_kernel;
      fresh.tracker = SlopeTracker(lm->config.burst.slope_window, lm->config.burst.slope_min_age);
      s = std::move(fresh);
    }
  }
}

void CpuBackend::require_idle(const char* what) const {
  if (pending_) bad(std::string(what) + ": a dispatched step is still pending; call wait() first");
}

void CpuBackend::set_votes(const std::vector<std::vector<int>>& senders_of, const VoteOptions& options) {
  require_idle("set_votes");
  validate_vote_matrix(senders_of, lms_.size());
  options.validate();
  senders_of_ = senders_of;
  vote_options_ = options;
}

void CpuBackend::validate(const std::vector<StepInput>& inputs) const {
  validate_vote_matrix(senders_of_, lms_.size());  // LMs added since set_votes
  const std::vector<uint8_t> votes = voting_lms(senders_of_, lms_.size());
  std::vector<LmInputState> states;
  for (size_t m = 0; m < lms_.size(); ++m) states.push_back({&lms_[m]->config, lms_[m]->started, votes[m] != 0});
  validate_step_inputs(inputs, states);
}

void CpuBackend::dispatch(const std::vector<StepInput>& inputs) {
  require_idle("dispatch");
  validate(inputs);
  {
    std::lock_guard<std::mutex> lock(step_mutex_);
    job_ = inputs;
    has_job_ = true;
    finished_ = false;
  }
  pending_ = true;
  step_cv_.notify_all();
}

void CpuBackend::wait() {
  if (!pending_) return;
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(step_mutex_);
    step_cv_.wait(lock, [&] { return finished_; });
    error = step_error_;
    step_error_ = nullptr;
  }
  pending_ = false;
  if (error) std::rethrow_exception(error);
}

// The order of work follows the groups (then any LM in none), so a group's LMs run together.
std::vector<int> CpuBackend::lm_order() const {
  std::vector<int> order;
  std::vector<uint8_t> listed(lms_.size(), 0);
  for (const auto& g : groups_)
    for (int lm : g) order.push_back(lm), listed[size_t(lm)] = 1;
  for (size_t lm = 0; lm < lms_.size(); ++lm)
    if (!listed[lm]) order.push_back(int(lm));
  return order;
}

void CpuBackend::run_step(const std::vector<StepInput>& inputs) {
  phases_.clear();
  auto phase_start = std::chrono::steady_clock::now();
  auto phase_end = [&](const char* name) {
    const auto now = std::chrono::steady_clock::now();
    phases_.push_back({name, double(std::chrono::duration_cast<std::chrono::nanoseconds>(now - phase_start).count())});
    phase_start = now;
  };
  std::vector<const StepInput*> input_of(lms_.size(), nullptr);
  for (const StepInput& in : inputs) input_of[size_t(in.lm)] = &in;

  std::vector<LmStepContext> contexts(lms_.size());
  std::vector<std::pair<int, GraphSpace*>> work;  // (LM, space) pairs with input, in group order
  for (int lm : lm_order()) {
    if (!input_of[size_t(lm)]) continue;
    for (GraphSpace& s : lms_[size_t(lm)]->spaces) work.push_back({lm, &s});
  }
  for (auto& lm : lms_)
    for (GraphSpace& s : lm->spaces) s.info.updated = false;

  // Burst trigger: the largest slope over the LM's graphs before anything changes.
  std::vector<double> slope(work.size());
  pool_.parallel_for(work.size(), [&](size_t i) {
    const LmState& lm = *lms_[size_t(work[i].first)];
    slope[i] = lm.config.kind == UpdaterKind::BurstSampling ? max_finite_slope(*work[i].second)
                                                            : -std::numeric_limits<double>::infinity();
  });
  std::vector<double> lm_slope(lms_.size(), -std::numeric_limits<double>::infinity());
  for (size_t i = 0; i < work.size(); ++i)
    lm_slope[size_t(work[i].first)] = std::max(lm_slope[size_t(work[i].first)], slope[i]);
  for (size_t lm = 0; lm < lms_.size(); ++lm) {
    if (!input_of[lm]) continue;
    LmState& state = *lms_[lm];
    if (state.config.kind == UpdaterKind::BurstSampling && lm_slope[lm] <= state.config.burst.burst_trigger_slope &&
        state.burst_steps == 0)
      state.burst_steps = state.config.burst.sampling_burst_duration;
    contexts[lm] = {&state.config, input_of[lm], state.mlh.evidence, state.burst_steps};
  }
  phase_end("burst_trigger");

  pool_.parallel_for(work.size(),
                     [&](size_t i) { prepare_graph_step(contexts[size_t(work[i].first)], *work[i].second); });
  phase_end("prepare");

  std::vector<std::pair<GraphSpace*, size_t>> blocks;
  for (auto& [lm, s] : work)
    for (size_t first = 0; first < s->tested.size(); first += kBlock) blocks.push_back({s, first});
  pool_.parallel_for(blocks.size(), [&](size_t i) {
    GraphSpace& s = *blocks[i].first;
    compute_evidence_block(s, blocks[i].second, std::min(blocks[i].second + kBlock, s.tested.size()));
  });
  phase_end("location_evidence");

  pool_.parallel_for(work.size(), [&](size_t i) {
    finish_graph_step(contexts[size_t(work[i].first)], *work[i].second);
    work[i].second->telemetry.max_global_slope = lm_slope[size_t(work[i].first)];
  });
  phase_end("finish");

  run_votes(input_of);
  for (size_t lm = 0; lm < lms_.size(); ++lm) {
    if (!input_of[lm]) continue;
    LmState& state = *lms_[lm];
    state.started = true;
    update_most_likely(state);
    if (state.burst_steps > 0) --state.burst_steps;
  }
  phase_end("most_likely");
}

std::vector<PhaseTime> CpuBackend::last_step_phases() const {
  require_idle("last_step_phases");
  return phases_;
}

// Monty's _vote after the step's evidence updates: every LM with input sends its votes (from its
// updated evidence), then every LM with input receives its senders' votes on the graphs it holds.
void CpuBackend::run_votes(const std::vector<const StepInput*>& input_of) {
  if (senders_of_.empty()) return;
  std::vector<std::vector<VoteSet>> sent(lms_.size());
  for (size_t j = 0; j < lms_.size(); ++j) {
    if (!input_of[j]) continue;
    std::vector<VoteSource> graphs;
    for (const GraphSpace& s : lms_[j]->spaces) graphs.push_back({&s.evidence, &s.locations, &s.rotations});
    sent[j] = make_votes(graphs, vote_options_.vote_evidence_threshold);
  }
  for (size_t i = 0; i < lms_.size(); ++i) {
    if (!input_of[i] || senders_of_[i].empty()) continue;  // a non-voting LM may have no location
    LmState& receiver = *lms_[i];
    const VoteReceiver how{receiver.config.max_match_distance, vote_options_.vote_weight,
                           receiver.config.past_weight + receiver.config.present_weight == 1};
    const auto& here = *input_of[i]->sensed_location;
    for (GraphSpace& s : receiver.spaces) {
      std::vector<IncomingVotes> incoming;
      for (int j : senders_of_[i]) {
        if (!input_of[size_t(j)]) continue;
        const auto it = lms_[size_t(j)]->local.find(s.graph);
        if (it == lms_[size_t(j)]->local.end() || sent[size_t(j)][it->second].size() == 0) continue;
        const auto& there = *input_of[size_t(j)]->sensed_location;
        incoming.push_back({&sent[size_t(j)][it->second], {here[0] - there[0], here[1] - there[1], here[2] - there[2]}});
      }
      if (!incoming.empty()) apply_votes(s.evidence, s.locations, incoming, how);
    }
  }
}

// Global argmax over the LM's graphs: the first graph (in the LM's order) holding the largest
// evidence, and its first hypothesis with it.
void CpuBackend::update_most_likely(LmState& lm) {
  MostLikely best;
  bool any = false;
  for (const GraphSpace& s : lm.spaces) {
    if (s.evidence.empty()) continue;
    const auto it = std::max_element(s.evidence.begin(), s.evidence.end());
    if (!any || *it > best.evidence) {
      best = {s.graph, int64_t(it - s.evidence.begin()), *it};
      any = true;
    }
  }
  if (any) lm.mlh = best;
}

const GraphSpace& CpuBackend::space(int lm, int graph) const {
  require_idle("read");
  if (lm < 0 || lm >= int(lms_.size()))
    bad("read: LM " + std::to_string(lm) + " out of range (have " + std::to_string(lms_.size()) + ")");
  const LmState& state = *lms_[size_t(lm)];
  const auto it = state.local.find(graph);
  if (it == state.local.end())
    bad("read: LM " + std::to_string(lm) + " does not hold graph id " + std::to_string(graph));
  return state.spaces[it->second];
}

HypothesisArrays CpuBackend::hypotheses(int lm, int graph) const {
  const GraphSpace& s = space(lm, graph);
  return {s.evidence, s.locations, s.rotations, s.possible};
}

GraphStepInfo CpuBackend::step_info(int lm, int graph) const { return space(lm, graph).info; }

BurstTelemetry CpuBackend::burst_telemetry(int lm, int graph) const { return space(lm, graph).telemetry; }

MostLikely CpuBackend::most_likely(int lm) const {
  require_idle("most_likely");
  if (lm < 0 || lm >= int(lms_.size())) bad("most_likely: LM " + std::to_string(lm) + " out of range");
  return lms_[size_t(lm)]->mlh;
}

const ObjectGraph& CpuBackend::graph(int id) const {
  if (id < 0 || id >= int(graphs_.size())) bad("graph: id " + std::to_string(id) + " out of range");
  return *graphs_[size_t(id)];
}

ChannelEvidence CpuBackend::last_channel_evidence(int lm, int graph, size_t channel) const {
  const GraphSpace& s = space(lm, graph);
  ChannelEvidence out;
  out.tested = s.tested;
  if (channel == 0) out.traces = s.traces;
  if (channel < s.kernels.size() && !s.tested.empty())
    out.evidence.assign(s.new_evidence.begin() + long(channel * s.tested.size()),
                        s.new_evidence.begin() + long((channel + 1) * s.tested.size()));
  return out;
}

void CpuBackend::set_kernel_trace(bool on) {
  require_idle("set_kernel_trace");
  trace_kernel_ = on;
  for (auto& lm : lms_)
    for (GraphSpace& s : lm->spaces) s.trace_kernel = on, s.traces.clear();
}

std::unique_ptr<HypothesisBackend> make_cpu_backend(unsigned threads) { return std::make_unique<CpuBackend>(threads); }

}  // namespace weft::hypothesis_update
