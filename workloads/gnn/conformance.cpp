// The GNN workload on the device against its double-precision CPU reference: each aggregation,
// a multi-layer heterogeneous forward pass, the over-smoothing rules (early exit and residual
// boost) deciding as the reference does, and bad input refused with BadInput.
//
// Error measure: normalized error = max_i |device_i - reference_i| / max_i |reference_i| over a
// whole embedding matrix (or readout). Bounds, from f32 rounding (eps = 6e-8): one layer sums at
// most deg + F*(T+1) products per output (~100 here), so a worst-case linear bound is ~100 eps =
// 6e-6 relative to the largest magnitude; we allow 2e-5 per layer. Errors compound through the
// layers (each transform has gain ~1), so an L-layer pass is held to 2e-5 * L.
#include <cmath>
#include <cstring>
#include <limits>
#include <sstream>

#include "conformance.h"
#include "gnn.h"

namespace weft::conformance {

namespace {

using namespace weft::gnn;

constexpr double kPerLayerBound = 2e-5;

// Compares every layer the device ran (embeddings, readout of the last, metrics) with the
// reference; returns the worst normalized error, or a failure.
Result compare_layers(Forward& fwd, const ReferenceResult& ref, double bound, double& worst) {
  const uint32_t k = fwd.layers_run();
  if (k != ref.layers_run)
    return Result::fail("device ran " + std::to_string(k) + " layers, reference " + std::to_string(ref.layers_run));
  const auto metrics = fwd.metrics();
  for (uint32_t l = 1; l <= k; ++l) {
    const double e = compare(fwd.embeddings(l), ref.h[l]).normalized_max();
    worst = std::max(worst, e);
    if (!(e <= bound * l))
      return Result::fail("layer " + std::to_string(l) + " embeddings: normalized error " + str(e) + " > " + str(bound * l), e);
    const DeviceLayerMetrics& d = metrics[l - 1];
    const LayerMetrics& r = ref.metrics[l - 1];
    if (d.iteration != l || d.sequence != 1)
      return Result::fail("layer " + std::to_string(l) + " Metrics: iteration " + std::to_string(d.iteration) + ", sequence " +
                          std::to_string(d.sequence) + " (want " + std::to_string(l) + ", 1)");
    // Scalars built from the embeddings: relative to their own size, same bound scaled by the
    // extra reduction over nodes (one more ~eps * log2(n) term is far below it).
    const double ds = std::fabs(d.smoothness - r.smoothness), dm = std::fabs(d.max_abs - r.max_abs) / r.max_abs,
                 dc = std::fabs(d.relative_change - r.relative_change) / std::max(r.relative_change, 1e-30),
                 dn = std::fabs(d.readout_norm - r.readout_norm) / r.readout_norm;
    for (double e2 : {ds, dm, dc, dn}) {
      worst = std::max(worst, e2);
      if (!(e2 <= 2 * bound * l))
        return Result::fail("layer " + std::to_string(l) + " metrics differ: smoothness " + str(d.smoothness) + " vs " +
                                str(r.smoothness) + ", max_abs " + str(d.max_abs) + " vs " + str(r.max_abs) +
                                ", relative change " + str(d.relative_change) + " vs " + str(r.relative_change) +
                                ", readout norm " + str(d.readout_norm) + " vs " + str(r.readout_norm),
                            e2);
    }
  }
  if (k) {
    const double e = compare(fwd.readout(), ref.readout[k - 1]).normalized_max();
    worst = std::max(worst, e);
    if (!(e <= bound * k)) return Result::fail("readout (R30 of layer " + std::to_string(k - 1) + "): normalized error " + str(e), e);
  }
  return Result::pass();
}

Result one_aggregation(Device& dev, Aggregation agg, bool power_law = false) {
  const Graph g = random_graph(2000, 10000, 32, 1, 11, power_law);
  const Model m = random_model(32, 1, agg, 12);
  const ReferenceResult ref = reference_forward(g, m, {});
  Forward fwd(dev, g, m);
  double worst = 0;
  for (int run = 0; run < 2; ++run) {  // recorded once, replayed: the second run must agree too
    fwd.run();
    if (Result r = compare_layers(fwd, ref, kPerLayerBound, worst); r.outcome != Outcome::Pass) return r;
  }
  // The aggregation must matter: the same graph aggregated another way gives other numbers.
  Model other = m;
  other.aggregation = agg == Aggregation::Max ? Aggregation::Sum : Aggregation::Max;
  const double apart = compare(fwd.embeddings(1), reference_forward(g, other, {}).h[1]).normalized_max();
  if (apart < 100 * kPerLayerBound) return Result::fail("the fixture does not tell " + std::string(aggregation_name(agg)) + " apart");
  return Result::pass(std::string("2000 nodes, 10000 edges") + (power_law ? " (power-law in-degrees)" : "") +
                          ", F 32; normalized error " + str(worst),
                      worst);
}

// A hub with 70,000 in-edges: one invocation loops over all of them. On a device that stops
// loops sooner (llvmpipe: 65535 iterations) the forward pass is refused by name instead of
// summing a part of the hub's neighbours; elsewhere it matches the reference.
Result hub_past_loop_cap(Device& dev) {
  constexpr uint32_t kLeaves = 70000;
  Graph g;
  g.nodes = kLeaves + 1;
  g.features = 1;
  Csr c;
  c.row_offsets.assign(g.nodes + 1, kLeaves);
  c.row_offsets[0] = 0;  // row 0 (the hub) holds every edge
  for (uint32_t j = 1; j <= kLeaves; ++j) {
    c.cols.push_back(j);
    c.weights.push_back(1.0f / kLeaves);
  }
  g.edge_types = {c};
  g.x.resize(g.nodes);
  for (uint32_t i = 0; i < g.nodes; ++i) g.x[i] = 1.0f + 0.01f * float(i % 7);  // a part of the row sums to less
  Model m = random_model(1, 1, Aggregation::Sum, 5);
  m.layers[0].w = {1.0f};  // the hub's embedding is its neighbours' sum, about 1.03 (ReLU keeps it)
  m.layers[0].b = {0.0f};
  if (dev.loop_iteration_limit() < kLeaves + 1) {
    std::string msg;
    try {
      Forward fwd(dev, g, m);
    } catch (const Error& e) {
      msg = e.what();
    }
    if (msg.find("missing feature: gnn: 70001 nodes x 1 features with rows of up to 70000 edges") != 0)
      return Result::fail("expected MissingFeature naming the hub's row; got: " + (msg.empty() ? "no error" : msg));
    return Result::pass("refused: the device stops loops after " + std::to_string(dev.loop_iteration_limit()) + " iterations");
  }
  const ReferenceResult ref = reference_forward(g, m, {});
  Forward fwd(dev, g, m);
  fwd.run();
  const double got = fwd.embeddings(1)[0], want = ref.h[1][0];
  const double e = std::fabs(got - want) / std::max(1e-30, std::fabs(want));
  if (!(e <= 2e-4)) return Result::fail("the hub's embedding: " + str(got) + " vs the reference's " + str(want), e);
  return Result::pass("a 70000-edge row aggregated whole (hub embedding " + str(want) + ")", e);
}

Result forward_multilayer(Device& dev) {
  // Heterogeneous: three edge types, their aggregations summed into each of 6 layers.
  const Graph g = random_graph(2000, 4000, 48, 3, 21);
  Model m = random_model(48, 6, Aggregation::Mean, 22);
  m.residual = 0.25f;
  const ReferenceResult ref = reference_forward(g, m, {});
  Forward fwd(dev, g, m);
  fwd.run();
  double worst = 0;
  if (Result r = compare_layers(fwd, ref, kPerLayerBound, worst); r.outcome != Outcome::Pass) return r;
  if (fwd.layers_run() != 6) return Result::fail("ran " + std::to_string(fwd.layers_run()) + " of 6 layers");
  // The edge types' aggregations write disjoint slices, so the planner must leave them in one
  // level (no barrier between them: the GPU may overlap them).
  const Plan& plan = fwd.executable().plan();
  const auto& stages = fwd.executable().program().stages();
  for (uint32_t l = 0; l < 6; ++l) {
    std::vector<uint32_t> levels;
    for (const Stage& st : stages)
      if (st.name.rfind("aggregate.", 0) == 0 && st.iteration == l) levels.push_back(plan.level[st.index]);
    if (levels.size() != 3 || levels[0] != levels[1] || levels[1] != levels[2])
      return Result::fail("layer " + std::to_string(l) + ": the 3 edge-type aggregations are not one barrier-free level");
  }
  return Result::pass("6 layers, 3 edge types (one barrier-free level per layer), F 48: worst normalized error " + str(worst), worst);
}

// Over-smoothing early exit. The threshold sits inside the range the reference's metric sweeps
// through, away from every layer's value by more than the metric's error bound, so the device
// and the reference must stop after the same layer; with a threshold S can never exceed
// (S is a mean of cosines, <= 1) every layer runs.
Result oversmoothing_early_exit(Device& dev) {
  const uint32_t L = 8;
  const Graph g = random_graph(2000, 10000, 32, 1, 31);
  const Model m = random_model(32, L, Aggregation::Mean, 32);
  const ReferenceResult free_run = reference_forward(g, m, {});
  // Stop when S passes the midpoint between layers 2 and 3 of the free run (fixed by the seed).
  const double s2 = free_run.metrics[1].smoothness, s3 = free_run.metrics[2].smoothness;
  const float threshold = float(0.5 * (s2 + s3));
  if (!(s3 - s2 > 1e-3)) return Result::fail("fixture: S rises by only " + str(s3 - s2) + " from layer 2 to 3");
  Rules stop;
  stop.stop_above = threshold;
  const ReferenceResult ref = reference_forward(g, m, stop);
  if (ref.layers_run == 0 || ref.layers_run >= L) return Result::fail("fixture: the reference ran " + std::to_string(ref.layers_run) + " layers");
  // The metric's f32 error is far below 2e-4 (see compare), so no verdict can flip.
  for (const LayerMetrics& lm : ref.metrics)
    if (std::fabs(lm.smoothness - threshold) < 2e-4) return Result::fail("fixture: a layer's S is within 2e-4 of the threshold");

  Forward fwd(dev, g, m, stop);
  fwd.run();
  double worst = 0;
  if (Result r = compare_layers(fwd, ref, kPerLayerBound, worst); r.outcome != Outcome::Pass) return r;
  const uint32_t k = fwd.layers_run();
  // The slots of the skipped layers were zeroed by the rule, and nothing wrote their Metrics.
  const GnnProgram& info = fwd.program_info();
  for (uint32_t l = 0; l < L; ++l) {
    const uint32_t x = fwd.executable().control_word(fwd.executable().program().slot_word(info.loop.slot(l)));
    if ((x != 0) != (l < k)) return Result::fail("slot of layer " + std::to_string(l) + " has x = " + std::to_string(x));
  }
  Rules never;
  never.stop_above = 2.0f;
  Forward all(dev, g, m, never);
  all.run();
  if (all.layers_run() != L) return Result::fail("unreachable threshold: ran " + std::to_string(all.layers_run()) + " of " + std::to_string(L));
  if (Result r = compare_layers(all, free_run, kPerLayerBound, worst); r.outcome != Outcome::Pass) return r;
  return Result::pass("threshold " + str(threshold) + ": device and reference stop after " + std::to_string(k) + " of " +
                          std::to_string(L) + " layers; unreachable threshold runs all " + std::to_string(L),
                      worst);
}

// Residual boost: the rule raises the next layer's residual when S passes a threshold; the
// embeddings must follow the reference that applies the same rule (and differ from a run
// without it, so a rule that never fires fails).
Result oversmoothing_residual(Device& dev) {
  const uint32_t L = 5;
  const Graph g = random_graph(2000, 10000, 32, 1, 41);
  const Model m = random_model(32, L, Aggregation::Sum, 42);
  const ReferenceResult free_run = reference_forward(g, m, {});
  const float threshold = float(0.5 * (free_run.metrics[0].smoothness + free_run.metrics[1].smoothness));
  Rules rules;
  rules.residual_above = threshold;
  rules.residual_boost = 0.5f;
  const ReferenceResult ref = reference_forward(g, m, rules);
  uint32_t boosted = 0;
  for (double r : ref.residuals) boosted += r != 0.0;
  if (boosted == 0) return Result::fail("fixture: the reference never boosts the residual");
  for (const LayerMetrics& lm : ref.metrics)
    if (std::fabs(lm.smoothness - threshold) < 2e-4) return Result::fail("fixture: a layer's S is within 2e-4 of the threshold");
  Forward fwd(dev, g, m, rules);
  fwd.run();
  double worst = 0;
  if (Result r = compare_layers(fwd, ref, kPerLayerBound, worst); r.outcome != Outcome::Pass) return r;
  const double apart = compare(fwd.embeddings(L), free_run.h[L]).normalized_max();
  if (apart < 100 * kPerLayerBound) return Result::fail("the boosted run matches the unboosted one");
  return Result::pass(std::to_string(boosted) + " of " + std::to_string(L) + " layers boosted; normalized error " + str(worst), worst);
}

// Bad input: BadInput naming what and where, before anything reaches the device.
Result bad_input(Device& dev) {
  const Graph good = random_graph(50, 200, 8, 2, 51);
  const Model model = random_model(8, 2, Aggregation::Sum, 52);
  struct Bad {
    const char* what;
    std::function<void(Graph&, Model&)> spoil;
    const char* expect;  // a piece of the message
  };
  const std::vector<Bad> bads = {
      {"column index >= nodes", [](Graph& g, Model&) { g.edge_types[1].cols[7] = 50; }, "column index 50 at edge 7"},
      {"row offsets not monotone",
       [](Graph& g, Model&) {
         auto& r = g.edge_types[0].row_offsets;
         r[11] = r[10] - 1;  // r[10] > 0: 200 edges over 50 nodes leave no 10 leading rows empty
       },
       "not monotone at node 10"},
      {"NaN feature", [](Graph& g, Model&) { g.x[3 * 8 + 5] = std::numeric_limits<float>::quiet_NaN(); },
       "NaN at node 3, feature 5"},
      {"feature width over capacity",
       [](Graph& g, Model&) {
         g.features = kMaxFeatures + 1;
       },
       "feature width 1025"},
      {"weights of the wrong size", [](Graph&, Model& m) { m.layers[1].w.pop_back(); }, "layer 1 weights"},
  };
  for (const Bad& b : bads) {
    Graph g = good;
    Model m = model;
    b.spoil(g, m);
    try {
      Forward f(dev, g, m);
      return Result::fail(std::string(b.what) + ": accepted");
    } catch (const Error& e) {
      if (e.code() != ErrorCode::BadInput) return Result::fail(std::string(b.what) + ": error code " + to_string(e.code()));
      if (std::string(e.what()).find(b.expect) == std::string::npos)
        return Result::fail(std::string(b.what) + ": message '" + e.what() + "' does not say '" + b.expect + "'");
    }
  }
  // The good input still runs after the refusals.
  Forward ok(dev, good, model);
  ok.run();
  double worst = 0;
  if (Result r = compare_layers(ok, reference_forward(good, model, {}), kPerLayerBound, worst); r.outcome != Outcome::Pass) return r;
  return Result::pass(std::to_string(bads.size()) + " bad inputs refused with BadInput naming the place", worst);
}

}  // namespace

std::vector<Case> gnn_cases() {
  const std::string agg_tol = "normalized error (max |dev - ref| / max |ref|) <= 2e-5 vs the double reference: one "
                              "layer is ~100-term f32 sums, ~100 eps = 6e-6";
  return {
      {"gnn.aggregate_sum", agg_tol, [](Device& d) { return one_aggregation(d, Aggregation::Sum); }},
      {"gnn.aggregate_mean", agg_tol, [](Device& d) { return one_aggregation(d, Aggregation::Mean); }},
      {"gnn.aggregate_max", agg_tol, [](Device& d) { return one_aggregation(d, Aggregation::Max); }},
      // Hubs: a few nodes aggregate hundreds of neighbours, most only one or none.
      {"gnn.aggregate_mean_power_law", agg_tol, [](Device& d) { return one_aggregation(d, Aggregation::Mean, true); }},
      {"gnn.aggregate_max_power_law", agg_tol, [](Device& d) { return one_aggregation(d, Aggregation::Max, true); }},
      {"gnn.hub_past_loop_cap",
       "refused by name where the driver's loop cap is below the hub's row; else normalized error <= 2e-4 (70,000-term f32 sum)",
       hub_past_loop_cap},
      {"gnn.forward_multilayer_heterogeneous", "normalized error <= 2e-5 x layer index (f32 error compounding per layer)",
       forward_multilayer},
      {"gnn.oversmoothing_early_exit",
       "exact layer count (threshold >= 2e-4 from every metric run); embeddings within 2e-5 x layer", oversmoothing_early_exit},
      {"gnn.oversmoothing_residual_boost", "same rule verdicts as the reference; embeddings within 2e-5 x layer",
       oversmoothing_residual},
      {"gnn.bad_input", "exact (BadInput with the place named)", bad_input},
  };
}

}  // namespace weft::conformance
