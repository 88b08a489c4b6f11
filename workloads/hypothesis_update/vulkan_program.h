// The device program of one learning module for the Vulkan backend: its Heap (the LM's object
// graphs stacked, graph table, parameters) and Globals (hypotheses stacked over the graphs,
// per-step scratch, step input, results), and the six stages of one default-updater step.
// Word layouts mirror shaders/hyp_common.glsl.
//
// Stacking: graph g's hypotheses occupy rows [hyp_offset[g], hyp_offset[g] + hyps[g]) of E
// (H), L (H,3), R (H,3,3); each graph's block is padded to the 64-row workgroup so a workgroup
// never straddles two graphs (it then scans one graph's nodes, tile by tile, in shared memory).
#pragma once

#include <weft/weft.h>

#include <memory>
#include <vector>

#include "hypothesis_types.h"

namespace weft::hyp {

inline constexpr uint32_t kHypWorkgroup = 64;
inline constexpr uint32_t kHypStatsWords = 16;    // per graph: max, min, sum, argmax, thr, pe, tested, -, floor[8]
inline constexpr uint32_t kHypChannelWords = 40;  // per channel input: sn, cd1, pfd, curvature scale, features
inline constexpr uint32_t kHypTraceWords = 36;    // per row: nearest[16], custom_dist[16], rotated_sn[3]
inline constexpr uint32_t kHypMaxChannels = 8;
inline constexpr uint32_t kHypMaxFeatureWidth = 32;
inline constexpr uint32_t kHypStatThreshold = 4, kHypStatPredictionError = 5, kHypStatTested = 6;

struct LmProgram {
  std::unique_ptr<Executable> exe;
  std::vector<uint32_t> hyp_offset, hyps;  // per graph: first row, count
  uint32_t padded_rows = 0;                // H, a multiple of 64
  uint32_t max_channels = 1;
  bool trace = false;                      // channel 0's kernel intermediates are recorded
};

// BadInput when the config cannot run on the device (median threshold, too many channels or
// feature columns). Checked when the LM is added, before any step.
void check_device_config(const UpdaterConfig& config);

// Builds, records and uploads the Heap of the program for these hypothesis counts. The
// hypotheses themselves are written by the caller.
LmProgram build_lm_program(Device& device, const UpdaterConfig& config, const std::vector<const ObjectGraph*>& graphs,
                           const std::vector<uint32_t>& hyps, bool trace);

}  // namespace weft::hyp
