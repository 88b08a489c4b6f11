// The Vulkan-free half of the attention workload: the GGUF container, the llama model table and
// the weight encodings. Expected values come from the GGUF layout and ggml's block formats as
// documented (hand-computed bytes), not from the code under test; every malformed file must be
// a weft::Error BadInput whose message names the file, the byte offset and the key or tensor.
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "error.h"
#include "gguf.h"
#include "model.h"
#include "bits.h"
#include "byte_level.h"
#include "quant.h"

namespace {

using namespace weft;
using namespace weft::attention;
namespace fs = std::filesystem;

template <class T>
void put(std::vector<uint8_t>& b, T v) {
  const auto* p = reinterpret_cast<const uint8_t*>(&v);
  b.insert(b.end(), p, p + sizeof v);
}
void put_str(std::vector<uint8_t>& b, const std::string& s) {
  put<uint64_t>(b, s.size());
  b.insert(b.end(), s.begin(), s.end());
}

// The message of the BadInput that `f` throws; FAILs on success or another error.
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::BadInput);
    return e.what();
  }
  FAIL("accepted");
  return {};
}

bool has(const std::string& msg, const std::string& part) {
  if (msg.find(part) != std::string::npos) return true;
  MESSAGE("'" << msg << "' does not contain '" << part << "'");
  return false;
}

std::vector<uint8_t> seeded_bytes(SeededOptions o = {}) { return seeded_model(o).bytes(); }

// Byte offset of the ggml type field of tensor `name` in a file's header.
uint64_t type_field(const std::vector<uint8_t>& bytes, const std::string& name) {
  const gguf::File f = gguf::File::parse(bytes, "<probe>");
  const gguf::TensorInfo& t = f.tensor(name);
  return t.info_offset + 8 + t.name.size() + 4 + 8 * t.dims.size();
}

}  // namespace

TEST_CASE("attention gguf: a hand-built file is read field by field") {
  // Version 3, 1 tensor, 3 metadata pairs, laid out by hand from the GGUF specification.
  std::vector<uint8_t> b = {'G', 'G', 'U', 'F'};
  put<uint32_t>(b, 3);
  put<uint64_t>(b, 1);
  put<uint64_t>(b, 3);
  put_str(b, "a.u32");
  put<uint32_t>(b, 4);
  put<uint32_t>(b, 77);
  put_str(b, "a.str");
  put<uint32_t>(b, 8);
  put_str(b, "hi");
  put_str(b, "a.arr");
  put<uint32_t>(b, 9);
  put<uint32_t>(b, 6);  // f32 items
  put<uint64_t>(b, 2);
  put<float>(b, 1.5f);
  put<float>(b, -2.0f);
  put_str(b, "t");
  put<uint32_t>(b, 2);
  put<uint64_t>(b, 3);
  put<uint64_t>(b, 2);
  put<uint32_t>(b, gguf::type::F32);
  put<uint64_t>(b, 0);
  const size_t header = b.size();
  b.resize((header + 31) / 32 * 32, 0);
  const size_t data = b.size();
  for (int k = 0; k < 6; ++k) put<float>(b, float(k) * 0.25f);

  const gguf::File f = gguf::File::parse(b, "hand.gguf");
  CHECK(f.version() == 3);
  CHECK(f.data_offset() == data);
  CHECK(f.get_uint("a.u32") == 77);
  CHECK(f.get_string("a.str") == "hi");
  const gguf::Value* arr = f.find("a.arr");
  REQUIRE(arr != nullptr);
  REQUIRE(arr->items.size() == 2);
  CHECK(arr->items[1].f == -2.0);
  REQUIRE(f.tensors().size() == 1);
  const gguf::TensorInfo& t = f.tensor("t");
  CHECK(t.dims == std::vector<uint64_t>{3, 2});
  CHECK(t.elements == 6);
  CHECK(t.bytes == 24);
  CHECK(t.file_offset == data);
  CHECK(decode(t.type, f.data(t), 6)[5] == 1.25f);
  CHECK(has(refusal([&] { f.get_string("a.u32"); }), "metadata key 'a.u32' should be a string"));
  CHECK(has(refusal([&] { f.get_uint("missing"); }), "hand.gguf: missing metadata key 'missing'"));
  CHECK(has(refusal([&] { f.tensor("nope"); }), "hand.gguf: missing tensor 'nope'"));

  // The writer produces the same bytes for the same content (it also pads the end of the data).
  gguf::Writer w;
  w.set("a.u32", gguf::Value::u32(77));
  w.set("a.str", gguf::Value::str("hi"));
  w.set("a.arr", gguf::Value::f32s({1.5f, -2.0f}));
  std::vector<uint8_t> tdata(b.begin() + long(data), b.end());
  w.add_tensor("t", {3, 2}, gguf::type::F32, tdata);
  std::vector<uint8_t> padded = b;
  padded.resize((b.size() + 31) / 32 * 32, 0);
  CHECK(w.bytes() == padded);
}

TEST_CASE("attention gguf: bad magic and unsupported versions are named") {
  std::vector<uint8_t> b = seeded_bytes();
  std::vector<uint8_t> bad = b;
  std::memcpy(bad.data(), "GGML", 4);
  const std::string m = refusal([&] { gguf::File::parse(bad, "model.gguf"); });
  CHECK(has(m, "model.gguf: offset 0: bad magic"));
  CHECK(has(m, "not a GGUF file"));
  CHECK(has(refusal([&] { gguf::File::parse(std::vector<uint8_t>{'G', 'G'}, "x.gguf"); }), "x.gguf: offset 0: truncated"));
  for (uint32_t v : {1u, 4u}) {
    std::vector<uint8_t> w = b;
    std::memcpy(w.data() + 4, &v, 4);
    const std::string mv = refusal([&] { gguf::File::parse(w, "v.gguf"); });
    CHECK(has(mv, "v.gguf: offset 4:"));
    CHECK(has(mv, "version " + std::to_string(v)));
  }
  CHECK(has(refusal([&] { gguf::File::read("/nonexistent/dir/m.gguf"); }), "/nonexistent/dir/m.gguf: cannot open"));
  // Regressions: /dev/zero grew to 6-7 GiB before; a directory was an "unexpected error".
  CHECK(has(refusal([&] { gguf::File::read("/dev/zero"); }), "/dev/zero: cannot open the file (not a regular file"));
  CHECK(has(refusal([&] { gguf::File::read("/tmp"); }), "/tmp: cannot open the file (it is a directory)"));
}

TEST_CASE("attention gguf: every truncation of a model is refused with the place named") {
  SeededOptions o;
  o.dim = 32;
  o.ffn = 32;
  o.layers = 1;
  o.heads = 2;
  o.kv_heads = 1;
  o.tied = true;
  const std::vector<uint8_t> b = seeded_bytes(o);
  const gguf::File whole = gguf::File::parse(b, "<whole>");
  uint64_t data_end = 0;
  for (const auto& t : whole.tensors()) data_end = std::max(data_end, t.file_offset + t.bytes);
  CHECK(Model::from(whole).config.dim == 32);
  // Every length short of the last tensor's end: header cuts say "truncated", data cuts say
  // which tensor's data is out of bounds.
  uint32_t header_cuts = 0, data_cuts = 0;
  for (uint64_t n = 0; n < data_end; n += (n < whole.data_offset() ? 7 : 331)) {
    const std::string m = refusal([&] { gguf::File::parse(std::span<const uint8_t>(b.data(), n), "cut.gguf"); });
    CHECK(has(m, "cut.gguf: offset "));
    if (n < whole.data_offset()) {
      header_cuts++;
      CHECK(has(m, "truncated"));
    } else {
      data_cuts++;
      CHECK(has(m, "data out of bounds"));
      CHECK(has(m, "tensor '"));
    }
  }
  CHECK(header_cuts > 100);
  CHECK(data_cuts > 10);
}

TEST_CASE("attention gguf: unsupported tensor types are refused naming the tensor and the type") {
  SeededOptions o;
  o.attn_type = gguf::type::F16;
  const std::vector<uint8_t> b = seeded_bytes(o);
  const uint64_t at = type_field(b, "blk.0.attn_q.weight");

  // I16 has F16's size, so the container reads; the model refuses it (no weight is stored so).
  std::vector<uint8_t> i16 = b;
  const uint32_t t_i16 = gguf::type::I16;
  std::memcpy(i16.data() + at, &t_i16, 4);
  const std::string m1 = refusal([&] { Model::from(gguf::File::parse(i16, "i16.gguf")); });
  CHECK(has(m1, "i16.gguf: tensor 'blk.0.attn_q.weight'"));
  CHECK(has(m1, "type I16 is not supported (weft attention reads F32, F16, BF16, Q8_0"));

  // A type id ggml does not have.
  std::vector<uint8_t> unknown = b;
  const uint32_t t17 = 17;
  std::memcpy(unknown.data() + at, &t17, 4);
  const std::string m2 = refusal([&] { gguf::File::parse(unknown, "u.gguf"); });
  CHECK(has(m2, "u.gguf: offset " + std::to_string(at)));
  CHECK(has(m2, "tensor 'blk.0.attn_q.weight'"));
  CHECK(has(m2, "unknown ggml tensor type 17"));

  // A K-quant: its 256-element blocks do not divide a 64-element row.
  std::vector<uint8_t> q4k = b;
  const uint32_t t_q4k = gguf::type::Q4_K;
  std::memcpy(q4k.data() + at, &t_q4k, 4);
  const std::string m3 = refusal([&] { gguf::File::parse(q4k, "k.gguf"); });
  CHECK(has(m3, "tensor 'blk.0.attn_q.weight'"));
  CHECK(has(m3, "row length 64 is not a multiple of the Q4_K block"));

  // Norms must be F32.
  SeededOptions on = o;
  gguf::Writer w = seeded_model(on);
  std::vector<uint8_t> nb = w.bytes();
  const uint64_t nat = type_field(nb, "blk.1.ffn_norm.weight");
  // F32 -> I32 keeps the size; the model refuses it for a norm.
  const uint32_t t_i32 = gguf::type::I32;
  std::memcpy(nb.data() + nat, &t_i32, 4);
  CHECK(has(refusal([&] { Model::from(gguf::File::parse(nb, "n.gguf")); }), "tensor 'blk.1.ffn_norm.weight'"));
}

TEST_CASE("attention gguf: shapes and hyperparameters that do not fit are named") {
  gguf::Writer w = seeded_model({});
  w.set("llama.feed_forward_length", gguf::Value::u32(96));
  const std::string m = refusal([&] { Model::from(gguf::File::parse(w.bytes(), "ffn.gguf")); });
  CHECK(has(m, "ffn.gguf: tensor 'blk.0.ffn_gate.weight'"));
  CHECK(has(m, "wrong dims [64, 128]"));
  CHECK(has(m, "[64, 96]"));

  gguf::Writer h = seeded_model({});
  h.set("llama.attention.head_count_kv", gguf::Value::u32(3));
  CHECK(has(refusal([&] { Model::from(gguf::File::parse(h.bytes(), "h.gguf")); }), "not a multiple of llama.attention.head_count_kv 3"));

  gguf::Writer a = seeded_model({});
  a.set("general.architecture", gguf::Value::str("gpt2"));
  CHECK(has(refusal([&] { Model::from(gguf::File::parse(a.bytes(), "a.gguf")); }), "general.architecture is 'gpt2'; Weft runs llama, qwen2 and qwen3"));

  gguf::Writer n = seeded_model({});  // regression: a model naming no architecture ran as llama
  n.erase("general.architecture");
  CHECK(has(refusal([&] { Model::from(gguf::File::parse(n.bytes(), "n.gguf")); }), "n.gguf: missing metadata key 'general.architecture'"));

  gguf::Writer nv = seeded_model({});  // regression: a model without a vocabulary loaded and took text silently
  nv.erase("tokenizer.ggml.tokens");
  nv.erase("tokenizer.ggml.token_type");
  const Model no_vocab = Model::from(gguf::File::parse(nv.bytes(), "nv.gguf"));
  CHECK(has(refusal([&] { tokenize(no_vocab.vocab, "hi"); }), "the model has no vocabulary"));

  gguf::Writer s = seeded_model({});
  s.set("llama.block_count", gguf::Value::str("two"));
  CHECK(has(refusal([&] { Model::from(gguf::File::parse(s.bytes(), "s.gguf")); }), "'llama.block_count' should be an integer"));

  gguf::Writer l = seeded_model({});
  l.set("llama.block_count", gguf::Value::u32(3));
  CHECK(has(refusal([&] { Model::from(gguf::File::parse(l.bytes(), "l.gguf")); }), "missing tensor 'blk.2.attn_norm.weight'"));
}

TEST_CASE("attention gguf: the seeded model reads as its options say, tied or not") {
  SeededOptions o;
  o.heads = 8;
  o.kv_heads = 2;
  const Model m = Model::from(gguf::File::parse(seeded_bytes(o), "<seeded>"));
  CHECK(m.config.dim == 64);
  CHECK(m.config.heads == 8);
  CHECK(m.config.kv_heads == 2);
  CHECK(m.config.head_dim == 8);
  CHECK(m.config.vocab == kSeededVocab);
  CHECK(!m.tied);
  CHECK(m.layers[0].wk.rows == 16);
  CHECK(m.layers[0].wq.type == gguf::type::Q8_0);
  CHECK(m.layers[0].gate.type == gguf::type::Q4_0);
  CHECK(m.token_embd.type == gguf::type::F16);
  o.tied = true;
  const Model t = Model::from(gguf::File::parse(seeded_bytes(o), "<tied>"));
  CHECK(t.tied);
  CHECK(t.output.offset == t.token_embd.offset);

  // Byte-level vocabulary: BOS first, then a byte token (id 3 + byte) per byte; text round-trips.
  const auto ids = tokenize(m.vocab, "Hi,weft!");
  REQUIRE(ids.size() == 9);
  CHECK(ids[0] == 1);
  CHECK(ids[1] == 3 + 'H');
  CHECK(detokenize(m.vocab, ids) == "Hi,weft!");
  // llama.cpp writes a SentencePiece vocabulary's spaces as U+2581 before tokenizing (it did so
  // for this file through node-llama-cpp); with no piece for it, that is its three bytes, and
  // they decode as U+2581.
  CHECK(tokenize(m.vocab, " ", false) == std::vector<uint32_t>{3 + 0xE2, 3 + 0x96, 3 + 0x81});
  CHECK(detokenize(m.vocab, tokenize(m.vocab, "a b")) == "a\xE2\x96\x81" "b");
}

// A byte-level BPE tokenizer.json: the 256 byte characters, then "Ġt", "he" and "Ġthe".
std::string tiny_bpe_json() {
  using weft::tokenizer::byte_level::to_chars;
  std::string vocab;
  for (int b = 0; b < 256; ++b) {
    std::string c = to_chars(std::string(1, char(b)));
    if (c == "\"" || c == "\\") c = "\\" + c;
    vocab += "\"" + c + "\": " + std::to_string(b) + ", ";
  }
  vocab += "\"\u0120t\": 256, \"he\": 257, \"\u0120the\": 258, \"<|endoftext|>\": 259";
  return R"({"model": {"type": "BPE", "vocab": {)" + vocab + R"(}, "merges": ["\u0120 t", "h e", "\u0120t he"]},
             "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": false, "use_regex": true},
             "decoder": {"type": "ByteLevel"},
             "added_tokens": [{"id": 259, "content": "<|endoftext|>", "special": true}]})";
}

TEST_CASE("attention gguf: write-model --vocab carries a tokenizer.json's vocabulary, and the file tokenizes with it") {
  SeededOptions o;
  o.tied = true;
  o.vocabulary = weft::tokenizer::gguf_vocabulary_from_tokenizer_json(tiny_bpe_json(), "tiny.json", "gpt-2");
  const gguf::File f = gguf::File::parse(seeded_model(o).bytes(), "tiny.gguf");
  CHECK(f.get_string("tokenizer.ggml.model") == "gpt2");
  CHECK(f.get_string("tokenizer.ggml.pre") == "gpt-2");
  CHECK(f.find("tokenizer.ggml.merges")->items.size() == 3);
  const Model m = Model::from(gguf::File::parse(seeded_model(o).bytes(), "tiny.gguf"));
  CHECK(m.config.vocab == 260);
  // " the the<|endoftext|>": Ġthe twice, then the control token; no BOS for GPT-2 vocabularies.
  CHECK(tokenize(m.vocab, " the the<|endoftext|>") == std::vector<uint32_t>{258, 258, 259});
  CHECK(detokenize(m.vocab, {258, 258, 259}) == " the the");
  CHECK(token_text(m.vocab, 258) == " the");
  CHECK(token_text(m.vocab, 259).empty());
}

TEST_CASE("attention gguf: a tensor the decoder would not read is refused, not left out") {
  gguf::Writer w = seeded_model({});
  w.add_tensor("output.bias", {64}, gguf::type::F32, std::vector<uint8_t>(256, 0));
  CHECK(has(refusal([&] { Model::from(gguf::File::parse(w.bytes(), "r.gguf")); }),
            "r.gguf: tensor 'output.bias' is not part of Weft's llama decoder (not supported)"));
}

TEST_CASE("attention gguf: RoPE angles follow the base, linear scaling and frequency factors") {
  // pos * scale * base^(-2i / head_dim) / factor[i], by hand: 10 * 0.5 * 10000^(-2/8) / 4 = 0.125.
  const RopeFrequencies r{10000.0, 0.5, {1, 4, 1, 1}};
  CHECK(r.angle(10, 1, 8) == doctest::Approx(0.125).epsilon(1e-12));
  CHECK(r.angle(10, 0, 8) == doctest::Approx(5.0).epsilon(1e-12));
  CHECK(RopeFrequencies{}.angle(3, 0, 64) == 3.0);
  // Llama 3.1's factors (factor 8, low 1, high 4, 8192 positions) at head_dim 128, base 500000:
  // pair 0 (wavelength 2 pi) keeps 1, the last pair (wavelength > 8192) gets 8, and pair 30
  // (wavelength 2 pi * 500000^(60/128) ~ 2950, between 2048 and 8192) the blend
  // 1 / ((1 - s) / 8 + s) with s = (8192 / 2950 - 1) / 3.
  const std::vector<float> f = llama3_rope_factors(128, 500000.0);
  REQUIRE(f.size() == 64);
  CHECK(f[0] == 1.0f);
  CHECK(f[63] == 8.0f);
  const double wl = 2 * 3.141592653589793 * std::pow(500000.0, 60.0 / 128), sm = (8192 / wl - 1) / 3;
  CHECK(wl == doctest::Approx(2950).epsilon(1e-3));
  CHECK(f[30] == doctest::Approx(1 / ((1 - sm) / 8 + sm)).epsilon(1e-6));
  CHECK(f[30] > 1.0f);
  CHECK(f[30] < 8.0f);
}

TEST_CASE("attention gguf: linear RoPE scaling and rope_freqs.weight are read, other scalings refused by name") {
  SeededOptions o;
  o.rope_linear_factor = 4;
  o.rope_freq_factors = {1, 2, 3, 4, 5, 6, 7, 8};  // head_dim 16
  const Model m = Model::from(gguf::File::parse(seeded_model(o).bytes(), "r.gguf"));
  CHECK(m.config.rope.scale == 0.25);
  CHECK(m.config.rope.factors == o.rope_freq_factors);
  gguf::Writer yarn = seeded_model({});
  yarn.set("llama.rope.scaling.type", gguf::Value::str("yarn"));
  CHECK(has(refusal([&] { Model::from(gguf::File::parse(yarn.bytes(), "s.gguf")); }),
            "llama.rope.scaling.type is 'yarn'; Weft's RoPE takes none or linear scaling (and rope_freqs.weight)"));
  gguf::Writer no_factor = seeded_model({});
  no_factor.set("llama.rope.scaling.type", gguf::Value::str("linear"));
  CHECK(has(refusal([&] { Model::from(gguf::File::parse(no_factor.bytes(), "s.gguf")); }),
            "llama.rope.scaling.factor must be a positive number for linear RoPE scaling"));
  gguf::Writer short_factors = seeded_model({});
  short_factors.add_tensor("rope_freqs.weight", {4}, gguf::type::F32, std::vector<uint8_t>(16, 0));
  CHECK(has(refusal([&] { Model::from(gguf::File::parse(short_factors.bytes(), "f.gguf")); }), "tensor 'rope_freqs.weight'"));
  CHECK(has(refusal([&] { Model::from(gguf::File::parse(short_factors.bytes(), "f.gguf")); }), "wrong dims [4]"));
  SeededOptions zero;
  zero.rope_freq_factors = {1, 1, 1, 0, 1, 1, 1, 1};
  CHECK(has(refusal([&] { Model::from(gguf::File::parse(seeded_model(zero).bytes(), "z.gguf")); }),
            "tensor 'rope_freqs.weight': factor 3 is 0.000000, not a positive number"));
}

TEST_CASE("attention gguf: qwen2 and qwen3 files read their extra tensors, and lacking them is refused") {
  SeededOptions o;
  o.arch = "qwen2";
  const Model q2 = Model::from(gguf::File::parse(seeded_model(o).bytes(), "q2.gguf"));
  CHECK(q2.config.rope_neox);
  CHECK(q2.layers[1].bv->rows == 1);
  CHECK(q2.layers[1].bv->cols == q2.config.kv_dim());
  o.arch = "qwen3";
  o.head_dim = 32;
  const Model q3 = Model::from(gguf::File::parse(seeded_model(o).bytes(), "q3.gguf"));
  CHECK(q3.config.head_dim == 32);
  CHECK(q3.config.q_dim() == 128);
  CHECK(q3.layers[0].k_norm->cols == 32);
  gguf::Writer w = seeded_model(o);
  w.erase_tensor("blk.1.attn_k_norm.weight");
  CHECK(has(refusal([&] { Model::from(gguf::File::parse(w.bytes(), "n.gguf")); }), "missing tensor 'blk.1.attn_k_norm.weight'"));
}

TEST_CASE("attention quant: ggml block layouts, hand-computed") {
  CHECK(float_to_half(1.0f) == 0x3C00);
  CHECK(float_to_half(-2.0f) == 0xC000);
  CHECK(float_to_half(65520.0f) == 0x7C00);  // rounds to infinity
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(half_to_float(0x7BFF) == 65504.0f);

  // Q8_0: d = max|x| / 127 = 1 for values -127..: q = x.
  std::vector<float> v(32);
  for (int k = 0; k < 32; ++k) v[k] = float(k * 8 - 127 > 127 ? 127 : k * 8 - 127);
  const auto q8 = encode(gguf::type::Q8_0, v);
  REQUIRE(q8.size() == 34);
  CHECK((q8[0] | q8[1] << 8) == 0x3C00);
  CHECK(int8_t(q8[2]) == -127);
  CHECK(int8_t(q8[3]) == -119);
  CHECK(decode(gguf::type::Q8_0, q8, 32) == v);

  // Q4_0: the largest magnitude is -16, so d = -16 / -8 = 2 and nibble = x / 2 + 8; element k
  // is the low nibble of byte k, element 16 + k its high nibble.
  std::vector<float> w(32);
  for (int k = 0; k < 32; ++k) w[k] = float(k - 16);
  const auto q4 = encode(gguf::type::Q4_0, w);
  REQUIRE(q4.size() == 18);
  CHECK((q4[0] | q4[1] << 8) == 0x4000);  // 2.0
  CHECK(q4[2] == 0x80);                   // x0 = -16 -> 0, x16 = 0 -> 8
  CHECK(q4[2 + 15] == 0xF8);              // x15 = -1 -> 8 (-0.5 + 8.5), x31 = 15 -> 15 (clamped)
  const auto back = decode(gguf::type::Q4_0, q4, 32);
  for (int k = 0; k < 32; k += 2) CHECK(back[k] == w[k]);  // even values are exact
}

TEST_CASE("attention quant: Q5_0, Q4_K and Q6_K blocks built by hand decode as the format defines") {
  // Q5_0: d = 1, element k's fifth bit is bit k of qh; value = (nibble | bit << 4) - 16.
  std::vector<uint8_t> q5(22, 0);
  q5[0] = 0x00, q5[1] = 0x3C;  // d = 1.0 (f16)
  q5[2] = 0x01;                // element 0 has its fifth bit
  q5[5] = 0x80;                // element 31 too
  q5[6] = 0x0F;                // element 0: nibble 15; element 16: nibble 0
  q5[21] = 0xA0;               // element 15: nibble 0; element 31: nibble 10
  const auto v5 = decode(gguf::type::Q5_0, q5, 32);
  CHECK(v5[0] == 31 - 16);
  CHECK(v5[16] == -16);
  CHECK(v5[15] == -16);
  CHECK(v5[31] == 10 + 16 - 16);

  // Q4_K: d = 1, dmin = 0.5; sub-block 0 scale 3 / min 2 (byte 4 / byte 8), sub-block 5 scale
  // 17 = low nibble 1 of byte 13 + high bits 01 from byte 5, min 0; element 0 nibble 7, element
  // 32 * 5 + 1 (sub-block 5, odd: high nibble of byte 16 + 32 * 2 + 1) nibble 9.
  std::vector<uint8_t> q4k(144, 0);
  q4k[0] = 0x00, q4k[1] = 0x3C, q4k[2] = 0x00, q4k[3] = 0x38;  // d = 1, dmin = 0.5
  q4k[4 + 0] = 3, q4k[4 + 4] = 2;
  q4k[4 + 9] = 0x01, q4k[4 + 1] = 0x40;
  q4k[16 + 0] = 0x07;
  q4k[16 + 64 + 1] = 0x90;
  const auto vk = decode(gguf::type::Q4_K, q4k, 256);
  CHECK(vk[0] == 1.0f * 3 * 7 - 0.5f * 2);
  CHECK(vk[1] == -1.0f);  // nibble 0, min 2 * 0.5
  CHECK(vk[32 * 5 + 1] == 17.0f * 9);

  // Q6_K: d = 2; element 128 + 64 + 3 (half 1, quarter 2: high nibble of ql[64 + 3], bits 4-5
  // of qh[32 + 3], scale index 8 + 0 + 4) = (nibble 5 | 2 << 4) - 32 = 5, scale -3.
  std::vector<uint8_t> q6k(210, 0);
  q6k[208] = 0x00, q6k[209] = 0x40;  // d = 2
  q6k[64 + 3] = 0x50;
  q6k[128 + 32 + 3] = 0x20;
  q6k[192 + 8 + 4] = uint8_t(int8_t(-3));
  const auto v6 = decode(gguf::type::Q6_K, q6k, 256);
  CHECK(v6[128 + 64 + 3] == 2.0f * -3 * 5);
  CHECK(v6[0] == 0.0f);  // scale 0
}

TEST_CASE("attention quant: every type's encoder round-trips within its resolution") {
  std::mt19937 rng(5);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> x(1024);
  for (float& v : x) v = normal(rng);
  // Worst |error| relative to max|x|: plain types round, the blocks spend their bits.
  const std::pair<uint32_t, double> bounds[] = {
      {gguf::type::F32, 0},      {gguf::type::F16, 1e-3},  {gguf::type::BF16, 4e-3},  {gguf::type::Q8_0, 6e-3},
      {gguf::type::Q4_0, 0.13},  {gguf::type::Q4_1, 0.07}, {gguf::type::Q5_0, 0.07},  {gguf::type::Q5_1, 0.04},
      {gguf::type::Q2_K, 0.35},  {gguf::type::Q3_K, 0.26}, {gguf::type::Q4_K, 0.07},  {gguf::type::Q5_K, 0.04},
      {gguf::type::Q6_K, 0.02}};
  float amax = 0;
  for (float v : x) amax = std::max(amax, std::fabs(v));
  for (const auto& [type, bound] : bounds) {
    INFO(gguf::type_name(type));
    const auto bytes = encode(type, x);
    CHECK(bytes.size() == x.size() / gguf::type_traits(type)->block_elements * gguf::type_traits(type)->block_bytes);
    const auto back = decode(type, bytes, x.size());
    double worst = 0;
    for (size_t i = 0; i < x.size(); ++i) worst = std::max(worst, double(std::fabs(back[i] - x[i])));
    CHECK(worst <= bound * amax);
  }
}

TEST_CASE("attention quant: a K-quant tensor whose rows are not whole 256-element blocks is refused by name") {
  SeededOptions o;  // dim 64
  o.attn_type = gguf::type::Q4_K;
  const std::string m = refusal([&] { seeded_model(o); });
  CHECK(has(m, "tensor 'blk.0.attn_q.weight' has rows of 64 elements, not whole Q4_K blocks of 256"));
}

// gguf_regressions/: inputs from the libFuzzer corpus (workloads/attention/fuzz), one per distinct
// refusal message the fuzzer reached; any crashing input it finds goes here too.
TEST_CASE("attention gguf: inputs the fuzzer found are loaded or refused, never crash") {
  const fs::path dir = fs::path(WEFT_ATTENTION_TEST_DIR) / "gguf_regressions";
  uint32_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    std::ifstream in(e.path(), std::ios::binary);
    const std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    INFO(e.path().filename().string());
    try {
      const Model m = Model::from(gguf::File::parse(b, e.path().string()));
      (void)tokenize(m.vocab, "Hello", true);
    } catch (const Error& err) {
      CHECK(err.code() == ErrorCode::BadInput);
    }
    ++files;
  }
  CHECK(files > 0);
}
