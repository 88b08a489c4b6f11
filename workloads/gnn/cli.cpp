// weft gnn demo|bench: the GNN workload (workloads/gnn) on one device against its CPU reference.
//
//   weft gnn demo  [--nodes N --edges E --features F --layers L --seed S --edge-types T
//                   --aggregation sum|mean|max --threshold X --device SEL --validation]
//     one forward pass with the over-smoothing early-exit rule; prints per-layer metrics (device
//     and reference), whether and when the rule stopped the network, GPU time per stage, and the
//     largest normalized error against the double-precision reference.
//   weft gnn bench [same sizes] [--sizes N1,N2,...] [--degree D] [--runs R]
//     one JSON line per aggregation: GPU-timestamp time per forward pass (median of R runs) and
//     its ratio to the CPU reference's time measured in the same run.
#include <algorithm>
#include <memory>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include <weft/weft.h>

#include "bench.h"
#include "cli.h"
#include "conformance.h"
#include "gnn.h"

namespace {

using weft::conformance::compare;

using namespace weft;
using namespace weft::gnn;

using cli::u32;

// `weft help` lines of this command.
const char* const kHelpLines =
    "  gnn demo|bench [--nodes N --edges E --features F --layers L --seed S]\n"
    "                                          graph neural network vs its CPU reference\n";

const char* kGnnUsage =
    "usage: weft gnn demo  [--nodes N] [--edges E] [--features F] [--layers L] [--seed S] [--edge-types T]\n"
    "                      [--aggregation sum|mean|max] [--threshold X] [--device SEL] [--validation]\n"
    "       weft gnn bench [same options] [--sizes N1,N2,...] [--degree D] [--runs R]\n"
    "  demo: a random graph (seeded), one forward pass with the over-smoothing rule (stop when the mean\n"
    "        cosine to the readout exceeds X; X > 1 never stops), per-layer metrics, GPU time per stage,\n"
    "        the error against the double-precision CPU reference\n"
    "  bench: JSON lines per node count (default 1e4, 1e5; 1e6 too on a GPU; 4 layers unless --layers)\n"
    "         on power-law graphs with D in-edges per node on average (default 8): GPU time per forward\n"
    "         pass, edges aggregated per second per layer, and the ratio to the CPU reference in the same run\n";

struct Setup {
  uint32_t nodes, edges, features, layers, seed, types;
  Aggregation agg;
  float threshold;
};

Aggregation parse_agg(const std::string& s) {
  if (s == "sum") return Aggregation::Sum;
  if (s == "mean") return Aggregation::Mean;
  if (s == "max") return Aggregation::Max;
  fail(ErrorCode::BadInput, "--aggregation must be sum, mean or max, got '" + s + "'");
}

Setup setup(const cli::Args& a) {
  Setup s;
  s.nodes = u32(a, "nodes", 2000);
  s.edges = u32(a, "edges", 10000);
  s.features = u32(a, "features", 32);
  s.layers = u32(a, "layers", 8);
  s.seed = u32(a, "seed", 1);
  s.types = u32(a, "edge-types", 1);
  s.agg = parse_agg(a.get("aggregation", "mean"));
  const std::string t = a.get("threshold", "0.98");
  try {
    size_t used = 0;
    s.threshold = std::stof(t, &used);
    if (used != t.size()) throw std::invalid_argument(t);
  } catch (const std::exception&) {
    fail(ErrorCode::BadInput, "--threshold expects a number, got '" + t + "'");
  }
  if (s.layers == 0) fail(ErrorCode::BadInput, "--layers must be at least 1");
  return s;
}

int run_demo(const cli::Args& a) {
  const Setup s = setup(a);
  auto dev = open_device(a);
  const Graph g = random_graph(s.nodes, s.edges, s.features, s.types, s.seed);
  const Model m = random_model(s.features, s.layers, s.agg, s.seed + 1);
  Rules rules;
  rules.stop_above = s.threshold;
  std::printf("device: %s\ngraph: %u nodes, %u edges x %u edge type(s), %u features; %u layers, %s aggregation, seed %u\n",
              dev->info().name.c_str(), s.nodes, s.edges, s.types, s.features, s.layers, aggregation_name(s.agg), s.seed);
  std::printf("rule: stop when S (mean cosine of node embeddings to the readout) > %g\n\n", double(s.threshold));

  Forward fwd(*dev, g, m, rules);
  fwd.run();
  const ReferenceResult ref = reference_forward(g, m, rules);
  const uint32_t k = fwd.layers_run();
  const auto dm = fwd.metrics();
  std::printf("layer  S(device)   S(cpu)      max|h|      rel.change  |readout|   emb.err\n");
  double worst = 0;
  for (uint32_t l = 0; l < k; ++l) {
    const double e = l < ref.layers_run ? compare(fwd.embeddings(l + 1), ref.h[l + 1]).normalized_max() : NAN;
    worst = std::max(worst, e);
    std::printf("%5u  %-10.6f  %-10.6f  %-10.4g  %-10.4g  %-10.4g  %.2e\n", dm[l].iteration, double(dm[l].smoothness),
                l < ref.metrics.size() ? ref.metrics[l].smoothness : NAN, double(dm[l].max_abs), double(dm[l].relative_change),
                double(dm[l].readout_norm), e);
  }
  if (k < s.layers)
    std::printf("\nthe over-smoothing rule stopped the network after layer %u of %u (CPU reference: %u)\n", k, s.layers,
                ref.layers_run);
  else
    std::printf("\nthe rule did not fire: all %u layers ran (CPU reference: %u)\n", s.layers, ref.layers_run);
  if (k) {
    const double e = compare(fwd.readout(), ref.readout[std::min(k, ref.layers_run) - 1]).normalized_max();
    worst = std::max(worst, e);
  }
  std::printf("\nGPU time per stage (timestamps, summed over layers):\n");
  for (const StageTime& t : fwd.stage_times()) std::printf("  %-10s %10.3f ms\n", t.kind.c_str(), t.ns * 1e-6);
  std::printf("  %-10s %10.3f ms\n", "total", fwd.gpu_ns() * 1e-6);
  const bool ok = k == ref.layers_run && worst <= 2e-5 * std::max(k, 1u);
  std::printf("\nmax normalized error vs CPU reference (embeddings, readout): %.3e (bound %.1e) %s\n", worst,
              2e-5 * std::max(k, 1u), ok ? "ok" : "FAIL");
  return ok ? 0 : 1;
}

// Node counts for the bench: --sizes, or 1e4 and 1e5 (and 1e6 where the device is not a CPU).
std::vector<uint32_t> bench_sizes(const cli::Args& a, const Device& dev) {
  const std::string s = a.get("sizes");
  if (s.empty()) return dev.info().type == "cpu" ? std::vector<uint32_t>{10000, 100000} : std::vector<uint32_t>{10000, 100000, 1000000};
  std::vector<uint32_t> out;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t comma = std::min(s.find(',', at), s.size());
    const std::string item = s.substr(at, comma - at);
    if (item.empty() || item.size() > 9 || item.find_first_not_of("0123456789") != std::string::npos || item == "0")
      fail(ErrorCode::BadInput, "--sizes expects comma-separated node counts, got '" + s + "'");
    out.push_back(uint32_t(std::stoul(item)));
    at = comma + 1;
  }
  return out;
}

int run_bench(const cli::Args& a) {
  Setup s = setup(a);
  if (!a.options.count("layers")) s.layers = 4;  // 1e5 nodes x 32 features x 5 buffers fit a 128 MiB window
  const uint32_t runs = std::max<uint32_t>(1, u32(a, "runs", 5));
  const uint32_t degree = u32(a, "degree", 8);
  auto dev = open_device(a);
  const double copy_bound = bench::copy_bound_gb_per_s(*dev, bench::default_copy_bytes(*dev), runs);
  for (uint32_t nodes : bench_sizes(a, *dev)) {
    s.nodes = nodes;
    s.edges = a.options.count("edges") ? s.edges : nodes * degree;
    const Graph g = random_graph(s.nodes, s.edges, s.features, s.types, s.seed, true);
    for (Aggregation agg : {Aggregation::Sum, Aggregation::Mean, Aggregation::Max}) {
      const Model m = random_model(s.features, s.layers, agg, s.seed + 1);
      std::unique_ptr<Forward> made;
      try {
        made = std::make_unique<Forward>(*dev, g, m);  // no rule: every layer runs, the figure is the full forward pass
      } catch (const Error& e) {  // a size over the device's limits: say so, go on with the others
        if (e.code() != ErrorCode::BadInput && e.code() != ErrorCode::OutOfMemory) throw;
        bench::Line("gnn.forward", *dev).str("aggregation", aggregation_name(agg)).num("nodes", s.nodes).num("layers", s.layers)
            .str("skipped", e.what()).print();
        continue;
      }
      Forward& fwd = *made;
      std::vector<double> ns;
      fwd.run();  // warm-up (pipeline creation, first touch of memory)
      for (uint32_t r = 0; r < runs; ++r) {
        fwd.run();
        ns.push_back(fwd.gpu_ns());
      }
      std::sort(ns.begin(), ns.end());
      const auto t0 = std::chrono::steady_clock::now();
      const ReferenceResult ref = reference_forward(g, m, {});
      const double cpu_ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
      const double err = compare(fwd.final_embeddings(), ref.h.back()).normalized_max();
      const double gpu = ns[ns.size() / 2];
      // Edges aggregated per second in one layer: every edge of every type, once per layer.
      const double edges_per_layer = double(s.edges) * s.types;
      bench::Line("gnn.forward", *dev)
          .str("aggregation", aggregation_name(agg))
          .str("degrees", "power_law")
          .num("nodes", s.nodes)
          .num("edges_per_type", s.edges)
          .num("edge_types", s.types)
          .num("features", s.features)
          .num("layers", s.layers)
          .num("runs", runs)
          .num("gpu_ms_per_forward", gpu * 1e-6)
          .num("gpu_edges_per_s_per_layer", edges_per_layer * s.layers / (gpu * 1e-9))
          .str("peer", "cpu_reference_f64_1thread")
          .num("cpu_ms_per_forward", cpu_ns * 1e-6)
          .num("cpu_edges_per_s_per_layer", edges_per_layer * s.layers / (cpu_ns * 1e-9))
          .num("speedup_vs_cpu", cpu_ns / gpu)
          .num("normalized_error", err)
          .print();
      bench::print_stage_bandwidth("gnn", *dev, fwd.stage_times(), copy_bound, [&](bench::Line& l) {
        l.str("aggregation", aggregation_name(agg)).num("nodes", s.nodes).num("features", s.features);
      });
    }
  }
  return 0;
}

}  // namespace

WEFT_CLI_COMMAND(gnn) {
  return {.name = "gnn", .options = {"nodes", "edges", "features", "layers", "seed", "edge-types", "aggregation", "threshold",
              "device", "runs", "sizes", "degree"},
          .flags = {"validation"}, .verbs = {{"demo", run_demo}, {"bench", run_bench}},
          .usage = kHelpLines, .help = kGnnUsage};
}
