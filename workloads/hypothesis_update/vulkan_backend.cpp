#include "vulkan_backend.h"

#include <cmath>
#include <limits>
#include <string>

#include "evidence_math.h"
#include "step_validation.h"
#include "votes.h"

namespace weft::hypothesis_update {

namespace {

[[noreturn]] void bad(const std::string& m) { fail(ErrorCode::BadInput, m); }

// The curvature that shapes the search sphere (see cpu_graph_update.cpp setup_kernels).
double curvature_scale(const UpdaterConfig& c, const ChannelInput& ci) {
  double curvature = 10;
  if (c.curvature_feature >= 0) {
    size_t offset = 0;
    for (int f = 0; f < c.curvature_feature; ++f) offset += c.features[size_t(f)].width();
    curvature = 0;
    for (size_t i = 0; i < c.features[size_t(c.curvature_feature)].width(); ++i)
      curvature = std::max(curvature, std::abs(ci.features[offset + i]));
  }
  return 1 / (std::abs(curvature) + 0.5);
}

template <class T>
std::vector<T> read_rows(Executable& x, const char* segment, uint32_t first_row, uint32_t rows, uint32_t width) {
  std::vector<T> out(size_t(rows) * width);
  if (!out.empty())
    x.read_segment(Binding::Globals, segment, out.data(), out.size() * sizeof(T), uint64_t(first_row) * width * 4);
  return out;
}

}  // namespace

int VulkanBackend::add_graph(const ObjectGraph& graph) {
  require_idle("add_graph");
  require_setup_allowed("add_graph");
  const int id = host_.add_graph(graph);
  graphs_.push_back(&host_.graph(id));
  dirty_ = true;
  return id;
}

int VulkanBackend::add_learning_module(const UpdaterConfig& config, const std::vector<int>& graph_ids) {
  require_idle("add_learning_module");
  require_setup_allowed("add_learning_module");
  check_device_config(config);
  const int id = host_.add_learning_module(config, graph_ids);
  auto lm = std::make_unique<LmState>();
  lm->config = config;
  lm->graph_ids = graph_ids;
  lms_.push_back(std::move(lm));
  dirty_ = true;
  return id;
}

void VulkanBackend::set_kernel_trace(bool on) {
  require_idle("set_kernel_trace");
  require_setup_allowed("set_kernel_trace");
  dirty_ = dirty_ || on != trace_;
  trace_ = on;
}

void VulkanBackend::set_capacity_per_node(double rows_per_node) {
  require_idle("set_capacity_per_node");
  require_setup_allowed("set_capacity_per_node");
  if (!(rows_per_node >= 0) || rows_per_node > 1e6)
    bad("set_capacity_per_node: expects 0 (automatic) or a positive number of rows per node");
  dirty_ = dirty_ || rows_per_node != capacity_per_node_;
  capacity_per_node_ = rows_per_node;
}

void VulkanBackend::set_row_dispatch_width(uint32_t workgroups) {
  require_idle("set_row_dispatch_width");
  require_setup_allowed("set_row_dispatch_width");
  dirty_ = dirty_ || workgroups != row_width_;
  row_width_ = workgroups;
}

void VulkanBackend::set_row_placement(RowPlacement placement) {
  require_idle("set_row_placement");
  require_setup_allowed("set_row_placement");
  dirty_ = dirty_ || placement != row_placement_;
  row_placement_ = placement;
}

void VulkanBackend::set_neighbour_lists(bool on) {
  require_idle("set_neighbour_lists");
  require_setup_allowed("set_neighbour_lists");
  dirty_ = dirty_ || on != neighbour_lists_;
  neighbour_lists_ = on;
}

// Each group gets a program of its own, so a new grouping re-records them, which drops the
// running LMs' device state: like the other set-up calls it waits for a new episode (the same
// grouping again is allowed at any time).
void VulkanBackend::set_groups(const std::vector<std::vector<int>>& groups) {
  require_idle("set_groups");
  host_.set_groups(groups);  // validates: LMs in range, none in two groups (the host runs no step)
  const bool same = partition(groups) == partition(group_lists_);
  if (!same) require_setup_allowed("set_groups");
  group_lists_ = groups;
  dirty_ = dirty_ || !same;
}

// The votes are stages of the programs, so a change re-records them: like the other set-up
// calls it waits for a new episode (the same votes again are accepted at any time).
void VulkanBackend::set_votes(const std::vector<std::vector<int>>& senders_of, const VoteOptions& options) {
  require_idle("set_votes");
  validate_vote_matrix(senders_of, lms_.size());
  options.validate();
  const bool same = senders_of == senders_of_ && options.vote_evidence_threshold == vote_options_.vote_evidence_threshold &&
                    options.vote_weight == vote_options_.vote_weight;
  if (same) return;
  require_setup_allowed("set_votes");
  senders_of_ = senders_of;
  vote_options_ = options;
  dirty_ = true;
}

// A vote passes between stages of one program, so a receiver and its senders share a group.
void VulkanBackend::require_votes_within_groups() const {
  std::vector<size_t> group_of(lms_.size(), 0);
  const auto groups = partition(group_lists_);
  for (size_t g = 0; g < groups.size(); ++g)
    for (int lm : groups[g]) group_of[size_t(lm)] = g;
  for (size_t i = 0; i < senders_of_.size(); ++i)
    for (int j : senders_of_[i])
      if (group_of[size_t(j)] != group_of[i])
        bad("vulkan backend: LM " + std::to_string(i) + " receives votes from LM " + std::to_string(j) +
            " of another group; votes pass within one group's program (put them in one group)");
}

// The programs' LM lists: the groups as set (empty ones dropped), then the LMs no group names,
// together; without groups, one list of every LM.
std::vector<std::vector<int>> VulkanBackend::partition(const std::vector<std::vector<int>>& lists) const {
  std::vector<std::vector<int>> out;
  std::vector<uint8_t> listed(lms_.size(), 0);
  for (const auto& g : lists) {
    if (g.empty()) continue;
    out.push_back(g);
    for (int lm : g) listed[size_t(lm)] = 1;
  }
  std::vector<int> rest;
  for (size_t lm = 0; lm < lms_.size(); ++lm)
    if (!listed[lm]) rest.push_back(int(lm));
  if (!rest.empty()) out.push_back(std::move(rest));
  return out;
}

void VulkanBackend::reset_episode() {
  require_idle("reset_episode");
  host_.reset_episode();
  for (auto& lm : lms_) lm->started = false, lm->updated = false;
  if (dirty_) return;
  for (Group& g : groups_)
    if (g.program.exe) reset_program_state(g.program);
}

void VulkanBackend::require_idle(const char* what) const {
  if (pending_) bad(std::string(what) + ": a dispatched step is still pending; call wait() first");
}

// The recorded program stacks every LM; growing it would drop the running LMs' device state.
void VulkanBackend::require_setup_allowed(const char* what) const {
  for (const auto& lm : lms_)
    if (lm->started)
      bad(std::string(what) +
          ": the vulkan backend takes graphs and learning modules before the first step of an episode; call "
          "reset_episode() first");
}

void VulkanBackend::validate(const std::vector<StepInput>& inputs) const {
  validate_vote_matrix(senders_of_, lms_.size());  // LMs added since set_votes
  require_votes_within_groups();
  const std::vector<uint8_t> votes = voting_lms(senders_of_, lms_.size());
  std::vector<LmInputState> states;
  for (size_t m = 0; m < lms_.size(); ++m) states.push_back({&lms_[m]->config, lms_[m]->started, votes[m] != 0});
  validate_step_inputs(inputs, states);
}

void VulkanBackend::ensure_program() {
  if (!dirty_ && !groups_.empty()) return;
  groups_.clear();
  lm_slot_.assign(lms_.size(), {0, 0});
  for (const std::vector<int>& members : partition(group_lists_)) {
    std::vector<DeviceLm> lms;
    for (int m : members) {
      lm_slot_[size_t(m)] = {uint32_t(groups_.size()), uint32_t(lms.size())};
      DeviceLm d;
      d.config = &lms_[size_t(m)]->config;
      for (int g : lms_[size_t(m)]->graph_ids) d.graphs.push_back(graphs_[size_t(g)]);
      lms.push_back(std::move(d));
    }
    for (size_t i = 0; i < members.size() && !senders_of_.empty(); ++i)  // same group: checked in validate
      for (int j : senders_of_[size_t(members[i])]) lms[i].vote_senders.push_back(lm_slot_[size_t(j)].second);
    Group& group = groups_.emplace_back();
    group.lms = members;
    group.program = build_backend_program(device_, lms, trace_, capacity_per_node_, row_width_, row_placement_,
                                          &vote_options_, neighbour_lists_);
  }
  ++programs_recorded_;
  dirty_ = false;
}

// The only per-step upload. Per LM: displacement, channel count, active / first-step flags,
// the number J of sensed frames, per channel the sensed normal and first curvature direction,
// pose_fully_defined, the curvature scale and the features, and channel 0's sensed frames
// (spec §3.4; a function of the sensed pose alone).
void VulkanBackend::write_inputs(Group& group, const std::vector<StepInput>& inputs) {
  const BackendProgram& program = group.program;
  const uint32_t stride = program.input_stride;
  std::vector<uint32_t> words(group.lms.size() * stride, 0);
  for (const StepInput& in : inputs) {
    if (&groups_[lm_slot_[size_t(in.lm)].first] != &group) continue;
    const LmState& lm = *lms_[size_t(in.lm)];
    uint32_t* w = words.data() + size_t(lm_slot_[size_t(in.lm)].second) * stride;
    if (in.displacement)
      for (int i = 0; i < 3; ++i) w[i] = f32_bits(float((*in.displacement)[size_t(i)]));
    w[kHypInChannels] = uint32_t(in.channels.size());
    w[kHypInActive] = 1;
    w[kHypInFirst] = lm.started ? 0u : 1u;
    for (size_t c = 0; c < in.channels.size(); ++c) {
      const ChannelInput& ci = in.channels[c];
      uint32_t* cw = w + kHypInputHeader + c * kHypChannelWords;
      for (int i = 0; i < 6; ++i) cw[i] = f32_bits(float(ci.pose_vectors[size_t(i)]));
      cw[6] = ci.pose_fully_defined ? 1u : 0u;
      cw[7] = f32_bits(float(curvature_scale(lm.config, ci)));
      for (size_t i = 0; i < ci.features.size(); ++i) cw[8 + i] = f32_bits(float(ci.features[i]));
    }
    const ChannelInput& first = in.channels[0];
    const std::vector<Mat3> frames =
        sensed_frames(first.pose_vectors, first.pose_fully_defined, lm.config.umbilical_num_poses);
    w[kHypInJ] = uint32_t(frames.size());
    uint32_t* fw = w + kHypInputHeader + program.max_channels * kHypChannelWords;
    for (size_t j = 0; j < frames.size(); ++j)
      for (int i = 0; i < 9; ++i) fw[j * 9 + size_t(i)] = f32_bits(float(frames[j][size_t(i)]));
  }
  program.exe->write_segment(Binding::Globals, "input", words.data(), words.size() * 4);
  if (program.votes) write_vote_locations(group, inputs);
}

// Channel 0's sensed location per LM of the group (the votes' displacements), float32.
void VulkanBackend::write_vote_locations(Group& group, const std::vector<StepInput>& inputs) {
  std::vector<float> where(group.lms.size() * 4, 0.0f);
  for (const StepInput& in : inputs) {
    if (&groups_[lm_slot_[size_t(in.lm)].first] != &group || !in.sensed_location) continue;
    for (int i = 0; i < 3; ++i) where[lm_slot_[size_t(in.lm)].second * 4 + size_t(i)] = float((*in.sensed_location)[size_t(i)]);
  }
  group.program.exe->write_segment(Binding::Globals, "vote_loc", where.data(), where.size() * 4);
}

void VulkanBackend::dispatch(const std::vector<StepInput>& inputs) {
  require_idle("dispatch");
  validate(inputs);
  ensure_program();
  for (Group& g : groups_) write_inputs(g, inputs);
  for (auto& lm : lms_) lm->updated = false;
  for (const StepInput& in : inputs) lms_[size_t(in.lm)]->updated = true, lms_[size_t(in.lm)]->started = true;
  // Non-blocking: one submission per group, each with its own timeline value; every group runs
  // every step (an LM without input is a no-op inside its program), as the ungrouped program does.
  for (Group& g : groups_) g.ticket = g.program.exe->submit();
  pending_ = true;
}

// The join: every group's submission is waited for (a failed one does not leave the others in
// flight), then the first failure is rethrown, then any capacity overflow.
void VulkanBackend::wait() {
  if (!pending_) return;
  pending_ = false;
  std::optional<Status> failed;
  for (Group& g : groups_) {
    Status s = g.program.exe->wait(*g.ticket);
    g.ticket.reset();
    if (!s && !failed) failed = std::move(s);
  }
  if (failed) failed->throw_if_failed();
  for (const Group& g : groups_) check_overflow(g);
}

void VulkanBackend::check_overflow(const Group& group) {
  Executable& x = *group.program.exe;
  const auto state = read_rows<uint32_t>(x, "lmstate", 0, uint32_t(group.lms.size()), kHypLmStateWords);
  for (size_t m = 0; m < group.lms.size(); ++m)
    if (state[m * kHypLmStateWords + kHypLmOverflow] != 0) {
      const uint32_t zero = 0;
      x.write_segment(Binding::Globals, "lmstate", &zero, 4, (m * kHypLmStateWords + kHypLmOverflow) * 4);
      fail(ErrorCode::OutOfMemory, "vulkan backend: LM " + std::to_string(group.lms[m]) +
                                       " needed more hypothesis rows than a graph's capacity; its new "
                                       "hypotheses were not added (raise set_capacity_per_node)");
    }
}

VulkanBackend::Placement VulkanBackend::placed(int lm) const {
  const auto [group, local] = lm_slot_[size_t(lm)];
  return {&groups_[group].program, local};
}

const VulkanBackend::LmState& VulkanBackend::lm_at(int lm, const char* what) const {
  require_idle(what);
  if (lm < 0 || lm >= int(lms_.size()))
    bad(std::string(what) + ": LM " + std::to_string(lm) + " out of range (have " + std::to_string(lms_.size()) + ")");
  return *lms_[size_t(lm)];
}

size_t VulkanBackend::local_graph(const LmState& lm, int graph, const char* what) const {
  for (size_t i = 0; i < lm.graph_ids.size(); ++i)
    if (lm.graph_ids[i] == graph) return i;
  bad(std::string(what) + ": the LM does not hold graph id " + std::to_string(graph));
}

std::vector<uint32_t> VulkanBackend::stats(int lm, size_t local_graph) const {
  const Placement p = placed(lm);
  return read_rows<uint32_t>(*p.program->exe, "stats", p.program->space_of_lm[p.local] + uint32_t(local_graph), 1,
                             kHypStatsWords);
}

std::vector<uint32_t> VulkanBackend::lm_state(int lm) const {
  const Placement p = placed(lm);
  return read_rows<uint32_t>(*p.program->exe, "lmstate", p.local, 1, kHypLmStateWords);
}

HypothesisArrays VulkanBackend::hypotheses(int lm_id, int graph) const {
  const LmState& lm = lm_at(lm_id, "hypotheses");
  const size_t g = local_graph(lm, graph, "hypotheses");
  HypothesisArrays out;
  if (!lm.started) return out;
  const Placement p = placed(lm_id);
  Executable& x = *p.program->exe;
  const uint32_t row = p.program->row_offset[p.program->space_of_lm[p.local] + g], n = stats(lm_id, g)[kHypStatCount];
  const auto e = read_rows<float>(x, "E", row, n, 1);
  const auto l = read_rows<float>(x, "L", row, n, 3);
  const auto r = read_rows<float>(x, "R", row, n, 9);
  out.evidence.assign(e.begin(), e.end());
  out.locations.assign(l.begin(), l.end());
  out.rotations.assign(r.begin(), r.end());
  out.possible.assign(n, 0);  // Monty's updaters never set them (see hypothesis_types.h)
  return out;
}

GraphStepInfo VulkanBackend::step_info(int lm_id, int graph) const {
  const LmState& lm = lm_at(lm_id, "step_info");
  const size_t g = local_graph(lm, graph, "step_info");
  GraphStepInfo info;
  info.updated = lm.updated;
  if (!lm.started) return info;
  const auto st = stats(lm_id, g);
  info.threshold = bits_f32(st[kHypStatThreshold]);
  info.prediction_error = bits_f32(st[kHypStatPredictionError]);
  info.tested = st[kHypStatTested];
  return info;
}

BurstTelemetry VulkanBackend::burst_telemetry(int lm_id, int graph) const {
  const LmState& lm = lm_at(lm_id, "burst_telemetry");
  const size_t g = local_graph(lm, graph, "burst_telemetry");
  BurstTelemetry t;
  if (!lm.started || lm.config.kind != UpdaterKind::BurstSampling) return t;
  const Placement p = placed(lm_id);
  Executable& x = *p.program->exe;
  const auto st = stats(lm_id, g);
  const auto ms = lm_state(lm_id);
  const uint32_t row = p.program->row_offset[p.program->space_of_lm[p.local] + g];
  const uint32_t retained = st[kHypStatRetained], added = st[kHypStatAdded], count = st[kHypStatCount];
  for (uint32_t i = 0; i < added; ++i) t.added_ids.push_back(int64_t(retained + i));
  for (uint32_t id : read_rows<uint32_t>(x, "removed", row, st[kHypStatRemoved], 1)) t.removed_ids.push_back(id);
  for (uint32_t a : read_rows<uint32_t>(x, "age", row, count, 1)) t.ages.push_back(a);
  for (float v : read_rows<float>(x, "slope", row, count, 1)) t.evidence_slopes.push_back(v);
  t.max_global_slope = bits_f32(ms[kHypLmMaxSlope]);
  t.burst_steps_in_step = int(ms[kHypLmBurstInStep]);
  return t;
}

MostLikely VulkanBackend::most_likely(int lm_id) const {
  const LmState& lm = lm_at(lm_id, "most_likely");
  if (!lm.started) return {};
  const auto m = lm_state(lm_id);
  if (m[kHypLmGraph] >= lm.graph_ids.size()) return {};
  return {lm.graph_ids[m[kHypLmGraph]], int64_t(m[kHypLmHyp]), double(bits_f32(m[kHypLmEvidence]))};
}

const ObjectGraph& VulkanBackend::graph(int id) const { return host_.graph(id); }

Timings VulkanBackend::last_step_timings(size_t group) const {
  require_idle("last_step_timings");
  const BackendProgram* p = program(group);
  return p ? p->exe->timings() : Timings{};
}

ChannelEvidence VulkanBackend::last_channel_evidence(int lm_id, int graph, size_t channel) const {
  const LmState& lm = lm_at(lm_id, "last_channel_evidence");
  const size_t g = local_graph(lm, graph, "last_channel_evidence");
  ChannelEvidence out;
  if (!lm.started) return out;
  const Placement p = placed(lm_id);
  const BackendProgram& program = *p.program;
  if (channel >= program.max_channels) return out;
  Executable& x = *program.exe;
  const uint32_t row = program.row_offset[program.space_of_lm[p.local] + g], n = stats(lm_id, g)[kHypStatRetained];
  const auto ne = read_rows<float>(x, "new", uint32_t(channel) * std::max(program.rows, kHypWorkgroup) + row, n, 1);
  std::vector<uint32_t> tr;
  if (program.trace && channel == 0) tr = read_rows<uint32_t>(x, "trace", row, n, kHypTraceWords);
  const int k = int(std::min<size_t>(size_t(lm.config.max_nneighbors), graphs_[size_t(graph)]->num_nodes));
  for (uint32_t h = 0; h < n; ++h) {
    if (std::isinf(ne[h]) && ne[h] > 0) continue;  // +inf marks an untested hypothesis
    out.tested.push_back(h);
    out.evidence.push_back(ne[h]);
    if (tr.empty()) continue;
    const uint32_t* w = tr.data() + size_t(h) * kHypTraceWords;
    KernelTrace t;
    t.count = k;
    for (int i = 0; i < k; ++i) t.nearest[size_t(i)] = int(w[i]), t.custom_dist[size_t(i)] = bits_f32(w[16 + i]);
    for (int i = 0; i < 3; ++i) t.rotated_sn[size_t(i)] = bits_f32(w[32 + i]);
    out.traces.push_back(t);
  }
  return out;
}

std::unique_ptr<HypothesisBackend> make_vulkan_backend(Device& device) {
  return std::make_unique<VulkanBackend>(device);
}

}  // namespace weft::hypothesis_update
