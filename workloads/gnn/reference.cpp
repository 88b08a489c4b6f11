// CPU reference in double precision: the same layer, readout, metrics and rules as the device
// chain, written directly from the definitions in gnn.h (no shared code with the kernels).
#include <algorithm>
#include <cmath>
#include <limits>

#include "gnn.h"

namespace weft::gnn {

namespace {

std::vector<double> aggregate(const Csr& c, Aggregation agg, const std::vector<double>& h, uint32_t n, uint32_t F) {
  std::vector<double> out(size_t(n) * F, 0.0);
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t e0 = c.row_offsets[i], e1 = c.row_offsets[i + 1];
    if (e0 == e1) continue;
    for (uint32_t f = 0; f < F; ++f) {
      double acc = agg == Aggregation::Max ? -std::numeric_limits<double>::infinity() : 0.0;
      for (uint32_t e = e0; e < e1; ++e) {
        const double v = double(c.weights[e]) * h[size_t(c.cols[e]) * F + f];
        acc = agg == Aggregation::Max ? std::max(acc, v) : acc + v;
      }
      if (agg == Aggregation::Mean) acc /= double(e1 - e0);
      out[size_t(i) * F + f] = acc;
    }
  }
  return out;
}

LayerMetrics measure(const std::vector<double>& hn, const std::vector<double>& ho, const std::vector<double>& m, uint32_t n,
                     uint32_t F, uint32_t layer) {
  LayerMetrics r;
  r.iteration = layer + 1;
  double mm = 0;
  for (double v : m) mm += v * v;
  r.readout_norm = std::sqrt(mm);
  double cos_sum = 0, diff = 0, old = 0;
  for (uint32_t i = 0; i < n; ++i) {
    double dot = 0, hh = 0;
    for (uint32_t f = 0; f < F; ++f) {
      const double v = hn[size_t(i) * F + f], u = ho[size_t(i) * F + f];
      dot += v * m[f];
      hh += v * v;
      diff += (v - u) * (v - u);
      old += u * u;
      r.max_abs = std::max(r.max_abs, std::fabs(v));
    }
    if (hh > 0 && r.readout_norm > 0) cos_sum += dot / (std::sqrt(hh) * r.readout_norm);
  }
  r.smoothness = cos_sum / n;
  r.relative_change = old > 0 ? std::sqrt(diff / old) : 0;
  return r;
}

}  // namespace

ReferenceResult reference_forward(const Graph& g, const Model& model, const Rules& rules) {
  validate(g, model);
  const uint32_t n = g.nodes, F = g.features, L = uint32_t(model.layers.size());
  ReferenceResult r;
  r.h.emplace_back(g.x.begin(), g.x.end());
  std::vector<double> residual(L, double(model.residual));
  for (uint32_t l = 0; l < L; ++l) {
    const std::vector<double>& h = r.h.back();
    std::vector<double> in = h;  // h + sum over edge types of the aggregates
    for (const Csr& c : g.edge_types) {
      const std::vector<double> a = aggregate(c, model.aggregation, h, n, F);
      for (size_t k = 0; k < in.size(); ++k) in[k] += a[k];
    }
    const Layer& W = model.layers[l];
    std::vector<double> out(size_t(n) * F);
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t o = 0; o < F; ++o) {
        double z = W.b[o];
        for (uint32_t f = 0; f < F; ++f) z += in[size_t(i) * F + f] * double(W.w[size_t(f) * F + o]);
        out[size_t(i) * F + o] = std::max(z, 0.0) + residual[l] * h[size_t(i) * F + o];
      }
    std::vector<double> m(F, 0.0);
    for (uint32_t i = 0; i < n; ++i)
      for (uint32_t f = 0; f < F; ++f) m[f] += out[size_t(i) * F + f];
    for (double& v : m) v /= n;
    r.metrics.push_back(measure(out, h, m, n, F, l));
    r.residuals.push_back(residual[l]);
    r.h.push_back(std::move(out));
    r.readout.push_back(std::move(m));
    r.layers_run = l + 1;
    // The rules run after every layer but the last, in rule order (residual, then exit).
    if (l + 1 < L) {
      const double s = r.metrics.back().smoothness;
      if (rules.residual_above && s > double(*rules.residual_above)) residual[l + 1] = rules.residual_boost;
      if (rules.stop_above && s > double(*rules.stop_above)) break;
    }
  }
  return r;
}

}  // namespace weft::gnn
