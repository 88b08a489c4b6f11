#include "ops.h"

#include <cmath>

#include "gguf.h"
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

}  // namespace

Array segment(const Program& p, Binding b, const std::string& name) {
  const Range r = p.segment(b, name);
  return {uint32_t(b == Binding::Heap ? r.offset : r.offset / 4), r};
}

const char* type_suffix(uint32_t t) {
  switch (t) {
    case gguf::type::F32: return "f32";
    case gguf::type::F16: return "f16";
    case gguf::type::Q8_0: return "q8_0";
    case gguf::type::Q4_0: return "q4_0";
  }
  fail(ErrorCode::BadInput, "attention: no kernel for ggml type " + gguf::type_name(t) + " (F32, F16, Q8_0, Q4_0 are supported)");
}


StageSpec embed(InstanceId in, uint32_t type, Array table, uint32_t D, uint32_t vocab, Array tokens, Array x, Dispatch d) {
  StageSpec s = base("embed", std::string("embed_") + type_suffix(type), in, d);
  s.push = {table.at, D, vocab, tokens.at, x.at};
  s.reads = {table.range, tokens.range};
  s.writes = {x.range};
  return s;
}

StageSpec matvec(InstanceId in, uint32_t type, Array w, uint32_t K, uint32_t N, Array x, uint32_t xs, Array y, uint32_t ys,
                 uint32_t flags, Array state, Dispatch d) {
  StageSpec s = base(std::string("matvec_") + type_suffix(type), std::string("matvec_") + type_suffix(type), in, d);
  s.push = {w.at, K, N, x.at, xs, y.at, ys, flags, state.at};
  s.reads = {w.range, x.range, state.range};
  if (flags & kAccumulate) s.reads.push_back(y.range);
  s.writes = {y.range};
  return s;
}

StageSpec rmsnorm(const Program& p, InstanceId in, Array x, Array out, Array w, uint32_t D, float eps, uint32_t scale_word,
                  bool last_only, Array state, Dispatch d) {
  StageSpec s = base("rmsnorm", "rmsnorm", in, d);
  s.push = {x.at, D, out.at, D, w.at, D, f32_bits(eps), scale_word, last_only ? 1u : 0u, state.at};
  s.reads = {x.range, w.range, state.range};
  if (scale_word != WEFT_NONE) {
    s.reads.push_back(p.control_words(scale_word, 1));
    s.writes.push_back(x.range);
  } else {
    s.reads.push_back(p.control_header());  // the kernel's scale branch names Control either way
  }
  s.writes.push_back(out.range);
  return s;
}

StageSpec rope(InstanceId in, Array q, uint32_t heads, Array k, uint32_t kv_heads, uint32_t hd, Array table, Array state, Dispatch d) {
  StageSpec s = base("rope", "rope", in, d);
  s.push = {q.at, heads, k.at, kv_heads, hd, table.at, state.at};
  s.reads = {q.range, k.range, table.range, state.range};
  s.writes = {q.range, k.range};
  return s;
}

StageSpec attn_scores(InstanceId in, Array q, Array k, Array scores, uint32_t heads, uint32_t kv_heads, uint32_t hd,
                      uint32_t ctx, Array state, Dispatch d) {
  StageSpec s = base("attn_scores", "attn_scores", in, d);
  s.push = {q.at, k.at, scores.at, heads, kv_heads, hd, ctx, state.at, f32_bits(float(1.0 / std::sqrt(double(hd))))};
  s.reads = {q.range, k.range, state.range};
  s.writes = {scores.range};
  return s;
}

StageSpec softmax(InstanceId in, Array scores, uint32_t heads, uint32_t ctx, Array state, Dispatch d) {
  StageSpec s = base("softmax", "softmax", in, d);
  s.push = {scores.at, heads, ctx, state.at};
  s.reads = {scores.range, state.range};
  s.writes = {scores.range};
  return s;
}

StageSpec attn_values(InstanceId in, Array scores, Array v, Array out, uint32_t heads, uint32_t kv_heads, uint32_t hd,
                      uint32_t ctx, Array state, Dispatch d) {
  StageSpec s = base("attn_values", "attn_values", in, d);
  s.push = {scores.at, v.at, out.at, heads, kv_heads, hd, ctx, state.at};
  s.reads = {scores.range, v.range, state.range};
  s.writes = {out.range};
  return s;
}

StageSpec swiglu(InstanceId in, Array g, Array u, uint32_t ffn, Dispatch d) {
  StageSpec s = base("swiglu", "swiglu", in, d);
  s.push = {g.at, u.at, ffn};
  s.reads = {g.range, u.range};
  s.writes = {g.range};
  return s;
}

StageSpec layer_stats(InstanceId in, Array x, uint32_t D, Array state, uint32_t layer) {
  StageSpec s = base("layer_stats", "layer_stats", in, {});
  s.push = {x.at, D, state.at, layer};
  s.reads = {x.range, state.range};
  s.message = true;
  return s;
}

StageSpec sample(const Program& p, InstanceId in, Array logits, uint32_t vocab, uint32_t params, Array state, Array out) {
  StageSpec s = base("sample", "sample", in, {});
  s.push = {logits.at, vocab, params, state.at, out.at};
  s.reads = {logits.range, state.range, p.control_words(params, 3)};
  s.writes = {out.range};
  s.message = true;
  return s;
}

std::vector<float> rope_table(uint32_t ctx, uint32_t hd, double base) {
  std::vector<float> t(size_t(ctx) * hd);
  for (uint32_t pos = 0; pos < ctx; ++pos)
    for (uint32_t i = 0; i < hd / 2; ++i) {
      const double theta = double(pos) * std::pow(base, -2.0 * i / double(hd));
      t[(size_t(pos) * (hd / 2) + i) * 2] = float(std::cos(theta));
      t[(size_t(pos) * (hd / 2) + i) * 2 + 1] = float(std::sin(theta));
    }
  return t;
}

}  // namespace weft::attention::ops
