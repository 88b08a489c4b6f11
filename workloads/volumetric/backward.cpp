// CPU reference backward: every layer kind's gradients (weights effective, so packed types
// train straight-through), recurrent layers through time.
#include <algorithm>
#include <cmath>

#include <weft/error.h>

#include "reference.h"
#include "reference_math.h"

namespace weft::volumetric {

using namespace detail;

namespace {

// Backpropagation through time for RNN / GRU / LSTM: replays the forward keeping every step's
// state, then walks back. Gradients as the forward's arithmetic (double), weights effective.
Vec recurrent_backward(Layer& l, const Vec& x, const Vec& dy, Grads& g) {
  const uint32_t H = l.out, I = l.in, T = l.seq;
  const bool gru = l.type == LayerType::GRU, lstm = l.type == LayerType::LSTM;
  const uint32_t G = l.type == LayerType::RNN ? 1 : gru ? 3 : 4;
  const Vec Wx = eff(l, 0), Wh = eff(l, 1);
  // Per step: h (as the forward rounds it to f32, the next step's input), c, gate values, and
  // for GRU the recurrent n-term (Wh_n h + bh_n).
  std::vector<std::vector<double>> hs(T + 1, std::vector<double>(H, 0.0)), cs(T + 1, std::vector<double>(H, 0.0));
  std::vector<std::vector<double>> gates(T, std::vector<double>(G * H)), hn(T, std::vector<double>(H));
  std::vector<double> gx(G * H), gh(G * H);
  std::vector<float> hf(H, 0.0f);
  for (uint32_t t = 0; t < T; ++t) {
    matvec(Wx, G * H, I, x.data() + uint64_t(t) * I, gx.data());
    matvec(Wh, G * H, H, hf.data(), gh.data());
    for (uint32_t j = 0; j < H; ++j) {
      const double hp = hs[t][j];
      if (!gru && !lstm) {
        gates[t][j] = hs[t + 1][j] = std::tanh(gx[j] + gh[j] + l.vecs[0][j]);
      } else if (gru) {
        const double z = sigmoid(gx[j] + l.vecs[0][j] + gh[j] + l.vecs[1][j]);
        const double r = sigmoid(gx[H + j] + l.vecs[0][H + j] + gh[H + j] + l.vecs[1][H + j]);
        hn[t][j] = gh[2 * H + j] + l.vecs[1][2 * H + j];
        const double n = std::tanh(gx[2 * H + j] + l.vecs[0][2 * H + j] + r * hn[t][j]);
        gates[t][j] = z, gates[t][H + j] = r, gates[t][2 * H + j] = n;
        hs[t + 1][j] = (1 - z) * n + z * hp;
      } else {
        const auto pre = [&](uint32_t k) { return gx[k * H + j] + gh[k * H + j] + l.vecs[0][k * H + j]; };
        const double i = sigmoid(pre(0)), f = sigmoid(pre(1)), gg = std::tanh(pre(2)), o = sigmoid(pre(3));
        gates[t][j] = i, gates[t][H + j] = f, gates[t][2 * H + j] = gg, gates[t][3 * H + j] = o;
        cs[t + 1][j] = f * cs[t][j] + i * gg;
        hs[t + 1][j] = o * std::tanh(cs[t + 1][j]);
      }
    }
    for (uint32_t j = 0; j < H; ++j) hs[t + 1][j] = hf[j] = float(hs[t + 1][j]);
  }
  Vec dx(x.size(), 0.0f);
  std::vector<double> dh_next(H, 0.0), dc_next(H, 0.0), ax(G * H), ah(G * H);
  for (uint32_t t = T; t-- > 0;) {
    for (uint32_t j = 0; j < H; ++j) {
      const double dh = dy[uint64_t(t) * H + j] + dh_next[j];
      if (!gru && !lstm) {
        ax[j] = ah[j] = dh * (1 - hs[t + 1][j] * hs[t + 1][j]);
      } else if (gru) {
        const double z = gates[t][j], r = gates[t][H + j], n = gates[t][2 * H + j];
        const double dn = dh * (1 - z), dz = dh * (hs[t][j] - n), dan = dn * (1 - n * n);
        const double daz = dz * z * (1 - z), dar = dan * hn[t][j] * r * (1 - r);
        ax[j] = ah[j] = daz;
        ax[H + j] = ah[H + j] = dar;
        ax[2 * H + j] = dan;
        ah[2 * H + j] = dan * r;
        dh_next[j] = dh * z;  // the direct path; the Wh path is added below
      } else {
        const double i = gates[t][j], f = gates[t][H + j], gg = gates[t][2 * H + j], o = gates[t][3 * H + j];
        const double tc = std::tanh(cs[t + 1][j]);
        const double dc = dh * o * (1 - tc * tc) + dc_next[j];
        ax[j] = dc * gg * i * (1 - i);
        ax[H + j] = dc * cs[t][j] * f * (1 - f);
        ax[2 * H + j] = dc * i * (1 - gg * gg);
        ax[3 * H + j] = dh * tc * o * (1 - o);
        for (uint32_t k = 0; k < 4; ++k) ah[k * H + j] = ax[k * H + j];
        dc_next[j] = dc * f;
      }
    }
    if (!gru) std::fill(dh_next.begin(), dh_next.end(), 0.0);
    for (uint32_t q = 0; q < G * H; ++q) {
      g.vecs[0][q] += float(ax[q]);
      if (gru) g.vecs[1][q] += float(ah[q]);
      for (uint32_t i = 0; i < I; ++i) {
        g.mats[0][uint64_t(q) * I + i] += float(ax[q] * x[uint64_t(t) * I + i]);
        dx[uint64_t(t) * I + i] += float(ax[q] * Wx[uint64_t(q) * I + i]);
      }
      for (uint32_t j = 0; j < H; ++j) {
        g.mats[1][uint64_t(q) * H + j] += float(ah[q] * hs[t][j]);
        dh_next[j] += ah[q] * Wh[uint64_t(q) * H + j];
      }
    }
  }
  return dx;
}

// Multi-head attention backward: replays q, k, v, the attention weights and o, then walks back
// through Wo, the weighted sum, the softmax, the scaled scores and the projections.
Vec mha_backward(Layer& l, const Vec& x, const Vec& dy, Grads& g) {
  const uint32_t D = l.in, T = l.seq, Hn = l.heads, dh = D / Hn;
  const double sc = 1.0 / std::sqrt(double(dh));
  const Vec W[4] = {eff(l, 0), eff(l, 1), eff(l, 2), eff(l, 3)};
  std::vector<double> tmp(D);
  Vec q(uint64_t(T) * D), k(q.size()), v(q.size()), o(q.size());
  Vec* qkv[3] = {&q, &k, &v};
  for (uint32_t t = 0; t < T; ++t)
    for (int m = 0; m < 3; ++m) {
      matvec(W[m], D, D, &x[t * D], tmp.data());
      for (uint32_t i = 0; i < D; ++i) (*qkv[m])[t * D + i] = float(tmp[i]);
    }
  std::vector<Vec> P(Hn, Vec(uint64_t(T) * T));
  for (uint32_t h = 0; h < Hn; ++h)
    for (uint32_t t = 0; t < T; ++t) {
      float* p = &P[h][t * T];
      for (uint32_t s = 0; s < T; ++s) {
        double a = 0;
        for (uint32_t i = 0; i < dh; ++i) a += double(q[t * D + h * dh + i]) * k[s * D + h * dh + i];
        p[s] = float(a * sc);
      }
      softmax_row(p, T);
      for (uint32_t i = 0; i < dh; ++i) {
        double a = 0;
        for (uint32_t s = 0; s < T; ++s) a += double(p[s]) * v[s * D + h * dh + i];
        o[t * D + h * dh + i] = float(a);
      }
    }
  // Through Wo.
  std::vector<double> dout(uint64_t(T) * D, 0.0), dq(dout.size(), 0.0), dk(dout.size(), 0.0), dv(dout.size(), 0.0);
  for (uint32_t t = 0; t < T; ++t)
    for (uint32_t r = 0; r < D; ++r) {
      const double d = dy[t * D + r];
      for (uint32_t i = 0; i < D; ++i) {
        g.mats[3][uint64_t(r) * D + i] += float(d * o[t * D + i]);
        dout[t * D + i] += d * W[3][uint64_t(r) * D + i];
      }
    }
  for (uint32_t h = 0; h < Hn; ++h)
    for (uint32_t t = 0; t < T; ++t) {
      const float* p = &P[h][t * T];
      std::vector<double> dp(T);
      double sum = 0;
      for (uint32_t s = 0; s < T; ++s) {
        double a = 0;
        for (uint32_t i = 0; i < dh; ++i) {
          a += dout[t * D + h * dh + i] * v[s * D + h * dh + i];
          dv[s * D + h * dh + i] += p[s] * dout[t * D + h * dh + i];
        }
        dp[s] = a;
        sum += a * p[s];
      }
      for (uint32_t s = 0; s < T; ++s) {
        const double da = p[s] * (dp[s] - sum) * sc;
        for (uint32_t i = 0; i < dh; ++i) {
          dq[t * D + h * dh + i] += da * k[s * D + h * dh + i];
          dk[s * D + h * dh + i] += da * q[t * D + h * dh + i];
        }
      }
    }
  Vec dx(x.size(), 0.0f);
  const std::vector<double>* dm[3] = {&dq, &dk, &dv};
  for (int m = 0; m < 3; ++m)
    for (uint32_t t = 0; t < T; ++t)
      for (uint32_t r = 0; r < D; ++r) {
        const double d = (*dm[m])[t * D + r];
        for (uint32_t i = 0; i < D; ++i) {
          g.mats[m][uint64_t(r) * D + i] += float(d * x[t * D + i]);
          dx[t * D + i] += float(d * W[m][uint64_t(r) * D + i]);
        }
      }
  return dx;
}
}  // namespace

Grads zero_grads(const Layer& l) {
  Grads g;
  for (const WeightStore& m : l.mats) g.mats.emplace_back(m.master().size(), 0.0f);
  for (const Vec& v : l.vecs) g.vecs.emplace_back(v.size(), 0.0f);
  for (const Layer& c : l.children) g.children.push_back(zero_grads(c));
  return g;
}

bool layer_trainable(const Layer& l) {
  switch (l.type) {
    case LayerType::Dense:
    case LayerType::Conv1D:
    case LayerType::Conv2D:
    case LayerType::Conv3D:
    case LayerType::ConvT1D:
    case LayerType::ConvT2D:
    case LayerType::ConvT3D:
    case LayerType::KMeans:
    case LayerType::Embedding:
    case LayerType::SwiGLU:
    case LayerType::MHA:
    case LayerType::RNN:
    case LayerType::GRU:
    case LayerType::LSTM:
    case LayerType::RMSNorm:
    case LayerType::LayerNorm:
    case LayerType::Softmax: return true;
    case LayerType::Sequential:
    case LayerType::Parallel:
    case LayerType::Residual:
      return std::all_of(l.children.begin(), l.children.end(), [](const Layer& c) { return layer_trainable(c); });
    default: return false;
  }
}

namespace {

// Dense: z = W x + b recomputed, dz = dy act'(z) into b, W and x.
void dense_backward(Layer& l, const Vec& x, const Vec& dy, Grads& g, Vec& dx) {
  const Vec W = eff(l, 0);
  std::vector<double> z(l.out);
  matvec(W, l.out, l.in, x.data(), z.data());
  for (uint32_t o = 0; o < l.out; ++o) {
    const float dz = dy[o] * activate_grad(l.act, float(z[o] + l.vecs[0][o]));
    g.vecs[0][o] += dz;
    float* gw = g.mats[0].data() + uint64_t(o) * l.in;
    const float* w = W.data() + uint64_t(o) * l.in;
    for (uint32_t i = 0; i < l.in; ++i) {
      gw[i] += dz * x[i];
      dx[i] += dz * w[i];
    }
  }
}

// RMSNorm / LayerNorm per row (gain, and beta for LayerNorm).
void norm_backward(Layer& l, const Vec& x, const Vec& dy, Grads& g, Vec& dx) {
  const bool ln = l.type == LayerType::LayerNorm;
  const uint32_t n = l.in;
  for (uint32_t t = 0; t < l.seq; ++t) {
    const float* r = x.data() + uint64_t(t) * n;
    const float* d = dy.data() + uint64_t(t) * n;
    double mean = 0, sq = 0;
    if (ln)
      for (uint32_t i = 0; i < n; ++i) mean += r[i];
    mean /= n;
    for (uint32_t i = 0; i < n; ++i) sq += (r[i] - mean) * (r[i] - mean);
    const double inv = 1.0 / std::sqrt(sq / n + l.eps);
    double s1 = 0, s2 = 0;  // sum dxhat, sum dxhat * xhat
    for (uint32_t i = 0; i < n; ++i) {
      const double xh = (r[i] - mean) * inv, dxh = double(d[i]) * l.vecs[0][i];
      g.vecs[0][i] += float(d[i] * xh);
      if (ln) g.vecs[1][i] += d[i];
      s1 += dxh;
      s2 += dxh * xh;
    }
    for (uint32_t i = 0; i < n; ++i) {
      const double xh = (r[i] - mean) * inv, dxh = double(d[i]) * l.vecs[0][i];
      dx[uint64_t(t) * n + i] = float(inv * (dxh - (ln ? s1 / n : 0.0) - xh * s2 / n));
    }
  }
}

void kmeans_backward(Layer& l, const Vec& x, const Vec& dy, Grads& g, Vec& dx) {
  // y = softmax(s), s_j = -|x - c_j|^2: ds from the softmax, then ds_j * -2 (x - c_j) to x
  // and its negative to c_j.
  const Vec C = eff(l, 0);
  const Vec y = layer_forward(l, x);
  for (uint32_t t = 0; t < l.seq; ++t) {
    const float* yt = y.data() + uint64_t(t) * l.out;
    const float* dyt = dy.data() + uint64_t(t) * l.out;
    double sum = 0;
    for (uint32_t j = 0; j < l.out; ++j) sum += double(dyt[j]) * yt[j];
    for (uint32_t j = 0; j < l.out; ++j) {
      const double ds = yt[j] * (dyt[j] - sum);
      for (uint32_t i = 0; i < l.in; ++i) {
        const double e = double(x[uint64_t(t) * l.in + i]) - C[uint64_t(j) * l.in + i];
        dx[uint64_t(t) * l.in + i] += float(-2 * ds * e);
        g.mats[0][uint64_t(j) * l.in + i] += float(2 * ds * e);
      }
    }
  }
}

void swiglu_backward(Layer& l, const Vec& x, const Vec& dy, Grads& g, Vec& dx) {
  // Per token: a = W1 x, b = W3 x, h = silu(a) b, y = W2 h.
  const Vec W1 = eff(l, 0), W3 = eff(l, 1), W2 = eff(l, 2);
  const uint32_t D = l.in, Hd = l.out;
  std::vector<double> a(Hd), b(Hd);
  for (uint32_t t = 0; t < l.seq; ++t) {
    const float* xt = x.data() + uint64_t(t) * D;
    const float* dyt = dy.data() + uint64_t(t) * D;
    matvec(W1, Hd, D, xt, a.data());
    matvec(W3, Hd, D, xt, b.data());
    for (uint32_t j = 0; j < Hd; ++j) {
      const double sg = sigmoid(a[j]), silu = a[j] * sg, h = silu * b[j];
      double dh = 0;
      for (uint32_t i = 0; i < D; ++i) {
        dh += double(W2[uint64_t(i) * Hd + j]) * dyt[i];
        g.mats[2][uint64_t(i) * Hd + j] += float(dyt[i] * h);
      }
      const double da = dh * b[j] * sg * (1 + a[j] * (1 - sg)), db = dh * silu;
      for (uint32_t i = 0; i < D; ++i) {
        g.mats[0][uint64_t(j) * D + i] += float(da * xt[i]);
        g.mats[1][uint64_t(j) * D + i] += float(db * xt[i]);
        dx[uint64_t(t) * D + i] += float(da * W1[uint64_t(j) * D + i] + db * W3[uint64_t(j) * D + i]);
      }
    }
  }
}

// Conv3D and the transposed convolutions through ConvShape's gather.
void conv_shape_backward(Layer& l, const Vec& x, const Vec& dy, Grads& g, Vec& dx) {
  const Vec W = eff(l, 0);
  const ConvShape cs = conv_shape(l);
  const uint32_t taps = cs.taps(), P = cs.positions();
  for (uint32_t f = 0; f < cs.F; ++f)
    for (uint32_t p = 0; p < P; ++p) {
      const double z = conv_preactivation(cs, W, l.vecs[0][f], x.data(), f, p);
      const float dz = dy[uint64_t(f) * P + p] * activate_grad(l.act, float(z));
      g.vecs[0][f] += dz;
      for (uint32_t q = 0; q < taps; ++q)
        if (const int64_t i = cs.input_index(q, p); i >= 0) {
          g.mats[0][uint64_t(f) * taps + q] += dz * x[i];
          dx[i] += dz * W[uint64_t(f) * taps + q];
        }
    }
}

void conv_backward(Layer& l, const Vec& x, const Vec& dy, Grads& g, Vec& dx) {
  // One pass over (filter, position, tap): recompute z, then spread dz to b, W and x.
  const bool two = l.type == LayerType::Conv2D;
  const Vec W = eff(l, 0);
  const uint32_t K = l.kernel, C = l.channels;
  const uint32_t Ho = two ? l.height - K + 1 : 1, Wo = two ? l.width - K + 1 : l.seq - K + 1, taps = two ? C * K * K : C * K;
  std::vector<uint64_t> idx(taps);
  for (uint32_t f = 0; f < l.filters; ++f)
    for (uint32_t i = 0; i < Ho; ++i)
      for (uint32_t j = 0; j < Wo; ++j) {
        for (uint32_t q = 0; q < taps; ++q) {
          const uint32_t c = two ? q / (K * K) : q / K, r = two ? q % (K * K) : q % K;
          idx[q] = two ? (uint64_t(c) * l.height + i + r / K) * l.width + j + r % K : uint64_t(c) * l.seq + j + r;
        }
        double z = l.vecs[0][f];
        for (uint32_t q = 0; q < taps; ++q) z += double(W[uint64_t(f) * taps + q]) * x[idx[q]];
        const float dz = dy[(uint64_t(f) * Ho + i) * Wo + j] * activate_grad(l.act, float(z));
        g.vecs[0][f] += dz;
        for (uint32_t q = 0; q < taps; ++q) {
          g.mats[0][uint64_t(f) * taps + q] += dz * x[idx[q]];
          dx[idx[q]] += dz * W[uint64_t(f) * taps + q];
        }
      }
}

// Row softmax, from its recomputed output.
void softmax_backward(const Layer& l, const Vec& x, const Vec& dy, Vec& dx) {
  Vec y = x;
  for (uint32_t t = 0; t < l.seq; ++t) softmax_row(y.data() + uint64_t(t) * l.in, l.in);
  for (uint32_t t = 0; t < l.seq; ++t) {
    double s = 0;
    for (uint32_t i = 0; i < l.in; ++i) s += double(dy[t * l.in + i]) * y[t * l.in + i];
    for (uint32_t i = 0; i < l.in; ++i) dx[t * l.in + i] = float(y[t * l.in + i] * (dy[t * l.in + i] - s));
  }
}

void embedding_backward(Layer& l, const Vec& x, const Vec& dy, Grads& g) {
  // Token ids are not differentiable (dx = 0); each looked-up row gets its output gradient.
  for (uint32_t t = 0; t < l.seq; ++t)
    for (uint32_t j = 0; j < l.out; ++j) g.mats[0][uint64_t(x[t]) * l.out + j] += dy[uint64_t(t) * l.out + j];
}

}  // namespace

Vec layer_backward(Layer& l, const Tape& tape, const Vec& dy, Grads& g) {
  const Vec& x = tape.x;
  Vec dx(x.size(), 0.0f);
  switch (l.type) {
    case LayerType::Dense: dense_backward(l, x, dy, g, dx); break;
    case LayerType::RMSNorm:
    case LayerType::LayerNorm: norm_backward(l, x, dy, g, dx); break;
    case LayerType::MHA: dx = mha_backward(l, x, dy, g); break;
    case LayerType::KMeans: kmeans_backward(l, x, dy, g, dx); break;
    case LayerType::RNN:
    case LayerType::GRU:
    case LayerType::LSTM: dx = recurrent_backward(l, x, dy, g); break;
    case LayerType::Embedding: embedding_backward(l, x, dy, g); break;
    case LayerType::SwiGLU: swiglu_backward(l, x, dy, g, dx); break;
    case LayerType::Conv3D:
    case LayerType::ConvT1D:
    case LayerType::ConvT2D:
    case LayerType::ConvT3D: conv_shape_backward(l, x, dy, g, dx); break;
    case LayerType::Conv1D:
    case LayerType::Conv2D: conv_backward(l, x, dy, g, dx); break;
    case LayerType::Softmax: softmax_backward(l, x, dy, dx); break;
    case LayerType::Sequential:
    case LayerType::Residual: {
      Vec d = dy;
      for (size_t i = l.children.size(); i-- > 0;) d = layer_backward(l.children[i], tape.children[i], d, g.children[i]);
      dx = std::move(d);
      if (l.type == LayerType::Residual)
        for (size_t i = 0; i < dx.size(); ++i) dx[i] += dy[i];
      break;
    }
    case LayerType::Parallel: {
      size_t off = 0;
      for (size_t i = 0; i < l.children.size(); ++i) {
        const size_t n = layer_output_size(l.children[i]);
        const Vec d = l.combine == Combine::Add ? dy : Vec(dy.begin() + off, dy.begin() + off + n);
        const Vec dxi = layer_backward(l.children[i], tape.children[i], d, g.children[i]);
        for (size_t k = 0; k < dx.size(); ++k) dx[k] += dxi[k];
        off += n;
      }
      break;
    }
    default: fail(ErrorCode::BadInput, std::string("backward of ") + layer_type_name(l.type) + " is not implemented");
  }
  return dx;
}

}  // namespace weft::volumetric
