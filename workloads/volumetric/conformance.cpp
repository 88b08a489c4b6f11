// The volumetric workload on the device against its CPU reference (reference.h).
//
// Error measure: normalized error = max_i |device_i - ref_i| / max_i |ref_i|. The device decodes
// the same packed codes as the reference's unpack (dense.glsl mirrors dtype.cpp), so the weights
// agree exactly for every type whose decoded values are exact in f32; what differs is f32
// accumulation on the device vs double on the CPU (40-term dots: ~40 eps = 2.4e-6) and the
// activation's exp/tanh (a few ulps). Per type:
//   f32 f16 bf16 fp8 fp4 int16/8/4/2 ternary binary, and f64 (device rounds the 53-bit mantissa
//   to f32 once, as the CPU does):                                  2e-5
//   int32 int64 (device forms q in f32: one extra rounding of q):   2e-5
//   unsigned types (affine lo + s*q: the device sums lo * sum(x) + s * sum(q x), two terms of
//   the size of |W||x| that cancel, each with f32 error):           1e-4
#include <cmath>
#include <functional>
#include <random>
#include <sstream>

#include "conformance.h"
#include "device_train.h"
#include "mesh.h"
#include "model.h"
#include "reference.h"
#include "train.h"

namespace weft::conformance {

namespace {

using namespace weft::volumetric;
using weft::volumetric::DType;

std::vector<float> random_input(uint32_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1, 1);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

double dense_bound(DType t) { return dtype_is_unsigned_int(t) ? 1e-4 : 2e-5; }

Layer dense(uint32_t in, uint32_t out, Activation a, DType t, uint32_t seed) {
  Layer l;
  l.type = LayerType::Dense;
  l.in = in;
  l.out = out;
  l.act = a;
  l.dtype = t;
  init_layer(l, seed, "dense");
  return l;
}

Layer shaped(LayerType type, uint32_t in, uint32_t seq, uint32_t seed) {
  Layer l;
  l.type = type;
  l.in = in;
  l.seq = seq;
  init_layer(l, seed, layer_type_name(type));
  return l;
}

// One Dense cell in type t, 40 -> 24 (two blocks per row, the second partial), SiLU.
Result dense_in_type(Device& device, DType t) {
  Network net(1, 1, 1, 1, 40);
  net.at(0) = dense(40, 24, Activation::SiLU, t, 5 + uint32_t(t));
  const auto x = random_input(40, 9);
  MeshState s = initial_state(net);
  const auto ref = forward(net, x, s);
  DeviceMesh mesh(device, net);
  mesh.set_input(x);
  mesh.run();
  const double e = compare(mesh.output(), ref).normalized_max();
  if (!(e <= dense_bound(t)))
    return Result::fail(std::string("dense ") + dtype_name(t) + ": normalized error " + str(e) + " > " + str(dense_bound(t)), e);
  return Result::pass(std::string("dense 40 -> 24 in ") + dtype_name(t) + " from " + str(mesh.weight_bytes()) + " packed bytes", e);
}

// The other layers with packed weights, one cell each, in type t: Embedding (a lookup: the
// decode alone, bound 1e-6), Conv1D/2D/3D and transposed 1D/2D/3D (dense.glsl with the conv
// gathers; at most 24-term sums, same bounds as Dense), SwiGLU (three packed projections and the gate), MHA (four
// projections around softmax attention), RNN / GRU / LSTM (4 time steps chained through packed
// Wx, Wh): 2.5 x the Dense bound.
double layer_bound(LayerType k, DType t) {
  if (k == LayerType::Embedding) return 1e-6;
  if (is_conv(k)) return dense_bound(t);
  // K-means: 40-term squared distances (~|x - c|^2 ~ 40) into a softmax: an absolute error of
  // ~40 * 40 eps in a score moves a probability by about as much; 1e-4 for every type.
  if (k == LayerType::KMeans) return 1e-4;
  return 2.5 * dense_bound(t);
}

Result layer_in_type(Device& device, LayerType k, DType t) {
  Layer l;
  l.type = k;
  l.dtype = t;
  l.act = Activation::Tanh;
  switch (k) {
    case LayerType::Embedding: l.vocab = 11; l.out = 40; l.seq = 5; break;
    case LayerType::Conv1D: l.channels = 3; l.seq = 9; l.filters = 4; l.kernel = 4; break;
    case LayerType::Conv2D: l.channels = 2; l.height = 5; l.width = 6; l.filters = 3; l.kernel = 3; break;
    case LayerType::Conv3D:
    case LayerType::ConvT3D: l.channels = 2; l.depth = 3; l.height = 4; l.width = 3; l.filters = 3; l.kernel = 2; break;
    case LayerType::ConvT1D: l.channels = 3; l.seq = 6; l.filters = 4; l.kernel = 3; break;
    case LayerType::KMeans: l.in = 40; l.out = 6; l.seq = 3; break;
    case LayerType::ConvT2D: l.channels = 2; l.height = 3; l.width = 4; l.filters = 3; l.kernel = 3; break;
    case LayerType::MHA: l.in = 40; l.heads = 4; l.seq = 4; break;
    case LayerType::RNN:
    case LayerType::GRU:
    case LayerType::LSTM: l.in = 12; l.out = 10; l.seq = 4; break;
    default: l.in = 12; l.out = 40; l.seq = 3; break;  // SwiGLU: hidden 40 (two blocks)
  }
  init_layer(l, 17 + uint32_t(t), layer_type_name(k));
  Network net(1, 1, 1, 1, layer_input_size(l));
  net.at(0) = l;
  std::vector<float> x = random_input(net.input_size(), 21);
  if (k == LayerType::Embedding) x = {3, 0, 10, 3, 7};
  MeshState s = initial_state(net);
  const auto ref = forward(net, x, s);
  DeviceMesh mesh(device, net);
  mesh.set_input(x);
  mesh.run();
  const double e = compare(mesh.output(), ref).normalized_max(), bound = layer_bound(k, t);
  const std::string what = std::string(layer_type_name(k)) + " in " + dtype_name(t);
  if (!(e <= bound)) return Result::fail(what + ": normalized error " + str(e) + " > " + str(bound), e);
  return Result::pass(what + " from " + str(mesh.weight_bytes()) + " packed bytes", e);
}

// Dense -> RMSNorm -> LayerNorm -> Softmax, each a cell, different row widths.
Result norms(Device& device) {
  Network net(1, 1, 4, 1, 40);
  net.at(0) = dense(40, 24, Activation::Linear, DType::F32, 1);
  net.at(1) = shaped(LayerType::RMSNorm, 12, 2, 2);
  net.at(2) = shaped(LayerType::LayerNorm, 8, 3, 3);
  net.at(3) = shaped(LayerType::Softmax, 6, 4, 4);
  const auto x = random_input(40, 3);
  MeshState s = initial_state(net);
  forward(net, x, s);
  DeviceMesh mesh(device, net);
  mesh.set_input(x);
  mesh.run();
  double worst = 0;
  for (uint32_t i = 0; i < 4; ++i) {
    const double e = compare(mesh.output(i), s.out[i]).normalized_max();
    worst = std::max(worst, e);
    if (!(e <= 2e-5)) return Result::fail(std::string(layer_type_name(net.at(i).type)) + ": normalized error " + str(e), e);
  }
  return Result::pass("dense, rmsnorm, layernorm, softmax per cell", worst);
}

// A 2 x 2 grid of Sequential cells in mixed packed types with a remote link to a later cell
// (recurrence across passes); three submissions of two passes each against six reference passes.
Network recurrent_grid() {
  Network net(1, 2, 2, 1, 16);
  const DType types[4] = {DType::I4, DType::FP8E4M3, DType::Ternary, DType::BF16};
  for (uint32_t i = 0; i < 4; ++i) {
    Layer seq;
    seq.type = LayerType::Sequential;
    seq.children.push_back(dense(16, 16, Activation::Tanh, types[i], 0));
    seq.children.push_back(shaped(i % 2 ? LayerType::LayerNorm : LayerType::RMSNorm, 16, 1, 0));
    init_layer(seq, 40 + i, "seq");
    net.at(i) = seq;
  }
  net.link({0, 0, 1, 0}, {0, 1, 1, 0});  // cell 1 reads cell 3: the previous pass's output
  return net;
}

Result grid_passes(Device& device) {
  Network net = recurrent_grid();
  const auto x = random_input(16, 4);
  MeshState s = initial_state(net);
  DeviceMesh mesh(device, net, {Schedule::Pass, 2});
  mesh.set_input(x);
  double worst = 0;
  for (int sub = 0; sub < 3; ++sub) {
    forward(net, x, s);
    forward(net, x, s);
    mesh.run();
    for (uint32_t i = 0; i < 4; ++i) {
      const double e = compare(mesh.output(i), s.out[i]).normalized_max();
      worst = std::max(worst, e);
      // Six chained passes through tanh / norms (gain ~1): 2e-5 per pass.
      if (!(e <= 1.2e-4)) return Result::fail("submission " + std::to_string(sub) + " cell " + std::to_string(i) + ": " + str(e), e);
    }
  }
  return Result::pass("2x2 grid, sequential cells in int4/fp8/ternary/bf16, remote link, 3 x 2 passes", worst);
}

// Step mesh: three ticks per submission (odd: exercises the copy back), two submissions, against
// six reference ticks; a second mesh on the same network gives bit-identical outputs.
Result step_mesh(Device& device) {
  Network net = recurrent_grid();
  const auto x = random_input(16, 6);
  MeshState s = initial_state(net);
  DeviceMesh a(device, net, {Schedule::Tick, 3});
  DeviceMesh b(device, net, {Schedule::Tick, 3});
  a.set_input(x);
  b.set_input(x);
  double worst = 0;
  for (int sub = 0; sub < 2; ++sub) {
    for (int t = 0; t < 3; ++t) step(net, x, s);
    a.run();
    b.run();
    for (uint32_t i = 0; i < 4; ++i) {
      const auto da = a.output(i), db = b.output(i);
      if (da != db) return Result::fail("two meshes differ at cell " + std::to_string(i) + " (not deterministic)");
      const double e = compare(da, s.out[i]).normalized_max();
      worst = std::max(worst, e);
      if (!(e <= 1.2e-4)) return Result::fail("tick " + std::to_string(3 * sub + 3) + " cell " + std::to_string(i) + ": " + str(e), e);
    }
  }
  // Replaying from the same state gives the same bits again.
  const MeshState before = a.state();
  a.run();
  const auto once = a.output();
  a.set_state(before);
  a.run();
  if (a.output() != once) return Result::fail("replay from the same state differs");
  return Result::pass("6 ticks (3 per submission) match reference step(); two meshes and a replay bit-identical", worst);
}

// Nested containers on the device: Residual(RMSNorm, Parallel-add(Dense int4, Sequential(Dense
// fp8, LayerNorm))) then Parallel-concat(SwiGLU int8, Dense ternary), against the reference.
Result containers(Device& device) {
  Network net(1, 1, 2, 1, 16);
  Layer res;
  res.type = LayerType::Residual;
  res.children.push_back(shaped(LayerType::RMSNorm, 16, 1, 0));
  Layer par;
  par.type = LayerType::Parallel;
  par.combine = Combine::Add;
  par.children.push_back(dense(16, 16, Activation::Tanh, DType::I4, 0));
  Layer seq;
  seq.type = LayerType::Sequential;
  seq.children.push_back(dense(16, 16, Activation::SiLU, DType::FP8E4M3, 0));
  seq.children.push_back(shaped(LayerType::LayerNorm, 16, 1, 0));
  par.children.push_back(seq);
  res.children.push_back(par);
  init_layer(res, 61, "res");
  net.at(0) = res;
  Layer cat;
  cat.type = LayerType::Parallel;
  Layer sw;
  sw.type = LayerType::SwiGLU;
  sw.in = 8;
  sw.out = 12;
  sw.seq = 2;
  sw.dtype = DType::I8;
  cat.children.push_back(sw);
  cat.children.push_back(dense(16, 5, Activation::Linear, DType::Ternary, 0));
  init_layer(cat, 62, "cat");
  net.at(1) = cat;
  const auto x = random_input(16, 8);
  MeshState s = initial_state(net);
  DeviceMesh mesh(device, net, {Schedule::Pass, 1});
  mesh.set_input(x);
  forward(net, x, s);
  mesh.run();
  double worst = 0;
  for (uint32_t i = 0; i < 2; ++i) {
    const double e = compare(mesh.output(i), s.out[i]).normalized_max();
    worst = std::max(worst, e);
    if (!(e <= 1e-4)) return Result::fail("cell " + std::to_string(i) + ": normalized error " + str(e), e);
  }
  return Result::pass("residual(rmsnorm, parallel-add(dense int4, sequential(dense fp8, layernorm))), parallel-concat(swiglu int8, "
                      "dense ternary)",
                      worst);
}

Result bad_input(Device& device) {
  Network ok(1, 1, 1, 1, 8);
  ok.at(0) = dense(8, 4, Activation::Linear, DType::I8, 1);
  DeviceMesh m(device, ok);
  try {
    m.set_input(std::vector<float>(7));
    return Result::fail("an input of the wrong size was accepted");
  } catch (const Error& e) {
    if (e.code() != ErrorCode::BadInput) return Result::fail(std::string("wrong error: ") + e.what());
  }
  Layer e;
  e.type = LayerType::Embedding;
  e.vocab = 4;
  e.out = 3;
  e.seq = 2;
  init_layer(e, 1, "emb");
  Network en(1, 1, 1, 1, 2);
  en.at(0) = e;
  DeviceMesh em(device, en);
  for (const std::vector<float>& bad : {std::vector<float>{1, 4}, std::vector<float>{0.5f, 1}, std::vector<float>{-1, 0}}) {
    try {
      em.set_input(bad);
      return Result::fail("token ids outside [0, vocab) accepted");
    } catch (const Error& err) {
      if (err.code() != ErrorCode::BadInput) return Result::fail(std::string("wrong error: ") + err.what());
    }
  }
  return Result::pass("wrong input size and bad token ids refused with BadInput");
}

// A chain Dense(tanh) -> LayerNorm -> Dense(SiLU) -> RMSNorm -> Dense learns a fixed random
// teacher y = tanh(A x) (8 samples, one per step) on the CPU and on the device from the same
// initial weights. Both losses must fall (last epoch < 0.5 x first) and agree step by step, and
// the trained weights must agree: f32 on both sides, the device summing in a different order,
// so differences start at ~1e-7 and grow through 48 steps (measured ~8e-6 on lavapipe); bound 1e-4.
// With `linked`, cell 2 reads cell 0 through a remote link (cell 0 then has two readers whose
// input gradients are summed; cell 1 becomes a dead end whose gradient is zero), and cell 1
// reads cell 3 (a link to a later cell: zeros within a training pass).
// With `conv`, the chain is Conv2D(1 ch 4x5, 2 filters 2x2, tanh) -> Conv1D(2 ch x 12, 2
// filters k3, SiLU) -> LayerNorm -> Dense on a 20-value input instead.
// With `nested`: Dense -> Residual(LayerNorm, Parallel-add(Dense tanh, Sequential(Dense SiLU,
// RMSNorm))) -> Parallel-concat(Dense 8->3, Sequential(Softmax, Dense 8->1)) -> Dense 4->2.
// With `tokens`: Embedding(vocab 6) -> SwiGLU -> Sequential(MHA, K-means) -> Dense on 3 token ids.
// With `convx`: ConvT2D -> Conv3D -> ConvT1D -> ConvT3D -> Dense on a 1x2x3 input.
// With `recurrent`: RNN -> GRU -> LSTM -> Dense over 3 steps of 2 features.
// The chains the training cases run (see the comment above).
enum class TrainChain { Dense, Conv, Nested, Tokens, ConvTransposed, Recurrent };

Layer recurrent(LayerType k, uint32_t in, uint32_t out, uint32_t seed) {
  Layer l;
  l.type = k;
  l.in = in;
  l.out = out;
  l.seq = 3;
  init_layer(l, seed, layer_type_name(k));
  return l;
}

Layer convolution(LayerType k, uint32_t c, uint32_t d, uint32_t h, uint32_t w, uint32_t f, uint32_t seed) {
  Layer l;
  l.type = k;
  l.channels = c;
  l.depth = d;
  l.height = h;
  l.width = w;
  l.seq = w;
  l.filters = f;
  l.kernel = 2;
  l.act = Activation::Tanh;
  init_layer(l, seed, layer_type_name(k));
  return l;
}

// A layer of `type` over `in` values per step and 3 steps, initialised from `seed`.
Layer sequence_layer(LayerType type, uint32_t in, uint32_t out, uint32_t seed, const char* tag) {
  Layer l;
  l.type = type;
  l.in = in;
  l.out = out;
  l.seq = 3;
  init_layer(l, seed, tag);
  return l;
}

Network recurrent_chain() {
  Network net(1, 1, 4, 1, 6);
  net.at(0) = recurrent(LayerType::RNN, 2, 3, 1);
  net.at(1) = recurrent(LayerType::GRU, 3, 3, 2);
  net.at(2) = recurrent(LayerType::LSTM, 3, 2, 3);
  net.at(3) = dense(6, 2, Activation::Linear, DType::F32, 4);
  return net;
}

Network transposed_convolution_chain() {
  Network net(1, 1, 5, 1, 6);
  net.at(0) = convolution(LayerType::ConvT2D, 1, 0, 2, 3, 2, 1);  // 2 x 3x4 = 24
  net.at(1) = convolution(LayerType::Conv3D, 2, 2, 3, 2, 2, 2);   // 2 x 1x2x1 = 4
  net.at(2) = convolution(LayerType::ConvT1D, 2, 0, 0, 2, 2, 3);  // 2 x 3 = 6
  net.at(3) = convolution(LayerType::ConvT3D, 1, 1, 2, 3, 1, 4);  // 1 x 2x3x4 = 24
  net.at(4) = dense(24, 2, Activation::Linear, DType::F32, 5);
  return net;
}

Network token_chain() {
  Network net(1, 1, 4, 1, 3);
  Layer e;
  e.type = LayerType::Embedding;
  e.vocab = 6;
  e.out = 4;
  e.seq = 3;
  init_layer(e, 1, "e");
  net.at(0) = e;
  Layer sw = sequence_layer(LayerType::SwiGLU, 4, 6, 2, "sw");
  net.at(1) = sw;
  Layer mh;
  mh.type = LayerType::MHA;
  mh.in = 4;
  mh.heads = 2;
  mh.seq = 3;
  init_layer(mh, 5, "mha");
  Layer both;  // MHA then K-means in one cell
  both.type = LayerType::Sequential;
  both.children = {mh, sequence_layer(LayerType::KMeans, 4, 3, 3, "km")};
  net.at(2) = both;
  net.at(3) = dense(9, 2, Activation::Linear, DType::F32, 4);
  return net;
}

Network nested_chain() {
  Network net(1, 1, 4, 1, 4);
  net.at(0) = dense(4, 8, Activation::Tanh, DType::F32, 1);
  Layer res;
  res.type = LayerType::Residual;
  res.children.push_back(shaped(LayerType::LayerNorm, 8, 1, 0));
  Layer par;
  par.type = LayerType::Parallel;
  par.combine = Combine::Add;
  par.children.push_back(dense(8, 8, Activation::Tanh, DType::F32, 0));
  Layer seq;
  seq.type = LayerType::Sequential;
  seq.children.push_back(dense(8, 8, Activation::SiLU, DType::F32, 0));
  seq.children.push_back(shaped(LayerType::RMSNorm, 8, 1, 0));
  par.children.push_back(seq);
  res.children.push_back(par);
  init_layer(res, 2, "res");
  net.at(1) = res;
  Layer cat;
  cat.type = LayerType::Parallel;
  cat.children.push_back(dense(8, 3, Activation::Linear, DType::F32, 0));
  Layer sm;
  sm.type = LayerType::Sequential;
  sm.children.push_back(shaped(LayerType::Softmax, 8, 1, 0));
  sm.children.push_back(dense(8, 1, Activation::Linear, DType::F32, 0));
  cat.children.push_back(sm);
  init_layer(cat, 3, "cat");
  net.at(2) = cat;
  net.at(3) = dense(4, 2, Activation::Linear, DType::F32, 4);
  return net;
}

Network convolution_chain() {
  Network net(1, 1, 4, 1, 20);
  Layer c2;
  c2.type = LayerType::Conv2D;
  c2.channels = 1;
  c2.height = 4;
  c2.width = 5;
  c2.filters = 2;
  c2.kernel = 2;
  c2.act = Activation::Tanh;
  init_layer(c2, 1, "c2");
  Layer c1;
  c1.type = LayerType::Conv1D;
  c1.channels = 2;
  c1.seq = 12;
  c1.filters = 2;
  c1.kernel = 3;
  c1.act = Activation::SiLU;
  init_layer(c1, 2, "c1");
  net.at(0) = c2;
  net.at(1) = c1;
  net.at(2) = shaped(LayerType::LayerNorm, 20, 1, 3);
  net.at(3) = dense(20, 2, Activation::Linear, DType::F32, 4);
  return net;
}

Network dense_chain() {
  Network net(1, 1, 5, 1, 4);
  net.at(0) = dense(4, 8, Activation::Tanh, DType::F32, 1);
  net.at(1) = shaped(LayerType::LayerNorm, 8, 1, 2);
  net.at(2) = dense(8, 8, Activation::SiLU, DType::F32, 3);
  net.at(3) = shaped(LayerType::RMSNorm, 8, 1, 4);
  net.at(4) = dense(8, 2, Activation::Linear, DType::F32, 5);
  return net;
}

Network training_network(TrainChain chain) {
  switch (chain) {
    case TrainChain::Recurrent: return recurrent_chain();
    case TrainChain::ConvTransposed: return transposed_convolution_chain();
    case TrainChain::Tokens: return token_chain();
    case TrainChain::Nested: return nested_chain();
    case TrainChain::Conv: return convolution_chain();
    case TrainChain::Dense: break;
  }
  return dense_chain();
}

// Eight samples of a fixed random teacher y = tanh(A x) (token ids for the token chain).
struct Samples {
  std::vector<std::vector<float>> xs, ys;
};
Samples teacher_samples(uint32_t in, bool tokens) {
  std::mt19937 rng(7);
  std::normal_distribution<float> d(0, 1);
  std::vector<float> A(2 * in);
  for (float& a : A) a = d(rng) * 2.0f / std::sqrt(float(in));
  Samples s;
  for (int k = 0; k < 8; ++k) {
    std::vector<float> x(in);
    for (float& v : x) v = tokens ? float(rng() % 6) : d(rng);
    s.xs.push_back(x);
    std::vector<float> y(2);
    for (uint32_t o = 0; o < 2; ++o) {
      double sum = 0;
      for (uint32_t i = 0; i < in; ++i) sum += A[o * in + i] * x[i];
      y[o] = float(std::tanh(sum));
    }
    s.ys.push_back(y);
  }
  return s;
}

// Every parameter of `a` against `b` (recursively through containers); the first that differs
// by more than `bound` (normalized) is named in `bad`.
void compare_parameters(const Layer& a, const Layer& b, const std::string& where, double bound, double& worst, std::string& bad) {
  for (size_t m = 0; m < a.mats.size(); ++m) {
    const double e = compare(a.mats[m].master(), b.mats[m].master()).normalized_max();
    worst = std::max(worst, e);
    if (!(e <= bound) && bad.empty()) bad = where + " matrix differs: " + str(e);
  }
  for (size_t v = 0; v < a.vecs.size(); ++v) {
    const double e = compare(a.vecs[v], b.vecs[v]).normalized_max();
    worst = std::max(worst, e);
    if (!(e <= bound) && bad.empty()) bad = where + " vector " + std::to_string(v) + " differs: " + str(e);
  }
  for (size_t c = 0; c < a.children.size(); ++c)
    compare_parameters(a.children[c], b.children[c], where + ".children[" + std::to_string(c) + "]", bound, worst, bad);
}

// As a class: the teacher's target as the one-hot of its larger output (cross-entropy cases).
std::vector<float> class_target(const std::vector<float>& y) { return one_hot(y[1] > y[0] ? 1u : 0u, 2); }

// How a training case feeds the trainers: the loss and the batch size (samples per step).
struct Feed {
  Loss loss = Loss::MSE;
  uint32_t batch = 1;
};

Result training(Device& device, Optimizer opt, bool linked, TrainChain chain = TrainChain::Dense, Feed feed = {}) {
  Network net = training_network(chain);
  if (linked) {
    net.link({0, 0, 2, 0}, {0, 0, 0, 0});
    net.link({0, 0, 1, 0}, {0, 0, 3, 0});
  }
  const Samples data = teacher_samples(net.input_size(), chain == TrainChain::Tokens);
  TrainOptions o;
  o.optimizer = opt;
  o.loss = feed.loss;
  o.lr = opt == Optimizer::SGD ? 0.05f : 0.01f;
  Network cpu_net = net;
  Trainer cpu(cpu_net, o);
  DeviceTrainer dev(device, net, o);
  const int epochs = 6 * int(feed.batch);  // at least 48 steps whatever the batch
  std::vector<double> cpu_epoch(epochs, 0), dev_epoch(epochs, 0);
  double worst = 0;
  for (int e = 0; e < epochs; ++e)
    for (uint32_t k = 0; k < 8; k += feed.batch) {
      std::vector<std::vector<float>> xs, ts;
      for (uint32_t j = k; j < std::min(8u, k + feed.batch); ++j) {
        xs.push_back(data.xs[j]);
        ts.push_back(feed.loss == Loss::CrossEntropy ? class_target(data.ys[j]) : data.ys[j]);
      }
      const float lc = cpu.step_batch(xs, ts), ld = dev.step_batch(xs, ts);
      cpu_epoch[e] += lc * float(xs.size()) / 8;
      dev_epoch[e] += ld * float(xs.size()) / 8;
      const double diff = std::fabs(double(lc) - ld) / std::max(1e-3, double(lc));
      worst = std::max(worst, diff);
      if (!(diff <= 1e-4))
        return Result::fail("epoch " + std::to_string(e) + " step at sample " + std::to_string(k) + ": loss cpu " + str(lc) + " device " + str(ld), diff);
    }
  if (!(cpu_epoch.back() < 0.5 * cpu_epoch.front()) || !(dev_epoch.back() < 0.5 * dev_epoch.front()))
    return Result::fail("loss did not fall: cpu " + str(cpu_epoch.front()) + " -> " + str(cpu_epoch.back()) + ", device " +
                        str(dev_epoch.front()) + " -> " + str(dev_epoch.back()));
  Network trained = net;
  dev.download(trained);
  std::string bad;
  for (uint32_t i = 0; i < trained.size(); ++i) compare_parameters(trained.at(i), cpu_net.at(i), "cell " + std::to_string(i), 1e-4, worst, bad);
  if (!bad.empty()) return Result::fail(bad, worst);
  return Result::pass("loss cpu " + str(cpu_epoch.front()) + " -> " + str(cpu_epoch.back()) + ", device " + str(dev_epoch.front()) +
                          " -> " + str(dev_epoch.back()) + " over " + std::to_string(epochs * 8) + " samples, " +
                          std::string(loss_name(feed.loss)) + ", batch " + std::to_string(feed.batch),
                      worst);
}

}  // namespace

std::vector<Case> volumetric_cases() {
  std::vector<Case> cases;
  for (DType t : all_dtypes())
    cases.push_back({std::string("volumetric.dense_") + dtype_name(t),
                     "normalized error <= " + str(dense_bound(t)) + " vs the CPU reference on the same packed codes",
                     [t](Device& d) { return dense_in_type(d, t); }});
  for (LayerType k : {LayerType::Embedding, LayerType::Conv1D, LayerType::Conv2D, LayerType::Conv3D, LayerType::ConvT1D,
                      LayerType::ConvT2D, LayerType::ConvT3D, LayerType::SwiGLU, LayerType::MHA, LayerType::RNN, LayerType::GRU,
                      LayerType::LSTM, LayerType::KMeans})
    for (DType t : all_dtypes())
      cases.push_back({std::string("volumetric.") + layer_type_name(k) + "_" + dtype_name(t),
                       "normalized error <= " + str(layer_bound(k, t)) + " vs the CPU reference on the same packed codes",
                       [k, t](Device& d) { return layer_in_type(d, k, t); }});
  cases.push_back({"volumetric.norms_softmax", "normalized error <= 2e-5 per cell", norms});
  cases.push_back({"volumetric.grid_remote_recurrence", "normalized error <= 1.2e-4 after 6 passes", grid_passes});
  cases.push_back({"volumetric.step_mesh_determinism", "bit-identical across meshes and replays; <= 1.2e-4 vs reference", step_mesh});
  cases.push_back({"volumetric.nested_containers", "normalized error <= 1e-4 per cell (a few chained layers)", containers});
  cases.push_back({"volumetric.bad_input", "exact", bad_input});
  const std::string train_tol = "losses fall on both; per-step loss and trained weights within 1e-4 (normalized) of the CPU";
  cases.push_back({"volumetric.train_sgd", train_tol, [](Device& d) { return training(d, Optimizer::SGD, false); }});
  cases.push_back({"volumetric.train_adam", train_tol, [](Device& d) { return training(d, Optimizer::Adam, false); }});
  cases.push_back({"volumetric.train_adam_remote_links", train_tol, [](Device& d) { return training(d, Optimizer::Adam, true); }});
  cases.push_back({"volumetric.train_adam_conv", train_tol, [](Device& d) { return training(d, Optimizer::Adam, false, TrainChain::Conv); }});
  cases.push_back({"volumetric.train_adam_nested_containers", train_tol,
                   [](Device& d) { return training(d, Optimizer::Adam, false, TrainChain::Nested); }});
  cases.push_back({"volumetric.train_adam_embedding_swiglu_mha_kmeans", train_tol,
                   [](Device& d) { return training(d, Optimizer::Adam, false, TrainChain::Tokens); }});
  cases.push_back({"volumetric.train_adam_conv3d_transposed", train_tol,
                   [](Device& d) { return training(d, Optimizer::Adam, false, TrainChain::ConvTransposed); }});
  cases.push_back({"volumetric.train_adam_rnn_gru_lstm", train_tol,
                   [](Device& d) { return training(d, Optimizer::Adam, false, TrainChain::Recurrent); }});
  cases.push_back({"volumetric.train_sgd_conv", train_tol, [](Device& d) { return training(d, Optimizer::SGD, false, TrainChain::Conv); }});
  // Cross-entropy (the teacher's larger output as the class) and mini-batches (the device adds
  // each sample's gradients to accumulators and steps on the batch's last sample).
  cases.push_back({"volumetric.train_ce_sgd", train_tol,
                   [](Device& d) { return training(d, Optimizer::SGD, false, TrainChain::Dense, {Loss::CrossEntropy, 1}); }});
  cases.push_back({"volumetric.train_ce_adam_remote_links", train_tol,
                   [](Device& d) { return training(d, Optimizer::Adam, true, TrainChain::Dense, {Loss::CrossEntropy, 1}); }});
  cases.push_back({"volumetric.train_ce_adam_batch4", train_tol,
                   [](Device& d) { return training(d, Optimizer::Adam, false, TrainChain::Dense, {Loss::CrossEntropy, 4}); }});
  cases.push_back({"volumetric.train_mse_sgd_batch3_conv", train_tol,
                   [](Device& d) { return training(d, Optimizer::SGD, false, TrainChain::Conv, {Loss::MSE, 3}); }});
  cases.push_back({"volumetric.train_ce_adam_batch8_recurrent", train_tol,
                   [](Device& d) { return training(d, Optimizer::Adam, false, TrainChain::Recurrent, {Loss::CrossEntropy, 8}); }});
  return cases;
}

}  // namespace weft::conformance
