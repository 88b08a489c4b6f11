// Replays a Monty fixture run (spec §4) on a backend from its inputs alone and measures, per step
// and per recorded array, the largest absolute difference from Monty's recorded outputs.
//
// Only run.json's parameters, the object graphs and each step's sensed inputs (displacement,
// pose vectors, pose_fully_defined, features) go in; every recorded output is only compared.
// Burst sampling picks nodes by feature evidence, and Monty's argsort leaves the order of tied
// nodes open, so hypotheses are paired before comparing: a new hypothesis by (frame j, node), the
// node found from its birth location (exactly the node's position); a retained one through the
// step's deletions. A different retained set, a different node set or a different count shows as
// an infinite error on the arrays concerned, with a note.
#pragma once

#include <string>
#include <vector>

namespace weft {
class Device;
}

namespace weft::hypothesis_update {

struct ArrayError {
  std::string graph;  // empty for per-LM values
  std::string array;  // e.g. "out/evidence", "telemetry/removed_ids", "run.json/mlh_evidence"
  double max_abs_error = 0;
  std::string note;  // why an error is infinite (shape or pairing mismatch)
};

struct StepReport {
  int step = 0;
  double seconds = 0;  // dispatch + wait of the step on the backend
  std::vector<ArrayError> arrays;
  double worst() const;
};

struct ReplayReport {
  std::string run;
  std::string updater;
  unsigned threads = 0;
  std::vector<StepReport> steps;
  double worst() const;
};

struct ReplayOptions {
  std::string objects_dir;  // empty: RUN_DIR/../objects
  unsigned threads = 0;     // 0: hardware concurrency
  // Also compare Monty's kernel intermediates (nearest nodes, custom distances, rotated normals).
  // Tracing runs the exact brute-force K nearest, so step times are slower with it.
  bool trace_kernel = true;
  // Non-null: replay on the Vulkan backend on this device (float32), else on the CPU backend.
  Device* device = nullptr;
  // Vulkan: the hypothesis rows in far segments (RowPlacement::Far) instead of where they fit.
  bool far_rows = false;
  // > 0 (float32 replays): the most likely hypothesis and the prediction error (which uses the
  // previous best) may follow any hypothesis whose recorded evidence is within this of the
  // recorded best, since such near-ties can fall either way in float32. 0: exact ids.
  double tie_tolerance = 0;
};

// BadInput naming the file for a missing or malformed fixture file.
ReplayReport replay_fixture_run(const std::string& run_dir, const ReplayOptions& options = {});

}  // namespace weft::hypothesis_update
