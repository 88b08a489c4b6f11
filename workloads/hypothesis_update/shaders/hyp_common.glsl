// hyp_common.glsl — the Vulkan hypothesis-update kernels' shared view of Heap and Globals.
// Segment word offsets come in push constants (see vulkan_layout.h, which mirrors this file),
// so one recorded program per (LM, hypothesis counts) serves every step.
#ifndef HYP_COMMON_GLSL
#define HYP_COMMON_GLSL

#define HYP_WG 64u        // workgroup size of every kernel; graph blocks are padded to it
#define HYP_MAX_K 16
#define HYP_STATS_WORDS 16u
#define HYP_GRAPH_WORDS 8u
#define HYP_CHANNEL_WORDS 40u
#define HYP_TRACE_WORDS 36u

// Push-constant user words.
uint off_E() { return pc.user[0]; }
uint off_L() { return pc.user[1]; }
uint off_R() { return pc.user[2]; }
uint off_new() { return pc.user[3]; }
uint off_fe() { return pc.user[4]; }
uint off_input() { return pc.user[5]; }
uint off_stats() { return pc.user[6]; }
uint off_mlh() { return pc.user[7]; }
uint off_trace() { return pc.user[8]; }  // WEFT_NONE: no kernel trace
uint padded_hyps() { return pc.user[9]; }
uint total_nodes() { return pc.user[10]; }
uint graph_count() { return pc.user[11]; }
uint off_pos() { return pc.user[12]; }
uint off_pose() { return pc.user[13]; }
uint off_pdf() { return pc.user[14]; }
uint off_feat() { return pc.user[15]; }
uint off_graphs() { return pc.user[16]; }
uint off_wg_graph() { return pc.user[17]; }
uint off_params() { return pc.user[18]; }

// Graph table (Heap): node offset/count, hypothesis offset (padded)/count.
uint graph_node_off(uint g) { return heap_u[off_graphs() + g * HYP_GRAPH_WORDS + 0u]; }
uint graph_node_count(uint g) { return heap_u[off_graphs() + g * HYP_GRAPH_WORDS + 1u]; }
uint graph_hyp_off(uint g) { return heap_u[off_graphs() + g * HYP_GRAPH_WORDS + 2u]; }
uint graph_hyp_count(uint g) { return heap_u[off_graphs() + g * HYP_GRAPH_WORDS + 3u]; }

// Parameters (Heap).
float param_f(uint i) { return heap_f[off_params() + i]; }
uint param_u(uint i) { return heap_u[off_params() + i]; }
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

// Per-graph statistics (Globals).
uint stat_word(uint g, uint field) { return off_stats() + g * HYP_STATS_WORDS + field; }
#define S_MAX 0u
#define S_MIN 1u
#define S_SUM 2u
#define S_ARGMAX 3u
#define S_THR 4u
#define S_PE 5u
#define S_TESTED 6u
#define S_FLOOR 8u

// Step input (Globals): displacement, channel count, then one record per channel.
uint input_channels() { return globals_u[off_input() + 3u]; }
uint channel_word(uint c, uint field) { return off_input() + 4u + c * HYP_CHANNEL_WORDS + field; }
#define C_SN 0u
#define C_CD1 3u
#define C_PFD 6u
#define C_CSCALE 7u
#define C_FEAT 8u

#define HYP_INF uintBitsToFloat(0x7f800000u)

#endif
