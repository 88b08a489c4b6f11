// The float32 Vulkan backend against Monty's float64 recordings: what agreement means.
//
// Evidence-valued arrays (out/evidence, kernel0/new_evidence, thresholds, prediction errors,
// mlh_evidence): absolute 1e-4 over the 12-step fixture runs. Evidence grows by at most
// 1 + (sn_weight + cd_weight) / 2 + feature increment ~ 2.5 per step, so |E| <= ~25 after 12
// steps. Each step rounds a handful of float32 operations on values of that size (eps32 =
// 2^-24 = 6e-8; 12 steps x ~4 roundings x 6e-8 x 25 ~ 7e-5), and the pose terms
// 0.5 - sqrt((1 - x) / 2) and 0.5 - sqrt(1 - y^2) lose precision only where the two vectors are
// aligned to ~1e-3 rad (sqrt amplifies an O(eps32) error in x to O(sqrt(eps32)) = 2.4e-4 in the
// worst case, which the fixtures do not reach). Measured maxima are 1.5e-5 (default_cylinder)
// and 2.7e-5 (default_sphere); tests/workloads/hypothesis_update/test_vulkan_backend.cpp prints
// the maximum of every array.
//
// Geometry (locations, displaced locations, search locations, poses, rotated normals, custom
// distances, neighbour locations): absolute 1e-6. Positions are ~0.05 m and rotations unit
// scale; float32 rounding puts them at 4e-9 and 6e-8 per operation, a few operations per step.
//
// Decisions: nearest-node sets must be identical per tested hypothesis (the device search is an
// exact float32 brute force, ties to the lower node index, as the CPU reference). The rule
// admits a difference only where the K-th and (K+1)-th distances tie within float32 rounding;
// no fixture step has such a tie, so the replay requires exact sets. The tested set (E >= thr)
// and "far" (dist >= max_match_distance) must fall the same way (they do: a flipped decision
// would show as a large evidence error). The most likely hypothesis may differ from Monty's
// only between hypotheses whose recorded evidence lies within kVulkanEvidenceTolerance of the
// recorded best (default_cylinder has ties of 1.3e-7 and 2.7e-6 at steps 9 and 11), and the
// prediction error, which reads the previous best, follows the same rule.
#pragma once

#include <string>

namespace weft::hyp {

inline constexpr double kVulkanEvidenceTolerance = 1e-4;
inline constexpr double kVulkanGeometryTolerance = 1e-6;

// Tolerance of one replay array (names as in ArrayError::array).
inline double vulkan_replay_tolerance(const std::string& array) {
  for (const char* geometry : {"out/locations", "out/poses", "displaced/locations", "kernel0/search_locations",
                               "kernel0/poses", "kernel0/rotated_sn", "kernel0/custom_dists",
                               "kernel0/nearest_node_locs"})
    if (array == geometry) return kVulkanGeometryTolerance;
  if (array == "out/possible" || array == "kernel0/nearest_node_ids" || array == "run.json/mlh_id") return 0;
  return kVulkanEvidenceTolerance;
}

}  // namespace weft::hyp
