// Input checks and seeded random graphs/models.
#include <algorithm>
#include <cmath>
#include <random>
#include <string>

#include "gnn.h"

namespace weft::gnn {

const char* aggregation_name(Aggregation a) {
  switch (a) {
    case Aggregation::Sum: return "sum";
    case Aggregation::Mean: return "mean";
    case Aggregation::Max: return "max";
  }
  return "?";
}

namespace {

[[noreturn]] void bad(const std::string& what) { fail(ErrorCode::BadInput, "gnn: " + what); }

void validate_csr(const Csr& c, uint32_t nodes, size_t t) {
  const std::string where = "edge type " + std::to_string(t) + ": ";
  if (c.row_offsets.size() != size_t(nodes) + 1)
    bad(where + "row_offsets has " + std::to_string(c.row_offsets.size()) + " entries, want nodes + 1 = " +
        std::to_string(size_t(nodes) + 1));
  if (c.row_offsets[0] != 0) bad(where + "row_offsets[0] is " + std::to_string(c.row_offsets[0]) + ", want 0");
  for (uint32_t i = 0; i < nodes; ++i)
    if (c.row_offsets[i + 1] < c.row_offsets[i])
      bad(where + "row offsets not monotone at node " + std::to_string(i) + " (" + std::to_string(c.row_offsets[i]) +
          " then " + std::to_string(c.row_offsets[i + 1]) + ")");
  if (c.row_offsets[nodes] != c.cols.size())
    bad(where + "row_offsets[nodes] is " + std::to_string(c.row_offsets[nodes]) + " but there are " +
        std::to_string(c.cols.size()) + " column indices");
  if (c.weights.size() != c.cols.size())
    bad(where + std::to_string(c.weights.size()) + " edge weights for " + std::to_string(c.cols.size()) + " edges");
  for (size_t e = 0; e < c.cols.size(); ++e) {
    if (c.cols[e] >= nodes)
      bad(where + "column index " + std::to_string(c.cols[e]) + " at edge " + std::to_string(e) + " is >= node count " +
          std::to_string(nodes));
    if (!std::isfinite(c.weights[e])) bad(where + "edge weight at edge " + std::to_string(e) + " is not finite");
  }
}

void check_finite(const std::vector<float>& v, uint32_t width, const std::string& what, const char* row, const char* col) {
  for (size_t k = 0; k < v.size(); ++k)
    if (!std::isfinite(v[k]))
      bad(what + " is " + (std::isnan(v[k]) ? "NaN" : "infinite") + " at " + row + " " + std::to_string(k / width) + ", " +
          col + " " + std::to_string(k % width));
}

}  // namespace

void validate(const Graph& g, const Model& m) {
  if (g.nodes == 0) bad("the graph has no nodes");
  if (g.features == 0 || g.features > kMaxFeatures)
    bad("feature width " + std::to_string(g.features) + " is outside 1.." + std::to_string(kMaxFeatures) +
        " (the readout register R30 holds one word per feature)");
  // Word indices are 32-bit in the kernels: nodes * F must fit.
  if (uint64_t(g.nodes) * g.features >= (uint64_t(1) << 31))
    bad("nodes x features = " + std::to_string(uint64_t(g.nodes) * g.features) + " exceeds the 2^31 word segment capacity");
  if (g.edge_types.empty()) bad("the graph has no edge type");
  for (size_t t = 0; t < g.edge_types.size(); ++t) validate_csr(g.edge_types[t], g.nodes, t);
  if (g.x.size() != size_t(g.nodes) * g.features)
    bad("node features have " + std::to_string(g.x.size()) + " values, want nodes x features = " +
        std::to_string(size_t(g.nodes) * g.features));
  check_finite(g.x, g.features, "node feature", "node", "feature");
  if (m.layers.empty()) bad("the model has no layers");
  if (!std::isfinite(m.residual)) bad("residual scale is not finite");
  for (size_t l = 0; l < m.layers.size(); ++l) {
    const Layer& L = m.layers[l];
    const std::string at = "layer " + std::to_string(l) + " ";
    if (L.w.size() != size_t(g.features) * g.features)
      bad(at + "weights have " + std::to_string(L.w.size()) + " values, want features^2 = " +
          std::to_string(size_t(g.features) * g.features));
    if (L.b.size() != g.features) bad(at + "bias has " + std::to_string(L.b.size()) + " values, want " + std::to_string(g.features));
    check_finite(L.w, g.features, at + "weight", "row", "column");
    check_finite(L.b, g.features, at + "bias", "row", "feature");
  }
}

Graph random_graph(uint32_t nodes, uint32_t edges, uint32_t features, uint32_t edge_types, uint32_t seed, bool power_law) {
  if (nodes == 0 || features == 0 || edge_types == 0) bad("random_graph needs nodes, features and edge types > 0");
  Graph g;
  g.nodes = nodes;
  g.features = features;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> node(0, nodes - 1);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f), weight(0.25f, 1.0f);
  std::vector<double> expected_degree;
  if (power_law) {
    constexpr double kGamma = 2.5;
    expected_degree.resize(nodes);
    for (uint32_t i = 0; i < nodes; ++i) expected_degree[i] = std::pow(double(i + 1), -1.0 / (kGamma - 1.0));
    std::shuffle(expected_degree.begin(), expected_degree.end(), rng);
  }
  std::discrete_distribution<uint32_t> hub(expected_degree.begin(), expected_degree.end());
  for (uint32_t t = 0; t < edge_types; ++t) {
    // Random targets, counted into rows, then random sources: a CSR of in-edges.
    std::vector<uint32_t> target(edges);
    Csr c;
    c.row_offsets.assign(nodes + 1, 0);
    for (auto& v : target) ++c.row_offsets[(v = power_law ? hub(rng) : node(rng)) + 1];
    for (uint32_t i = 0; i < nodes; ++i) c.row_offsets[i + 1] += c.row_offsets[i];
    c.cols.resize(edges);
    c.weights.resize(edges);
    std::vector<uint32_t> fill(c.row_offsets.begin(), c.row_offsets.end() - 1);
    for (uint32_t e = 0; e < edges; ++e) {
      const uint32_t slot = fill[target[e]]++;
      c.cols[slot] = node(rng);
      c.weights[slot] = weight(rng);
    }
    g.edge_types.push_back(std::move(c));
  }
  g.x.resize(size_t(nodes) * features);
  for (auto& v : g.x) v = unit(rng);
  return g;
}

Model random_model(uint32_t features, uint32_t layers, Aggregation aggregation, uint32_t seed) {
  Model m;
  m.aggregation = aggregation;
  std::mt19937 rng(seed);
  // Uniform in +-sqrt(3/F) has variance 1/F: one transform keeps the scale of its input.
  const float a = std::sqrt(3.0f / float(features));
  std::uniform_real_distribution<float> w(-a, a), b(-0.1f, 0.1f);
  for (uint32_t l = 0; l < layers; ++l) {
    Layer L;
    L.w.resize(size_t(features) * features);
    L.b.resize(features);
    for (auto& v : L.w) v = w(rng);
    for (auto& v : L.b) v = b(rng);
    m.layers.push_back(std::move(L));
  }
  return m;
}

}  // namespace weft::gnn
