// A device program of the Vulkan backend: ONE program for the learning modules (LMs) it is given
// (the backend builds one per LM group), so each stage is a single dispatch over all those LMs
// and all their graphs, and a group's step is one submission. Word layouts mirror
// shaders/hypothesis_update.glsl.
//
// Spaces: one per (LM, graph) pair, in LM order and, within an LM, in the LM's graph order.
// Space s owns rows [row_offset[s], row_offset[s] + capacity[s]) of the hypothesis arrays E (H),
// L (H,3), R (H,3,3) (and, with burst sampling, the slope history, ages, slopes), in the
// Globals window or, for programs beyond it, in far segments (RowPlacement); the first COUNT
// rows (a Globals word the device maintains) are live. Capacities are padded to the
// 64-row workgroup so a workgroup never straddles two spaces (it then scans one graph's nodes,
// tile by tile, in shared memory). Hypothesis counts change on the device only (deletion and
// burst sampling); the host never needs them to record or submit a step.
#pragma once

#include <weft/weft.h>

#include <memory>
#include <vector>

#include "hypothesis_types.h"

namespace weft::hypothesis_update {

inline constexpr uint32_t kHypWorkgroup = 64;
inline constexpr uint32_t kHypStatsWords = 32;     // per space, see S_* in hypothesis_update.glsl
inline constexpr uint32_t kHypLmStateWords = 8;    // per LM, see M_*
inline constexpr uint32_t kHypChannelWords = 40;   // per channel input: sn, cd1, pfd, curvature scale, features
inline constexpr uint32_t kHypInputHeader = 8;     // displacement, channels, active, first, J
inline constexpr uint32_t kHypTraceWords = 36;     // per row: nearest[16], custom_dist[16], rotated_sn[3]
inline constexpr uint32_t kHypMaxChannels = 8;
inline constexpr uint32_t kHypMaxFeatureWidth = 32;
inline constexpr uint32_t kHypMaxWindow = 16;
inline constexpr uint32_t kHypParamWords = 128;

// Stats words (S_* in hypothesis_update.glsl).
inline constexpr uint32_t kHypStatThreshold = 4, kHypStatPredictionError = 5, kHypStatTested = 6, kHypStatCount = 7,
                          kHypStatRetained = 16, kHypStatAdded = 17, kHypStatRemoved = 18;
// LM state words (M_*).
inline constexpr uint32_t kHypLmGraph = 0, kHypLmHyp = 1, kHypLmEvidence = 2, kHypLmBurst = 3,
                          kHypLmBurstInStep = 4, kHypLmMaxSlope = 5, kHypLmOverflow = 6;
// Input header words.
inline constexpr uint32_t kHypInChannels = 3, kHypInActive = 4, kHypInFirst = 5, kHypInJ = 6;

// Where the per-row hypothesis arrays (E, L, R, new, the trace and the slope tracker's) live:
// in the bound Globals window, or in far segments of their own (programs beyond the
// storage-buffer window; needs bufferDeviceAddress). Auto picks the window when the whole
// program fits it, else far rows when the device can address them.
enum class RowPlacement { Auto, InWindow, Far };

struct DeviceLm {
  const UpdaterConfig* config = nullptr;
  std::vector<const ObjectGraph*> graphs;
  std::vector<uint32_t> vote_senders;  // LMs of the same program whose votes it receives (in order)
};

// Vote record words per row (HYP_VOTE_WORDS): location, rotation, scaled evidence.
inline constexpr uint32_t kHypVoteWords = 13;

struct BackendProgram {
  std::unique_ptr<Executable> exe;
  std::vector<uint32_t> space_of_lm;   // first space of each LM
  std::vector<uint32_t> row_offset;    // per space
  std::vector<uint32_t> capacity;      // per space
  uint32_t rows = 0;                   // padded rows over all spaces
  uint32_t max_channels = 1;
  uint32_t input_stride = 0;           // words of one LM's step input
  uint32_t max_frames = 2;
  bool trace = false;                  // channel 0's kernel intermediates are recorded
  bool neighbour_lists = true;         // spaces may search neighbour lists (else the grid's cells)
  bool burst = false;                  // some LM samples in bursts (slope tracker arrays exist)
  bool far_rows = false;               // the per-row arrays are far segments (RowPlacement)
  bool votes = false;                  // some LM receives votes (vote stages and arrays exist)
};

// BadInput when the config cannot run on the device (too many channels, feature columns, a
// slope window over 16). Checked when the LM is added, before any step.
void check_device_config(const UpdaterConfig& config);

// Rows a space of `nodes` nodes gets: `capacity_per_node` x nodes when > 0, else enough for a
// full initialisation (max(2, umbilical poses) per node) plus, for burst sampling, two bursts'
// worth of new hypotheses; padded to the workgroup.
uint32_t space_capacity(const UpdaterConfig& config, size_t nodes, double capacity_per_node);

// Builds, records and uploads the Heap of the program for these LMs. Without the trace, the
// nearest nodes come from neighbour lists where `neighbour_lists` allows them and they fit
// (device_grid.h), else from the grid's cells: the same nodes either way. Every LM starts with no
// hypotheses (the caller zeroes the state with reset_program_state). BadInput naming the sizes
// when what stays in the window (Heap, and Globals with or without the rows) exceeds it.
// `votes`: the options when some LM has vote_senders (votes.h), run by two stages after the
// evidence update (vote_send, vote_receive) and before the most likely hypothesis is taken.
BackendProgram build_backend_program(Device& device, const std::vector<DeviceLm>& lms, bool trace,
                                     double capacity_per_node, uint32_t row_dispatch_width = 32768,
                                     RowPlacement rows = RowPlacement::Auto, const VoteOptions* votes = nullptr,
                                     bool neighbour_lists = true);

// Zeroes every space's counts and every LM's state (a new episode).
void reset_program_state(BackendProgram& program);

}  // namespace weft::hypothesis_update
