// A synthetic workload at the scale of spec §5 for timing backends: graphs of `nodes` points on
// a 5 cm sphere (about Monty's node spacing), an unpinned first pose so every node gets
// `umbilical` hypotheses, then steps that slide the sensor along the surface with every
// hypothesis tested (threshold "all").
#pragma once

#include <functional>
#include <limits>
#include <string>

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

// The CPU backend with `options.threads` threads.
BenchResult run_synthetic_bench(const BenchOptions& options);
// Any backend, fresh (the graphs and LMs are added here). `device_seconds`, when given, is called
// after every timed step's wait() and returns that step's device time (e.g. GPU timestamps).
BenchResult run_synthetic_bench(HypothesisBackend& backend, const BenchOptions& options,
                                const std::function<double()>& device_seconds = {});

// The synthetic graph itself, for tests that want a realistic surface graph.
ObjectGraph sphere_surface_graph(const std::string& name, size_t nodes, uint64_t seed);

}  // namespace weft::hypothesis_update
