// hypothesis_update.glsl — the Vulkan hypothesis-update kernels' shared view of Heap and Globals.
// Mirrors vulkan_program.h. One program holds every learning module (LM) of the backend:
// "spaces" are (LM, graph) pairs, each owning a fixed block of hypothesis rows (its capacity,
// padded to the 64-row workgroup) of which the first COUNT (a Globals word) are live. Segment
// word offsets live in a layout block in Heap whose word every kernel receives as its argument
// `layout_block` (hypothesis_update_args.h), so one recorded program serves every step and
// every hypothesis count.
#ifndef HYP_COMMON_GLSL
#define HYP_COMMON_GLSL

#define HYP_WG 64u        // workgroup size of every kernel; space blocks are padded to it
#define HYP_MAX_K 16
#define HYP_MAX_WINDOW 16
#define HYP_STATS_WORDS 32u
#define HYP_SPACE_WORDS 16u
#define HYP_LM_WORDS 8u
#define HYP_CHANNEL_WORDS 40u
#define HYP_INPUT_HEADER 8u
#define HYP_TRACE_WORDS 36u
#define HYP_LM_STATE_WORDS 8u

// Layout block (Heap): word offsets of every segment and a few sizes. The per-row arrays' words
// (L_E .. L_REMOVED) may instead name far segments: read them through hyp_row_* below.
#define L_E 0u
#define L_L 1u
#define L_R 2u
#define L_NEW 3u
#define L_FE 4u
#define L_INPUT 5u
#define L_STATS 6u
#define L_LMSTATE 7u
#define L_TRACE 8u       // WEFT_NONE: no kernel trace
#define L_HIST 9u
#define L_AGE 10u
#define L_SLOPE 11u
#define L_KEEP 12u
#define L_REMOVED 13u
#define L_ORDER 14u
#define L_POS 15u
#define L_POSE 16u
#define L_PDF 17u
#define L_FEAT 18u
#define L_SPACES 19u
#define L_LMS 20u
#define L_WG_SPACE 21u
#define L_ROWS 22u       // padded rows over all spaces (stride of per-channel arrays)
#define L_MAX_CHANNELS 23u
#define L_HIST_STRIDE 24u
#define L_GRID 25u       // WEFT_NONE: exact brute-force K nearest (kernel tracing); else grid headers
#define L_ROW_WGS 26u    // row workgroups (row stages dispatch them as a 2D grid of at most 32768 wide)
#define L_NEW_BLOCK_SLOT 27u  // Control word of new_block's dispatch slot (zero groups unless select adds)
#define L_ROW_GROUPS_X 28u    // the row grid's width, which select writes there
#define L_VOTES 29u      // votes: Globals word of the vote records (HYP_VOTE_WORDS per row); WEFT_NONE: no votes
#define L_VOTE_LOC 30u   // votes: Globals word of each LM's sensed location (4 words per LM)
#define L_VOTE_SRC 31u   // votes: Heap word of each space's (first, count) into the sender-space list
#define L_VOTE_LIST 32u  // votes: Heap word of the sender-space list

uint lay(uint i) { return heap_u[pc.args.layout_block + i]; }

// Space table (Heap).
#define SP_NODE_OFF 0u
#define SP_NODES 1u
#define SP_ROW_OFF 2u
#define SP_CAP 3u
#define SP_LM 4u
#define SP_FEAT_OFF 5u
#define SP_NSEL_PFD 6u    // burst: nodes sampled when the pose is fully defined (J = 2)
#define SP_NSEL_UMB 7u    // burst: nodes sampled otherwise (J = umbilical poses)
#define SP_FE_OFF 8u      // Globals word of the space's node feature evidence (channel-major)
#define SP_ORDER_OFF 9u   // Globals word of the space's node order scratch
uint sp(uint s, uint f) { return heap_u[lay(L_SPACES) + s * HYP_SPACE_WORDS + f]; }

// LM table (Heap).
#define LM_SPACE0 0u
#define LM_SPACES 1u
#define LM_PARAMS 2u   // Heap word of the LM's parameters
#define LM_INPUT 3u    // Globals word of the LM's step input
#define LM_STATE 4u    // Globals word of the LM's persistent state
uint lmw(uint m, uint f) { return heap_u[lay(L_LMS) + m * HYP_LM_WORDS + f]; }

// Parameters per LM (Heap).
float param_f(uint m, uint i) { return heap_f[lmw(m, LM_PARAMS) + i]; }
uint param_u(uint m, uint i) { return heap_u[lmw(m, LM_PARAMS) + i]; }
#define P_FE_INC 0u
#define P_SN_W 1u
#define P_CD_W 2u
#define P_MMD 3u
#define P_PAST 4u
#define P_PRESENT 5u
#define P_THR_MODE 6u
#define P_THR_VALUE 7u
#define P_X_PERCENT 8u
#define P_K 9u
#define P_FW 10u
#define P_USES_FEATURES 11u
#define P_WEIGHT_SUM 12u
#define P_TOL 16u
#define P_WEIGHT 48u
#define P_CIRCULAR 80u
#define P_KIND 112u         // 0 default, 1 burst sampling
#define P_DEL_SLOPE 113u
#define P_TRIGGER_SLOPE 114u
#define P_DURATION 115u
#define P_WINDOW 116u
#define P_MIN_AGE 117u
#define P_VOTE_SENDS 118u   // the LM sends votes to an LM of this program
#define P_VOTE_THR 119u     // vote_evidence_threshold
#define P_VOTE_WEIGHT 120u  // vote_weight
#define P_VOTE_AVG 121u     // past_weight + present_weight == 1: votes average instead of adding

#define MODE_NUMBER 0u
#define MODE_MEAN 1u
#define MODE_MEDIAN 2u
#define MODE_PERCENT 3u
#define MODE_XPERCENT 4u
#define MODE_ALL 5u

// Grid header per space (Heap), see device_grid.h.
#define G_ORIGIN 0u
#define G_CELL 3u
#define G_RADIUS 4u
#define G_DIMS 5u
#define G_CELL_START 8u   // absolute Heap word
#define G_NODES 9u        // absolute Heap word
// The space's neighbour lists (device_grid.h DeviceLists), when G_LISTED is 1.
#define G_LIST_ORIGIN 16u
#define G_LIST_INVERSE_CELL 19u
#define G_LIST_DIMS 20u
#define G_LIST_STARTS 23u  // absolute Heap word
#define G_LIST_RECORDS 24u // absolute Heap word; 4 words per listed node: x, y, z, node id
#define G_LISTED 25u
#define HYP_GRID_WORDS 32u

// Per-space statistics and step bookkeeping (Globals).
uint stat_word(uint s, uint f) { return lay(L_STATS) + s * HYP_STATS_WORDS + f; }
#define S_MAX 0u
#define S_MIN 1u
#define S_SUM 2u
#define S_THR 4u
#define S_PE 5u
#define S_TESTED 6u
#define S_COUNT 7u       // live hypotheses (persists across steps)
#define S_FLOOR 8u       // [8]: per channel
#define S_RETAINED 16u   // hypotheses kept by this step's deletion (all of them without burst)
#define S_ADDED 17u      // new hypotheses appended this step
#define S_REMOVED 18u
#define S_NSEL 19u       // nodes the new block was built from
#define S_SEL_FIRST 20u  // first of them in the space's order scratch
#define S_MAXSLOPE 21u
#define S_MEDIAN 22u
#define S_VOTES 23u      // votes the space sent this step (vote records at its rows)

// Persistent state per LM (Globals).
uint lm_state(uint m, uint f) { return lmw(m, LM_STATE) + f; }
#define M_GRAPH 0u          // most likely: index of the space within the LM
#define M_HYP 1u
#define M_EVIDENCE 2u
#define M_BURST 3u          // burst steps left
#define M_BURST_IN_STEP 4u
#define M_MAX_SLOPE 5u
#define M_OVERFLOW 6u       // a space ran out of capacity (sticky; the host reports it)

// Step input per LM (Globals): displacement, channel count, flags, channels, sensed frames.
uint in_word(uint m, uint f) { return lmw(m, LM_INPUT) + f; }
#define IN_CHANNELS 3u
#define IN_ACTIVE 4u   // the LM has input this step
#define IN_FIRST 5u    // the LM's first step (its spaces do not exist yet)
#define IN_J 6u        // sensed frames of channel 0 (2 or umbilical poses)
bool lm_active(uint m) { return globals_u[in_word(m, IN_ACTIVE)] != 0u; }
bool lm_first(uint m) { return globals_u[in_word(m, IN_FIRST)] != 0u; }
uint input_channels(uint m) { return globals_u[in_word(m, IN_CHANNELS)]; }
uint channel_word(uint m, uint c, uint f) { return in_word(m, HYP_INPUT_HEADER + c * HYP_CHANNEL_WORDS + f); }
uint frame_word(uint m, uint j, uint i) {
  return in_word(m, HYP_INPUT_HEADER + lay(L_MAX_CHANNELS) * HYP_CHANNEL_WORDS + j * 9u + i);
}
#define C_SN 0u
#define C_CD1 3u
#define C_PFD 6u
#define C_CSCALE 7u
#define C_FEAT 8u

// Row workgroups: each covers 64 rows of one space. Row stages are dispatched 2D so that any
// number of rows fits the device's workgroup-count limit; surplus workgroups leave at once.
uint row_wg() { return gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x; }
bool row_wg_valid() { return row_wg() < lay(L_ROW_WGS); }
uint row_h() { return row_wg() * HYP_WG + gl_LocalInvocationID.x; }
uint wg_space(uint wg) { return heap_u[lay(L_WG_SPACE) + wg]; }

#define HYP_INF uintBitsToFloat(0x7f800000u)
#define HYP_NAN_BITS 0x7fc00000u  // "no slope yet", compared by bits (no reliance on NaN math)

// ---- per-row arrays ------------------------------------------------------------------------
// The hypothesis rows (E, L, R, new, the trace and the slope tracker's arrays) are Globals words
// when the program fits the bound window, or, beyond it, far segments of their own (layout word
// WEFT_REF_FAR | far index; record = row, words = the row's components; `new` is one record per
// (channel, row), channel-major like the window's). Stages that reach far rows declare them, so
// the engine runs the kernels' far variants (WEFT_FAR_ACCESS); the plain variants never see a far
// reference. Same loads and stores either way: the numerics do not depend on the placement.
uint hyp_row_u(uint array, uint record, uint width, uint word) {
  const uint ref = lay(array);
#ifdef WEFT_FAR_ACCESS
  if (weft_ref_is_far(ref)) return weft_far_u(weft_ref_far_globals(ref), record, word);
#endif
  return globals_u[ref + record * width + word];
}
float hyp_row_f(uint array, uint record, uint width, uint word) { return uintBitsToFloat(hyp_row_u(array, record, width, word)); }
void hyp_set_row_u(uint array, uint record, uint width, uint word, uint v) {
  const uint ref = lay(array);
#ifdef WEFT_FAR_ACCESS
  if (weft_ref_is_far(ref)) { weft_far_set_u(weft_ref_far_globals(ref), record, word, v); return; }
#endif
  globals_u[ref + record * width + word] = v;
}
void hyp_set_row_f(uint array, uint record, uint width, uint word, float v) {
  hyp_set_row_u(array, record, width, word, floatBitsToUint(v));
}

float hyp_E(uint h) { return hyp_row_f(L_E, h, 1u, 0u); }
void hyp_set_E(uint h, float v) { hyp_set_row_f(L_E, h, 1u, 0u, v); }
float hyp_L(uint h, uint i) { return hyp_row_f(L_L, h, 3u, i); }
void hyp_set_L(uint h, uint i, float v) { hyp_set_row_f(L_L, h, 3u, i, v); }
vec3 hyp_L3(uint h) { return vec3(hyp_L(h, 0u), hyp_L(h, 1u), hyp_L(h, 2u)); }
float hyp_R(uint h, uint i) { return hyp_row_f(L_R, h, 9u, i); }  // i = row * 3 + column
void hyp_set_R(uint h, uint i, float v) { hyp_set_row_f(L_R, h, 9u, i, v); }
vec3 hyp_R_row(uint h, uint r) { return vec3(hyp_R(h, r * 3u), hyp_R(h, r * 3u + 1u), hyp_R(h, r * 3u + 2u)); }
float hyp_new(uint c, uint h) { return hyp_row_f(L_NEW, c * lay(L_ROWS) + h, 1u, 0u); }
void hyp_set_new(uint c, uint h, float v) { hyp_set_row_f(L_NEW, c * lay(L_ROWS) + h, 1u, 0u, v); }
float hyp_hist(uint h, uint i) { return hyp_row_f(L_HIST, h, lay(L_HIST_STRIDE), i); }
void hyp_set_hist(uint h, uint i, float v) { hyp_set_row_f(L_HIST, h, lay(L_HIST_STRIDE), i, v); }
uint hyp_age(uint h) { return hyp_row_u(L_AGE, h, 1u, 0u); }
void hyp_set_age(uint h, uint v) { hyp_set_row_u(L_AGE, h, 1u, 0u, v); }
uint hyp_slope_bits(uint h) { return hyp_row_u(L_SLOPE, h, 1u, 0u); }
void hyp_set_slope_bits(uint h, uint v) { hyp_set_row_u(L_SLOPE, h, 1u, 0u, v); }
bool hyp_keep(uint h) { return hyp_row_u(L_KEEP, h, 1u, 0u) != 0u; }
void hyp_set_keep(uint h, bool keep) { hyp_set_row_u(L_KEEP, h, 1u, 0u, keep ? 1u : 0u); }
void hyp_set_removed(uint i, uint id) { hyp_set_row_u(L_REMOVED, i, 1u, 0u, id); }
void hyp_set_trace_u(uint h, uint i, uint v) { hyp_set_row_u(L_TRACE, h, HYP_TRACE_WORDS, i, v); }
void hyp_set_trace_f(uint h, uint i, float v) { hyp_set_row_f(L_TRACE, h, HYP_TRACE_WORDS, i, v); }

// Slope of a row's evidence history: the mean of the consecutive differences of its last
// min(age, window) values, which telescopes to (last - first) / (values - 1). false: < 2 values.
bool row_slope(uint h, uint m, out float slope) {
  const uint w = param_u(m, P_WINDOW);
  const uint v = min(hyp_age(h), w);
  slope = 0.0;
  if (v < 2u) return false;
  slope = (hyp_hist(h, w - 1u) - hyp_hist(h, w - v)) / float(v - 1u);
  return true;
}

// A vote record (Globals, one per row of the sending space): location, rotation (row-major),
// scaled evidence.
#define HYP_VOTE_WORDS 13u
uint vote_word(uint row, uint i) { return lay(L_VOTES) + row * HYP_VOTE_WORDS + i; }
uint vote_loc_word(uint m) { return lay(L_VOTE_LOC) + m * 4u; }

vec3 load3g(uint w) { return vec3(globals_f[w], globals_f[w + 1u], globals_f[w + 2u]); }
vec3 load3h(uint w) { return vec3(heap_f[w], heap_f[w + 1u], heap_f[w + 2u]); }

#endif
