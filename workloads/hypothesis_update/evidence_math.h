// The per-step arithmetic of spec §3 as pure functions, following Monty's numpy expressions
// operation for operation where a decision hangs on the result ("dist >= max_match_distance",
// "E >= threshold", feature tolerances), so that decisions fall the same way as in Monty. The
// angle terms are the one exception: sin(acos(x)/2) = sqrt((1-x)/2) and sin(acos(y)) =
// sqrt(1-y²) are exact identities that skip two transcendental calls per neighbour (1.4x on the
// whole step) and stay within a few ulps of Monty's acos-then-sin (replays match to ~1e-14).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hypothesis_types.h"
#include "neighbour_lists.h"
#include "node_grid.h"

namespace weft::hypothesis_update {

using Mat3 = std::array<double, 9>;  // row-major

// numpy's pairwise summation (what np.sum / np.mean use on a contiguous run), so that means
// and slope sums round like Monty's.
double numpy_sum(const double* values, size_t n);

// Spec §3.1; `evidence` is the graph's evidence before the step, `max_global_evidence` the LM's
// best evidence after the previous step. Empty evidence gives 0 whatever the mode.
double evidence_threshold(const ThresholdConfig& config, double x_percent_threshold, double max_global_evidence,
                          const std::vector<double>& evidence);

// Monty's possible poses of one object (get_possible_hypothesis_ids): when the graph's best
// evidence exceeds `object_evidence_threshold`, the ids with evidence > max - max/100 * x;
// otherwise none. (The per-hypothesis `possible` flags of HypothesisArrays are what Monty's
// updater carries along, which the recorded fixtures show as all false.)
std::vector<int64_t> possible_hypothesis_ids(const std::vector<double>& evidence, double x_percent_threshold,
                                             double object_evidence_threshold);

// Spec §3.3 without the increment: per node, the weighted mean over non-pose feature columns of
// max(tol - diff, 0) / tol. `query` holds the sensed features in config order.
void node_feature_evidence(const UpdaterConfig& config, const ObjectGraph& graph, const std::vector<double>& query,
                           std::vector<double>& out);

// The sensed frames a node frame is aligned with (spec §3.4): 2 when the pose is fully
// defined, else `umbilical` rotations about the surface normal.
std::vector<Mat3> sensed_frames(const std::array<double, 9>& pose_vectors, bool fully_defined, int umbilical);

// R = Nnᵀ S for one node frame Nn (rows sn, cd1, cd2) and one sensed frame S.
Mat3 align_frames(const double* node_frame, const Mat3& sensed);

// The radius the neighbour searches use: a margin above max_match_distance keeps every node whose
// distance could round below it.
inline double search_radius(double max_match_distance) { return max_match_distance * (1 + 1e-9); }

// Everything the location-evidence kernel needs for one (graph, channel) in one step.
struct ChannelKernel {
  const ObjectGraph* graph = nullptr;
  const NodeGrid* grid = nullptr;            // null: exact K nearest by brute force
  const NeighbourLists* lists = nullptr;     // for this K and max_match_distance; null: the grid
  const double* feature_evidence = nullptr;  // (N), already times the increment; null: none
  std::array<double, 3> sensed_sn{}, sensed_cd1{};
  bool pose_fully_defined = true;
  double curvature_scale = 0;  // 1 / (|c| + 0.5)
  double max_match_distance = 0.01;
  double sn_weight = 1, cd_weight = 1;
  int k = 10;
};

// Optional record of the kernel's intermediates for one hypothesis (fixture comparisons).
struct KernelTrace {
  int count = 0;  // neighbours recorded
  std::array<int, 16> nearest{};
  std::array<double, 16> custom_dist{};
  std::array<double, 3> rotated_sn{};
};

// Spec §3.5 for one hypothesis at search location `location` with rotation `rotation`:
// max over the K nearest nodes of pose evidence (-1 when far) plus feature evidence (0 when far).
// With lists or a grid (and no trace) only nodes that can be near are searched; see node_grid.h
// and neighbour_lists.h for why the result is the same.
double location_evidence(const ChannelKernel& kernel, const double* location, const double* rotation,
                         KernelTrace* trace = nullptr);

}  // namespace weft::hypothesis_update
