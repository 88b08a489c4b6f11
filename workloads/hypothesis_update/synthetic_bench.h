// A synthetic workload at the scale of spec §5 for timing backends: graphs of `nodes` points on
// a 5 cm sphere (about Monty's node spacing), an unpinned first pose so every node gets
// `umbilical` hypotheses, then steps that slide the sensor along the surface with every
// hypothesis tested (threshold "all").
#pragma once

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "hypothesis_backend.h"

namespace weft::hypothesis_update {

struct BenchOptions {
  size_t nodes = 2000;
  int umbilical = 8;  // hypotheses per node
  int graphs = 1;
  int lms = 1;
  int steps = 10;  // timed steps after the initialising one
  int k = 10;
  UpdaterKind kind = UpdaterKind::Default;
  unsigned threads = 0;
};

struct BenchResult {
  unsigned threads = 0;
  size_t hypotheses_per_graph = 0;   // after initialisation
  double seconds_per_step = 0;       // mean over the timed steps, dispatch + wait (wall clock)
  // The median step: on a shared machine other processes' bursts inflate the mean, not this.
  double median_seconds_per_step = 0;
  // Mean CPU time of the whole process per step (all threads; on lavapipe its worker threads too).
  double process_cpu_seconds_per_step = 0;
  double hypotheses_per_second = 0;  // tested hypotheses over all LMs and graphs per wall second
  double tested_per_step = 0;        // mean tested hypotheses over all LMs and graphs
  double device_seconds_per_step = std::numeric_limits<double>::quiet_NaN();  // from `device_seconds`
};

// What a bench fed its backend, for a peer to replay the same steps (numpy_peer.h): the
// hypotheses of every (LM, graph) after the initialising step, LM-major ([lm * graphs + g]),
// and the inputs of the timed steps.
struct BenchRecord {
  std::vector<HypothesisArrays> initial;
  std::vector<std::vector<StepInput>> steps;
};

// The updater configuration every LM of the bench gets (threshold "all", K = options.k).
UpdaterConfig bench_config(const BenchOptions& options);

// The CPU backend with `options.threads` threads.
BenchResult run_synthetic_bench(const BenchOptions& options);
// Any backend, fresh (the graphs and LMs are added here). `device_seconds`, when given, is called
// after every timed step's wait() and returns that step's device time (e.g. GPU timestamps).
// `record`, when given, receives what the run fed the backend (not timed).
BenchResult run_synthetic_bench(HypothesisBackend& backend, const BenchOptions& options,
                                const std::function<double()>& device_seconds = {}, BenchRecord* record = nullptr);

// Two backends after the same bench (same options, same steps): how far apart their hypotheses
// are over every LM and graph. `evidence_tolerance` is the bound every row should meet;
// `aligned_bound` the larger one a row may need where a sensed vector aligns with a node's
// (vulkan_tolerance.h: noiseless synthetic data reaches it on the true hypotheses), counted.
struct BenchAgreement {
  size_t rows = 0;                 // hypotheses compared
  size_t count_mismatches = 0;     // (LM, graph) pairs whose hypothesis counts differ
  double max_evidence_error = 0;
  double max_geometry_error = 0;   // locations and rotations
  size_t rows_over_tolerance = 0;  // evidence error above evidence_tolerance
  size_t rows_over_aligned = 0;    // ... above evidence_tolerance + aligned_bound: disagreement
  size_t most_likely_graph_mismatches = 0;
  double max_most_likely_evidence_error = 0;
  bool agree = false;  // counts equal, geometry within its tolerance, no row over the aligned bound
};
BenchAgreement compare_bench_backends(const HypothesisBackend& a, const HypothesisBackend& b, double evidence_tolerance,
                                      double aligned_bound, double geometry_tolerance);

// The synthetic graph itself, for tests that want a realistic surface graph.
ObjectGraph sphere_surface_graph(const std::string& name, size_t nodes, uint64_t seed);

}  // namespace weft::hypothesis_update
