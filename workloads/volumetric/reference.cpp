#include "reference.h"

#include <algorithm>
#include <cmath>

#include <weft/error.h>

#include "reference_math.h"

namespace weft::volumetric {

using namespace detail;

namespace {

Vec recurrent(Layer& l, const Vec& x) {
  const uint32_t H = l.out, I = l.in, T = l.seq;
  const uint32_t G = l.type == LayerType::RNN ? 1 : l.type == LayerType::GRU ? 3 : 4;
  const Vec Wx = eff(l, 0), Wh = eff(l, 1);
  std::vector<double> gx(G * H), gh(G * H), h(H, 0.0), c(H, 0.0);
  Vec y(uint64_t(T) * H);
  std::vector<float> hf(H, 0.0f);
  for (uint32_t t = 0; t < T; ++t) {
    matvec(Wx, G * H, I, x.data() + uint64_t(t) * I, gx.data());
    matvec(Wh, G * H, H, hf.data(), gh.data());
    for (uint32_t j = 0; j < H; ++j) {
      if (l.type == LayerType::RNN) {
        h[j] = std::tanh(gx[j] + gh[j] + l.vecs[0][j]);
      } else if (l.type == LayerType::GRU) {
        const double z = sigmoid(gx[j] + l.vecs[0][j] + gh[j] + l.vecs[1][j]);
        const double r = sigmoid(gx[H + j] + l.vecs[0][H + j] + gh[H + j] + l.vecs[1][H + j]);
        const double n = std::tanh(gx[2 * H + j] + l.vecs[0][2 * H + j] + r * (gh[2 * H + j] + l.vecs[1][2 * H + j]));
        h[j] = (1 - z) * n + z * h[j];
      } else {
        const auto g = [&](uint32_t k) { return gx[k * H + j] + gh[k * H + j] + l.vecs[0][k * H + j]; };
        const double i = sigmoid(g(0)), f = sigmoid(g(1)), gg = std::tanh(g(2)), o = sigmoid(g(3));
        c[j] = f * c[j] + i * gg;
        h[j] = o * std::tanh(c[j]);
      }
    }
    for (uint32_t j = 0; j < H; ++j) y[uint64_t(t) * H + j] = hf[j] = float(h[j]);
  }
  return y;
}

Vec mha(Layer& l, const Vec& x) {
  const uint32_t D = l.in, T = l.seq, Hn = l.heads, dh = D / Hn;
  const Vec Wq = eff(l, 0), Wk = eff(l, 1), Wv = eff(l, 2), Wo = eff(l, 3);
  std::vector<double> tmp(D);
  Vec q(uint64_t(T) * D), k(q.size()), v(q.size()), o(q.size()), y(q.size());
  auto proj = [&](const Vec& W, const float* in, float* out) {
    matvec(W, D, D, in, tmp.data());
    for (uint32_t i = 0; i < D; ++i) out[i] = float(tmp[i]);
  };
  for (uint32_t t = 0; t < T; ++t) {
    proj(Wq, &x[t * D], &q[t * D]);
    proj(Wk, &x[t * D], &k[t * D]);
    proj(Wv, &x[t * D], &v[t * D]);
  }
  Vec p(T);
  for (uint32_t h = 0; h < Hn; ++h)
    for (uint32_t t = 0; t < T; ++t) {
      for (uint32_t s = 0; s < T; ++s) {
        double a = 0;
        for (uint32_t i = 0; i < dh; ++i) a += double(q[t * D + h * dh + i]) * k[s * D + h * dh + i];
        p[s] = float(a / std::sqrt(double(dh)));
      }
      softmax_row(p.data(), T);
      for (uint32_t i = 0; i < dh; ++i) {
        double a = 0;
        for (uint32_t s = 0; s < T; ++s) a += double(p[s]) * v[s * D + h * dh + i];
        o[t * D + h * dh + i] = float(a);
      }
    }
  for (uint32_t t = 0; t < T; ++t) proj(Wo, &o[t * D], &y[t * D]);
  return y;
}

}  // namespace

float activate(Activation a, float z) {
  switch (a) {
    case Activation::ReLU: return z > 0 ? z : 0.0f;
    case Activation::Tanh: return std::tanh(z);
    case Activation::Sigmoid: return float(sigmoid(z));
    case Activation::SiLU: return float(z * sigmoid(z));
    default: return z;
  }
}

float activate_grad(Activation a, float z) {
  switch (a) {
    case Activation::ReLU: return z > 0 ? 1.0f : 0.0f;
    case Activation::Tanh: {
      const double t = std::tanh(z);
      return float(1 - t * t);
    }
    case Activation::Sigmoid: {
      const double s = sigmoid(z);
      return float(s * (1 - s));
    }
    case Activation::SiLU: {
      const double s = sigmoid(z);
      return float(s * (1 + z * (1 - s)));
    }
    default: return 1.0f;
  }
}

Vec layer_forward(Layer& l, const Vec& x, Tape* tape, const std::string& where) {
  if (x.size() != layer_input_size(l))
    fail(ErrorCode::BadInput, where + " (" + layer_type_name(l.type) + "): input of " + u(x.size()) + " values, " +
                                  u(layer_input_size(l)) + " expected");
  if (tape) tape->x = x;
  Vec y(layer_output_size(l));
  switch (l.type) {
    case LayerType::Dense: {
      const Vec W = eff(l, 0);
      std::vector<double> z(l.out);
      matvec(W, l.out, l.in, x.data(), z.data());
      for (uint32_t o = 0; o < l.out; ++o) y[o] = activate(l.act, float(z[o] + l.vecs[0][o]));
      break;
    }
    case LayerType::RMSNorm:
    case LayerType::LayerNorm:
      for (uint32_t t = 0; t < l.seq; ++t) {
        const float* r = x.data() + uint64_t(t) * l.in;
        double mean = 0, sq = 0;
        if (l.type == LayerType::LayerNorm)
          for (uint32_t i = 0; i < l.in; ++i) mean += r[i];
        mean /= l.in;
        for (uint32_t i = 0; i < l.in; ++i) sq += (r[i] - mean) * (r[i] - mean);
        const double inv = 1.0 / std::sqrt(sq / l.in + l.eps);
        for (uint32_t i = 0; i < l.in; ++i)
          y[uint64_t(t) * l.in + i] =
              float((r[i] - mean) * inv * l.vecs[0][i] + (l.type == LayerType::LayerNorm ? l.vecs[1][i] : 0.0f));
      }
      break;
    case LayerType::Softmax:
      y = x;
      for (uint32_t t = 0; t < l.seq; ++t) softmax_row(y.data() + uint64_t(t) * l.in, l.in);
      break;
    case LayerType::Embedding: {
      const Vec E = eff(l, 0);
      for (uint32_t t = 0; t < l.seq; ++t) {
        const float v = x[t];
        if (!(v >= 0 && v < float(l.vocab)) || v != std::floor(v))
          fail(ErrorCode::BadInput, where + " (embedding): token " + u(t) + " is " + std::to_string(v) + ", not an id in [0, " +
                                        u(l.vocab) + ")");
        std::copy_n(E.begin() + uint64_t(v) * l.out, l.out, y.begin() + uint64_t(t) * l.out);
      }
      break;
    }
    case LayerType::Conv1D: {
      const Vec W = eff(l, 0);
      const uint32_t Lo = l.seq - l.kernel + 1;
      for (uint32_t f = 0; f < l.filters; ++f)
        for (uint32_t p = 0; p < Lo; ++p) {
          double a = l.vecs[0][f];
          for (uint32_t c = 0; c < l.channels; ++c)
            for (uint32_t k = 0; k < l.kernel; ++k)
              a += double(W[(uint64_t(f) * l.channels + c) * l.kernel + k]) * x[uint64_t(c) * l.seq + p + k];
          y[uint64_t(f) * Lo + p] = activate(l.act, float(a));
        }
      break;
    }
    case LayerType::Conv2D: {
      const Vec W = eff(l, 0);
      const uint32_t K = l.kernel, Ho = l.height - K + 1, Wo = l.width - K + 1;
      for (uint32_t f = 0; f < l.filters; ++f)
        for (uint32_t i = 0; i < Ho; ++i)
          for (uint32_t j = 0; j < Wo; ++j) {
            double a = l.vecs[0][f];
            for (uint32_t c = 0; c < l.channels; ++c)
              for (uint32_t ki = 0; ki < K; ++ki)
                for (uint32_t kj = 0; kj < K; ++kj)
                  a += double(W[((uint64_t(f) * l.channels + c) * K + ki) * K + kj]) *
                       x[(uint64_t(c) * l.height + i + ki) * l.width + j + kj];
            y[(uint64_t(f) * Ho + i) * Wo + j] = activate(l.act, float(a));
          }
      break;
    }
    case LayerType::KMeans: {
      const Vec C = eff(l, 0);
      for (uint32_t t = 0; t < l.seq; ++t) {
        float* yt = y.data() + uint64_t(t) * l.out;
        for (uint32_t j = 0; j < l.out; ++j) {
          double d = 0;
          for (uint32_t i = 0; i < l.in; ++i) {
            const double e = double(x[uint64_t(t) * l.in + i]) - C[uint64_t(j) * l.in + i];
            d += e * e;
          }
          yt[j] = float(-d);
        }
        softmax_row(yt, l.out);
      }
      break;
    }
    case LayerType::Conv3D:
    case LayerType::ConvT1D:
    case LayerType::ConvT2D:
    case LayerType::ConvT3D: {
      const Vec W = eff(l, 0);
      const ConvShape cs = conv_shape(l);
      const uint32_t P = cs.positions();
      for (uint32_t f = 0; f < cs.F; ++f)
        for (uint32_t p = 0; p < P; ++p)
          y[uint64_t(f) * P + p] = activate(l.act, float(conv_preactivation(cs, W, l.vecs[0][f], x.data(), f, p)));
      break;
    }
    case LayerType::SwiGLU: {
      const Vec W1 = eff(l, 0), W3 = eff(l, 1), W2 = eff(l, 2);
      std::vector<double> a(l.out), b(l.out), o(l.in);
      Vec h(l.out);
      for (uint32_t t = 0; t < l.seq; ++t) {
        matvec(W1, l.out, l.in, x.data() + uint64_t(t) * l.in, a.data());
        matvec(W3, l.out, l.in, x.data() + uint64_t(t) * l.in, b.data());
        for (uint32_t j = 0; j < l.out; ++j) h[j] = float(a[j] * sigmoid(a[j]) * b[j]);
        matvec(W2, l.in, l.out, h.data(), o.data());
        for (uint32_t i = 0; i < l.in; ++i) y[uint64_t(t) * l.in + i] = float(o[i]);
      }
      break;
    }
    case LayerType::MHA: y = mha(l, x); break;
    case LayerType::RNN:
    case LayerType::GRU:
    case LayerType::LSTM: y = recurrent(l, x); break;
    case LayerType::Sequential:
    case LayerType::Residual: {
      Vec h = x;
      if (tape) tape->children.assign(l.children.size(), {});
      for (size_t i = 0; i < l.children.size(); ++i)
        h = layer_forward(l.children[i], h, tape ? &tape->children[i] : nullptr, where + ".children[" + u(i) + "]");
      if (l.type == LayerType::Residual)
        for (size_t i = 0; i < h.size(); ++i) h[i] += x[i];
      y = std::move(h);
      break;
    }
    case LayerType::Parallel: {
      // Every branch's activations stay in its own tape for backward.
      if (tape) tape->children.assign(l.children.size(), {});
      std::fill(y.begin(), y.end(), 0.0f);
      size_t off = 0;
      for (size_t i = 0; i < l.children.size(); ++i) {
        const Vec b = layer_forward(l.children[i], x, tape ? &tape->children[i] : nullptr, where + ".children[" + u(i) + "]");
        if (l.combine == Combine::Add)
          for (size_t k = 0; k < b.size(); ++k) y[k] += b[k];
        else
          std::copy(b.begin(), b.end(), y.begin() + off);
        off += b.size();
      }
      break;
    }
  }
  return y;
}

MeshState initial_state(const Network& net) {
  MeshState s;
  for (const Layer& l : net.cells()) s.out.emplace_back(layer_output_size(l), 0.0f);
  return s;
}

const Vec& cell_input(const Network& net, uint32_t idx, const Vec& x, const MeshState& cur, const MeshState& prev, bool tick) {
  const auto src = net.source(idx);
  if (!src) return x;
  if (tick || *src >= idx) return prev.out[*src];
  return cur.out[*src];
}

Vec forward(Network& net, const Vec& x, MeshState& s, std::vector<Tape>* tapes) {
  if (x.size() != net.input_size())
    fail(ErrorCode::BadInput, "volumetric: network input of " + u(x.size()) + " values, " + u(net.input_size()) + " expected");
  const MeshState prev = s;
  if (tapes) tapes->assign(net.size(), {});
  for (uint32_t i = 0; i < net.size(); ++i)
    s.out[i] = layer_forward(net.at(i), cell_input(net, i, x, s, prev, false), tapes ? &(*tapes)[i] : nullptr, net.where(i));
  return s.out.back();
}

void step(Network& net, const Vec& x, MeshState& s) {
  if (x.size() != net.input_size())
    fail(ErrorCode::BadInput, "volumetric: network input of " + u(x.size()) + " values, " + u(net.input_size()) + " expected");
  MeshState next = s;
  for (uint32_t i = 0; i < net.size(); ++i) next.out[i] = layer_forward(net.at(i), cell_input(net, i, x, s, s, true), nullptr, net.where(i));
  s = std::move(next);
}

}  // namespace weft::volumetric
