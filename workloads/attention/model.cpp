// Loading a llama model from GGUF, the tokenizer, and the seeded test model.
#include "model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <unordered_map>

#include "error.h"
#include "gguf_vocabulary.h"
#include "quant.h"

namespace weft::attention {

namespace {

[[noreturn]] void bad(const gguf::File& f, const std::string& msg) { fail(ErrorCode::BadInput, f.source() + ": " + msg); }

// The tokenizer.ggml.* values, typed; the tokenizer library decides what they mean.
Vocabulary read_vocabulary(const gguf::File& f, uint32_t rows) {
  Vocabulary v;
  const gguf::Value* toks = f.find("tokenizer.ggml.tokens");
  if (!toks) return v;
  const auto array_of = [&](const char* key, std::initializer_list<gguf::ValueType> element) -> const gguf::Value* {
    const gguf::Value* a = f.find(key);
    if (!a) return nullptr;
    if (a->type != gguf::ValueType::Array || std::find(element.begin(), element.end(), a->element) == element.end())
      bad(f, std::string("metadata key '") + key + "' has the wrong type for its values");
    return a;
  };
  array_of("tokenizer.ggml.tokens", {gguf::ValueType::String});
  if (toks->items.size() != rows)
    bad(f, "tokenizer.ggml.tokens has " + std::to_string(toks->items.size()) + " tokens, token_embd.weight has " + std::to_string(rows) + " rows");
  tokenizer::GgufVocabulary g;
  g.source = f.source();
  g.general_name = f.get_string("general.name", "");
  g.model = f.get_string("tokenizer.ggml.model", "");
  g.pre = f.get_string("tokenizer.ggml.pre", "");
  for (const gguf::Value& t : toks->items) g.tokens.push_back(t.s);
  if (const gguf::Value* a = array_of("tokenizer.ggml.scores", {gguf::ValueType::F32, gguf::ValueType::I32}))
    for (const gguf::Value& x : a->items) g.scores.push_back(x.type == gguf::ValueType::I32 ? float(x.i) : float(x.f));
  if (const gguf::Value* a = array_of("tokenizer.ggml.token_type", {gguf::ValueType::I32}))
    for (const gguf::Value& x : a->items) g.token_types.push_back(int32_t(x.i));
  if (const gguf::Value* a = array_of("tokenizer.ggml.merges", {gguf::ValueType::String}))
    for (const gguf::Value& x : a->items) g.merges.push_back(x.s);
  const auto id_key = [&](const char* key) -> std::optional<uint32_t> {
    if (!f.find(key)) return std::nullopt;
    const uint64_t id = f.get_uint(key);
    if (id >= rows) bad(f, std::string("metadata key '") + key + "' = " + std::to_string(id) + " is not a token id (vocab " + std::to_string(rows) + ")");
    return uint32_t(id);
  };
  const auto flag = [&](const char* key) -> std::optional<bool> {
    const gguf::Value* b = f.find(key);
    if (!b) return std::nullopt;
    if (b->type != gguf::ValueType::Bool) bad(f, std::string("metadata key '") + key + "' should be a boolean");
    return b->u != 0;
  };
  g.bos = id_key("tokenizer.ggml.bos_token_id");
  g.eos = id_key("tokenizer.ggml.eos_token_id");
  g.unk = id_key("tokenizer.ggml.unknown_token_id");
  g.add_bos = flag("tokenizer.ggml.add_bos_token");
  g.add_eos = flag("tokenizer.ggml.add_eos_token");
  g.add_space_prefix = flag("tokenizer.ggml.add_space_prefix");
  v.bos = g.bos;
  v.eos = g.eos;
  v.tokenizer.emplace(tokenizer::tokenizer_from_gguf(g));
  return v;
}

uint32_t u32_key(const gguf::File& f, const std::string& key, std::optional<uint32_t> fallback = {}) {
  const uint64_t v = fallback ? f.get_uint(key, *fallback) : f.get_uint(key);
  if (v == 0 || v > 0x7FFFFFFFu) bad(f, "metadata key '" + key + "' = " + std::to_string(v) + " is out of range");
  return uint32_t(v);
}

// The tensor `name` as a [rows x cols] weight; BadInput naming it when absent, of the wrong
// shape ("wrong dims") or of an unsupported type.
Weight weight(const gguf::File& f, const std::string& name, uint64_t cols, uint64_t rows, bool f32_only = false) {
  const gguf::TensorInfo& t = f.tensor(name);
  const std::string where = "tensor '" + name + "' (info at offset " + std::to_string(t.info_offset) + ")";
  std::vector<uint64_t> want = {cols};
  if (rows != 1) want.push_back(rows);
  auto shape = [](const std::vector<uint64_t>& d) {
    std::string s = "[";
    for (size_t k = 0; k < d.size(); ++k) s += (k ? ", " : "") + std::to_string(d[k]);
    return s + "]";
  };
  // Trailing dimensions of 1 are the same shape (ggml writes [n] or [n, 1] for vectors).
  std::vector<uint64_t> got = t.dims;
  while (got.size() > want.size() && got.back() == 1) got.pop_back();
  if (got != want) bad(f, where + ": wrong dims " + shape(t.dims) + ", the model's hyperparameters need " + shape(want));
  if (f32_only && t.type != gguf::type::F32)
    bad(f, where + ": type " + gguf::type_name(t.type) + " is not supported for a norm weight (F32 is)");
  if (!supported_weight_type(t.type))
    bad(f, where + ": type " + gguf::type_name(t.type) + " is not supported (weft attention reads " + supported_weight_type_names() + ")");
  if (t.offset % 4) bad(f, where + ": data at offset " + std::to_string(t.offset) + " of the data section is not 4-byte aligned");
  return Weight{name, t.type, cols, rows, t.offset, t.bytes};
}

}  // namespace

Model Model::load(const std::string& path) { return from(gguf::File::read(path)); }

Model Model::from(gguf::File file) {
  Model m;
  const gguf::File& f = file;
  const std::string arch = f.get_string("general.architecture");  // required: a model that names none is not assumed llama
  if (arch != "llama") bad(f, "general.architecture is '" + arch + "'; only 'llama' is supported");
  Config& c = m.config;
  c.dim = u32_key(f, "llama.embedding_length");
  c.layers = u32_key(f, "llama.block_count");
  c.ffn = u32_key(f, "llama.feed_forward_length");
  c.heads = u32_key(f, "llama.attention.head_count");
  c.kv_heads = u32_key(f, "llama.attention.head_count_kv", c.heads);
  c.context = u32_key(f, "llama.context_length");
  c.rope_base = float(f.get_float("llama.rope.freq_base", 10000.0));
  c.rms_eps = float(f.get_float("llama.attention.layer_norm_rms_epsilon", 1e-5));
  if (c.dim % c.heads) bad(f, "llama.embedding_length " + std::to_string(c.dim) + " is not a multiple of llama.attention.head_count " + std::to_string(c.heads));
  if (c.heads % c.kv_heads)
    bad(f, "llama.attention.head_count " + std::to_string(c.heads) + " is not a multiple of llama.attention.head_count_kv " + std::to_string(c.kv_heads));
  c.head_dim = c.dim / c.heads;
  if (c.head_dim % 2) bad(f, "head dimension " + std::to_string(c.head_dim) + " is odd; RoPE rotates pairs");
  const uint64_t rope_dims = f.get_uint("llama.rope.dimension_count", c.head_dim);
  if (rope_dims != c.head_dim)
    bad(f, "llama.rope.dimension_count " + std::to_string(rope_dims) + " differs from the head dimension " + std::to_string(c.head_dim) + " (partial RoPE is not supported)");
  if (!(c.rope_base > 0) || !std::isfinite(c.rope_base)) bad(f, "llama.rope.freq_base must be a positive number");
  if (!(c.rms_eps > 0) || !std::isfinite(c.rms_eps)) bad(f, "llama.attention.layer_norm_rms_epsilon must be a positive number");
  const uint64_t key_len = f.get_uint("llama.attention.key_length", c.head_dim), value_len = f.get_uint("llama.attention.value_length", c.head_dim);
  if (key_len != c.head_dim || value_len != c.head_dim) bad(f, "llama.attention.key_length/value_length differ from embedding_length / head_count");

  const gguf::TensorInfo& emb = f.tensor("token_embd.weight");
  if (emb.dims.size() < 2 || emb.dims[1] > 0x7FFFFFFFu) bad(f, "tensor 'token_embd.weight': wrong dims, expected [embedding_length, vocab]");
  c.vocab = uint32_t(emb.dims[1]);
  m.token_embd = weight(f, "token_embd.weight", c.dim, c.vocab);
  m.output_norm = weight(f, "output_norm.weight", c.dim, 1, true);
  if (f.find_tensor("output.weight")) {
    m.output = weight(f, "output.weight", c.dim, c.vocab);
  } else {
    m.output = m.token_embd;
    m.tied = true;
  }
  for (uint32_t l = 0; l < c.layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    LayerWeights w;
    w.attn_norm = weight(f, b + "attn_norm.weight", c.dim, 1, true);
    w.wq = weight(f, b + "attn_q.weight", c.dim, c.q_dim());
    w.wk = weight(f, b + "attn_k.weight", c.dim, c.kv_dim());
    w.wv = weight(f, b + "attn_v.weight", c.dim, c.kv_dim());
    w.wo = weight(f, b + "attn_output.weight", c.q_dim(), c.dim);
    w.ffn_norm = weight(f, b + "ffn_norm.weight", c.dim, 1, true);
    w.gate = weight(f, b + "ffn_gate.weight", c.dim, c.ffn);
    w.up = weight(f, b + "ffn_up.weight", c.dim, c.ffn);
    w.down = weight(f, b + "ffn_down.weight", c.ffn, c.dim);
    m.layers.push_back(w);
  }

  m.vocab = read_vocabulary(f, c.vocab);
  m.file = std::move(file);
  return m;
}

std::vector<const Weight*> Model::weights() const {
  std::vector<const Weight*> w;
  for (const LayerWeights& l : layers)
    for (const Weight* x : {&l.attn_norm, &l.wq, &l.wk, &l.wv, &l.wo, &l.ffn_norm, &l.gate, &l.up, &l.down}) w.push_back(x);
  w.push_back(&output_norm);
  w.push_back(&output);
  return w;
}

uint64_t Model::weight_bytes() const {
  uint64_t b = token_embd.row_bytes();
  for (const Weight* w : weights()) b += w->bytes;
  return b;
}

// ---- tokenizer ------------------------------------------------------------------------------

std::vector<uint32_t> tokenize(const Vocabulary& v, const std::string& text, bool add_special) {
  if (!v.tokenizer)
    fail(ErrorCode::BadInput, "tokenize: the model has no vocabulary (no tokenizer.ggml.tokens); give token ids instead of text");
  return v.tokenizer->encode(text, add_special);
}

std::string detokenize(const Vocabulary& v, const std::vector<uint32_t>& tokens) {
  if (!v.tokenizer) fail(ErrorCode::BadInput, "detokenize: the model has no vocabulary (no tokenizer.ggml.tokens)");
  return v.tokenizer->decode(tokens, true);
}

std::string token_text(const Vocabulary& v, uint32_t token) {
  if (!v.tokenizer || v.tokenizer->is_special(token)) return {};
  return v.tokenizer->token_bytes(token);
}

// ---- seeded model ---------------------------------------------------------------------------

namespace {

// Byte-level vocabulary in SentencePiece's naming: <unk>, <s>, </s>, then <0x00>..<0xFF>.
tokenizer::GgufVocabulary byte_vocabulary() {
  tokenizer::GgufVocabulary v;
  v.model = "llama";
  v.tokens = {"<unk>", "<s>", "</s>"};
  v.scores = {0, 0, 0};
  v.token_types = {2, 3, 3};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    v.tokens.push_back(name);
    v.scores.push_back(0);
    v.token_types.push_back(6);
  }
  v.bos = 1, v.eos = 2, v.unk = 0;
  v.add_space_prefix = false;  // without a U+2581 piece a space prefix would only cost three byte tokens
  return v;
}

void write_vocabulary(gguf::Writer& w, const tokenizer::GgufVocabulary& v) {
  w.set("tokenizer.ggml.model", gguf::Value::str(v.model));
  if (!v.pre.empty()) w.set("tokenizer.ggml.pre", gguf::Value::str(v.pre));
  w.set("tokenizer.ggml.tokens", gguf::Value::strings(v.tokens));
  if (!v.scores.empty()) w.set("tokenizer.ggml.scores", gguf::Value::f32s(v.scores));
  if (!v.token_types.empty()) w.set("tokenizer.ggml.token_type", gguf::Value::i32s(v.token_types));
  if (!v.merges.empty()) w.set("tokenizer.ggml.merges", gguf::Value::strings(v.merges));
  for (const auto& [key, id] : {std::pair{"tokenizer.ggml.bos_token_id", v.bos}, std::pair{"tokenizer.ggml.eos_token_id", v.eos},
                                std::pair{"tokenizer.ggml.unknown_token_id", v.unk}})
    if (id) w.set(key, gguf::Value::u32(*id));
  for (const auto& [key, flag] : {std::pair{"tokenizer.ggml.add_bos_token", v.add_bos}, std::pair{"tokenizer.ggml.add_eos_token", v.add_eos},
                                  std::pair{"tokenizer.ggml.add_space_prefix", v.add_space_prefix}})
    if (flag) w.set(key, gguf::Value::boolean(*flag));
}

}  // namespace

gguf::Writer seeded_model(const SeededOptions& o) {
  if (o.heads == 0 || o.kv_heads == 0 || o.dim % o.heads || o.heads % o.kv_heads || (o.dim / o.heads) % 2 || o.dim % 32 ||
      o.ffn % 32 || o.layers == 0 || o.context == 0)
    fail(ErrorCode::BadInput, "seeded model: dim and ffn must be multiples of 32, heads a multiple of kv_heads dividing dim into even head sizes");
  std::mt19937 rng(o.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  if (o.vocabulary && (o.vocabulary->tokens.empty() || o.vocabulary->tokens.size() >= (1u << 31)))
    fail(ErrorCode::BadInput, "seeded model: the vocabulary must have 1 .. 2^31-1 tokens");
  const uint32_t V = o.vocabulary ? uint32_t(o.vocabulary->tokens.size()) : kSeededVocab, hd = o.dim / o.heads;
  auto matrix = [&](uint64_t rows, uint64_t cols, float scale) {
    std::vector<float> w(rows * cols);
    for (float& x : w) x = normal(rng) * scale;
    return w;
  };
  auto norm = [&](uint64_t n) {
    std::vector<float> w(n);
    for (float& x : w) x = 1.0f + 0.1f * normal(rng);
    return w;
  };
  gguf::Writer w;
  w.set("general.architecture", gguf::Value::str("llama"));
  w.set("general.name", gguf::Value::str("weft-seeded-llama"));
  w.set("llama.context_length", gguf::Value::u32(o.context));
  w.set("llama.embedding_length", gguf::Value::u32(o.dim));
  w.set("llama.block_count", gguf::Value::u32(o.layers));
  w.set("llama.feed_forward_length", gguf::Value::u32(o.ffn));
  w.set("llama.attention.head_count", gguf::Value::u32(o.heads));
  w.set("llama.attention.head_count_kv", gguf::Value::u32(o.kv_heads));
  w.set("llama.rope.freq_base", gguf::Value::f32(o.rope_base));
  w.set("llama.rope.dimension_count", gguf::Value::u32(hd));
  w.set("llama.attention.layer_norm_rms_epsilon", gguf::Value::f32(o.rms_eps));
  write_vocabulary(w, o.vocabulary ? *o.vocabulary : byte_vocabulary());
  auto add = [&](const std::string& name, uint64_t cols, uint64_t rows, uint32_t type, const std::vector<float>& v) {
    if (const gguf::TypeTraits* tr = gguf::type_traits(type); !tr || cols % tr->block_elements)
      fail(ErrorCode::BadInput, "seeded model: tensor '" + name + "' has rows of " + std::to_string(cols) + " elements, not whole " +
                                    gguf::type_name(type) + " blocks" + (tr ? " of " + std::to_string(tr->block_elements) : ""));
    std::vector<uint64_t> dims = {cols};
    if (rows != 1) dims.push_back(rows);
    w.add_tensor(name, dims, type, encode(type, v));
  };
  const float in_scale = 1.0f / std::sqrt(float(o.dim)), ffn_scale = 1.0f / std::sqrt(float(o.ffn));
  add("token_embd.weight", o.dim, V, o.embd_type, matrix(V, o.dim, 1.0f));
  for (uint32_t l = 0; l < o.layers; ++l) {
    const std::string b = "blk." + std::to_string(l) + ".";
    add(b + "attn_norm.weight", o.dim, 1, gguf::type::F32, norm(o.dim));
    add(b + "attn_q.weight", o.dim, o.dim, o.attn_type, matrix(o.dim, o.dim, in_scale));
    add(b + "attn_k.weight", o.dim, uint64_t(o.kv_heads) * hd, o.attn_type, matrix(uint64_t(o.kv_heads) * hd, o.dim, in_scale));
    add(b + "attn_v.weight", o.dim, uint64_t(o.kv_heads) * hd, o.attn_type, matrix(uint64_t(o.kv_heads) * hd, o.dim, in_scale));
    add(b + "attn_output.weight", o.dim, o.dim, o.attn_type, matrix(o.dim, o.dim, in_scale));
    add(b + "ffn_norm.weight", o.dim, 1, gguf::type::F32, norm(o.dim));
    add(b + "ffn_gate.weight", o.dim, o.ffn, o.ffn_type, matrix(o.ffn, o.dim, in_scale));
    add(b + "ffn_up.weight", o.dim, o.ffn, o.ffn_type, matrix(o.ffn, o.dim, in_scale));
    add(b + "ffn_down.weight", o.ffn, o.dim, o.ffn_type, matrix(o.dim, o.ffn, ffn_scale));
  }
  add("output_norm.weight", o.dim, 1, gguf::type::F32, norm(o.dim));
  if (!o.tied) add("output.weight", o.dim, V, o.output_type, matrix(V, o.dim, 2.0f * in_scale));
  return w;
}

void write_seeded_model(const std::string& path, const SeededOptions& o) { seeded_model(o).write(path); }

}  // namespace weft::attention
