// One (LM, graph) hypothesis space on the CPU and the phases of one step over it (spec §3). The
// backend runs each phase for every (LM, graph) that has input before starting the next phase,
// so phases are where the sync points of spec §3 sit.
#pragma once

#include <cstdint>
#include <vector>

#include "evidence_math.h"
#include "hypothesis_types.h"
#include "slope_tracker.h"

namespace weft::hypothesis_update {

struct GraphSpace {
  int graph = -1;  // global graph id
  const ObjectGraph* model = nullptr;
  const NodeGrid* grid = nullptr;
  const NeighbourLists* lists = nullptr;  // for this LM's K and max_match_distance
  bool exists = false;  // Monty creates the space on the LM's first input (its channel mapper)

  std::vector<double> evidence, locations, rotations;
  std::vector<uint8_t> possible;
  SlopeTracker tracker;
  GraphStepInfo info;
  BurstTelemetry telemetry;

  // Scratch of the step in flight.
  std::vector<std::vector<double>> node_evidence;  // per channel, (N), times the increment
  std::vector<ChannelKernel> kernels;              // per channel
  std::vector<uint32_t> tested;                    // hypothesis ids that get location evidence
  std::vector<double> new_evidence;                // (channels, tested)
  bool trace_kernel = false;                       // record channel 0's intermediates
  std::vector<KernelTrace> traces;                 // (tested) when trace_kernel
  size_t retained = 0;                             // hypotheses before the new block
  // The block added this step (initialisation or burst sampling), appended after the update.
  std::vector<double> add_evidence, add_locations, add_rotations;
};

// What one LM's step shares across its graphs.
struct LmStepContext {
  const UpdaterConfig* config = nullptr;
  const StepInput* input = nullptr;
  double max_global_evidence = 0;  // the LM's best evidence after its previous step
  int burst_steps = 0;             // > 0: this step samples new hypotheses
};

// Largest finite slope of the space's tracker; -inf when there is none.
double max_finite_slope(const GraphSpace& space);

// Phase 1: threshold, node feature evidence, deletion, the new block, displacement, and the list
// of tested hypotheses.
void prepare_graph_step(const LmStepContext& ctx, GraphSpace& space);

// Phase 2: location evidence of tested[first, last) for every channel.
void compute_evidence_block(GraphSpace& space, size_t first, size_t last);

// Phase 3: min of new evidence per channel, the evidence update, prediction error, appending the
// new block and the tracker update.
void finish_graph_step(const LmStepContext& ctx, GraphSpace& space);

}  // namespace weft::hypothesis_update
