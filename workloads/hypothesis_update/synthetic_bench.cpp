#include "synthetic_bench.h"

#include <weft/error.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <numbers>
#include <random>
#include <vector>

#include "cpu_backend.h"

namespace weft::hypothesis_update {

UpdaterConfig bench_config(const BenchOptions& o) {
  UpdaterConfig c;
  c.kind = o.kind;
  c.threshold = ThresholdConfig::parse("all");
  c.max_nneighbors = o.k;
  c.umbilical_num_poses = o.umbilical;
  c.features = {{"hsv", {0.1, 0.2, 0.2}, {1, 0.5, 0.5}, true}, {"principal_curvatures_log", {1, 1}, {1, 1}, false}};
  c.curvature_feature = 1;
  return c;
}

namespace {

// Sensor on node `node` of `g`, with its frame turned by `twist` about the normal.
ChannelInput sense_node(const ObjectGraph& g, size_t node, double twist, bool fully_defined) {
  ChannelInput in;
  const double* f = g.pose_vectors.data() + node * 9;
  const double c = std::cos(twist), s = std::sin(twist);
  for (int i = 0; i < 3; ++i) {
    in.pose_vectors[size_t(i)] = f[i];
    in.pose_vectors[size_t(3 + i)] = c * f[3 + i] + s * f[6 + i];
    in.pose_vectors[size_t(6 + i)] = -s * f[3 + i] + c * f[6 + i];
  }
  in.pose_fully_defined = fully_defined;
  const size_t w = g.features.size() / g.num_nodes;
  in.features.assign(g.features.begin() + long(node * w), g.features.begin() + long((node + 1) * w));
  return in;
}

}  // namespace

ObjectGraph sphere_surface_graph(const std::string& name, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  const double radius = 0.05, golden = std::numbers::pi * (3 - std::sqrt(5.0));
  std::vector<double> pos(n * 3), x(n * 16);
  for (size_t i = 0; i < n; ++i) {
    // Fibonacci lattice: evenly spread points, stored as float32 values like Monty's graphs.
    const double z = 1 - 2 * (double(i) + 0.5) / double(n), r = std::sqrt(1 - z * z), a = golden * double(i);
    const double normal[3] = {r * std::cos(a), r * std::sin(a), z};
    for (int c = 0; c < 3; ++c) pos[i * 3 + size_t(c)] = double(float(radius * normal[c]));
    // Tangent frame: cd1 along the latitude, cd2 = normal x cd1.
    double t[3] = {-std::sin(a), std::cos(a), 0};
    const double b[3] = {normal[1] * t[2] - normal[2] * t[1], normal[2] * t[0] - normal[0] * t[2],
                         normal[0] * t[1] - normal[1] * t[0]};
    double* row = x.data() + i * 16;
    row[0] = double(i);
    for (int c = 0; c < 3; ++c) row[1 + c] = normal[c], row[4 + c] = t[c], row[7 + c] = b[c];
    row[10] = 1;
    row[11] = u(rng), row[12] = 0.5 + 0.5 * u(rng), row[13] = 0.5 + 0.5 * u(rng);
    row[14] = std::log(1 / radius), row[15] = std::log(1 / radius) + 0.1 * u(rng);
  }
  return ObjectGraph::from_arrays(name, pos, n, x, 16, 5);
}

BenchResult run_synthetic_bench(const BenchOptions& o) {
  CpuBackend backend(o.threads);
  BenchResult r = run_synthetic_bench(backend, o);
  r.threads = backend.threads();
  return r;
}

namespace {
// CPU time of every thread of this process: unlike wall time, other processes on a shared
// machine do not inflate it.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}
}  // namespace

BenchResult run_synthetic_bench(HypothesisBackend& backend, const BenchOptions& o,
                                const std::function<double()>& device_seconds, BenchRecord* record) {
  if (o.nodes < 2 || o.graphs < 1 || o.lms < 1 || o.steps < 1 || o.umbilical < 1)
    fail(ErrorCode::BadInput, "bench: nodes >= 2, graphs, lms, steps and poses >= 1");
  std::vector<int> graph_ids;
  for (int g = 0; g < o.graphs; ++g)
    graph_ids.push_back(
        backend.add_graph(sphere_surface_graph("sphere" + std::to_string(g), o.nodes, uint64_t(g + 1))));
  for (int lm = 0; lm < o.lms; ++lm) backend.add_learning_module(bench_config(o), graph_ids);
  const ObjectGraph& truth = backend.graph(graph_ids[0]);

  // The sensor walks node to node on the first graph; displacements are the true moves.
  size_t node = 0;
  auto inputs_for = [&](bool first, const double* move) {
    std::vector<StepInput> inputs;
    for (int lm = 0; lm < o.lms; ++lm) {
      StepInput in;
      in.lm = lm;
      if (!first) in.displacement = std::array<double, 3>{move[0], move[1], move[2]};
      in.channels.push_back(sense_node(truth, node, 0.3, !first));
      inputs.push_back(std::move(in));
    }
    return inputs;
  };
  backend.dispatch(inputs_for(true, nullptr));
  backend.wait();
  BenchResult result;
  result.hypotheses_per_graph = backend.hypotheses(0, graph_ids[0]).size();
  if (record) {
    record->initial.clear(), record->steps.clear();
    for (int lm = 0; lm < o.lms; ++lm)
      for (int g : graph_ids) record->initial.push_back(backend.hypotheses(lm, g));
  }

  double seconds = 0, device = 0, process_cpu = 0;
  std::vector<double> step_seconds;
  size_t tested = 0;
  for (int s = 0; s < o.steps; ++s) {
    const size_t next = (node + 37) % o.nodes;
    double move[3];
    for (int c = 0; c < 3; ++c) move[c] = truth.pos[next * 3 + size_t(c)] - truth.pos[node * 3 + size_t(c)];
    node = next;
    const auto inputs = inputs_for(false, move);
    if (record) record->steps.push_back(inputs);
    const double cpu0 = process_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    backend.dispatch(inputs);
    backend.wait();
    process_cpu += process_cpu_seconds() - cpu0;
    step_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    seconds += step_seconds.back();
    if (device_seconds) device += device_seconds();
    for (int lm = 0; lm < o.lms; ++lm)
      for (int g : graph_ids) tested += backend.step_info(lm, g).tested;
  }
  result.seconds_per_step = seconds / o.steps;
  result.process_cpu_seconds_per_step = process_cpu / o.steps;
  std::nth_element(step_seconds.begin(), step_seconds.begin() + long(step_seconds.size() / 2), step_seconds.end());
  result.median_seconds_per_step = step_seconds[step_seconds.size() / 2];
  result.hypotheses_per_second = seconds > 0 ? double(tested) / seconds : 0;
  result.tested_per_step = double(tested) / o.steps;
  if (device_seconds) result.device_seconds_per_step = device / o.steps;
  return result;
}

namespace {
double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) worst = std::max(worst, std::abs(a[i] - b[i]));
  return worst;
}
}  // namespace

BenchAgreement compare_bench_backends(const HypothesisBackend& a, const HypothesisBackend& b, double evidence_tolerance,
                                      double aligned_bound, double geometry_tolerance) {
  BenchAgreement r;
  for (int lm = 0; lm < a.num_learning_modules(); ++lm) {
    for (int g = 0; g < a.num_graphs(); ++g) {
      const HypothesisArrays x = a.hypotheses(lm, g), y = b.hypotheses(lm, g);
      if (x.size() != y.size()) {
        ++r.count_mismatches;
        continue;
      }
      r.rows += x.size();
      for (size_t h = 0; h < x.size(); ++h) {
        const double e = std::abs(x.evidence[h] - y.evidence[h]);
        r.max_evidence_error = std::max(r.max_evidence_error, e);
        r.rows_over_tolerance += !(e <= evidence_tolerance);
        r.rows_over_aligned += !(e <= evidence_tolerance + aligned_bound);
      }
      r.max_geometry_error = std::max({r.max_geometry_error, max_abs_difference(x.locations, y.locations),
                                       max_abs_difference(x.rotations, y.rotations)});
    }
    const MostLikely x = a.most_likely(lm), y = b.most_likely(lm);
    r.most_likely_graph_mismatches += x.graph != y.graph;
    r.max_most_likely_evidence_error = std::max(r.max_most_likely_evidence_error, std::abs(x.evidence - y.evidence));
  }
  r.agree = r.count_mismatches == 0 && r.rows_over_aligned == 0 && r.max_geometry_error <= geometry_tolerance &&
            r.max_most_likely_evidence_error <= evidence_tolerance + aligned_bound;
  return r;
}

}  // namespace weft::hypothesis_update
