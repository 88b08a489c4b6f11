#include "vulkan_backend.h"
#include "step_validation.h"

#include <cmath>
#include <set>
#include <string>

namespace weft::hyp {

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
  const int id = host_.add_graph(graph);
  graphs_.push_back(&host_.graph(id));
  return id;
}

int VulkanBackend::add_learning_module(const UpdaterConfig& config, const std::vector<int>& graph_ids) {
  require_idle("add_learning_module");
  check_device_config(config);
  const int id = host_.add_learning_module(config, graph_ids);
  auto lm = std::make_unique<LmState>();
  lm->config = config;
  lm->graph_ids = graph_ids;
  lms_.push_back(std::move(lm));
  return id;
}

void VulkanBackend::set_groups(const std::vector<std::vector<int>>& groups) {
  require_idle("set_groups");
  host_.set_groups(groups);
  groups_ = groups;
}

void VulkanBackend::reset_episode() {
  require_idle("reset_episode");
  host_.reset_episode();
  for (auto& lm : lms_) {
    lm->program = {};
    lm->started = false;
    lm->last = LastStep::None;
    lm->updated = false;
    lm->ticket.reset();
  }
}

void VulkanBackend::require_idle(const char* what) const {
  if (pending_) bad(std::string(what) + ": a dispatched step is still pending; call wait() first");
}

void VulkanBackend::validate(const std::vector<StepInput>& inputs) const {
  std::vector<LmInputState> states;
  for (const auto& lm : lms_) states.push_back({&lm->config, lm->started});
  validate_step_inputs(inputs, states);
}

// Spec §3.4 on the host (the CPU reference), then the program for the new counts is recorded and
// the hypotheses uploaded, rounded to float32.
void VulkanBackend::initialise(LmState& lm, int lm_id) {
  std::vector<const ObjectGraph*> graphs;
  std::vector<uint32_t> counts;
  std::vector<HypothesisArrays> arrays;
  for (int g : lm.graph_ids) {
    graphs.push_back(graphs_[size_t(g)]);
    arrays.push_back(host_.hypotheses(lm_id, g));
    counts.push_back(uint32_t(arrays.back().size()));
  }
  lm.program = build_lm_program(device_, lm.config, graphs, counts, trace_);
  ++programs_recorded_;
  Executable& x = *lm.program.exe;
  for (size_t g = 0; g < arrays.size(); ++g) {
    const HypothesisArrays& a = arrays[g];
    const std::vector<float> e(a.evidence.begin(), a.evidence.end());
    const std::vector<float> l(a.locations.begin(), a.locations.end());
    const std::vector<float> r(a.rotations.begin(), a.rotations.end());
    const uint64_t row = lm.program.hyp_offset[g];
    if (e.empty()) continue;
    x.write_segment(Binding::Globals, "E", e.data(), e.size() * 4, row * 4);
    x.write_segment(Binding::Globals, "L", l.data(), l.size() * 4, row * 12);
    x.write_segment(Binding::Globals, "R", r.data(), r.size() * 4, row * 36);
  }
  lm.started = true;
  lm.last = LastStep::Host;
  lm.updated = true;
}

// The only per-step upload: displacement, channel count, and per channel the sensed normal and
// first curvature direction, pose_fully_defined, the curvature scale and the features.
void VulkanBackend::write_input(LmState& lm, const StepInput& in) {
  std::vector<uint32_t> words(4 + size_t(lm.program.max_channels) * kHypChannelWords, 0);
  for (int i = 0; i < 3; ++i) words[size_t(i)] = f32_bits(float((*in.displacement)[size_t(i)]));
  words[3] = uint32_t(in.channels.size());
  for (size_t c = 0; c < in.channels.size(); ++c) {
    const ChannelInput& ci = in.channels[c];
    uint32_t* w = words.data() + 4 + c * kHypChannelWords;
    for (int i = 0; i < 6; ++i) w[i] = f32_bits(float(ci.pose_vectors[size_t(i)]));
    w[6] = ci.pose_fully_defined ? 1u : 0u;
    w[7] = f32_bits(float(curvature_scale(lm.config, ci)));
    for (size_t i = 0; i < ci.features.size(); ++i) w[8 + i] = f32_bits(float(ci.features[i]));
  }
  lm.program.exe->write_segment(Binding::Globals, "input", words.data(), words.size() * 4);
}

void VulkanBackend::dispatch(const std::vector<StepInput>& inputs) {
  require_idle("dispatch");
  validate(inputs);
  // An LM without input keeps its state and its last results, marked not updated.
  for (auto& lm : lms_) lm->updated = false, lm->ticket.reset();
  // First steps: one host step for all of them (the host backend marks LMs it is not given as
  // not updated, so they go in together).
  std::vector<StepInput> first;
  for (const StepInput& in : inputs)
    if (!lms_[size_t(in.lm)]->started) first.push_back(in);
  if (!first.empty()) {
    host_.dispatch(first);
    host_.wait();
    for (const StepInput& in : first) initialise(*lms_[size_t(in.lm)], in.lm);
  }
  for (const StepInput& in : inputs) {
    LmState& lm = *lms_[size_t(in.lm)];
    if (lm.last == LastStep::Host && lm.updated) continue;  // initialised just now
    write_input(lm, in);
    lm.ticket = lm.program.exe->submit();  // non-blocking; the LMs' programs run side by side
    lm.last = LastStep::Device;
    lm.updated = true;
  }
  pending_ = true;
}

void VulkanBackend::wait() {
  if (!pending_) return;
  pending_ = false;
  for (auto& lm : lms_)
    if (lm->ticket) lm->program.exe->wait(*lm->ticket).throw_if_failed();
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

HypothesisArrays VulkanBackend::hypotheses(int lm_id, int graph) const {
  const LmState& lm = lm_at(lm_id, "hypotheses");
  const size_t g = local_graph(lm, graph, "hypotheses");
  if (!lm.started) return host_.hypotheses(lm_id, graph);  // empty before the first step
  Executable& x = *lm.program.exe;
  const uint32_t row = lm.program.hyp_offset[g], n = lm.program.hyps[g];
  HypothesisArrays out;
  const auto e = read_rows<float>(x, "E", row, n, 1);
  const auto l = read_rows<float>(x, "L", row, n, 3);
  const auto r = read_rows<float>(x, "R", row, n, 9);
  out.evidence.assign(e.begin(), e.end());
  out.locations.assign(l.begin(), l.end());
  out.rotations.assign(r.begin(), r.end());
  out.possible.assign(n, 0);  // the default updater never sets them (see hypothesis_types.h)
  return out;
}

GraphStepInfo VulkanBackend::step_info(int lm_id, int graph) const {
  const LmState& lm = lm_at(lm_id, "step_info");
  const size_t g = local_graph(lm, graph, "step_info");
  if (lm.last != LastStep::Device) {  // initialised on the host, or no step yet
    GraphStepInfo info = host_.step_info(lm_id, graph);
    info.updated = lm.updated;
    return info;
  }
  const auto s = read_rows<uint32_t>(*lm.program.exe, "stats", uint32_t(g), 1, kHypStatsWords);
  GraphStepInfo info;
  info.updated = lm.updated;
  info.threshold = bits_f32(s[kHypStatThreshold]);
  info.prediction_error = bits_f32(s[kHypStatPredictionError]);
  info.tested = s[kHypStatTested];
  return info;
}

BurstTelemetry VulkanBackend::burst_telemetry(int lm_id, int graph) const {
  const LmState& lm = lm_at(lm_id, "burst_telemetry");
  local_graph(lm, graph, "burst_telemetry");
  return {};  // the default updater keeps no resampling bookkeeping
}

MostLikely VulkanBackend::most_likely(int lm_id) const {
  const LmState& lm = lm_at(lm_id, "most_likely");
  if (!lm.started) return {};
  if (lm.last != LastStep::Device) {
    // After the host initialisation: the argmax of the float32 values now on the device.
    MostLikely best;
    for (int g : lm.graph_ids) {
      const HypothesisArrays a = hypotheses(lm_id, g);
      for (size_t h = 0; h < a.size(); ++h)
        if (best.graph < 0 || a.evidence[h] > best.evidence) best = {g, int64_t(h), a.evidence[h]};
    }
    return best;
  }
  const auto m = read_rows<uint32_t>(*lm.program.exe, "mlh", 0, 1, 4);
  if (m[0] >= lm.graph_ids.size()) return {};
  return {lm.graph_ids[m[0]], int64_t(m[1]), double(bits_f32(m[2]))};
}

const ObjectGraph& VulkanBackend::graph(int id) const { return host_.graph(id); }

ChannelEvidence VulkanBackend::last_channel_evidence(int lm_id, int graph, size_t channel) const {
  const LmState& lm = lm_at(lm_id, "last_channel_evidence");
  const size_t g = local_graph(lm, graph, "last_channel_evidence");
  ChannelEvidence out;
  if (lm.last != LastStep::Device || channel >= lm.program.max_channels) return out;
  Executable& x = *lm.program.exe;
  const uint32_t row = lm.program.hyp_offset[g], n = lm.program.hyps[g];
  const auto ne = read_rows<float>(x, "new", uint32_t(channel) * lm.program.padded_rows + row, n, 1);
  std::vector<uint32_t> tr;
  if (lm.program.trace && channel == 0) tr = read_rows<uint32_t>(x, "trace", row, n, kHypTraceWords);
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

}  // namespace weft::hyp
