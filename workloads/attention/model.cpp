// Loading a llama model from GGUF, the tokenizer, and the seeded test model.
#include "model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <set>
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

constexpr const char* kRopeFreqs = "rope_freqs.weight";

// rope_freqs.weight: head_dim / 2 positive F32 factors dividing each pair's frequency.
std::vector<float> rope_factors(const gguf::File& f, uint32_t head_dim) {
  const Weight w = weight(f, kRopeFreqs, head_dim / 2, 1, true);
  const auto bytes = f.data_section().subspan(w.offset, w.bytes);
  std::vector<float> v(head_dim / 2);
  std::memcpy(v.data(), bytes.data(), v.size() * 4);
  for (size_t i = 0; i < v.size(); ++i)
    if (!(v[i] > 0) || !std::isfinite(v[i]))
      bad(f, std::string("tensor '") + kRopeFreqs + "': factor " + std::to_string(i) + " is " + std::to_string(v[i]) + ", not a positive number");
  return v;
}

}  // namespace

std::vector<float> llama3_rope_factors(uint32_t head_dim, double base, double factor, double low, double high, double original_context) {
  const double pi = std::acos(-1.0);
  std::vector<float> f(head_dim / 2);
  for (uint32_t i = 0; i < f.size(); ++i) {
    const double wavelength = 2 * pi * std::pow(base, 2.0 * i / double(head_dim));
    if (wavelength < original_context / high) {
      f[i] = 1.0f;
    } else if (wavelength > original_context / low) {
      f[i] = float(factor);
    } else {
      const double smooth = (original_context / wavelength - low) / (high - low);
      f[i] = float(1.0 / ((1 - smooth) / factor + smooth));
    }
  }
  return f;
}

double RopeFrequencies::angle(uint32_t pos, uint32_t pair, uint32_t head_dim) const {
  const double theta = double(pos) * scale * std::pow(base, -2.0 * pair / double(head_dim));
  return factors.empty() ? theta : theta / double(factors[pair]);
}

Model Model::load(const std::string& path) { return from(gguf::File::read(path)); }

namespace {

const char* const kArchitectures[] = {"llama", "qwen2", "qwen3"};

// Hyperparameters from the "<arch>.*" keys, checked against each other.
Config read_config(const gguf::File& f) {
  Config c;
  c.arch = f.get_string("general.architecture");  // required: a model that names none is not assumed llama
  if (std::none_of(std::begin(kArchitectures), std::end(kArchitectures), [&](const char* a) { return c.arch == a; }))
    bad(f, "general.architecture is '" + c.arch + "'; Weft runs llama, qwen2 and qwen3");
  const auto K = [&](const char* key) { return c.arch + "." + key; };
  c.dim = u32_key(f, K("embedding_length"));
  c.layers = u32_key(f, K("block_count"));
  c.ffn = u32_key(f, K("feed_forward_length"));
  c.heads = u32_key(f, K("attention.head_count"));
  c.kv_heads = u32_key(f, K("attention.head_count_kv"), c.heads);
  c.context = u32_key(f, K("context_length"));
  c.rope.base = f.get_float(K("rope.freq_base"), 10000.0);
  c.rms_eps = float(f.get_float(K("attention.layer_norm_rms_epsilon"), 1e-5));
  c.rope_neox = c.arch != "llama";
  if (c.heads % c.kv_heads)
    bad(f, K("attention.head_count") + " " + std::to_string(c.heads) + " is not a multiple of " + K("attention.head_count_kv") + " " + std::to_string(c.kv_heads));
  if (f.find(K("attention.key_length"))) {
    c.head_dim = u32_key(f, K("attention.key_length"));
  } else {
    if (c.dim % c.heads) bad(f, K("embedding_length") + " " + std::to_string(c.dim) + " is not a multiple of " + K("attention.head_count") + " " + std::to_string(c.heads));
    c.head_dim = c.dim / c.heads;
  }
  if (f.get_uint(K("attention.value_length"), c.head_dim) != c.head_dim) bad(f, K("attention.value_length") + " differs from the key length");
  if (c.head_dim % 2) bad(f, "head dimension " + std::to_string(c.head_dim) + " is odd; RoPE rotates pairs");
  const uint64_t rope_dims = f.get_uint(K("rope.dimension_count"), c.head_dim);
  if (rope_dims != c.head_dim)
    bad(f, K("rope.dimension_count") + " " + std::to_string(rope_dims) + " differs from the head dimension " + std::to_string(c.head_dim) + " (partial RoPE is not supported)");
  const std::string scaling = f.get_string(K("rope.scaling.type"), "none");
  if (scaling == "linear") {
    const double factor = f.get_float(K("rope.scaling.factor"), 0.0);
    if (!(factor > 0) || !std::isfinite(factor)) bad(f, K("rope.scaling.factor") + " must be a positive number for linear RoPE scaling");
    c.rope.scale = 1.0 / factor;
  } else if (scaling != "none") {
    bad(f, K("rope.scaling.type") + " is '" + scaling + "'; Weft's RoPE takes none or linear scaling (and rope_freqs.weight)");
  }
  if (!(c.rope.base > 0) || !std::isfinite(c.rope.base)) bad(f, K("rope.freq_base") + " must be a positive number");
  if (!(c.rms_eps > 0) || !std::isfinite(c.rms_eps)) bad(f, K("attention.layer_norm_rms_epsilon") + " must be a positive number");
  return c;
}

// A vector weight that may be absent.
std::optional<Weight> optional_vector(const gguf::File& f, const std::string& name, uint64_t n) {
  if (!f.find_tensor(name)) return std::nullopt;
  return weight(f, name, n, 1, true);
}

LayerWeights read_layer(const gguf::File& f, const Config& c, uint32_t l) {
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
  w.bq = optional_vector(f, b + "attn_q.bias", c.q_dim());
  w.bk = optional_vector(f, b + "attn_k.bias", c.kv_dim());
  w.bv = optional_vector(f, b + "attn_v.bias", c.kv_dim());
  if (c.arch == "qwen2" && !(w.bq && w.bk && w.bv)) bad(f, "qwen2 layer " + std::to_string(l) + " lacks its attn_q/k/v.bias tensors");
  if (c.arch == "qwen3") {
    w.q_norm = weight(f, b + "attn_q_norm.weight", c.head_dim, 1, true);
    w.k_norm = weight(f, b + "attn_k_norm.weight", c.head_dim, 1, true);
  }
  return w;
}

}  // namespace

Model Model::from(gguf::File file) {
  Model m;
  const gguf::File& f = file;
  Config& c = m.config;
  c = read_config(f);
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
  for (uint32_t l = 0; l < c.layers; ++l) m.layers.push_back(read_layer(f, c, l));
  if (f.find_tensor(kRopeFreqs)) m.config.rope.factors = rope_factors(f, c.head_dim);
  // A tensor the decoder would not read (an output bias, an extra layer) changes what the model
  // computes: refused rather than left out.
  std::set<std::string> used = {m.token_embd.name, "output.weight", kRopeFreqs};
  for (const Weight* w : m.weights()) used.insert(w->name);
  for (const gguf::TensorInfo& t : f.tensors())
    if (!used.count(t.name)) bad(f, "tensor '" + t.name + "' is not part of Weft's " + c.arch + " decoder (not supported)");
  m.vocab = read_vocabulary(f, c.vocab);
  m.file = std::move(file);
  return m;
}

std::vector<const Weight*> Model::weights() const {
  std::vector<const Weight*> w;
  for (const LayerWeights& l : layers) {
    for (const Weight* x : {&l.attn_norm, &l.wq, &l.wk, &l.wv, &l.wo, &l.ffn_norm, &l.gate, &l.up, &l.down}) w.push_back(x);
    for (const std::optional<Weight>* x : {&l.bq, &l.bk, &l.bv, &l.q_norm, &l.k_norm})
      if (*x) w.push_back(&**x);
  }
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
  if (o.heads == 0 || o.kv_heads == 0 || (!o.head_dim && o.dim % o.heads) || o.heads % o.kv_heads ||
      (o.head_dim ? o.head_dim : o.dim / o.heads) % 2 || o.dim % 32 || o.ffn % 32 || o.layers == 0 || o.context == 0)
    fail(ErrorCode::BadInput, "seeded model: dim and ffn must be multiples of 32, heads a multiple of kv_heads dividing dim into even head sizes");
  if (o.arch != "llama" && o.arch != "qwen2" && o.arch != "qwen3")
    fail(ErrorCode::BadInput, "seeded model: architecture '" + o.arch + "' is none of llama, qwen2, qwen3");
  std::mt19937 rng(o.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  if (o.vocabulary && (o.vocabulary->tokens.empty() || o.vocabulary->tokens.size() >= (1u << 31)))
    fail(ErrorCode::BadInput, "seeded model: the vocabulary must have 1 .. 2^31-1 tokens");
  const uint32_t V = o.vocabulary ? uint32_t(o.vocabulary->tokens.size()) : kSeededVocab;
  const uint32_t hd = o.head_dim ? o.head_dim : o.dim / o.heads, qd = o.heads * hd, kvd = o.kv_heads * hd;
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
  const auto K = [&](const char* key) { return o.arch + "." + key; };
  w.set("general.architecture", gguf::Value::str(o.arch));
  w.set("general.name", gguf::Value::str("weft-seeded-" + o.arch));
  w.set(K("context_length"), gguf::Value::u32(o.context));
  w.set(K("embedding_length"), gguf::Value::u32(o.dim));
  w.set(K("block_count"), gguf::Value::u32(o.layers));
  w.set(K("feed_forward_length"), gguf::Value::u32(o.ffn));
  w.set(K("attention.head_count"), gguf::Value::u32(o.heads));
  w.set(K("attention.head_count_kv"), gguf::Value::u32(o.kv_heads));
  w.set(K("rope.freq_base"), gguf::Value::f32(o.rope_base));
  if (o.rope_linear_factor > 0) {
    w.set(K("rope.scaling.type"), gguf::Value::str("linear"));
    w.set(K("rope.scaling.factor"), gguf::Value::f32(o.rope_linear_factor));
  }
  w.set(K("rope.dimension_count"), gguf::Value::u32(hd));
  w.set(K("attention.layer_norm_rms_epsilon"), gguf::Value::f32(o.rms_eps));
  if (o.head_dim) {
    w.set(K("attention.key_length"), gguf::Value::u32(hd));
    w.set(K("attention.value_length"), gguf::Value::u32(hd));
  }
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
    add(b + "attn_q.weight", o.dim, qd, o.attn_type, matrix(qd, o.dim, in_scale));
    add(b + "attn_k.weight", o.dim, kvd, o.attn_type, matrix(kvd, o.dim, in_scale));
    add(b + "attn_v.weight", o.dim, kvd, o.attn_type, matrix(kvd, o.dim, in_scale));
    add(b + "attn_output.weight", qd, o.dim, o.attn_type, matrix(o.dim, qd, 1.0f / std::sqrt(float(qd))));
    add(b + "ffn_norm.weight", o.dim, 1, gguf::type::F32, norm(o.dim));
    add(b + "ffn_gate.weight", o.dim, o.ffn, o.ffn_type, matrix(o.ffn, o.dim, in_scale));
    add(b + "ffn_up.weight", o.dim, o.ffn, o.ffn_type, matrix(o.ffn, o.dim, in_scale));
    add(b + "ffn_down.weight", o.ffn, o.dim, o.ffn_type, matrix(o.dim, o.ffn, ffn_scale));
    if (o.arch == "qwen2") {
      add(b + "attn_q.bias", qd, 1, gguf::type::F32, matrix(qd, 1, 0.5f));
      add(b + "attn_k.bias", kvd, 1, gguf::type::F32, matrix(kvd, 1, 0.5f));
      add(b + "attn_v.bias", kvd, 1, gguf::type::F32, matrix(kvd, 1, 0.5f));
    }
    if (o.arch == "qwen3") {
      add(b + "attn_q_norm.weight", hd, 1, gguf::type::F32, norm(hd));
      add(b + "attn_k_norm.weight", hd, 1, gguf::type::F32, norm(hd));
    }
  }
  add("output_norm.weight", o.dim, 1, gguf::type::F32, norm(o.dim));
  if (!o.tied) add("output.weight", o.dim, V, o.output_type, matrix(V, o.dim, 2.0f * in_scale));
  if (!o.rope_freq_factors.empty()) {
    if (o.rope_freq_factors.size() != hd / 2)
      fail(ErrorCode::BadInput, "seeded model: " + std::to_string(o.rope_freq_factors.size()) + " RoPE frequency factors, the head dimension " +
                                    std::to_string(hd) + " needs " + std::to_string(hd / 2));
    w.add_tensor("rope_freqs.weight", {hd / 2}, gguf::type::F32, encode(gguf::type::F32, o.rope_freq_factors));
  }
  return w;
}

void write_seeded_model(const std::string& path, const SeededOptions& o) { seeded_model(o).write(path); }

}  // namespace weft::attention
