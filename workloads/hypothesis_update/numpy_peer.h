// The numpy peer of the synthetic bench: python/numpy_peer.py, Monty's default hypotheses update
// in single-threaded numpy/scipy, run as a separate process on exactly the hypotheses and step
// inputs a CPU-backend bench run had (BenchRecord), timed per step inside that process, and its
// final evidence and locations checked against the backend's.
#pragma once

#include <cstddef>
#include <string>

#include "hypothesis_backend.h"
#include "synthetic_bench.h"

namespace weft::hypothesis_update {

struct NumpyPeerResult {
  std::string missing;  // non-empty: the peer did not run (why); no figures below
  std::string versions;  // e.g. "numpy 1.24.2, scipy 1.10.1, python 3.11.2"
  // Per step over all LMs and graphs, means over the steps the bench timed.
  double wall_ms_per_step = 0, cpu_ms_per_step = 0;
  double median_wall_ms_per_step = 0, median_cpu_ms_per_step = 0;
  // The peer's final hypotheses against `backend`'s.
  size_t rows = 0;
  size_t count_mismatches = 0;  // (LM, graph) pairs whose hypothesis counts differ
  double max_evidence_error = 0, max_location_error = 0;
  size_t rows_over_tolerance = 0;  // evidence error above the tolerance given
  bool agree = false;
};

// Writes the case to a fresh temporary directory, runs `python script DIR` with every BLAS/OpenMP
// thread count set to 1 (`timeout 900`), reads its timings and results, and removes the
// directory. `backend` is the one `record` came from, after the recorded steps. A peer that cannot
// run (no python3, numpy or scipy; a failing script) is reported in `missing`. BadInput when the
// options are not what the peer implements (the default updater).
NumpyPeerResult run_numpy_peer(const std::string& python, const std::string& script, const BenchOptions& options,
                               const BenchRecord& record, const HypothesisBackend& backend, double evidence_tolerance);

}  // namespace weft::hypothesis_update
