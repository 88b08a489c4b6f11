#include "ops.h"

#include <cmath>

#include "gguf.h"
#include "shaders/attention_args.h"
#include "weft_attention_kernels.h"

namespace weft::attention::ops {

namespace {

StageSpec base(const std::string& name, const std::string& k, InstanceId in, const Dispatch& d) {
  StageSpec s;
  s.name = name;
  s.kernel = weft_attention_kernels.get(k);
  s.instance = in;
  s.groups = d.groups;
  s.indirect = d.slot;
  return s;
}

// The kernel for a weight of `type`; a stage whose weight is a far segment runs its far
// variant (FAR_KERNELS), which the program picks from the stage's declared ranges.
std::string weight_kernel(const char* op, uint32_t type) { return std::string(op) + "_" + type_suffix(type); }

}  // namespace

const char* type_suffix(uint32_t t) {
  switch (t) {
    case gguf::type::F32: return "f32";
    case gguf::type::F16: return "f16";
    case gguf::type::BF16: return "bf16";
    case gguf::type::Q8_0: return "q8_0";
    case gguf::type::Q4_0: return "q4_0";
    case gguf::type::Q4_1: return "q4_1";
    case gguf::type::Q5_0: return "q5_0";
    case gguf::type::Q5_1: return "q5_1";
    case gguf::type::Q2_K: return "q2_k";
    case gguf::type::Q3_K: return "q3_k";
    case gguf::type::Q4_K: return "q4_k";
    case gguf::type::Q5_K: return "q5_k";
    case gguf::type::Q6_K: return "q6_k";
  }
  fail(ErrorCode::BadInput, "attention: no kernel for ggml type " + gguf::type_name(t));
}


StageSpec embed(InstanceId in, uint32_t type, Array table, uint32_t D, uint32_t vocab, Array tokens, Array x, Dispatch d) {
  StageSpec s = base("embed", weight_kernel("embed", type), in, d);
  s.args = EmbedArgs{.table = table, .dim = D, .vocab = vocab, .tokens = tokens, .x = x}.bind();
  return s;
}

StageSpec matvec(InstanceId in, uint32_t type, Array w, uint32_t K, uint32_t N, Array x, uint32_t xs, Array y, uint32_t ys,
                 uint32_t flags, Array state, Dispatch d) {
  const std::string k = weight_kernel("matvec", type);
  StageSpec s = base(k, k, in, d);
  s.args = MatvecArgs{.w = w, .cols = K, .rows = N, .x = x, .x_stride = xs, .y = y, .y_stride = ys, .flags = flags, .state = state}
               .bind();
  if (flags & kAccumulate) s.reads = {y};  // y += W x reads y as well
  return s;
}

StageSpec rmsnorm(const Program& p, InstanceId in, Array x, Array out, Array w, uint32_t D, float eps, uint32_t scale_word,
                  bool last_only, Array state, Dispatch d) {
  StageSpec s = base("rmsnorm", "rmsnorm", in, d);
  In<Binding::Control> scale = absent;
  if (scale_word != WEFT_NONE) {
    scale = p.control_words(scale_word, 1);
    s.writes = {x};  // the residual row is scaled in place
  } else {
    s.reads = {p.control_header()};  // the kernel's scale branch names Control either way
  }
  s.args = RmsnormArgs{.x = x, .x_stride = D, .normed = out, .normed_stride = D, .weight = w, .dim = D, .eps = eps,
                       .scale = scale, .mode = last_only ? 1u : 0u, .state = state}
               .bind();
  return s;
}

StageSpec rope(InstanceId in, Array q, uint32_t heads, Array k, uint32_t kv_heads, uint32_t hd, Array table, Array state, bool neox,
               Dispatch d) {
  StageSpec s = base("rope", "rope", in, d);
  s.args = RopeArgs{.q = q, .heads = heads, .k_cache = k, .kv_heads = kv_heads, .head_dim = hd, .table = table, .state = state,
                    .neox = neox ? 1u : 0u}
               .bind();
  return s;
}

StageSpec add_bias(InstanceId in, Array y, uint32_t y_stride, uint32_t n, Array bias, uint32_t flags, Array state, Dispatch d) {
  StageSpec s = base("add_bias", "add_bias", in, d);
  s.args = AddBiasArgs{.y = y, .y_stride = y_stride, .n = n, .bias = bias, .flags = flags, .state = state}.bind();
  return s;
}

StageSpec head_norm(InstanceId in, Array x, uint32_t heads, uint32_t hd, Array weight, float eps, uint32_t flags, Array state, Dispatch d) {
  StageSpec s = base("head_norm", "head_norm", in, d);
  s.args = HeadNormArgs{.x = x, .heads = heads, .head_dim = hd, .weight = weight, .eps = eps, .flags = flags, .state = state}.bind();
  return s;
}

StageSpec attn_scores(InstanceId in, Array q, Array k, Array scores, uint32_t heads, uint32_t kv_heads, uint32_t hd,
                      uint32_t ctx, Array state, Dispatch d) {
  StageSpec s = base("attn_scores", "attn_scores", in, d);
  s.args = AttnScoresArgs{.q = q, .k_cache = k, .scores = scores, .heads = heads, .kv_heads = kv_heads, .head_dim = hd,
                          .ctx = ctx, .state = state, .scale = float(1.0 / std::sqrt(double(hd)))}
               .bind();
  return s;
}

StageSpec softmax(InstanceId in, Array scores, uint32_t heads, uint32_t ctx, Array state, Dispatch d) {
  StageSpec s = base("softmax", "softmax", in, d);
  s.args = SoftmaxArgs{.scores = scores, .heads = heads, .ctx = ctx, .state = state}.bind();
  return s;
}

StageSpec attn_values(InstanceId in, Array scores, Array v, Array out, uint32_t heads, uint32_t kv_heads, uint32_t hd,
                      uint32_t ctx, Array state, Dispatch d) {
  StageSpec s = base("attn_values", "attn_values", in, d);
  s.args = AttnValuesArgs{.scores = scores, .v_cache = v, .att = out, .heads = heads, .kv_heads = kv_heads, .head_dim = hd,
                          .ctx = ctx, .state = state}
               .bind();
  return s;
}

StageSpec swiglu(InstanceId in, Array g, Array u, uint32_t ffn, Dispatch d) {
  StageSpec s = base("swiglu", "swiglu", in, d);
  s.args = SwigluArgs{.gate = g, .up = u, .ffn = ffn}.bind();
  return s;
}

StageSpec layer_stats(InstanceId in, Array x, uint32_t D, Array state, uint32_t layer) {
  StageSpec s = base("layer_stats", "layer_stats", in, {});
  s.args = LayerStatsArgs{.x = x, .dim = D, .state = state, .layer = layer}.bind();
  s.message = true;
  return s;
}

StageSpec sample(const Program& p, InstanceId in, Array logits, uint32_t vocab, uint32_t params, Array state, Array out) {
  StageSpec s = base("sample", "sample", in, {});
  s.args = SampleArgs{.logits = logits, .vocab = vocab, .params = p.control_words(params, 3), .state = state, .sampled = out}
               .bind();
  s.message = true;
  return s;
}

std::vector<float> rope_table(uint32_t ctx, uint32_t hd, const RopeFrequencies& rope) {
  std::vector<float> t(size_t(ctx) * hd);
  for (uint32_t pos = 0; pos < ctx; ++pos)
    for (uint32_t i = 0; i < hd / 2; ++i) {
      const double theta = rope.angle(pos, i, hd);
      t[(size_t(pos) * (hd / 2) + i) * 2] = float(std::cos(theta));
      t[(size_t(pos) * (hd / 2) + i) * 2 + 1] = float(std::sin(theta));
    }
  return t;
}

}  // namespace weft::attention::ops
