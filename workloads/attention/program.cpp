// The decoder chain appended to a Program (see attention.h), and the host side of a run:
// uploading the weights, setting the batch, the sampling parameters.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "attention.h"

namespace weft::attention {

namespace {

enum Shape : uint32_t { kTok, kDim, kQ, kKv, kFfn, kHeads, kSwiglu, kShapes };

// Every tensor the decoder reads, once each (a tied head is the embedding table).
std::vector<const Weight*> tensors(const Model& m) {
  std::vector<const Weight*> t = {&m.token_embd};
  for (const Weight* w : m.weights())
    if (!(m.tied && w == &m.output)) t.push_back(w);
  return t;
}
// What matvec and embed read; the rest are norm vectors (one row: model.cpp loads them so).
bool is_matrix(const Weight& w) { return w.rows > 1; }

// Far placement: a segment per tensor, named "<prefix>.<tensor name>". A matrix is a far segment
// of one-word records (the kernels address it by byte from its own start, so each kernel's byte
// offsets stay below 4 GiB however large the model; the size rounds up to whole words, which a
// Q8_0/Q4_0 block's last word may straddle); a norm vector stays in the window.
void add_far_weights(Program& p, const Model& m, const DecoderProgram& dp) {
  for (const Weight* w : tensors(m)) {
    if (!is_matrix(*w)) {
      p.heap().add(dp.name(w->name), w->bytes);
      continue;
    }
    if (w->bytes > (uint64_t(1) << 32) - 4)
      fail(ErrorCode::BadInput, "attention: " + m.file.source() + ": tensor '" + w->name + "' has " + std::to_string(w->bytes) +
                                    " bytes; the kernels address a tensor with 32-bit byte offsets (below 4 GiB)");
    p.heap().add_far(dp.name(w->name), (w->bytes + 3) / 4 * 4, 4);
  }
}

}  // namespace

const char* placement_name(WeightPlacement w) {
  switch (w) {
    case WeightPlacement::Auto: return "auto";
    case WeightPlacement::InWindow: return "window";
    case WeightPlacement::Far: return "far";
  }
  return "?";
}

WeightPlacement parse_placement(const std::string& s) {
  for (WeightPlacement w : {WeightPlacement::Auto, WeightPlacement::InWindow, WeightPlacement::Far})
    if (s == placement_name(w)) return w;
  fail(ErrorCode::BadInput, "attention: weight placement '" + s + "' is none of auto, window, far");
}

// The decoder's stages (embedding or o.embed, the layers with their regulators, the head and
// the sampler), appended once more; every stage and regulator name gets `suffix`.
void append_decoder_step(Program& p, const Model& m, DecoderProgram& dp, const DecoderOptions& o, const std::string& suffix) {
  const Config& c = m.config;
  const uint32_t ctx = dp.context, D = c.dim, hd = c.head_dim;
  auto N = [&](const std::string& s) { return dp.name(s); };
  auto g = [&](const std::string& s) { return p.segment(Binding::Globals, N(s)); };
  // A weight's range: its bytes inside the data-section segment, or its own segment (far for a
  // matrix: the kernels' _far variants read it).
  const bool far = dp.weights == WeightPlacement::Far;
  const Range section = far ? Range{} : p.segment(Binding::Heap, N("weights"));
  auto w = [&](const Weight& x) {
    return far ? p.segment(Binding::Heap, N(x.name)) : Range{Binding::Heap, section.offset + x.offset, x.bytes};
  };
  const ops::Array state = g("state"), x = g("x"), xn = g("xn"), q = g("q"), att = g("att"), scores = g("scores"),
                   gate = g("gate"), up = g("up"), rope_table = p.segment(Binding::Heap, N("rope"));
  std::vector<SlotId> slot;
  for (const auto& bs : dp.batch_slots) slot.push_back(bs.slot);
  auto on = [&](Shape s) { return ops::Dispatch{slot[s], {}}; };
  // ---- stages ----
  auto add = [&](StageSpec s, const std::string& what) {
    s.name += what + suffix;
    return p.add_stage(std::move(s));
  };
  if (o.embed)
    o.embed(p, dp);
  else
    add(ops::embed(dp.layers[0], m.token_embd.type, w(m.token_embd), D, c.vocab, g("tokens"), x, on(kTok)), "." + dp.prefix);
  for (uint32_t l = 0; l < c.layers; ++l) {
    const LayerWeights& lw = m.layers[l];
    const InstanceId in = dp.layers[l];
    const std::string L = "." + dp.prefix + ".L" + std::to_string(l);
    const ops::Array kc = g("k" + std::to_string(l)), vc = g("v" + std::to_string(l));
    add(ops::rmsnorm(p, in, x, xn, w(lw.attn_norm), D, c.rms_eps, dp.scale_words[l], false, state, on(kTok)), L + ".attn");
    add(ops::matvec(in, lw.wq.type, w(lw.wq), D, c.q_dim(), xn, D, q, c.q_dim(), 0, state, on(kQ)), L + ".q");
    add(ops::matvec(in, lw.wk.type, w(lw.wk), D, c.kv_dim(), xn, D, kc, c.kv_dim(), ops::kCacheRow, state, on(kKv)), L + ".k");
    add(ops::matvec(in, lw.wv.type, w(lw.wv), D, c.kv_dim(), xn, D, vc, c.kv_dim(), ops::kCacheRow, state, on(kKv)), L + ".v");
    if (lw.bq) {  // qwen2
      add(ops::add_bias(in, q, c.q_dim(), c.q_dim(), w(*lw.bq), 0, state, on(kTok)), L + ".q");
      add(ops::add_bias(in, kc, c.kv_dim(), c.kv_dim(), w(*lw.bk), ops::kCacheRow, state, on(kTok)), L + ".k");
      add(ops::add_bias(in, vc, c.kv_dim(), c.kv_dim(), w(*lw.bv), ops::kCacheRow, state, on(kTok)), L + ".v");
    }
    if (lw.q_norm) {  // qwen3
      add(ops::head_norm(in, q, c.heads, hd, w(*lw.q_norm), c.rms_eps, 0, state, on(kTok)), L + ".q");
      add(ops::head_norm(in, kc, c.kv_heads, hd, w(*lw.k_norm), c.rms_eps, ops::kCacheRow, state, on(kTok)), L + ".k");
    }
    add(ops::rope(in, q, c.heads, kc, c.kv_heads, hd, rope_table, state, c.rope_neox, on(kTok)), L);
    add(ops::attn_scores(in, q, kc, scores, c.heads, c.kv_heads, hd, ctx, state, on(kHeads)), L);
    add(ops::softmax(in, scores, c.heads, ctx, state, on(kHeads)), L);
    add(ops::attn_values(in, scores, vc, att, c.heads, c.kv_heads, hd, ctx, state, on(kHeads)), L);
    add(ops::matvec(in, lw.wo.type, w(lw.wo), c.q_dim(), D, att, c.q_dim(), x, D, ops::kAccumulate, state, on(kDim)), L + ".o");
    add(ops::rmsnorm(p, in, x, xn, w(lw.ffn_norm), D, c.rms_eps, WEFT_NONE, false, state, on(kTok)), L + ".ffn");
    add(ops::matvec(in, lw.gate.type, w(lw.gate), D, c.ffn, xn, D, gate, c.ffn, 0, state, on(kFfn)), L + ".gate");
    add(ops::matvec(in, lw.up.type, w(lw.up), D, c.ffn, xn, D, up, c.ffn, 0, state, on(kFfn)), L + ".up");
    add(ops::swiglu(in, gate, up, c.ffn, on(kSwiglu)), L);
    add(ops::matvec(in, lw.down.type, w(lw.down), c.ffn, D, gate, c.ffn, x, D, ops::kAccumulate, state, on(kDim)), L + ".down");
    add(ops::layer_stats(in, x, D, state, l), L);
    // The regulator role, as data: an activation norm outside [0, limit] (NaN included) marks
    // the layer anomalous and damps the residual stream entering the next layer.
    std::vector<abi::WeftRule> rs;
    const Condition bad = Condition::outside(in, WEFT_METRIC_NORM, 0.0f, o.rules.norm_limit);
    rs.push_back(rule(bad, Action::set_status(in, WEFT_STATUS_ANOMALY)));
    if (l + 1 < c.layers) rs.push_back(rule(bad, Action::set_word(dp.scale_words[l + 1], o.rules.damp)));
    dp.regulators.push_back(add_regulator(p, "regulator" + L + suffix, rs));
  }
  add(ops::rmsnorm(p, dp.head, x, g("xlast"), w(m.output_norm), D, c.rms_eps, WEFT_NONE, true, state, {}), "." + dp.prefix + ".out");
  add(ops::matvec(dp.head, m.output.type, w(m.output), D, c.vocab, g("xlast"), D, g("logits"), c.vocab, ops::kOneToken, state,
                  {std::nullopt, {ops::matvec_groups(c.vocab), 1, 1}}),
      "." + dp.prefix + ".output");
  if (o.before_sample) o.before_sample(p, dp, suffix);
  add(ops::sample(p, dp.sampler, g("logits"), c.vocab, dp.sampling_words, state, g("sampled")), "." + dp.prefix);
}

DecoderProgram add_decoder(Program& p, const Model& m, const DecoderOptions& o) {
  const Config& c = m.config;
  DecoderProgram dp;
  dp.prefix = o.prefix;
  dp.context = o.context ? o.context : std::min(c.context, 2048u);
  if (dp.context > c.context)
    fail(ErrorCode::BadInput, "attention: context " + std::to_string(dp.context) + " exceeds the model's llama.context_length " + std::to_string(c.context));
  dp.max_batch = o.max_batch ? o.max_batch : std::min(dp.context, 32u);
  if (dp.max_batch > dp.context) fail(ErrorCode::BadInput, "attention: max_batch exceeds the context");
  const uint32_t B = dp.max_batch, ctx = dp.context, D = c.dim, hd = c.head_dim;
  auto N = [&](const std::string& s) { return dp.name(s); };

  // ---- layout ----
  // Without a device to measure against, Auto is the window (Decoder resolves it first).
  dp.weights = o.weights == WeightPlacement::Far ? WeightPlacement::Far : WeightPlacement::InWindow;
  if (dp.weights == WeightPlacement::Far)
    add_far_weights(p, m, dp);
  else
    p.heap().add(N("weights"), std::max<uint64_t>(m.file.data_section().size(), 4));
  p.heap().add(N("rope"), uint64_t(ctx) * hd * 4);
  auto G = [&](const std::string& s, uint64_t bytes) { p.globals().add(N(s), bytes); };
  G("state", 16);
  G("tokens", uint64_t(B) * 4);
  G("sampled", 4);
  G("x", uint64_t(B) * D * 4);
  G("xn", uint64_t(B) * D * 4);
  G("q", uint64_t(B) * c.q_dim() * 4);
  G("att", uint64_t(B) * c.q_dim() * 4);
  G("scores", uint64_t(B) * c.heads * ctx * 4);
  G("gate", uint64_t(B) * c.ffn * 4);
  G("up", uint64_t(B) * c.ffn * 4);
  G("xlast", uint64_t(D) * 4);
  G("logits", uint64_t(c.vocab) * 4);
  for (uint32_t l = 0; l < c.layers; ++l) {
    G("k" + std::to_string(l), uint64_t(ctx) * c.kv_dim() * 4);
    G("v" + std::to_string(l), uint64_t(ctx) * c.kv_dim() * 4);
  }
  // ---- instances, slots, control words ----
  for (uint32_t l = 0; l < c.layers; ++l) {
    dp.layers.push_back(p.add_instance(N("layer" + std::to_string(l)), D));
    if (l) p.connect(dp.layers[l - 1], dp.layers[l]);
    dp.scale_words.push_back(p.add_control_words(N("scale" + std::to_string(l)), {f32_bits(1.0f)}));
  }
  dp.head = p.add_instance(N("head"), 1);
  dp.sampler = p.add_instance(N("sampler"), 1);
  dp.sampling_words = p.add_control_words(N("sampling"), {f32_bits(0.0f), 0u, 0u});
  const std::array<std::array<uint32_t, 3>, kShapes> shapes = {{{1, 1, 1},
                                                                 {ops::matvec_groups(D), 1, 1},
                                                                 {ops::matvec_groups(c.q_dim()), 1, 1},
                                                                 {ops::matvec_groups(c.kv_dim()), 1, 1},
                                                                 {ops::matvec_groups(c.ffn), 1, 1},
                                                                 {c.heads, 1, 1},
                                                                 {ops::swiglu_groups(c.ffn), 1, 1}}};
  std::vector<SlotId> slot(kShapes);
  for (uint32_t s = 0; s < kShapes; ++s) {
    slot[s] = p.add_slot(N("batch" + std::to_string(s)), shapes[s]);
    const bool matvec = s == kDim || s == kQ || s == kKv || s == kFfn;
    dp.batch_slots.push_back({slot[s], s == kTok ? 0u : 1u, matvec ? ops::kMatvecTokens : 1u});
  }
  dp.ports = Ports("attention " + dp.prefix);
  dp.ports.add_segment("input_rows", p.segment(Binding::Globals, N("x")), "f32[max_batch][dim]: the rows the first layer reads")
      .add_segment("tokens", p.segment(Binding::Globals, N("tokens")), "u32[max_batch]: the batch's token ids")
      .add_segment("state", p.segment(Binding::Globals, N("state")), "u32[4]: T, pos0, ...")
      .add_segment("sampled", p.segment(Binding::Globals, N("sampled")), "u32: the sampled token")
      .add_segment("logits", p.segment(Binding::Globals, N("logits")), "f32[vocab]: the last row's logits");
  for (uint32_t l = 0; l < c.layers; ++l)
    for (const char* kv : {"k", "v"})
      dp.ports.add_segment(kv + std::to_string(l), p.segment(Binding::Globals, N(kv + std::to_string(l))),
                           std::string("f32[context][kv_dim]: layer ") + std::to_string(l) + "'s " + (kv[0] == 'k' ? "keys" : "values"));
  dp.ports.add_instance("first_layer", dp.layers.front(), "its inbox (R31) is the decoder's message in")
      .add_instance("last_layer", dp.layers.back(), "its outbox (R30): the last layer's message")
      .add_instance("sampler", dp.sampler, "its outbox (R30): [the sampled token]");
  append_decoder_step(p, m, dp, o, "");
  return dp;
}

std::vector<float> read_logits(Executable& exe, const DecoderProgram& dp) { return exe.read_range<float>(dp.ports.segment("logits")); }

uint32_t read_sampled(Executable& exe, const DecoderProgram& dp) {
  uint32_t t = 0;
  exe.read_range(dp.ports.segment("sampled"), &t, 4);
  return t;
}

void upload(Executable& exe, const DecoderProgram& dp, const Model& m) {
  const gguf::File& f = m.file;
  if (dp.weights == WeightPlacement::InWindow) {
    const auto section = f.data_section();
    if (!section.empty()) exe.write_segment(Binding::Heap, dp.name("weights"), section.data(), section.size());
  } else {
    // Matrices straight from the file when there is one: each mapping is dropped after its
    // tensor, so the host holds no more than one tensor's pages of the model at a time.
    for (const Weight* w : tensors(m)) {
      if (is_matrix(*w) && !f.path().empty())
        exe.write_segment_from_file(Binding::Heap, dp.name(w->name), f.path(), f.data_offset() + w->offset, w->bytes);
      else
        exe.write_segment(Binding::Heap, dp.name(w->name), f.data_section().data() + w->offset, w->bytes);
    }
  }
  const auto table = ops::rope_table(dp.context, m.config.head_dim, m.config.rope);
  exe.write_segment(Binding::Heap, dp.name("rope"), table.data(), table.size() * 4);
}

void set_batch(Executable& exe, const DecoderProgram& dp, const Model& m, std::span<const uint32_t> tokens, uint32_t pos0) {
  const uint32_t T = uint32_t(tokens.size());
  if (T == 0 || T > dp.max_batch)
    fail(ErrorCode::BadInput, "attention: a run takes 1 to " + std::to_string(dp.max_batch) + " tokens, got " + std::to_string(T));
  if (uint64_t(pos0) + T > dp.context)
    fail(ErrorCode::BadInput, "attention: positions " + std::to_string(pos0) + ".." + std::to_string(pos0 + T - 1) +
                                  " exceed the context of " + std::to_string(dp.context));
  for (uint32_t t = 0; t < T; ++t)
    if (tokens[t] >= m.config.vocab)
      fail(ErrorCode::BadInput, "attention: token id " + std::to_string(tokens[t]) + " at batch position " + std::to_string(t) +
                                    " is not below the vocabulary size " + std::to_string(m.config.vocab));
  exe.write_segment(Binding::Globals, dp.name("tokens"), tokens.data(), uint64_t(T) * 4);
  const uint32_t st[2] = {pos0, T};
  exe.write_segment(Binding::Globals, dp.name("state"), st, sizeof st);
  for (const auto& bs : dp.batch_slots) exe.set_control_word(exe.program().slot_word(bs.slot) + bs.axis, groups_for(T, bs.per));
  // The norm rule's damping acts within one run: the engine starts every run from the Control
  // image (reset_control), where every scale word is 1, as the reference does.
}

void set_sampling(Executable& exe, const DecoderProgram& dp, const Sampling& s) {
  if (!(s.temperature >= 0.0f) || !std::isfinite(s.temperature))
    fail(ErrorCode::BadInput, "attention: temperature must be a finite number >= 0");
  if (s.top_k > kMaxTopK)
    fail(ErrorCode::BadInput, "attention: top-k " + std::to_string(s.top_k) + " is above the device sampler's limit of " + std::to_string(kMaxTopK));
  exe.set_control_word(dp.sampling_words, f32_bits(s.temperature));
  exe.set_control_word(dp.sampling_words + 1, s.top_k);
  exe.set_control_word(dp.sampling_words + 2, s.seed);
}

}  // namespace weft::attention
