// CPU reference layers against hand-computed values and invariants, backward against finite
// differences, and the pass / tick semantics of the grid.
#include <doctest/doctest.h>

#include <cmath>
#include <functional>
#include <random>

#include <weft/error.h>

#include "model.h"
#include "reference.h"

using namespace weft::volumetric;

namespace {

Layer make(LayerType t, uint32_t in, uint32_t out = 0, uint32_t seq = 1) {
  Layer l;
  l.type = t;
  l.in = in;
  l.out = out;
  l.seq = seq;
  return l;
}

void set_mat(Layer& l, size_t m, std::vector<float> v) { l.mats[m].set_master(std::move(v)); }

std::vector<float> random_vec(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> d(0, 1);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

double sig(double z) { return 1 / (1 + std::exp(-z)); }

// Loss = sum_i c_i * y_i with fixed random c; checks dL/dx and every weight gradient of `l`
// against central differences.
void check_gradients(Layer l, uint32_t seed) {
  const std::vector<float> x = random_vec(layer_input_size(l), seed);
  const std::vector<float> c = random_vec(layer_output_size(l), seed + 1);
  auto loss = [&](Layer& L, const std::vector<float>& in) {
    const auto y = layer_forward(L, in);
    double s = 0;
    for (size_t i = 0; i < y.size(); ++i) s += double(c[i]) * y[i];
    return s;
  };
  Tape tape;
  layer_forward(l, x, &tape);
  Grads g = zero_grads(l);
  const auto dx = layer_backward(l, tape, c, g);
  const double h = 1e-2;
  for (size_t i = 0; i < x.size(); ++i) {
    auto xp = x, xm = x;
    xp[i] += float(h);
    xm[i] -= float(h);
    CHECK(dx[i] == doctest::Approx((loss(l, xp) - loss(l, xm)) / (2 * h)).epsilon(2e-2).scale(1.0));
  }
  // Weight gradients: walk the layer tree alongside its grads.
  std::function<void(Layer&, Grads&)> walk = [&](Layer& L, Grads& G) {
    for (size_t m = 0; m < L.mats.size(); ++m)
      for (size_t k = 0; k < L.mats[m].master().size(); k += 3) {
        auto w = L.mats[m].master();
        const float w0 = w[k];
        w[k] = w0 + float(h);
        L.mats[m].set_master(w);
        const double lp = loss(l, x);
        w[k] = w0 - float(h);
        L.mats[m].set_master(w);
        const double lm = loss(l, x);
        w[k] = w0;
        L.mats[m].set_master(w);
        CHECK(G.mats[m][k] == doctest::Approx((lp - lm) / (2 * h)).epsilon(2e-2).scale(1.0));
      }
    for (size_t v = 0; v < L.vecs.size(); ++v)
      for (size_t k = 0; k < L.vecs[v].size(); ++k) {
        const float v0 = L.vecs[v][k];
        L.vecs[v][k] = v0 + float(h);
        const double lp = loss(l, x);
        L.vecs[v][k] = v0 - float(h);
        const double lm = loss(l, x);
        L.vecs[v][k] = v0;
        CHECK(G.vecs[v][k] == doctest::Approx((lp - lm) / (2 * h)).epsilon(2e-2).scale(1.0));
      }
    for (size_t i = 0; i < L.children.size(); ++i) walk(L.children[i], G.children[i]);
  };
  walk(l, g);
}

}  // namespace

TEST_CASE("volumetric reference: Dense by hand, and in a packed type it uses the unpacked weights") {
  Layer l = make(LayerType::Dense, 2, 2);
  init_layer(l, 1, "t");
  set_mat(l, 0, {1, 2, 3, 4});
  l.vecs[0] = {0.5f, -1};
  CHECK(layer_forward(l, {1, -1}) == std::vector<float>{-0.5f, -2});
  l.act = Activation::ReLU;
  CHECK(layer_forward(l, {1, 1}) == std::vector<float>{3.5f, 6});
  CHECK(layer_forward(l, {-1, 0}) == std::vector<float>{0, 0});
  // int2: each row's block scale is maxabs / 1, so W -> [[0, 2], [4, 4]] (1/2 rounds to even 0,
  // 3/4 rounds to 1) and y = [2 + 0.5, 8 - 1].
  l.act = Activation::Linear;
  l.dtype = DType::I2;
  CHECK(layer_forward(l, {1, 1}) == std::vector<float>{2.5f, 7});
  CHECK_THROWS_AS(layer_forward(l, {1, 1, 1}), weft::Error);
}

TEST_CASE("volumetric reference: norms and softmax") {
  Layer r = make(LayerType::RMSNorm, 4, 0, 2);
  init_layer(r, 1, "t");
  r.vecs[0] = {1, 1, 1, 1};
  const auto y = layer_forward(r, {1, 2, 3, 4, -2, 0, 0, 2});
  for (int t = 0; t < 2; ++t) {
    double sq = 0;
    for (int i = 0; i < 4; ++i) sq += y[t * 4 + i] * y[t * 4 + i];
    CHECK(std::sqrt(sq / 4) == doctest::Approx(1).epsilon(1e-5));
  }
  CHECK(y[0] / y[3] == doctest::Approx(0.25));
  Layer ln = make(LayerType::LayerNorm, 4);
  init_layer(ln, 1, "t");
  ln.vecs[0] = {2, 2, 2, 2};
  ln.vecs[1] = {1, 1, 1, 1};
  const auto z = layer_forward(ln, {1, 2, 3, 6});
  double m = 0, v = 0;
  for (float q : z) m += q;
  m /= 4;
  for (float q : z) v += (q - m) * (q - m);
  CHECK(m == doctest::Approx(1));
  CHECK(v / 4 == doctest::Approx(4).epsilon(1e-4));
  Layer s = make(LayerType::Softmax, 2, 0, 2);
  const auto p = layer_forward(s, {0, std::log(2.0f), 5, 5});
  CHECK(p[0] == doctest::Approx(1.0 / 3));
  CHECK(p[1] == doctest::Approx(2.0 / 3));
  CHECK(p[2] == doctest::Approx(0.5));
}

TEST_CASE("volumetric reference: embedding, convolutions") {
  Layer e = make(LayerType::Embedding, 0, 2, 3);
  e.vocab = 3;
  init_layer(e, 1, "t");
  set_mat(e, 0, {0, 1, 10, 11, 20, 21});
  CHECK(layer_forward(e, {2, 0, 2}) == std::vector<float>{20, 21, 0, 1, 20, 21});
  CHECK_THROWS_AS(layer_forward(e, {3, 0, 0}), weft::Error);
  CHECK_THROWS_AS(layer_forward(e, {0.5f, 0, 0}), weft::Error);

  Layer c = make(LayerType::Conv1D, 0, 0, 3);
  c.channels = 2;
  c.filters = 1;
  c.kernel = 2;
  init_layer(c, 1, "t");
  set_mat(c, 0, {1, -1, 0, 2});  // channel 0: x[p] - x[p+1]; channel 1: 2 x[p+1]
  c.vecs[0] = {0.25f};
  CHECK(layer_forward(c, {1, 3, 6, 1, 1, 1}) == std::vector<float>{1 - 3 + 2 + 0.25f, 3 - 6 + 2 + 0.25f});

  Layer c2 = make(LayerType::Conv2D, 0);
  c2.channels = 1;
  c2.filters = 2;
  c2.kernel = 2;
  c2.height = 3;
  c2.width = 3;
  init_layer(c2, 1, "t");
  set_mat(c2, 0, {1, 0, 0, 1, 0, 1, 0, 0});  // filter 0: x[i][j] + x[i+1][j+1]; filter 1: x[i][j+1]
  c2.vecs[0] = {0, 0};
  CHECK(layer_forward(c2, {1, 2, 3, 4, 5, 6, 7, 8, 9}) == std::vector<float>{6, 8, 12, 14, 2, 3, 5, 6});
}

TEST_CASE("volumetric reference: transposed and 3-D convolutions") {
  // Transposed 1-D: y[p] = sum_k w[k] x[p - k]: [1, 2] with w = [1, 10] -> [1, 12, 20].
  Layer t = make(LayerType::ConvT1D, 0, 0, 2);
  t.channels = 1;
  t.filters = 1;
  t.kernel = 2;
  init_layer(t, 1, "t");
  set_mat(t, 0, {1, 10});
  t.vecs[0] = {0};
  CHECK(layer_forward(t, {1, 2}) == std::vector<float>{1, 12, 20});
  // Transposed 2-D of a single pixel stamps the kernel: 1x1 input 3 -> 2x2 output 3 * w.
  Layer t2 = make(LayerType::ConvT2D, 0);
  t2.channels = 1;
  t2.filters = 1;
  t2.kernel = 2;
  t2.height = 1;
  t2.width = 1;
  init_layer(t2, 1, "t");
  set_mat(t2, 0, {1, 2, 3, 4});
  t2.vecs[0] = {0.5f};
  CHECK(layer_forward(t2, {3}) == std::vector<float>{3.5f, 6.5f, 9.5f, 12.5f});
  // 3-D, kernel 2 of ones on a 2x2x2 cube: one output, the sum.
  Layer c3 = make(LayerType::Conv3D, 0);
  c3.channels = 1;
  c3.filters = 1;
  c3.kernel = 2;
  c3.depth = 2;
  c3.height = 2;
  c3.width = 2;
  init_layer(c3, 1, "t");
  set_mat(c3, 0, std::vector<float>(8, 1.0f));
  c3.vecs[0] = {0};
  CHECK(layer_forward(c3, {1, 2, 3, 4, 5, 6, 7, 8}) == std::vector<float>{36});
  // A 3x2x3 input with kernel 2: output 2x1x2; tap (kd=1, kh=0, kw=1) alone reads x[d+1][h][w+1].
  c3.depth = 3;
  c3.height = 2;
  c3.width = 3;
  init_layer(c3, 1, "t");
  std::vector<float> w(8, 0.0f);
  w[(1 * 2 + 0) * 2 + 1] = 1;
  set_mat(c3, 0, w);
  c3.vecs[0] = {0};
  std::vector<float> x(18);
  for (int i = 0; i < 18; ++i) x[i] = float(i);
  // y[d][0][w] = x[(d + 1) * 6 + 0 * 3 + w + 1]
  CHECK(layer_forward(c3, x) == std::vector<float>{7, 8, 13, 14});
}

TEST_CASE("volumetric reference: k-means soft assignment") {
  Layer k = make(LayerType::KMeans, 2, 2, 2);
  init_layer(k, 1, "t");
  set_mat(k, 0, {0, 0, 3, 4});
  const auto y = layer_forward(k, {0, 0, 3, 4});
  // Row 0 sits on centroid 0 (distances 0 and 25), row 1 on centroid 1.
  CHECK(y[0] == doctest::Approx(1 / (1 + std::exp(-25.0))));
  CHECK(y[1] == doctest::Approx(std::exp(-25.0) / (1 + std::exp(-25.0))));
  CHECK(y[2] < 1e-10);
  CHECK(y[3] == doctest::Approx(1));
}

TEST_CASE("volumetric reference: SwiGLU, attention and recurrent cells by hand (one unit)") {
  Layer s = make(LayerType::SwiGLU, 1, 1, 2);
  init_layer(s, 1, "t");
  set_mat(s, 0, {0.5f});
  set_mat(s, 1, {-2});
  set_mat(s, 2, {3});
  const auto y = layer_forward(s, {1, -2});
  for (int t = 0; t < 2; ++t) {
    const double x = t ? -2 : 1, a = 0.5 * x;
    CHECK(y[t] == doctest::Approx(3 * a * sig(a) * (-2 * x)));
  }
  // One token attends only to itself: y = Wo Wv x.
  Layer m = make(LayerType::MHA, 2, 0, 1);
  m.heads = 2;
  init_layer(m, 1, "t");
  set_mat(m, 2, {1, 2, 0, 1});
  set_mat(m, 3, {0, 1, 1, 0});
  const auto ym = layer_forward(m, {1, 1});
  CHECK(ym[0] == doctest::Approx(1));
  CHECK(ym[1] == doctest::Approx(3));
  // Two tokens, one head of width 1, Wq = Wk = Wv = Wo = 1: y_t = sum_s softmax(x_t x_s) x_s.
  Layer m2 = make(LayerType::MHA, 1, 0, 2);
  init_layer(m2, 1, "t");
  for (int i = 0; i < 4; ++i) set_mat(m2, i, {1});
  const auto y2 = layer_forward(m2, {1, 2});
  const double p01 = std::exp(2.0) / (std::exp(1.0) + std::exp(2.0)), p11 = std::exp(4.0) / (std::exp(2.0) + std::exp(4.0));
  CHECK(y2[0] == doctest::Approx((1 - p01) * 1 + p01 * 2));
  CHECK(y2[1] == doctest::Approx((1 - p11) * 1 + p11 * 2));

  const std::vector<float> x = {0.5f, -1};
  Layer r = make(LayerType::RNN, 1, 1, 2);
  init_layer(r, 1, "t");
  set_mat(r, 0, {2});
  set_mat(r, 1, {-1});
  r.vecs[0] = {0.1f};
  const auto yr = layer_forward(r, x);
  const double h1 = std::tanh(2 * 0.5 + 0.1), h2 = std::tanh(2 * -1.0 - h1 + 0.1);
  CHECK(yr[0] == doctest::Approx(h1));
  CHECK(yr[1] == doctest::Approx(h2));

  Layer g = make(LayerType::GRU, 1, 1, 2);
  init_layer(g, 1, "t");
  set_mat(g, 0, {1, 2, 3});
  set_mat(g, 1, {-1, 0.5f, 2});
  g.vecs[0] = {0, 0, 0};
  g.vecs[1] = {0.1f, 0.2f, 0.3f};
  double h = 0;
  std::vector<double> want;
  for (double xt : {0.5, -1.0}) {
    const double z = sig(xt - h + 0.1), rr = sig(2 * xt + 0.5 * h + 0.2), n = std::tanh(3 * xt + rr * (2 * h + 0.3));
    h = (1 - z) * n + z * h;
    want.push_back(h);
  }
  const auto yg = layer_forward(g, x);
  CHECK(yg[0] == doctest::Approx(want[0]));
  CHECK(yg[1] == doctest::Approx(want[1]));

  Layer ls = make(LayerType::LSTM, 1, 1, 2);
  init_layer(ls, 1, "t");
  set_mat(ls, 0, {1, 2, 3, 4});
  set_mat(ls, 1, {0.5f, -0.5f, 1, -1});
  ls.vecs[0] = {0, 0.1f, 0, 0};
  double hh = 0, cc = 0;
  want.clear();
  for (double xt : {0.5, -1.0}) {
    const double i = sig(xt + 0.5 * hh), f = sig(2 * xt - 0.5 * hh + 0.1), gg = std::tanh(3 * xt + hh), o = sig(4 * xt - hh);
    cc = f * cc + i * gg;
    hh = o * std::tanh(cc);
    want.push_back(hh);
  }
  const auto yl = layer_forward(ls, x);
  CHECK(yl[0] == doctest::Approx(want[0]));
  CHECK(yl[1] == doctest::Approx(want[1]));
}

TEST_CASE("volumetric reference: backward matches finite differences") {
  Layer d = make(LayerType::Dense, 5, 3);
  d.act = Activation::SiLU;
  init_layer(d, 4, "t");
  check_gradients(d, 10);
  Layer r = make(LayerType::RMSNorm, 4, 0, 2);
  init_layer(r, 5, "t");
  check_gradients(r, 11);
  Layer ln = make(LayerType::LayerNorm, 4, 0, 2);
  init_layer(ln, 6, "t");
  check_gradients(ln, 12);
  Layer sm = make(LayerType::Softmax, 4, 0, 2);
  check_gradients(sm, 13);
  Layer c1 = make(LayerType::Conv1D, 0, 0, 7);
  c1.channels = 2;
  c1.filters = 3;
  c1.kernel = 3;
  c1.act = Activation::Tanh;
  init_layer(c1, 8, "t");
  check_gradients(c1, 15);
  Layer c2 = make(LayerType::Conv2D, 0);
  c2.channels = 2;
  c2.filters = 2;
  c2.kernel = 2;
  c2.height = 4;
  c2.width = 3;
  c2.act = Activation::SiLU;
  init_layer(c2, 9, "t");
  check_gradients(c2, 16);
  Layer sw = make(LayerType::SwiGLU, 4, 6, 2);
  init_layer(sw, 10, "t");
  check_gradients(sw, 17);
  Layer km = make(LayerType::KMeans, 3, 4, 2);
  init_layer(km, 13, "t");
  check_gradients(km, 22);
  for (LayerType k : {LayerType::Conv3D, LayerType::ConvT1D, LayerType::ConvT2D, LayerType::ConvT3D}) {
    Layer c = make(k, 0, 0, 3);
    c.channels = 2;
    c.filters = 2;
    c.kernel = 2;
    c.depth = 2;
    c.height = 3;
    c.width = 2;
    c.act = Activation::Tanh;
    init_layer(c, 20 + uint32_t(k), "t");
    check_gradients(c, 21);
  }
  Layer mh = make(LayerType::MHA, 4, 0, 3);
  mh.heads = 2;
  init_layer(mh, 11, "t");
  check_gradients(mh, 18);
  for (LayerType k : {LayerType::RNN, LayerType::GRU, LayerType::LSTM}) {
    Layer r = make(k, 3, 4, 3);
    init_layer(r, 12 + uint32_t(k), "t");
    check_gradients(r, 19);
  }
  // Residual( LayerNorm, Parallel-concat(Dense 4->2 tanh, Dense 4->2) )
  Layer res = make(LayerType::Residual, 0);
  res.children.push_back(make(LayerType::LayerNorm, 4));
  Layer par = make(LayerType::Parallel, 0);
  par.children.push_back(make(LayerType::Dense, 4, 2));
  par.children[0].act = Activation::Tanh;
  par.children.push_back(make(LayerType::Dense, 4, 2));
  res.children.push_back(par);
  init_layer(res, 7, "t");
  CHECK(layer_trainable(res));
  check_gradients(res, 14);
}

TEST_CASE("volumetric reference: embedding backward sends each token's gradient to its row") {
  Layer e = make(LayerType::Embedding, 0, 2, 3);
  e.vocab = 4;
  init_layer(e, 1, "t");
  Tape tape;
  layer_forward(e, {2, 0, 2}, &tape);
  Grads g = zero_grads(e);
  const auto dx = layer_backward(e, tape, {1, 2, 3, 4, 5, 6}, g);
  CHECK(g.mats[0] == std::vector<float>{3, 4, 0, 0, 1 + 5, 2 + 6, 0, 0});
  CHECK(dx == std::vector<float>{0, 0, 0});
}

TEST_CASE("volumetric reference: remote links give recurrence; ticks delay by one cell") {
  // Three dense cells in a row; cell 0 reads cell 2 (a link forward in the traversal).
  Network net(1, 1, 3, 1, 3);
  for (uint32_t i = 0; i < 3; ++i) {
    Layer l = make(LayerType::Dense, 3, 3);
    l.act = Activation::Tanh;
    init_layer(l, 20 + i, "t");
    net.at(i) = l;
  }
  const std::vector<float> x = {0.3f, -0.2f, 0.9f};
  Network plain = net;
  MeshState s0 = initial_state(plain);
  const auto once = forward(plain, x, s0);
  // Without the link a tick chain needs 3 ticks to reach the pass result.
  MeshState st = initial_state(plain);
  for (int t = 0; t < 3; ++t) step(plain, x, st);
  CHECK(st.out[2] == once);
  step(plain, x, st);
  CHECK(st.out[2] == once);  // fixed point for a constant input

  net.link({0, 0, 0, 0}, {0, 0, 2, 0});
  MeshState s = initial_state(net);
  const auto first = forward(net, x, s);
  // First pass: cell 0 read zeros (nothing yet from cell 2).
  MeshState z = initial_state(net);
  CHECK(s.out[0] == layer_forward(net.at(0), z.out[2]));
  const auto second = forward(net, x, s);
  CHECK(second != first);
  Layer c0 = net.at(0), c1 = net.at(1), c2 = net.at(2);
  CHECK(second == layer_forward(c2, layer_forward(c1, layer_forward(c0, first))));
}
