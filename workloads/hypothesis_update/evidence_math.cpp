#include "evidence_math.h"

#include <weft/error.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "knn.h"

namespace weft::hypothesis_update {

namespace {

double pairwise(const double* a, size_t n) {
  if (n < 8) {
    double res = 0.;
    for (size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise(a, n2) + pairwise(a + n2, n - n2);
}

double dot3(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

double clip_unit(double v) { return std::min(1.0, std::max(-1.0, v)); }

}  // namespace

// numpy reduces by seeding the accumulator with the first element and summing the rest pairwise.
double numpy_sum(const double* values, size_t n) {
  if (n == 0) return 0.0;
  return values[0] + pairwise(values + 1, n - 1);
}

double evidence_threshold(const ThresholdConfig& config, double x_percent_threshold, double max_global_evidence,
                          const std::vector<double>& evidence) {
  if (evidence.empty()) return 0.0;
  switch (config.mode) {
    case ThresholdMode::Number:
      return config.value;
    case ThresholdMode::Mean:
      return numpy_sum(evidence.data(), evidence.size()) / double(evidence.size());
    case ThresholdMode::Median: {
      std::vector<double> sorted = evidence;
      std::sort(sorted.begin(), sorted.end());
      const size_t n = sorted.size();
      return n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
    }
    case ThresholdMode::Percent: {
      // Monty: max - max * (P / 100), kept in that order so thresholds round identically.
      const double x_percent_of_max = max_global_evidence * (config.value / 100.0);
      return max_global_evidence - x_percent_of_max;
    }
    case ThresholdMode::XPercent: {
      const double x_percent_of_max = max_global_evidence / 100.0 * x_percent_threshold;
      return max_global_evidence - x_percent_of_max;
    }
    case ThresholdMode::All:
      return *std::min_element(evidence.begin(), evidence.end());
    case ThresholdMode::None:
      return 0.0;
  }
  return 0.0;
}

std::vector<int64_t> possible_hypothesis_ids(const std::vector<double>& evidence, double x_percent_threshold,
                                             double object_evidence_threshold) {
  std::vector<int64_t> ids;
  if (evidence.empty()) return ids;
  const double best = *std::max_element(evidence.begin(), evidence.end());
  if (!(best > object_evidence_threshold)) return ids;
  const double x_percent_of_max = best / 100 * x_percent_threshold;
  for (size_t h = 0; h < evidence.size(); ++h)
    if (evidence[h] > best - x_percent_of_max) ids.push_back(int64_t(h));
  return ids;
}

void node_feature_evidence(const UpdaterConfig& config, const ObjectGraph& graph, const std::vector<double>& query,
                           std::vector<double>& out) {
  const size_t width = config.feature_width();
  out.assign(graph.num_nodes, 0.0);
  // Flatten the per-feature settings once so the node loop is a plain column loop.
  std::vector<double> tolerance, weight;
  std::vector<uint8_t> circular;
  for (const FeatureSpec& f : config.features)
    for (size_t c = 0; c < f.width(); ++c) {
      tolerance.push_back(f.tolerances[c]);
      weight.push_back(f.weights[c]);
      circular.push_back(f.first_column_circular && c == 0);
    }
  double weight_sum = 0;
  for (double w : weight) weight_sum += w;
  for (size_t n = 0; n < graph.num_nodes; ++n) {
    const double* node = graph.features.data() + n * width;
    double weighted = 0;
    for (size_t c = 0; c < width; ++c) {
      double diff;
      if (circular[c]) {
        diff = std::min(
            {std::abs(1.0 + node[c] - query[c]), std::abs(node[c] - query[c]), std::abs(node[c] - (query[c] + 1.0))});
      } else {
        diff = std::abs(node[c] - query[c]);
      }
      const double evidence = std::max(tolerance[c] - diff, 0.0) / tolerance[c];
      weighted += evidence * weight[c];
    }
    out[n] = weighted / weight_sum;
  }
}

std::vector<Mat3> sensed_frames(const std::array<double, 9>& s, bool fully_defined, int umbilical) {
  std::vector<Mat3> frames;
  if (fully_defined) {
    Mat3 flipped = s;
    for (int i = 3; i < 9; ++i) flipped[i] = -flipped[i];
    frames = {s, flipped};
    return frames;
  }
  for (int j = 0; j < umbilical; ++j) {
    const double a = 2.0 * std::numbers::pi * j / umbilical;
    const double c = std::cos(a), si = std::sin(a);
    const double v[3] = {c * s[3] + si * s[6], c * s[4] + si * s[7], c * s[5] + si * s[8]};
    const double* n = s.data();
    frames.push_back({n[0], n[1], n[2], v[0], v[1], v[2], n[1] * v[2] - n[2] * v[1], n[2] * v[0] - n[0] * v[2],
                      n[0] * v[1] - n[1] * v[0]});
  }
  return frames;
}

Mat3 align_frames(const double* nn, const Mat3& s) {
  Mat3 r{};
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r[i * 3 + j] = nn[0 * 3 + i] * s[0 * 3 + j] + nn[1 * 3 + i] * s[1 * 3 + j] + nn[2 * 3 + i] * s[2 * 3 + j];
  return r;
}

double location_evidence(const ChannelKernel& kc, const double* loc, const double* rot, KernelTrace* trace) {
  const ObjectGraph& g = *kc.graph;
  double sn[3], cd1[3];
  for (int i = 0; i < 3; ++i) {
    sn[i] = dot3(rot + 3 * i, kc.sensed_sn.data());
    cd1[i] = dot3(rot + 3 * i, kc.sensed_cd1.data());
  }
  int ids[kMaxNeighbors];
  double d2[kMaxNeighbors];
  double best = -std::numeric_limits<double>::infinity();
  int k;
  if ((kc.lists || kc.grid) && !trace) {
    k = kc.lists ? kc.lists->nearest_within(loc, ids, d2)
                 : kc.grid->nearest_within(loc, search_radius(kc.max_match_distance), kc.k, ids, d2);
    if (size_t(k) < std::min(size_t(kc.k), g.num_nodes)) best = -1.0;  // the rest of the K are far
  } else {
    k = k_nearest(g.pos.data(), g.num_nodes, loc, kc.k, ids, d2);
  }

  for (int i = 0; i < k; ++i) {
    const int node = ids[i];
    const double* p = g.pos.data() + 3 * node;
    const double delta[3] = {p[0] - loc[0], p[1] - loc[1], p[2] - loc[2]};
    const double along_normal = dot3(delta, sn);
    const double euclid = std::sqrt(delta[0] * delta[0] + delta[1] * delta[1] + delta[2] * delta[2]);
    const double dist = euclid + std::abs(along_normal) * kc.curvature_scale;
    // Monty tests the sign of the distance weight, not dist >= max directly.
    const bool far = (kc.max_match_distance - dist) / kc.max_match_distance <= 0;
    double evidence;
    if (far) {
      evidence = -1.0;
    } else {
      const double* nv = g.pose_vectors.data() + 9 * node;
      // Monty: 0.5 - sin(arccos(x) / 2), by the half-angle identity.
      const double sn_ev = 0.5 - std::sqrt((1 - clip_unit(dot3(nv, sn))) / 2);
      double pose;
      if (kc.pose_fully_defined) {
        // Monty: a = arccos(y), error pi/2 - |a - pi/2|, whose sine is sin(a) = sqrt(1 - y²).
        const double y = clip_unit(dot3(nv + 3, cd1));
        const double cd_ev = (0.5 - std::sqrt(1 - y * y)) * (g.pose_defined[node] != 0 ? 1.0 : 0.0);
        pose = sn_ev * kc.sn_weight + cd_ev * kc.cd_weight;
      } else {
        pose = sn_ev * kc.sn_weight + 0.0 * 0.0;
      }
      evidence = pose + (kc.feature_evidence ? kc.feature_evidence[node] : 0.0);
    }
    best = std::max(best, evidence);
    if (trace) {
      trace->nearest[i] = node;
      trace->custom_dist[i] = dist;
    }
  }
  if (trace) {
    trace->count = k;
    for (int i = 0; i < 3; ++i) trace->rotated_sn[i] = sn[i];
  }
  return best;
}

}  // namespace weft::hypothesis_update
