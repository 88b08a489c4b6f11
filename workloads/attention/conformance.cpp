// The attention workload on the device against its CPU reference (workloads/attention/
// reference.cpp, double precision on weights decoded by quant.cpp): every kernel alone through
// the same ops:: stage builders the decoder uses, then the whole decoder on the seeded GGUF model.
//
// Error measure, as llama.cpp's test-backend-ops: normalized mean squared error
//   NMSE = sum (dev - ref)^2 / sum ref^2.
// Bounds (f32 unit roundoff u = 6e-8, u^2 = 3.6e-15), each with a wide margin over what f32
// arithmetic can produce, and far below what any real defect (a wrong element, a wrong scale, a
// wrong nibble order) produces (NMSE >= 1e-4 for those):
//   matvec          1e-10  a K-term f32 dot product (K <= 256) errs by ~sqrt(K) u relative, NMSE ~ K u^2 ~ 1e-12;
//                          the weights are decoded exactly (f16 scale x int, one rounding)
//   embed           exact  one f16 conversion and one multiply, both exact / correctly rounded on both sides
//   rmsnorm         1e-10  a D-term sum of squares and inversesqrt (2 ulp in Vulkan)
//   rope            1e-12  cos/sin come from a host table (one f32 rounding), then 2 products and a sum
//   softmax         1e-10  exp is 3 + 2|x| ulp in Vulkan (|x| <= ~20 here) and one division
//   attention (GQA) 1e-10  scores (hd-term dots) -> softmax -> a (pos+1)-term weighted sum
//   swiglu          1e-10  exp, one division, two products
//   sampler         exact  the token, when the draw is not within 1e-4 of a boundary of the CDF
//   forward         1e-8   the logits after every op above twice (2 layers) and the output head
//   KV-cache decode 1e-12  decode and fresh prefill do the same arithmetic per token; 0 expected
//   far weights     as above, and bit-identical to the in-window kernels (same arithmetic, same words)
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <sstream>

#include "attention.h"
#include "conformance.h"

namespace weft::conformance {

namespace {

using namespace weft::attention;
namespace fs = std::filesystem;

std::vector<float> randoms(size_t n, uint32_t seed, float scale = 1.0f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0.0f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// A one-instance program whose Heap and Globals hold named arrays, for one kernel at a time.
struct Bench {
  Program p{"attention-op"};
  InstanceId in;
  explicit Bench(uint32_t width = 1) { in = p.add_instance("op", width); }
  ops::Array g(const std::string& name) { return p.segment(Binding::Globals, name); }
  ops::Array h(const std::string& name) { return p.segment(Binding::Heap, name); }
};

void put(Executable& exe, Binding b, const std::string& seg, const void* data, size_t bytes) {
  exe.write_segment(b, seg, data, bytes);
}
template <class T>
void put(Executable& exe, Binding b, const std::string& seg, const std::vector<T>& v) {
  exe.write_segment(b, seg, v.data(), v.size() * sizeof(T));
}
std::vector<float> get(Executable& exe, const std::string& seg) { return exe.read_segment<float>(Binding::Globals, seg); }
std::vector<uint8_t> padded(std::vector<uint8_t> b) {
  b.resize((b.size() + 3) / 4 * 4, 0);
  return b;
}

// ---- matvec and embed, per weight type -----------------------------------------------------

// The _far kernels read a weight that is a Heap far segment of its own; capped at 512-byte
// allocations, the tensor's rows and blocks straddle allocation edges.
constexpr uint64_t kFarCap = 512;
void add_weight(Bench& b, const std::string& name, uint64_t bytes, bool far) {
  if (far)
    b.p.heap().add_far(name, bytes, 4);
  else
    b.p.heap().add(name, bytes);
}
RecordOptions far_cap() {
  RecordOptions o;
  o.max_allocation_bytes = kFarCap;
  return o;
}

// Every weight type Weft reads (each in the window and far).
constexpr uint32_t kWeightTypes[] = {gguf::type::F32,  gguf::type::F16,  gguf::type::BF16, gguf::type::Q8_0, gguf::type::Q4_0,
                                     gguf::type::Q4_1, gguf::type::Q5_0, gguf::type::Q5_1, gguf::type::Q2_K, gguf::type::Q3_K,
                                     gguf::type::Q4_K, gguf::type::Q5_K, gguf::type::Q6_K};

Result matvec_case(Device& dev, uint32_t type, bool far) {
  if (far && !dev.info().buffer_device_address) return Result::skip("no bufferDeviceAddress: far weights are refused (test_far_weights.cpp)");
  // K = three blocks (96 elements, 768 for the 256-element K-quants), so rows of 34-, 18-, 22-,
  // 110- or 210-byte blocks alternately start on a 4-byte boundary and in the middle of a word:
  // both paths of the unpacking run.
  const uint32_t K = std::max(96u, 3 * gguf::type_traits(type)->block_elements), N = 37, T = 6, ctx = 12, pos0 = 4;  // T = 6: a full tile of 4 tokens and a partial one
  const std::vector<float> wf = randoms(size_t(K) * N, 1 + type, 0.2f), x = randoms(size_t(K) * T, 50 + type);
  const std::vector<uint8_t> wb = encode(type, wf);
  Bench b;
  add_weight(b, "w", padded(wb).size(), far);
  b.p.globals().add("state", 8);
  b.p.globals().add("x", x.size() * 4);
  b.p.globals().add("y", size_t(N) * T * 4);
  b.p.globals().add("acc", size_t(N) * T * 4);
  b.p.globals().add("cache", size_t(N) * ctx * 4);
  const ops::Array w = b.h("w"), st = b.g("state");
  b.p.add_stage(ops::matvec(b.in, type, w, K, N, b.g("x"), K, b.g("y"), N, 0, st, {std::nullopt, {N, T, 1}}));
  b.p.add_stage(ops::matvec(b.in, type, w, K, N, b.g("x"), K, b.g("acc"), N, ops::kAccumulate, st, {std::nullopt, {N, T, 1}}));
  b.p.add_stage(ops::matvec(b.in, type, w, K, N, b.g("x"), K, b.g("cache"), N, ops::kCacheRow, st, {std::nullopt, {N, T, 1}}));
  Executable exe(dev, b.p, far_cap());
  if (far && exe.far_memory().describe().find(" 1 allocation(s)") != std::string::npos) return Result::fail("the far weight was not split");
  put(exe, Binding::Heap, "w", padded(wb));
  const uint32_t state[2] = {pos0, T};
  put(exe, Binding::Globals, "state", state, 8);
  put(exe, Binding::Globals, "x", x);
  const std::vector<float> acc0 = randoms(size_t(N) * T, 99);
  put(exe, Binding::Globals, "acc", acc0);
  exe.run();
  const auto y = get(exe, "y"), acc = get(exe, "acc"), cache = get(exe, "cache");
  // The reference reads the same bytes through the CPU decoder.
  Weight wt{"w", type, K, N, 0, wb.size()};
  double worst = 0;
  for (uint32_t t = 0; t < T; ++t) {
    std::vector<double> xt(x.begin() + t * K, x.begin() + (t + 1) * K);
    const auto r = ref::matvec(wt, wb, xt);
    std::vector<double> racc(N);
    for (uint32_t n = 0; n < N; ++n) racc[n] = r[n] + acc0[t * N + n];
    const double e1 = compare(std::vector<float>(y.begin() + t * N, y.begin() + (t + 1) * N), r).nmse();
    const double e2 = compare(std::vector<float>(acc.begin() + t * N, acc.begin() + (t + 1) * N), racc).nmse();
    const double e3 = compare(std::vector<float>(cache.begin() + (pos0 + t) * N, cache.begin() + (pos0 + t + 1) * N), r).nmse();
    worst = std::max({worst, e1, e2, e3});
    if (!(std::max({e1, e2, e3}) <= 1e-10))
      return Result::fail("token " + std::to_string(t) + ": NMSE y " + str(e1) + ", accumulate " + str(e2) + ", cache row " + str(e3), worst);
  }
  // Cache rows other than pos0 .. pos0+T-1 stay untouched (zero).
  for (uint32_t r = 0; r < ctx; ++r)
    if (r < pos0 || r >= pos0 + T)
      for (uint32_t n = 0; n < N; ++n)
        if (cache[r * N + n] != 0.0f) return Result::fail("cache row " + std::to_string(r) + " was written");
  // The fixture must tell a wrong decoding apart: the same bytes read as the neighbouring block
  // layout (ignoring the scale) would be far off. Here: the reference of the f32 originals differs
  // from the quantized result by the quantization error only for quantized types.
  return Result::pass(gguf::type_name(type) + (far ? " far (allocations of 512 bytes)" : "") +
                          " K=" + std::to_string(K) + " N=37 T=6 (plain, accumulate, cache rows; token tiles of 4 and 2); NMSE " + str(worst),
                      worst);
}

Result embed_case(Device& dev, bool far) {
  if (far && !dev.info().buffer_device_address) return Result::skip("no bufferDeviceAddress: far weights are refused (test_far_weights.cpp)");
  const uint32_t V = 40, T = 4;
  std::string detail;
  for (uint32_t type : kWeightTypes) {
    const uint32_t D = std::max(64u, gguf::type_traits(type)->block_elements);
    const std::vector<uint8_t> tb = encode(type, randoms(size_t(D) * V, 7 + type));
    const std::vector<uint32_t> tokens = {0, 39, 17, 17};
    Bench b;
    add_weight(b, "table", padded(tb).size(), far);
    b.p.globals().add("tokens", T * 4);
    b.p.globals().add("x", size_t(D) * T * 4);
    b.p.add_stage(ops::embed(b.in, type, b.h("table"), D, V, b.g("tokens"), b.g("x"), {std::nullopt, {T, 1, 1}}));
    Executable exe(dev, b.p, far_cap());
    put(exe, Binding::Heap, "table", padded(tb));
    put(exe, Binding::Globals, "tokens", tokens);
    exe.run();
    const auto x = get(exe, "x");
    for (uint32_t t = 0; t < T; ++t) {
      const auto row = decode_row(type, tb, D, tokens[t]);
      if (std::memcmp(row.data(), x.data() + t * D, D * 4) != 0)
        return Result::fail(gguf::type_name(type) + ": row of token " + std::to_string(tokens[t]) + " differs from the CPU decoder");
    }
    detail += gguf::type_name(type) + " ";
  }
  return Result::pass(detail + (far ? "far (allocations of 512 bytes): " : "") + "rows bit-identical to the CPU decoder");
}

// ---- norms, rope, attention, swiglu, softmax --------------------------------------------------

Result rmsnorm_case(Device& dev) {
  const uint32_t D = 96, T = 3;
  const std::vector<float> x = randoms(size_t(D) * T, 3, 2.0f), w = randoms(D, 4);
  Bench b;
  b.p.heap().add("w", D * 4);
  b.p.globals().add("state", 8);
  b.p.globals().add("x", x.size() * 4);
  b.p.globals().add("out", x.size() * 4);
  b.p.globals().add("last", D * 4);
  const uint32_t scale = b.p.add_control_words("scale", {f32_bits(0.5f)});
  b.p.add_stage(ops::rmsnorm(b.p, b.in, b.g("x"), b.g("out"), b.h("w"), D, 1e-5f, scale, false, b.g("state"), {std::nullopt, {T, 1, 1}}));
  b.p.add_stage(ops::rmsnorm(b.p, b.in, b.g("x"), b.g("last"), b.h("w"), D, 1e-5f, WEFT_NONE, true, b.g("state"), {}));
  Executable exe(dev, b.p);
  put(exe, Binding::Heap, "w", w);
  const uint32_t state[2] = {0, T};
  put(exe, Binding::Globals, "state", state, 8);
  put(exe, Binding::Globals, "x", x);
  exe.run();
  const auto out = get(exe, "out"), xs = get(exe, "x"), last = get(exe, "last");
  double worst = 0;
  for (uint32_t t = 0; t < T; ++t) {
    std::vector<double> xt(x.begin() + t * D, x.begin() + (t + 1) * D);
    for (double& v : xt) v *= 0.5;  // the residual scale word is applied first
    const auto r = ref::rmsnorm(xt, w, 1e-5);
    const double e = compare(std::vector<float>(out.begin() + t * D, out.begin() + (t + 1) * D), r).nmse();
    const double es = compare(std::vector<float>(xs.begin() + t * D, xs.begin() + (t + 1) * D), xt).nmse();
    worst = std::max({worst, e, es});
    if (!(e <= 1e-10 && es <= 1e-14)) return Result::fail("token " + std::to_string(t) + ": NMSE " + str(e) + ", scaled residual " + str(es), worst);
    if (t == T - 1) {
      const double el = compare(last, r).nmse();
      worst = std::max(worst, el);
      if (!(el <= 1e-10)) return Result::fail("last-token mode: NMSE " + str(el), el);
    }
  }
  return Result::pass("D=96 T=3, residual scale 0.5 applied, last-token mode; NMSE " + str(worst), worst);
}

Result rope_case(Device& dev, bool neox, const RopeFrequencies& rope) {
  const uint32_t heads = 4, kvh = 2, hd = 16, T = 3, ctx = 40, pos0 = 33;
  const std::vector<float> q = randoms(size_t(T) * heads * hd, 5), k = randoms(size_t(ctx) * kvh * hd, 6);
  const auto table = ops::rope_table(ctx, hd, rope);
  Bench b;
  b.p.heap().add("table", table.size() * 4);
  b.p.globals().add("state", 8);
  b.p.globals().add("q", q.size() * 4);
  b.p.globals().add("k", k.size() * 4);
  b.p.add_stage(ops::rope(b.in, b.g("q"), heads, b.g("k"), kvh, hd, b.h("table"), b.g("state"), neox, {std::nullopt, {T, 1, 1}}));
  Executable exe(dev, b.p);
  put(exe, Binding::Heap, "table", table);
  const uint32_t state[2] = {pos0, T};
  put(exe, Binding::Globals, "state", state, 8);
  put(exe, Binding::Globals, "q", q);
  put(exe, Binding::Globals, "k", k);
  exe.run();
  const auto dq = get(exe, "q"), dk = get(exe, "k");
  double worst = 0;
  for (uint32_t t = 0; t < T; ++t) {
    std::vector<double> rq(q.begin() + t * heads * hd, q.begin() + (t + 1) * heads * hd);
    std::vector<double> rk(k.begin() + (pos0 + t) * kvh * hd, k.begin() + (pos0 + t + 1) * kvh * hd);
    ref::rope(rq, heads, hd, pos0 + t, rope, neox);
    ref::rope(rk, kvh, hd, pos0 + t, rope, neox);
    const double eq = compare(std::vector<float>(dq.begin() + t * heads * hd, dq.begin() + (t + 1) * heads * hd), rq).nmse();
    const double ek = compare(std::vector<float>(dk.begin() + (pos0 + t) * kvh * hd, dk.begin() + (pos0 + t + 1) * kvh * hd), rk).nmse();
    worst = std::max({worst, eq, ek});
    if (!(eq <= 1e-12 && ek <= 1e-12)) return Result::fail("token " + std::to_string(t) + ": NMSE q " + str(eq) + ", k " + str(ek), worst);
  }
  for (uint32_t r = 0; r < ctx; ++r)
    if (r < pos0 || r >= pos0 + T)
      for (uint32_t i = 0; i < kvh * hd; ++i)
        if (dk[r * kvh * hd + i] != k[r * kvh * hd + i]) return Result::fail("cache row " + std::to_string(r) + " was rotated");
  return Result::pass(std::string(neox ? "NeoX pairs" : "adjacent pairs") + ", 4 heads / 2 KV heads, hd 16, positions 33..35; NMSE " + str(worst), worst);
}

// scores -> softmax -> values for a batch of tokens against a cache, grouped-query.
Result attention_case(Device& dev) {
  const uint32_t heads = 6, kvh = 2, hd = 8, T = 3, ctx = 24, pos0 = 9;
  const std::vector<float> q = randoms(size_t(T) * heads * hd, 11), k = randoms(size_t(ctx) * kvh * hd, 12),
                           v = randoms(size_t(ctx) * kvh * hd, 13);
  Bench b;
  b.p.globals().add("state", 8);
  b.p.globals().add("q", q.size() * 4);
  b.p.globals().add("k", k.size() * 4);
  b.p.globals().add("v", v.size() * 4);
  b.p.globals().add("scores", size_t(T) * heads * ctx * 4);
  b.p.globals().add("out", size_t(T) * heads * hd * 4);
  const ops::Dispatch d{std::nullopt, {heads, T, 1}};
  b.p.add_stage(ops::attn_scores(b.in, b.g("q"), b.g("k"), b.g("scores"), heads, kvh, hd, ctx, b.g("state"), d));
  b.p.add_stage(ops::softmax(b.in, b.g("scores"), heads, ctx, b.g("state"), d));
  b.p.add_stage(ops::attn_values(b.in, b.g("scores"), b.g("v"), b.g("out"), heads, kvh, hd, ctx, b.g("state"), d));
  Executable exe(dev, b.p);
  const uint32_t state[2] = {pos0, T};
  put(exe, Binding::Globals, "state", state, 8);
  put(exe, Binding::Globals, "q", q);
  put(exe, Binding::Globals, "k", k);
  put(exe, Binding::Globals, "v", v);
  exe.run();
  const auto out = get(exe, "out");
  std::vector<std::vector<double>> kc(ctx), vc(ctx);
  for (uint32_t p = 0; p < ctx; ++p) {
    kc[p].assign(k.begin() + p * kvh * hd, k.begin() + (p + 1) * kvh * hd);
    vc[p].assign(v.begin() + p * kvh * hd, v.begin() + (p + 1) * kvh * hd);
  }
  double worst = 0;
  for (uint32_t t = 0; t < T; ++t) {
    std::vector<double> qt(q.begin() + t * heads * hd, q.begin() + (t + 1) * heads * hd);
    const auto r = ref::attention(qt, kc, vc, pos0 + t, heads, kvh, hd);
    const double e = compare(std::vector<float>(out.begin() + t * heads * hd, out.begin() + (t + 1) * heads * hd), r).nmse();
    worst = std::max(worst, e);
    if (!(e <= 1e-10)) return Result::fail("token " + std::to_string(t) + " (position " + std::to_string(pos0 + t) + "): NMSE " + str(e), e);
    // GQA must matter: attending with KV head h % kv_heads instead of h / group differs.
    if (t == 0) {
      std::vector<std::vector<double>> swapped_k = kc;
      for (auto& row : swapped_k) std::rotate(row.begin(), row.begin() + hd, row.end());
      const double apart = compare(r, ref::attention(qt, swapped_k, vc, pos0, heads, kvh, hd)).nmse();
      if (apart < 1e-4) return Result::fail("the fixture does not tell KV heads apart");
    }
  }
  return Result::pass("6 heads / 2 KV heads (groups of 3), hd 8, causal rows at positions 9..11; NMSE " + str(worst), worst);
}

Result softmax_case(Device& dev) {
  const uint32_t heads = 2, T = 2, ctx = 100, pos0 = 90;
  std::vector<float> s = randoms(size_t(T) * heads * ctx, 21, 5.0f);
  Bench b;
  b.p.globals().add("state", 8);
  b.p.globals().add("scores", s.size() * 4);
  b.p.add_stage(ops::softmax(b.in, b.g("scores"), heads, ctx, b.g("state"), {std::nullopt, {heads, T, 1}}));
  Executable exe(dev, b.p);
  const uint32_t state[2] = {pos0, T};
  put(exe, Binding::Globals, "state", state, 8);
  put(exe, Binding::Globals, "scores", s);
  exe.run();
  const auto out = get(exe, "scores");
  double worst = 0;
  for (uint32_t t = 0; t < T; ++t)
    for (uint32_t h = 0; h < heads; ++h) {
      const size_t row = (size_t(t) * heads + h) * ctx, n = pos0 + t + 1;
      std::vector<double> r(s.begin() + row, s.begin() + row + n);
      ref::softmax(r);
      const double e = compare(std::vector<float>(out.begin() + row, out.begin() + row + n), r).nmse();
      worst = std::max(worst, e);
      if (!(e <= 1e-10)) return Result::fail("row (token " + std::to_string(t) + ", head " + std::to_string(h) + "): NMSE " + str(e), e);
      for (size_t j = n; j < ctx; ++j)
        if (out[row + j] != s[row + j]) return Result::fail("a score past the causal limit was touched");
    }
  return Result::pass("rows of 91 and 92 scores (sd 5), the rest untouched; NMSE " + str(worst), worst);
}

Result swiglu_case(Device& dev) {
  const uint32_t ffn = 200, T = 2;
  const std::vector<float> g = randoms(size_t(ffn) * T, 31, 3.0f), u = randoms(size_t(ffn) * T, 32);
  Bench b;
  b.p.globals().add("g", g.size() * 4);
  b.p.globals().add("u", u.size() * 4);
  b.p.add_stage(ops::swiglu(b.in, b.g("g"), b.g("u"), ffn, {std::nullopt, {ops::swiglu_groups(ffn), T, 1}}));
  Executable exe(dev, b.p);
  put(exe, Binding::Globals, "g", g);
  put(exe, Binding::Globals, "u", u);
  exe.run();
  const std::vector<double> gd(g.begin(), g.end()), ud(u.begin(), u.end());
  const double e = compare(get(exe, "g"), ref::swiglu(gd, ud)).nmse();
  if (!(e <= 1e-10)) return Result::fail("NMSE " + str(e), e);
  return Result::pass("ffn 200 (a partial workgroup), 2 tokens; NMSE " + str(e), e);
}

Result layer_stats_case(Device& dev) {
  // The layer's message: Metrics norm = the largest token RMS, max_abs = the largest |x|,
  // anomaly status when anything is not finite; R30 = the last token's row; counters say the
  // layer, the tokens and pos0.
  const uint32_t D = 96, T = 3, pos0 = 7;
  std::vector<float> x = randoms(size_t(D) * T, 61);
  for (uint32_t k = 0; k < D; ++k) x[D + k] *= 3.0f;  // token 1 has the largest RMS
  Bench b(D);
  b.p.globals().add("state", 8);
  b.p.globals().add("x", x.size() * 4);
  b.p.add_stage(ops::layer_stats(b.in, b.g("x"), D, b.g("state"), 4));
  Executable exe(dev, b.p);
  const uint32_t state[2] = {pos0, T};
  put(exe, Binding::Globals, "state", state, 8);
  double worst = 0;
  for (const char* variant : {"finite", "NaN", "inf"}) {
    std::vector<float> xv = x;
    if (variant[0] == 'N') xv[2 * D + 5] = NAN;
    if (variant[0] == 'i') xv[17] = -INFINITY;
    put(exe, Binding::Globals, "x", xv);
    exe.run();
    const abi::WeftMetrics m = exe.metrics(b.in);
    const std::string where = std::string(variant) + ": ";
    if (m.counters[0] != 5 || m.counters[1] != T || m.counters[2] != pos0)
      return Result::fail(where + "counters " + std::to_string(m.counters[0]) + " " + std::to_string(m.counters[1]) + " " + std::to_string(m.counters[2]));
    const auto r30 = exe.read_register<float>(b.in, WEFT_R_OUTBOX);
    if (std::memcmp(r30.data(), xv.data() + (T - 1) * D, D * 4) != 0 && variant[0] != 'N')
      return Result::fail(where + "R30 is not the last token's row");
    if (variant[0] == 'f') {
      double rms = 0, mx = 0;
      for (uint32_t t = 0; t < T; ++t) {
        double ss = 0;
        for (uint32_t k = 0; k < D; ++k) {
          ss += double(xv[t * D + k]) * xv[t * D + k];
          mx = std::max(mx, std::fabs(double(xv[t * D + k])));
        }
        rms = std::max(rms, std::sqrt(ss / D));
      }
      const double e = std::fabs(m.norm - rms) / rms;
      worst = e;
      if (!(e <= 1e-6) || m.max_abs != float(mx) || m.status != WEFT_STATUS_OK)
        return Result::fail(where + "norm " + str(m.norm) + " vs " + str(rms) + ", max_abs " + str(m.max_abs) + " vs " + str(mx) +
                            ", status " + std::to_string(m.status));
    } else if (m.status != WEFT_STATUS_ANOMALY) {
      return Result::fail(where + "status " + std::to_string(m.status) + ", not anomaly");
    }
  }
  return Result::pass("D=96 T=3: largest token RMS (rel. err " + str(worst) + "), max |x|, last row in R30, counters; NaN and -inf give anomaly", worst);
}

// ---- sampler ------------------------------------------------------------------------------

Result sample_case(Device& dev) {
  const uint32_t V = 300;
  Bench b;
  b.p.globals().add("state", 8);
  b.p.globals().add("logits", V * 4);
  b.p.globals().add("out", 4);
  const uint32_t params = b.p.add_control_words("sampling", {0, 0, 0});
  b.p.add_stage(ops::sample(b.p, b.in, b.g("logits"), V, params, b.g("state"), b.g("out")));
  Executable exe(dev, b.p);
  std::vector<float> logits = randoms(V, 41, 2.0f);
  logits[17] = logits[230] = 9.0f;  // a tie for the maximum: the lower id wins
  put(exe, Binding::Globals, "logits", logits);
  uint32_t checked = 0, skipped = 0;
  std::vector<uint32_t> seen;
  for (float temperature : {0.0f, 0.7f, 1.5f})
    for (uint32_t top_k : {0u, 1u, 5u, 64u})
      for (uint32_t seed = 0; seed < 6; ++seed) {
        if (temperature == 0.0f && seed > 0) continue;
        const uint32_t pos0 = 3 + seed * 5, T = 2;
        const Sampling s{temperature, top_k, seed};
        exe.set_control_word(params, f32_bits(temperature));
        exe.set_control_word(params + 1, top_k);
        exe.set_control_word(params + 2, seed);
        const uint32_t state[2] = {pos0, T};
        put(exe, Binding::Globals, "state", state, 8);
        exe.run();
        uint32_t token = 0;
        exe.read_segment(Binding::Globals, "out", &token, 4);
        const float u = ref::sample_uniform(seed, pos0 + T);
        const uint32_t want = ref::sample(logits, s, u);
        // Greedy is the argmax, whatever the reference sampler says (first maximum: lowest id).
        const uint32_t argmax = uint32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
        if ((temperature == 0.0f || top_k == 1) && (want != argmax || argmax != 17))
          return Result::fail("the greedy reference is not the argmax");
        // A draw within 1e-4 of a CDF boundary may fall either side with f32 vs f64 sums.
        if (ref::sample(logits, s, std::max(0.0f, u - 1e-4f)) != want || ref::sample(logits, s, std::min(0.99999f, u + 1e-4f)) != want) {
          ++skipped;
          continue;
        }
        if ((temperature == 0.0f || top_k == 1) && token != argmax)
          return Result::fail("greedy (temperature " + str(temperature) + ", top-k " + std::to_string(top_k) + "): device picked " +
                              std::to_string(token) + ", argmax " + std::to_string(argmax));
        if (token != want)
          return Result::fail("temperature " + str(temperature) + ", top-k " + std::to_string(top_k) + ", seed " + std::to_string(seed) +
                              ": device picked " + std::to_string(token) + ", reference " + std::to_string(want));
        if (exe.read_register<uint32_t>(b.in, WEFT_R_OUTBOX)[0] != token) return Result::fail("R30[0] does not hold the sampled token");
        ++checked;
        if (std::find(seen.begin(), seen.end(), token) == seen.end()) seen.push_back(token);
      }
  if (seen.size() < 4) return Result::fail("sampling produced only " + std::to_string(seen.size()) + " distinct tokens: the fixture is too easy");
  return Result::pass(std::to_string(checked) + " draws equal to the reference (" + std::to_string(skipped) + " near a CDF boundary skipped), " +
                      std::to_string(seen.size()) + " distinct tokens; greedy tie -> lowest id");
}

// ---- the whole decoder ----------------------------------------------------------------------

Model seeded(const SeededOptions& o) { return Model::from(gguf::File::parse(seeded_model(o).bytes(), "<seeded model>")); }

std::vector<uint32_t> prompt_of(uint32_t n, uint32_t seed) {
  std::vector<uint32_t> p = {1};  // BOS
  for (uint32_t i = 1; i < n; ++i) p.push_back(3 + (i * 97 + seed * 31) % 256);
  return p;
}

constexpr double kForwardBound = 1e-8;

Result compare_run(Decoder& dec, Reference& ref, const std::vector<float>& logits, const std::vector<double>& rlogits, double& worst,
                   const std::string& where) {
  const double e = compare(logits, rlogits).nmse();
  worst = std::max(worst, e);
  if (!(e <= kForwardBound)) return Result::fail(where + ": logits NMSE " + str(e) + " > " + str(kForwardBound), e);
  const auto lm = dec.layer_metrics();
  for (size_t l = 0; l < lm.size(); ++l) {
    const LayerReport& r = ref.layers()[l];
    const double de = std::fabs(lm[l].rms - r.rms) / r.rms;
    if (!(de <= 1e-5) || lm[l].status != (r.anomaly ? WEFT_STATUS_ANOMALY : WEFT_STATUS_OK) || lm[l].layer != l + 1)
      return Result::fail(where + ": layer " + std::to_string(l) + " message: rms " + str(lm[l].rms) + " vs " + str(r.rms) + ", status " +
                          std::to_string(lm[l].status) + " vs anomaly=" + std::to_string(r.anomaly));
  }
  const double eh = compare(dec.hidden(), ref.hidden()).nmse();
  if (!(eh <= kForwardBound)) return Result::fail(where + ": hidden state in R30 NMSE " + str(eh), eh);
  return Result::pass();
}

Result forward_case(Device& dev) {
  const Model m = seeded({});
  Decoder dec(dev, m);
  Reference ref(m, dec.context());
  double worst = 0;
  const auto prompt = prompt_of(9, 1);
  const auto logits = dec.prefill(prompt);
  if (Result r = compare_run(dec, ref, logits, ref.forward(prompt), worst, "prefill of 9"); r.outcome != Outcome::Pass) return r;
  // The model must be sensitive: a different last token changes the logits far beyond the bound.
  Reference other(m, dec.context());
  auto p2 = prompt;
  p2.back() ^= 1;
  if (compare(logits, other.forward(p2)).nmse() < 1e-4) return Result::fail("the logits do not depend on the last token");
  return Result::pass("seeded model (F16 embeddings, Q8_0 attention, Q4_0 MLP, F32 head), 9-token prefill; NMSE " + str(worst), worst);
}

Result kv_cache_case(Device& dev) {
  const Model m = seeded({});
  Decoder dec(dev, m), fresh(dev, m);
  Reference ref(m, dec.context());
  std::vector<uint32_t> seq = prompt_of(6, 2);
  auto logits = dec.prefill(seq);
  double worst_cache = 0, worst_ref = 0;
  if (Result r = compare_run(dec, ref, logits, ref.forward(seq), worst_ref, "prefill"); r.outcome != Outcome::Pass) return r;
  for (uint32_t step = 0; step < 6; ++step) {
    const uint32_t tok = dec.sampled();
    seq.push_back(tok);
    logits = dec.step(tok);
    const uint32_t one[1] = {tok};
    if (Result r = compare_run(dec, ref, logits, ref.forward(one), worst_ref, "decode step " + std::to_string(step)); r.outcome != Outcome::Pass)
      return r;
    // The same logits from a fresh prefill of all the tokens so far (no cache reuse).
    fresh.reset();
    const auto full = fresh.prefill(seq);
    const double e = compare(logits, full).nmse();
    worst_cache = std::max(worst_cache, e);
    if (!(e <= 1e-12))
      return Result::fail("position " + std::to_string(seq.size() - 1) + ": decode vs full recompute NMSE " + str(e), e);
  }
  return Result::pass("6-token prompt + 6 greedy steps: decode vs fresh prefill NMSE " + str(worst_cache) + ", vs reference " + str(worst_ref),
                      std::max(worst_cache, worst_ref));
}

Result tied_chunked_case(Device& dev) {
  // Every other kernel variant: F32 attention, Q8_0 MLP, Q4_0 embeddings tied to the head
  // (so the head is a Q4_0 matvec); the prompt is prefilled in chunks of 4.
  SeededOptions o;
  o.tied = true;
  o.attn_type = gguf::type::F32;
  o.ffn_type = gguf::type::Q8_0;
  o.embd_type = gguf::type::Q4_0;
  o.heads = 8;
  o.kv_heads = 2;
  o.seed = 5;
  const Model m = seeded(o);
  if (!m.tied) return Result::fail("the model without output.weight was not read as tied");
  DecoderOptions d;
  d.max_batch = 4;
  Decoder dec(dev, m, d);
  Reference ref(m, dec.context(), {}, d.max_batch);
  double worst = 0;
  const auto prompt = prompt_of(10, 3);
  const auto logits = dec.prefill(prompt);
  if (Result r = compare_run(dec, ref, logits, ref.forward(prompt), worst, "chunked prefill"); r.outcome != Outcome::Pass) return r;
  const uint32_t tok = dec.sampled();
  const uint32_t one[1] = {tok};
  if (Result r = compare_run(dec, ref, dec.step(tok), ref.forward(one), worst, "decode"); r.outcome != Outcome::Pass) return r;
  return Result::pass("tied Q4_0 head, F32 attention, Q8_0 MLP, 8 heads / 2 KV heads, prefill 10 in chunks of 4; NMSE " + str(worst), worst);
}

// A decoder against the reference: the prompt prefilled, then `steps` decode steps each feeding
// back the device's sample; the worst logits NMSE in `worst`.
Result prefill_then_steps(Device& dev, const Model& m, const std::vector<uint32_t>& prompt, uint32_t steps, double& worst) {
  Decoder dec(dev, m);
  Reference ref(m, dec.context());
  if (Result r = compare_run(dec, ref, dec.prefill(prompt), ref.forward(prompt), worst, "prefill"); r.outcome != Outcome::Pass) return r;
  for (uint32_t step = 0; step < steps; ++step) {
    const uint32_t one[1] = {dec.sampled()};
    if (Result r = compare_run(dec, ref, dec.step(one[0]), ref.forward(one), worst, "decode step " + std::to_string(step)); r.outcome != Outcome::Pass)
      return r;
  }
  return Result::pass("", worst);
}

Result architecture_case(Device& dev, const std::string& arch) {
  // qwen2: q/k/v biases, NeoX RoPE; qwen3: per-head q/k norms before NeoX RoPE, and a head
  // dimension (32) that is not dim / heads (64 / 4), so q_dim (128) differs from dim.
  SeededOptions o;
  o.arch = arch;
  o.heads = 4, o.kv_heads = 2;
  if (arch == "qwen3") o.head_dim = 32;
  o.seed = 11;
  const Model m = seeded(o);
  double worst = 0;
  if (Result r = prefill_then_steps(dev, m, prompt_of(7, 3), 3, worst); r.outcome != Outcome::Pass) return r;
  return Result::pass(arch + (arch == "qwen3" ? " (head_dim 32, q_dim 128 != dim 64)" : "") + ", prefill 7 + 3 steps; NMSE " + str(worst), worst);
}

Result f16_mha_case(Device& dev) {
  // The remaining variants: F16 attention, MLP and separate head, F32 embeddings, and plain
  // multi-head attention (kv_heads == heads); prefill then decode steps.
  SeededOptions o;
  o.attn_type = o.ffn_type = o.output_type = gguf::type::F16;
  o.embd_type = gguf::type::F32;
  o.heads = o.kv_heads = 4;
  o.layers = 3;
  o.seed = 7;
  const Model m = seeded(o);
  double worst = 0;
  if (Result r = prefill_then_steps(dev, m, prompt_of(8, 5), 3, worst); r.outcome != Outcome::Pass) return r;
  return Result::pass("F16 attention/MLP/head, F32 embeddings, 4 heads = 4 KV heads, 3 layers, prefill 8 + 3 steps; NMSE " + str(worst), worst);
}

Result norm_rule_case(Device& dev) {
  const Model m = seeded({});
  const auto prompt = prompt_of(7, 4);
  Reference plain(m, 64);
  const auto plain_logits = plain.forward(prompt);
  // A limit between layer 0's RMS and layer 1's (whichever is larger fires, the other not).
  const double r0 = plain.layers()[0].rms, r1 = plain.layers()[1].rms;
  Rules rules;
  rules.norm_limit = float(std::sqrt(r0 * r1));
  rules.damp = 0.5f;
  if (std::fabs(r0 / r1 - 1) < 0.05) return Result::fail("layer RMS values too close to place a threshold between them");
  DecoderOptions d;
  d.rules = rules;
  Decoder dec(dev, m, d);
  Reference ref(m, dec.context(), rules);
  double worst = 0;
  const auto logits = dec.prefill(prompt);
  const auto rlogits = ref.forward(prompt);
  uint32_t anomalies = 0;
  for (const LayerReport& l : ref.layers()) {
    anomalies += l.anomaly;
    if (std::fabs(l.rms / rules.norm_limit - 1) < 1e-3) return Result::fail("a layer's RMS is too close to the limit to decide");
  }
  if (anomalies != 1) return Result::fail("the fixture should flag exactly one layer, flags " + std::to_string(anomalies));
  if (Result r = compare_run(dec, ref, logits, rlogits, worst, "with the rule"); r.outcome != Outcome::Pass) return r;
  const bool damps = ref.layers()[0].anomaly;  // damping applies only after layer 0
  if (damps && compare(logits, plain_logits).nmse() < 1e-6) return Result::fail("damping the residual stream did not change the logits");
  // The rule's fired counter says the same.
  const uint32_t fired = dec.executable().control_word(regulator_fired_word(dec.executable().program(), dec.program().regulators[damps ? 0 : 1], 0));
  if (fired != 1) return Result::fail("the anomaly rule's fired counter is " + std::to_string(fired));
  // Damping must not leak into the next run: a limit just under layer 0's RMS fires it in the
  // prefill (damping layer 1 to x0.3); then a decode token whose layer-0 RMS is under the limit
  // (found with the reference) must run undamped, as the reference does.
  Rules tight;
  tight.norm_limit = float(0.97 * r0);
  tight.damp = 0.3f;
  DecoderOptions dt;
  dt.rules = tight;
  Decoder dec2(dev, m, dt);
  Reference ref2(m, dec2.context(), tight);
  if (Result r = compare_run(dec2, ref2, dec2.prefill(prompt), ref2.forward(prompt), worst, "prefill, tight limit"); r.outcome != Outcome::Pass)
    return r;
  if (!ref2.layers()[0].anomaly) return Result::fail("the tight limit did not fire on layer 0");
  uint32_t calm = 0;
  for (uint32_t tok = 3; tok < kSeededVocab && !calm; ++tok) {
    Reference probe = ref2;
    const uint32_t one[1] = {tok};
    probe.forward(one);
    if (!probe.layers()[0].anomaly && std::fabs(probe.layers()[0].rms / tight.norm_limit - 1) > 1e-3) calm = tok;
  }
  if (!calm) return Result::fail("no token keeps layer 0 under the tight limit");
  const uint32_t one[1] = {calm};
  if (Result r = compare_run(dec2, ref2, dec2.step(calm), ref2.forward(one), worst, "undamped step after a damped prefill"); r.outcome != Outcome::Pass)
    return r;
  return Result::pass(std::string("limit ") + str(rules.norm_limit) + " between layer RMS " + str(r0) + " and " + str(r1) + ": layer " +
                          (damps ? "0" : "1") + " flagged anomalous" + (damps ? ", layer 1 damped x0.5" : "") +
                          " as in the reference; layer 0 damped in a prefill, the next step undamped; NMSE " + str(worst),
                      worst);
}

Result far_weights_case(Device& dev) {
  // Every matrix a far segment of its own, split by a 1 KiB allocation cap, for the seeded model
  // in two encodings (together every matvec and embed variant); the in-window decoder beside it.
  if (!dev.info().buffer_device_address) return Result::skip("no bufferDeviceAddress: far weights are refused (test_far_weights.cpp)");
  SeededOptions other;
  other.tied = true;
  other.attn_type = gguf::type::F32;
  other.ffn_type = gguf::type::F16;
  other.embd_type = gguf::type::Q8_0;
  double worst = 0;
  for (const SeededOptions& o : {SeededOptions{}, other}) {
    const Model m = seeded(o);
    DecoderOptions d;
    d.max_batch = 4;
    d.max_allocation_bytes = 1024;
    d.weights = WeightPlacement::Far;
    Decoder far(dev, m, d);
    d.weights = WeightPlacement::InWindow;
    Decoder window(dev, m, d);
    Reference ref(m, far.context(), {}, d.max_batch);
    std::vector<uint32_t> tokens = prompt_of(9, 6);
    for (uint32_t run = 0; run < 3; ++run) {
      const std::string where = run ? "decode step " + std::to_string(run) : "prefill of 9 in chunks of 4";
      const auto logits = far.prefill(tokens);
      if (Result r = compare_run(far, ref, logits, ref.forward(tokens), worst, where); r.outcome != Outcome::Pass) return r;
      if (logits != window.prefill(tokens)) return Result::fail(where + ": far logits differ from the in-window decoder's");
      if (far.sampled() != window.sampled()) return Result::fail(where + ": far and in-window decoders sampled different tokens");
      tokens = {far.sampled()};
    }
  }
  return Result::pass("seeded models (F16 emb / Q8_0 attn / Q4_0 MLP / F32 head; Q8_0 tied / F32 attn / F16 MLP), every matrix far in "
                      "1 KiB allocations: prefill + 2 steps, bit-identical to in-window; NMSE " + str(worst),
                      worst);
}

Result bad_input_case(Device& dev) {
  const Model m = seeded({});
  Decoder dec(dev, m);
  struct Bad {
    const char* what;
    std::function<void()> run;
    const char* expect;
  };
  const std::vector<Bad> bads = {
      {"token id = vocab", [&] { dec.prefill(std::vector<uint32_t>{1, kSeededVocab}); }, "token id 259 at batch position 1"},
      {"past the context", [&] { dec.prefill(std::vector<uint32_t>(65, 5)); }, "exceed the context of 64"},
      {"top-k 65", [&] { dec.set_sampling({1.0f, 65, 0}); }, "top-k 65"},
      {"negative temperature", [&] { dec.set_sampling({-1.0f, 0, 0}); }, "temperature"},
      {"context above the model's", [&] { DecoderOptions o; o.context = 65; Decoder d(dev, m, o); }, "llama.context_length 64"},
  };
  for (const Bad& b : bads) {
    dec.reset();
    try {
      b.run();
      return Result::fail(std::string(b.what) + ": accepted");
    } catch (const Error& e) {
      if (e.code() != ErrorCode::BadInput) return Result::fail(std::string(b.what) + ": error code " + to_string(e.code()));
      if (std::string(e.what()).find(b.expect) == std::string::npos)
        return Result::fail(std::string(b.what) + ": message '" + e.what() + "' does not say '" + b.expect + "'");
    }
  }
  // Still correct afterwards.
  dec.reset();
  Reference ref(m, dec.context());
  const auto prompt = prompt_of(5, 9);
  double worst = 0;
  if (Result r = compare_run(dec, ref, dec.prefill(prompt), ref.forward(prompt), worst, "after the refusals"); r.outcome != Outcome::Pass) return r;
  return Result::pass(std::to_string(bads.size()) + " bad inputs refused with BadInput naming the place; the decoder still agrees", worst);
}

std::vector<Case> matvec_cases() {
  std::vector<Case> cases;
  for (const bool far : {false, true})
    for (const uint32_t type : kWeightTypes) {
      std::string name = ops::type_suffix(type);
      cases.push_back({"attention.matvec_" + std::string(far ? "far_" : "") + name,
                       far ? "NMSE <= 1e-10, as in the window" : "NMSE <= 1e-10 (K-term f32 dot: ~K u^2 = 1e-12)",
                       [type, far](Device& d) { return matvec_case(d, type, far); }});
    }
  return cases;
}

}  // namespace

std::vector<Case> attention_cases() {
  std::vector<Case> cases = matvec_cases();
  std::vector<Case> rest = {
      {"attention.embed_all_types", "exact (the CPU decoder's operations in its order, no fused multiply-add)", [](Device& d) { return embed_case(d, false); }},
      {"attention.embed_far_all_types", "exact, as in the window", [](Device& d) { return embed_case(d, true); }},
      {"attention.rmsnorm", "NMSE <= 1e-10 (D-term sum of squares, inversesqrt 2 ulp)", rmsnorm_case},
      {"attention.rope", "NMSE <= 1e-12 (host cos/sin table, 2 products and a sum)", [](Device& d) { return rope_case(d, false, {}); }},
      {"attention.rope_neox", "NMSE <= 1e-12, as attention.rope", [](Device& d) { return rope_case(d, true, {}); }},
      {"attention.rope_scaled", "NMSE <= 1e-12, as attention.rope, base 500000, linear scale 1/4 and per-pair frequency factors",
       [](Device& d) { return rope_case(d, false, {500000.0, 0.25, {1, 1, 1.5f, 2, 4, 6, 8, 8}}); }},
      {"attention.softmax", "NMSE <= 1e-10 (exp 3+2|x| ulp, one division)", softmax_case},
      {"attention.gqa_attention", "NMSE <= 1e-10 (scores, softmax, weighted sum of <= 12 rows)", attention_case},
      {"attention.swiglu", "NMSE <= 1e-10 (exp, a division, two products)", swiglu_case},
      {"attention.layer_stats", "RMS within 1e-6 relative (a D-term f32 sum), the rest exact", layer_stats_case},
      {"attention.sampler", "exact token unless the draw is within 1e-4 of a CDF boundary", sample_case},
      {"attention.forward_seeded_gguf", "logits NMSE <= 1e-8 (every op above, 2 layers, the head); layer RMS within 1e-5", forward_case},
      {"attention.kv_cache_decode_equals_recompute", "NMSE <= 1e-12 (same arithmetic per token; 0 expected); vs reference 1e-8",
       kv_cache_case},
      {"attention.tied_head_chunked_prefill", "logits NMSE <= 1e-8", tied_chunked_case},
      {"attention.f16_weights_mha", "logits NMSE <= 1e-8", f16_mha_case},
      {"attention.qwen2_bias_neox", "logits NMSE <= 1e-8", [](Device& d) { return architecture_case(d, "qwen2"); }},
      {"attention.qwen3_head_norm", "logits NMSE <= 1e-8", [](Device& d) { return architecture_case(d, "qwen3"); }},
      {"attention.activation_norm_rule", "same anomaly verdicts as the reference (limit >= 0.1% from every RMS), not carried into the next run; NMSE <= 1e-8",
       norm_rule_case},
      {"attention.far_weights_decoder", "logits NMSE <= 1e-8 and bit-identical to the in-window decoder", far_weights_case},
      {"attention.bad_input", "exact (BadInput with the place named)", bad_input_case},
  };
  cases.insert(cases.end(), std::make_move_iterator(rest.begin()), std::make_move_iterator(rest.end()));
  return cases;
}

}  // namespace weft::conformance
