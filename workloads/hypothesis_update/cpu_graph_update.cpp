#include "cpu_graph_update.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "numpy_argsort.h"

namespace weft::hypothesis_update {

namespace {

bool uses_features(const UpdaterConfig& c) { return c.feature_evidence_increment > 0 && c.feature_width() > 0; }

int hypotheses_per_node(const UpdaterConfig& c, const ChannelInput& in) {
  return in.pose_fully_defined ? 2 : c.umbilical_num_poses;
}

// Appends J x nodes hypotheses, j-major (all nodes for frame 0, then frame 1, ...), exactly as
// Monty tiles them: evidence = node feature evidence, location = node position.
void build_new_block(const UpdaterConfig& config, const ChannelInput& in, GraphSpace& s,
                     const std::vector<uint32_t>& nodes, const std::vector<double>& node_evidence) {
  const ObjectGraph& g = *s.model;
  const std::vector<Mat3> frames = sensed_frames(in.pose_vectors, in.pose_fully_defined, config.umbilical_num_poses);
  const size_t count = frames.size() * nodes.size();
  s.add_evidence.resize(count);
  s.add_locations.resize(count * 3);
  s.add_rotations.resize(count * 9);
  size_t h = 0;
  for (const Mat3& frame : frames)
    for (uint32_t node : nodes) {
      s.add_evidence[h] = node_evidence.empty() ? 0.0 : node_evidence[node];
      for (int i = 0; i < 3; ++i) s.add_locations[h * 3 + i] = g.pos[node * 3 + i];
      const Mat3 r = align_frames(g.pose_vectors.data() + node * 9, frame);
      std::copy(r.begin(), r.end(), s.add_rotations.begin() + h * 9);
      ++h;
    }
}

// Burst sampling: the n/J nodes with the highest feature evidence, as Monty's
// argsort(fe)[-n/J:], in that (ascending) order; numpy_argsort breaks ties the way numpy does.
std::vector<uint32_t> top_nodes(const GraphSpace& s, size_t count, bool by_evidence, const std::vector<double>& fe) {
  const size_t n = s.model->num_nodes;
  count = std::min(count, n);
  std::vector<uint32_t> nodes;
  if (!by_evidence) {
    for (size_t i = 0; i < count; ++i) nodes.push_back(uint32_t(i));
    return nodes;
  }
  const std::vector<int64_t> order = numpy_argsort(fe);
  for (size_t i = n - count; i < n; ++i) nodes.push_back(uint32_t(order[i]));
  return nodes;
}

template <class T>
void keep_rows(std::vector<T>& v, const std::vector<uint8_t>& mask, size_t width) {
  size_t out = 0;
  for (size_t h = 0; h < mask.size(); ++h) {
    if (!mask[h]) continue;
    if (out != h) std::copy_n(v.begin() + h * width, width, v.begin() + out * width);
    ++out;
  }
  v.resize(out * width);
}

void setup_kernels(const UpdaterConfig& c, const StepInput& in, GraphSpace& s) {
  s.kernels.assign(in.channels.size(), {});
  for (size_t ch = 0; ch < in.channels.size(); ++ch) {
    const ChannelInput& ci = in.channels[ch];
    ChannelKernel& k = s.kernels[ch];
    k.graph = s.model;
    k.grid = s.grid;
    k.lists = s.lists;
    k.feature_evidence = s.node_evidence[ch].empty() ? nullptr : s.node_evidence[ch].data();
    for (int i = 0; i < 3; ++i) {
      k.sensed_sn[i] = ci.pose_vectors[i];
      k.sensed_cd1[i] = ci.pose_vectors[3 + i];
    }
    k.pose_fully_defined = ci.pose_fully_defined;
    double curvature = 10;  // Monty's fallback: an almost spherical search volume
    if (c.curvature_feature >= 0) {
      size_t offset = 0;
      for (int f = 0; f < c.curvature_feature; ++f) offset += c.features[size_t(f)].width();
      curvature = 0;
      for (size_t i = 0; i < c.features[size_t(c.curvature_feature)].width(); ++i)
        curvature = std::max(curvature, std::abs(ci.features[offset + i]));
    }
    k.curvature_scale = 1 / (std::abs(curvature) + 0.5);
    k.max_match_distance = c.max_match_distance;
    k.sn_weight = c.sn_weight;
    k.cd_weight = c.cd_weight;
    k.k = c.max_nneighbors;
  }
}

}  // namespace

double max_finite_slope(const GraphSpace& space) {
  double best = -std::numeric_limits<double>::infinity();
  for (double s : space.tracker.slopes())
    if (std::isfinite(s)) best = std::max(best, s);
  return best;
}

void prepare_graph_step(const LmStepContext& ctx, GraphSpace& s) {
  const UpdaterConfig& c = *ctx.config;
  const StepInput& in = *ctx.input;
  const ChannelInput& first = in.channels[0];
  const bool burst = c.kind == UpdaterKind::BurstSampling;

  s.info = {};
  s.info.updated = true;
  s.info.threshold = evidence_threshold(c.threshold, c.x_percent_threshold, ctx.max_global_evidence, s.evidence);
  s.node_evidence.assign(in.channels.size(), {});
  if (uses_features(c))
    for (size_t ch = 0; ch < in.channels.size(); ++ch) {
      std::vector<double> raw;
      node_feature_evidence(c, *s.model, in.channels[ch].features, raw);
      for (double& v : raw) v *= c.feature_evidence_increment;
      s.node_evidence[ch] = std::move(raw);
    }
  setup_kernels(c, in, s);
  s.tested.clear();
  s.new_evidence.clear();
  s.traces.clear();
  s.add_evidence.clear(), s.add_locations.clear(), s.add_rotations.clear();

  if (burst) {
    BurstTelemetry& t = s.telemetry;
    t = {};
    t.burst_steps_in_step = ctx.burst_steps;
    std::vector<uint8_t> keep(s.evidence.size(), 0);
    if (s.exists) keep = s.tracker.retain_mask(c.burst.deletion_trigger_slope);
    for (size_t h = 0; h < keep.size(); ++h)
      if (!keep[h]) t.removed_ids.push_back(int64_t(h));
    if (t.removed_ids.size() == keep.size()) {
      s.tracker.clear();
    } else {
      s.tracker.keep(keep);
    }
    keep_rows(s.evidence, keep, 1);
    keep_rows(s.locations, keep, 3);
    keep_rows(s.rotations, keep, 9);
    keep_rows(s.possible, keep, 1);
    if (ctx.burst_steps > 0) {
      const int per_node = hypotheses_per_node(c, first);
      const double multiplier = std::min(c.burst.sampling_multiplier, double(per_node));
      // Python's round() rounds half to even, as nearbyint does in the default mode.
      int64_t count = int64_t(std::nearbyint(double(s.model->num_nodes) * multiplier));
      count -= count % per_node;
      const std::vector<uint32_t> nodes = top_nodes(s, size_t(count / per_node), uses_features(c), s.node_evidence[0]);
      build_new_block(c, first, s, nodes, s.node_evidence[0]);
      s.tracker.add(s.add_evidence.size());
    }
  } else if (!s.exists) {
    std::vector<uint32_t> all(s.model->num_nodes);
    std::iota(all.begin(), all.end(), 0u);
    build_new_block(c, first, s, all, s.node_evidence[0]);
  }

  s.retained = s.evidence.size();
  if (s.exists && s.retained > 0) {
    const auto& d = *in.displacement;
    for (size_t h = 0; h < s.retained; ++h) {
      const double* r = s.rotations.data() + h * 9;
      double* l = s.locations.data() + h * 3;
      for (int i = 0; i < 3; ++i) l[i] = l[i] + (r[i * 3] * d[0] + r[i * 3 + 1] * d[1] + r[i * 3 + 2] * d[2]);
    }
    for (size_t h = 0; h < s.retained; ++h)
      if (s.evidence[h] >= s.info.threshold) s.tested.push_back(uint32_t(h));
    s.new_evidence.assign(in.channels.size() * s.tested.size(), 0.0);
    if (s.trace_kernel) s.traces.assign(s.tested.size(), {});
  }
  s.info.tested = s.tested.size();
}

void compute_evidence_block(GraphSpace& s, size_t first, size_t last) {
  const size_t t_count = s.tested.size();
  for (size_t ch = 0; ch < s.kernels.size(); ++ch)
    for (size_t t = first; t < last; ++t) {
      const uint32_t h = s.tested[t];
      KernelTrace* trace = s.trace_kernel && ch == 0 ? &s.traces[t] : nullptr;
      s.new_evidence[ch * t_count + t] =
          location_evidence(s.kernels[ch], s.locations.data() + h * 3, s.rotations.data() + h * 9, trace);
    }
}

void finish_graph_step(const LmStepContext& ctx, GraphSpace& s) {
  const UpdaterConfig& c = *ctx.config;
  const size_t t_count = s.tested.size();
  const size_t channels = s.kernels.size();
  if (t_count > 0) {
    std::vector<double> total(s.retained, 0.0);
    for (size_t ch = 0; ch < channels; ++ch) {
      const double* ne = s.new_evidence.data() + ch * t_count;
      const double floor = std::max(*std::min_element(ne, ne + t_count), 0.0);
      std::vector<double> add(s.retained, floor);
      for (size_t t = 0; t < t_count; ++t) add[s.tested[t]] = ne[t];
      for (size_t h = 0; h < s.retained; ++h) total[h] += add[h];
    }
    // The previous best hypothesis (first maximum, like np.argmax) predicts this observation.
    const size_t best =
        size_t(std::max_element(s.evidence.begin(), s.evidence.begin() + long(s.retained)) - s.evidence.begin());
    s.info.prediction_error = (2.0 * double(channels) - total[best]) / (3.0 * double(channels));
    for (size_t h = 0; h < s.retained; ++h) s.evidence[h] = s.evidence[h] * c.past_weight + total[h] * c.present_weight;
  }
  const size_t added = s.add_evidence.size();
  s.evidence.insert(s.evidence.end(), s.add_evidence.begin(), s.add_evidence.end());
  s.locations.insert(s.locations.end(), s.add_locations.begin(), s.add_locations.end());
  s.rotations.insert(s.rotations.end(), s.add_rotations.begin(), s.add_rotations.end());
  s.possible.resize(s.evidence.size(), 0);  // new hypotheses are never possible yet
  s.exists = true;

  if (c.kind == UpdaterKind::BurstSampling) {
    s.tracker.update(s.evidence);
    BurstTelemetry& t = s.telemetry;
    for (size_t i = 0; i < added; ++i) t.added_ids.push_back(int64_t(s.retained + i));
    t.ages = s.tracker.ages();
    t.evidence_slopes = s.tracker.slopes();
  }
}

}  // namespace weft::hypothesis_update
