// One StageSpec per decoder operation, binding the kernel's typed arguments
// (shaders/attention_args.h). The decoder program (program.cpp) and the per-kernel tests build
// their stages through these, so a test exercises exactly the dispatch the decoder records.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include <weft/weft.h>

#include "model.h"

namespace weft::attention::ops {

// An array a stage reads or writes (Globals activations, Heap weights and tables): the range it
// declares, whose first word the kernel receives.
using Array = Range;

// Direct dispatch size, or an indirect slot (the decoder's slots carry the batch size).
struct Dispatch {
  std::optional<SlotId> slot;
  std::array<uint32_t, 3> groups{1, 1, 1};
};

// Flags of matvec.
inline constexpr uint32_t kAccumulate = 1;  // y += W x (the residual connection)
inline constexpr uint32_t kCacheRow = 2;    // token t writes row pos0 + t (a KV-cache row)
inline constexpr uint32_t kOneToken = 4;    // one token (x row 0), whatever the batch size

const char* type_suffix(uint32_t ggml_type);  // "f32", "f16", "q8_0", "q4_0"; BadInput otherwise
KernelRef kernel(const std::string& name);

// state: Globals words (pos0, T) of the batch. Groups are given per op in its comment.
// embed and matvec take the weights as an in-window Heap range or as a whole Heap far segment
// (Range::far; a tensor alone in it, record_bytes 4) and pick the kernel variant from that.
// embed: groups (T).
StageSpec embed(InstanceId in, uint32_t type, Array table, uint32_t D, uint32_t vocab, Array tokens, Array x, Dispatch d);
// matvec: groups (matvec_groups(N), ceil(T / 4)): eight rows and a tile of four tokens per
// group; the groups stride over the rows past the guaranteed group count, more groups are idle.
inline constexpr uint32_t kMatvecTokens = 4;  // TOKENS in shaders/dequant.glsl
inline constexpr uint32_t kMatvecRows = 8;    // ROWS in shaders/matvec.glsl
inline uint32_t matvec_groups(uint32_t N) { return grid_stride_groups(N, kMatvecRows); }
inline uint32_t matvec_tiles(uint32_t T) { return groups_for(T, kMatvecTokens); }
StageSpec matvec(InstanceId in, uint32_t type, Array w, uint32_t K, uint32_t N, Array x, uint32_t x_stride, Array y,
                 uint32_t y_stride, uint32_t flags, Array state, Dispatch d);
// rmsnorm: groups (T), or (1) with last_only (only the batch's last token, into out row 0).
// scale_word: a control word multiplying the residual row first (WEFT_NONE: none).
StageSpec rmsnorm(const Program& p, InstanceId in, Array x, Array out, Array w, uint32_t D, float eps, uint32_t scale_word,
                  bool last_only, Array state, Dispatch d);
// rope: groups (T).
StageSpec rope(InstanceId in, Array q, uint32_t heads, Array k_cache, uint32_t kv_heads, uint32_t head_dim, Array table,
               Array state, bool neox, Dispatch d);
// y[row][n] += bias[n] for the batch's rows (flags kCacheRow: the KV-cache rows); groups (T).
StageSpec add_bias(InstanceId in, Array y, uint32_t y_stride, uint32_t n, Array bias, uint32_t flags, Array state, Dispatch d);
// RMSNorm of each head row in place (flags kCacheRow: the KV-cache rows); groups (T).
StageSpec head_norm(InstanceId in, Array x, uint32_t heads, uint32_t head_dim, Array weight, float eps, uint32_t flags, Array state,
                    Dispatch d);
// attn_scores, softmax, attn_values: groups (heads, T).
StageSpec attn_scores(InstanceId in, Array q, Array k_cache, Array scores, uint32_t heads, uint32_t kv_heads,
                      uint32_t head_dim, uint32_t ctx, Array state, Dispatch d);
StageSpec softmax(InstanceId in, Array scores, uint32_t heads, uint32_t ctx, Array state, Dispatch d);
StageSpec attn_values(InstanceId in, Array scores, Array v_cache, Array out, uint32_t heads, uint32_t kv_heads,
                      uint32_t head_dim, uint32_t ctx, Array state, Dispatch d);
// swiglu: groups (swiglu_groups(ffn), T); writes over g.
inline uint32_t swiglu_groups(uint32_t ffn) { return groups_for(ffn, 64); }
StageSpec swiglu(InstanceId in, Array g, Array u, uint32_t ffn, Dispatch d);
// layer_stats: groups (1); the instance's registers must be at least D words wide.
StageSpec layer_stats(InstanceId in, Array x, uint32_t D, Array state, uint32_t layer);
// sample: groups (1); params = first of 3 control words (temperature f32, top_k u32, seed u32).
StageSpec sample(const Program& p, InstanceId in, Array logits, uint32_t vocab, uint32_t params, Array state, Array out);

// cos/sin of pos * base^(-2i / head_dim) for pos < ctx, i < head_dim / 2, computed in double:
// [pos][i] -> (cos, sin).
std::vector<float> rope_table(uint32_t ctx, uint32_t head_dim, const RopeFrequencies& rope);

}  // namespace weft::attention::ops
