// Loading a llama model from GGUF, the tokenizer, and the seeded test model.
#include "model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <unordered_map>

#include "error.h"
#include "quant.h"

namespace weft::attention {

namespace {

// "<0xAB>" -> 0xAB; -1 for any other string.
int byte_token_value(const std::string& s) {
  if (s.size() != 6 || s.compare(0, 3, "<0x") != 0 || s[5] != '>') return -1;
  int v = 0;
  for (int k = 3; k < 5; ++k) {
    const char c = s[k];
    const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

[[noreturn]] void bad(const gguf::File& f, const std::string& msg) { fail(ErrorCode::BadInput, f.source() + ": " + msg); }

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
    bad(f, where + ": type " + gguf::type_name(t.type) + " is not supported (weft attention reads F32, F16, Q8_0 and Q4_0)");
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

  Vocabulary& v = m.vocab;
  v.model = f.get_string("tokenizer.ggml.model", "");
  for (uint32_t& b : v.byte_token) b = UINT32_MAX;
  if (const gguf::Value* toks = f.find("tokenizer.ggml.tokens")) {
    if (toks->type != gguf::ValueType::Array || toks->element != gguf::ValueType::String)
      bad(f, "metadata key 'tokenizer.ggml.tokens' should be an array of strings");
    if (toks->items.size() != c.vocab)
      bad(f, "tokenizer.ggml.tokens has " + std::to_string(toks->items.size()) + " tokens, token_embd.weight has " + std::to_string(c.vocab) + " rows");
    for (const gguf::Value& t : toks->items) v.tokens.push_back(t.s);
    if (const gguf::Value* types = f.find("tokenizer.ggml.token_type")) {
      if (types->type != gguf::ValueType::Array || types->items.size() != c.vocab)
        bad(f, "tokenizer.ggml.token_type should be an array of one integer per token");
      for (const gguf::Value& t : types->items) v.token_types.push_back(int32_t(t.type == gguf::ValueType::I32 ? t.i : int64_t(t.u)));
    }
    for (uint32_t id = 0; id < c.vocab; ++id) {
      const std::string& s = v.tokens[id];
      if (const int byte = byte_token_value(s); byte >= 0 && v.byte_token[byte] == UINT32_MAX) v.byte_token[byte] = id;
      if (s == "\xE2\x96\x81") v.sentencepiece = true;  // U+2581 as a token of its own
    }
  }
  auto id_key = [&](const char* key) -> std::optional<uint32_t> {
    if (!f.find(key)) return std::nullopt;
    const uint64_t id = f.get_uint(key);
    if (id >= c.vocab) bad(f, std::string("metadata key '") + key + "' = " + std::to_string(id) + " is not a token id (vocab " + std::to_string(c.vocab) + ")");
    return uint32_t(id);
  };
  v.bos = id_key("tokenizer.ggml.bos_token_id");
  v.eos = id_key("tokenizer.ggml.eos_token_id");
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

std::vector<uint32_t> tokenize(const Vocabulary& v, const std::string& text, bool bos) {
  if (v.tokens.empty() && !text.empty())
    fail(ErrorCode::BadInput, "tokenize: the model has no vocabulary (no tokenizer.ggml.tokens); give token ids instead of text");
  std::vector<uint32_t> out;
  if (bos && v.bos) out.push_back(*v.bos);
  std::string s = text;
  if (v.sentencepiece) {  // SentencePiece writes spaces as U+2581 and starts words with one
    std::string t = "\xE2\x96\x81";
    for (char ch : text) t += ch == ' ' ? std::string("\xE2\x96\x81") : std::string(1, ch);
    s = t;
  }
  // Longest normal token first; tokens of 1..max_len bytes looked up in a hash of the vocabulary.
  size_t max_len = 0;
  std::unordered_map<std::string, uint32_t> index;
  for (uint32_t id = 0; id < v.tokens.size(); ++id) {
    const int32_t type = id < v.token_types.size() ? v.token_types[id] : 1;
    if (type != 1 || v.tokens[id].empty()) continue;
    index.emplace(v.tokens[id], id);
    max_len = std::max(max_len, v.tokens[id].size());
  }
  for (size_t i = 0; i < s.size();) {
    size_t best = 0;
    uint32_t id = 0;
    for (size_t len = std::min(max_len, s.size() - i); len > 0 && !best; --len)
      if (auto it = index.find(s.substr(i, len)); it != index.end()) {
        best = len;
        id = it->second;
      }
    if (best) {
      out.push_back(id);
      i += best;
      continue;
    }
    const uint8_t byte = uint8_t(s[i]);
    if (v.byte_token[byte] == UINT32_MAX)
      fail(ErrorCode::BadInput, "tokenize: byte " + std::to_string(byte) + " at position " + std::to_string(i) + " of the prompt has no token in this vocabulary");
    out.push_back(v.byte_token[byte]);
    ++i;
  }
  return out;
}

std::string detokenize(const Vocabulary& v, const std::vector<uint32_t>& tokens) {
  std::string out;
  for (uint32_t id : tokens) {
    if (id >= v.tokens.size()) {
      out += "<" + std::to_string(id) + ">";
      continue;
    }
    const std::string& s = v.tokens[id];
    const int32_t type = id < v.token_types.size() ? v.token_types[id] : 1;
    if (type == 3 || type == 2) continue;  // control / unknown: not text
    if (const int byte = byte_token_value(s); byte >= 0) {
      out += char(byte);
      continue;
    }
    for (size_t i = 0; i < s.size(); ++i) {
      if (v.sentencepiece && s.compare(i, 3, "\xE2\x96\x81") == 0) {
        out += ' ';
        i += 2;
      } else {
        out += s[i];
      }
    }
  }
  return out;
}

// ---- seeded model ---------------------------------------------------------------------------

gguf::Writer seeded_model(const SeededOptions& o) {
  if (o.heads == 0 || o.kv_heads == 0 || o.dim % o.heads || o.heads % o.kv_heads || (o.dim / o.heads) % 2 || o.dim % 32 ||
      o.ffn % 32 || o.layers == 0 || o.context == 0)
    fail(ErrorCode::BadInput, "seeded model: dim and ffn must be multiples of 32, heads a multiple of kv_heads dividing dim into even head sizes");
  std::mt19937 rng(o.seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  const uint32_t V = kSeededVocab, hd = o.dim / o.heads;
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
  // Byte-level vocabulary in SentencePiece's naming: <unk>, <s>, </s>, then <0x00>..<0xFF>.
  std::vector<std::string> tokens = {"<unk>", "<s>", "</s>"};
  std::vector<float> scores = {0, 0, 0};
  std::vector<int32_t> types = {2, 3, 3};
  for (int b = 0; b < 256; ++b) {
    char name[8];
    std::snprintf(name, sizeof name, "<0x%02X>", b);
    tokens.push_back(name);
    scores.push_back(0);
    types.push_back(6);
  }
  w.set("tokenizer.ggml.model", gguf::Value::str("llama"));
  w.set("tokenizer.ggml.tokens", gguf::Value::strings(tokens));
  w.set("tokenizer.ggml.scores", gguf::Value::f32s(scores));
  w.set("tokenizer.ggml.token_type", gguf::Value::i32s(types));
  w.set("tokenizer.ggml.bos_token_id", gguf::Value::u32(1));
  w.set("tokenizer.ggml.eos_token_id", gguf::Value::u32(2));
  w.set("tokenizer.ggml.unknown_token_id", gguf::Value::u32(0));

  auto add = [&](const std::string& name, uint64_t cols, uint64_t rows, uint32_t type, const std::vector<float>& v) {
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
