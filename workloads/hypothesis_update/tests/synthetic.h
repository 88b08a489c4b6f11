// Small synthetic object graphs, configs and step inputs for the backend tests.
#pragma once

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "hypothesis_types.h"

namespace weft::hypothesis_update::test {

// A random orthonormal frame (rows), right-handed.
inline std::array<double, 9> random_frame(std::mt19937_64& rng) {
  std::normal_distribution<double> n(0, 1);
  double a[3] = {n(rng), n(rng), n(rng)}, b[3] = {n(rng), n(rng), n(rng)};
  const double la = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
  for (double& x : a) x /= la;
  const double d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  for (int i = 0; i < 3; ++i) b[i] -= d * a[i];
  const double lb = std::sqrt(b[0] * b[0] + b[1] * b[1] + b[2] * b[2]);
  for (double& x : b) x /= lb;
  return {a[0],
          a[1],
          a[2],
          b[0],
          b[1],
          b[2],
          a[1] * b[2] - a[2] * b[1],
          a[2] * b[0] - a[0] * b[2],
          a[0] * b[1] - a[1] * b[0]};
}

inline UpdaterConfig monty_config(UpdaterKind kind) {
  UpdaterConfig c;
  c.kind = kind;
  c.threshold = ThresholdConfig::parse(kind == UpdaterKind::BurstSampling ? "all" : "80%");
  c.features = {{"hsv", {0.1, 0.2, 0.2}, {1, 0.5, 0.5}, true}, {"principal_curvatures_log", {1, 1}, {1, 1}, false}};
  c.curvature_feature = 1;
  return c;
}

// N nodes in a 4 cm cube; x laid out as in spec §2 with hsv and curvature features.
inline ObjectGraph random_graph(const std::string& name, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> pos(n * 3), x(n * 16);
  for (size_t i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) pos[i * 3 + c] = 0.04 * u(rng);
    double* row = x.data() + i * 16;
    row[0] = double(i);
    const auto f = random_frame(rng);
    for (int c = 0; c < 9; ++c) row[1 + c] = f[size_t(c)];
    row[10] = i % 3 ? 1 : 0;
    row[11] = u(rng), row[12] = u(rng), row[13] = u(rng);
    row[14] = 4 * u(rng) - 2, row[15] = 4 * u(rng) - 2;
  }
  return ObjectGraph::from_arrays(name, pos, n, x, 16, 5);
}

inline StepInput random_input(int lm, uint64_t seed, bool first, size_t channels = 1) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, 1);
  StepInput in;
  in.lm = lm;
  if (!first)
    in.displacement = std::array<double, 3>{0.004 * u(rng) - 0.002, 0.004 * u(rng) - 0.002, 0.004 * u(rng) - 0.002};
  for (size_t c = 0; c < channels; ++c) {
    ChannelInput ch;
    ch.pose_vectors = random_frame(rng);
    ch.pose_fully_defined = u(rng) < 0.7;
    ch.features = {u(rng), u(rng), u(rng), 4 * u(rng) - 2, 4 * u(rng) - 2};
    in.channels.push_back(ch);
  }
  return in;
}

}  // namespace weft::hypothesis_update::test
