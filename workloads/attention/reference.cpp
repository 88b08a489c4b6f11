#include "reference.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "error.h"
#include "quant.h"

namespace weft::attention {

namespace ref {

std::vector<double> matvec(const Weight& w, std::span<const uint8_t> data, std::span<const double> x) {
  std::vector<double> y(w.rows);
  const auto bytes = data.subspan(w.offset, w.bytes);
  for (uint64_t r = 0; r < w.rows; ++r) {
    const std::vector<float> row = decode_row(w.type, bytes, w.cols, r);
    double acc = 0;
    for (uint64_t k = 0; k < w.cols; ++k) acc += double(row[k]) * x[k];
    y[r] = acc;
  }
  return y;
}

std::vector<double> rmsnorm(std::span<const double> x, std::span<const float> w, double eps) {
  double ss = 0;
  for (double v : x) ss += v * v;
  const double inv = 1.0 / std::sqrt(ss / double(x.size()) + eps);
  std::vector<double> y(x.size());
  for (size_t k = 0; k < x.size(); ++k) y[k] = x[k] * inv * double(w[k]);
  return y;
}

void rope(std::span<double> v, uint32_t heads, uint32_t hd, uint32_t pos, const RopeFrequencies& rope, bool neox) {
  for (uint32_t h = 0; h < heads; ++h)
    for (uint32_t i = 0; i < hd / 2; ++i) {
      const double theta = rope.angle(pos, i, hd);
      const double c = std::cos(theta), s = std::sin(theta);
      double& a = v[h * hd + (neox ? i : 2 * i)];
      double& b = v[h * hd + (neox ? i + hd / 2 : 2 * i + 1)];
      const double a0 = a, b0 = b;
      a = a0 * c - b0 * s;
      b = a0 * s + b0 * c;
    }
}

void head_norm(std::span<double> v, uint32_t heads, uint32_t hd, std::span<const float> w, double eps) {
  for (uint32_t h = 0; h < heads; ++h) {
    const std::span<double> row = v.subspan(size_t(h) * hd, hd);
    double ss = 0;
    for (double x : row) ss += x * x;
    const double inv = 1.0 / std::sqrt(ss / hd + eps);
    for (uint32_t k = 0; k < hd; ++k) row[k] *= inv * double(w[k]);
  }
}

void softmax(std::span<double> v) {
  const double mx = *std::max_element(v.begin(), v.end());
  double sum = 0;
  for (double& x : v) sum += (x = std::exp(x - mx));
  for (double& x : v) x /= sum;
}

std::vector<double> attention(std::span<const double> q, const std::vector<std::vector<double>>& kc,
                              const std::vector<std::vector<double>>& vc, uint32_t pos, uint32_t heads, uint32_t kv_heads,
                              uint32_t hd) {
  std::vector<double> out(size_t(heads) * hd, 0.0);
  const uint32_t group = heads / kv_heads;
  const double scale = 1.0 / std::sqrt(double(hd));
  for (uint32_t h = 0; h < heads; ++h) {
    const uint32_t kvh = h / group;
    std::vector<double> s(pos + 1);
    for (uint32_t p = 0; p <= pos; ++p) {
      double d = 0;
      for (uint32_t i = 0; i < hd; ++i) d += q[h * hd + i] * kc[p][kvh * hd + i];
      s[p] = d * scale;
    }
    softmax(s);
    for (uint32_t p = 0; p <= pos; ++p)
      for (uint32_t i = 0; i < hd; ++i) out[h * hd + i] += s[p] * vc[p][kvh * hd + i];
  }
  return out;
}

std::vector<double> swiglu(std::span<const double> g, std::span<const double> u) {
  std::vector<double> y(g.size());
  for (size_t k = 0; k < g.size(); ++k) y[k] = g[k] / (1.0 + std::exp(-g[k])) * u[k];
  return y;
}

float sample_uniform(uint32_t seed, uint32_t position) {
  // PCG-style integer hash (the shader computes the same 32-bit arithmetic).
  uint32_t h = seed * 747796405u + position * 2891336453u + 1u;
  h = ((h >> ((h >> 28u) + 4u)) ^ h) * 277803737u;
  h = (h >> 22u) ^ h;
  return float(h >> 8) * (1.0f / 16777216.0f);
}

uint32_t sample(std::span<const float> logits, const Sampling& s, float u) {
  const uint32_t n = uint32_t(logits.size());
  auto better = [&](uint32_t a, uint32_t b) { return logits[a] > logits[b] || (logits[a] == logits[b] && a < b); };
  if (s.temperature <= 0.0f || s.top_k == 1) {
    uint32_t best = 0;
    for (uint32_t i = 1; i < n; ++i)
      if (better(i, best)) best = i;
    return best;
  }
  std::vector<uint32_t> cand(n);
  std::iota(cand.begin(), cand.end(), 0u);
  if (s.top_k > 0) {
    const uint32_t k = std::min(s.top_k, n);
    std::partial_sort(cand.begin(), cand.begin() + k, cand.end(), better);
    cand.resize(k);
  }
  double mx = -INFINITY;
  for (uint32_t c : cand) mx = std::max(mx, double(logits[c]));
  std::vector<double> p;
  double total = 0;
  for (uint32_t c : cand) total += p.emplace_back(std::exp((double(logits[c]) - mx) / double(s.temperature)));
  const double target = double(u) * total;
  double run = 0;
  for (size_t i = 0; i < cand.size(); ++i) {
    run += p[i];
    if (run > target) return cand[i];
  }
  return cand.back();
}

}  // namespace ref

Reference::Reference(const Model& model, uint32_t context, Rules rules, uint32_t max_batch)
    : m_(model), context_(context), rules_(rules), max_batch_(max_batch) {
  const Config& c = m_.config;
  k_.assign(c.layers, {});
  v_.assign(c.layers, {});
  const auto data = m_.file.data_section();
  auto f32 = [&](const Weight& w) { return decode(w.type, data.subspan(w.offset, w.bytes), w.cols * w.rows); };
  for (const LayerWeights& l : m_.layers) {
    norms_.push_back(f32(l.attn_norm));
    norms_.push_back(f32(l.ffn_norm));
    LayerVectors lv;
    for (auto [out, in] : {std::pair{&lv.bq, &l.bq}, std::pair{&lv.bk, &l.bk}, std::pair{&lv.bv, &l.bv},
                           std::pair{&lv.q_norm, &l.q_norm}, std::pair{&lv.k_norm, &l.k_norm}})
      if (*in) *out = f32(**in);
    vectors_.push_back(std::move(lv));
  }
  norms_.push_back(f32(m_.output_norm));
}

std::vector<double> Reference::forward(std::span<const uint32_t> tokens) {
  if (tokens.empty()) fail(ErrorCode::BadInput, "reference: no tokens");
  if (pos_ + tokens.size() > context_)
    fail(ErrorCode::BadInput, "reference: " + std::to_string(pos_ + tokens.size()) + " positions exceed the context of " + std::to_string(context_));
  const size_t chunk = max_batch_ ? max_batch_ : tokens.size();
  std::vector<LayerReport> merged;
  std::vector<double> logits;
  for (size_t i = 0; i < tokens.size(); i += chunk) {
    logits = run(tokens.subspan(i, std::min(chunk, tokens.size() - i)));
    if (i == 0) {
      merged = reports_;
      continue;
    }
    for (size_t l = 0; l < merged.size(); ++l) {
      LayerReport& a = merged[l];
      const LayerReport& r = reports_[l];
      a.rms = std::isnan(a.rms) || std::isnan(r.rms) ? NAN : std::max(a.rms, r.rms);
      a.max_abs = std::isnan(a.max_abs) || std::isnan(r.max_abs) ? NAN : std::max(a.max_abs, r.max_abs);
      a.anomaly = a.anomaly || r.anomaly;
    }
  }
  reports_ = std::move(merged);
  return logits;
}

std::vector<double> Reference::run(std::span<const uint32_t> tokens) {
  const Config& c = m_.config;
  const auto data = m_.file.data_section();
  const uint32_t T = uint32_t(tokens.size()), D = c.dim;
  std::vector<std::vector<double>> x(T);
  for (uint32_t t = 0; t < T; ++t) {
    if (tokens[t] >= c.vocab) fail(ErrorCode::BadInput, "reference: token " + std::to_string(tokens[t]) + " is not below the vocabulary size " + std::to_string(c.vocab));
    const auto row = decode_row(m_.token_embd.type, data.subspan(m_.token_embd.offset, m_.token_embd.bytes), D, tokens[t]);
    x[t].assign(row.begin(), row.end());
  }
  return run_rows(std::move(x));
}

std::vector<double> Reference::forward_rows(std::vector<std::vector<double>> rows) {
  const uint32_t D = m_.config.dim;
  if (rows.empty()) fail(ErrorCode::BadInput, "reference: no input rows");
  if (max_batch_ && rows.size() > max_batch_) fail(ErrorCode::BadInput, "reference: more input rows than max_batch");
  if (pos_ + rows.size() > context_) fail(ErrorCode::BadInput, "reference: input rows exceed the context");
  for (size_t t = 0; t < rows.size(); ++t)
    if (rows[t].size() != D) fail(ErrorCode::BadInput, "reference: input row " + std::to_string(t) + " has " + std::to_string(rows[t].size()) + " values, the model's dim is " + std::to_string(D));
  return run_rows(std::move(rows));
}

std::vector<double> Reference::run_rows(std::vector<std::vector<double>> x) {
  const Config& c = m_.config;
  const auto data = m_.file.data_section();
  const uint32_t T = uint32_t(x.size()), D = c.dim;
  reports_.assign(c.layers, {});
  double scale = 1.0;
  for (uint32_t l = 0; l < c.layers; ++l) {
    const LayerWeights& w = m_.layers[l];
    for (auto& xt : x)
      for (double& v : xt) v *= scale;
    // Attention: every token's K and V enter the cache before any token attends (causality
    // comes from each token reading positions <= its own).
    std::vector<std::vector<double>> q(T);
    const LayerVectors& lv = vectors_[l];
    const auto add = [](std::vector<double>& y, const std::vector<float>& b) {
      for (size_t i = 0; i < b.size(); ++i) y[i] += b[i];
    };
    for (uint32_t t = 0; t < T; ++t) {
      const auto xn = ref::rmsnorm(x[t], norms_[2 * l], c.rms_eps);
      q[t] = ref::matvec(w.wq, data, xn);
      auto k = ref::matvec(w.wk, data, xn);
      auto v = ref::matvec(w.wv, data, xn);
      add(q[t], lv.bq), add(k, lv.bk), add(v, lv.bv);
      if (!lv.q_norm.empty()) {
        ref::head_norm(q[t], c.heads, c.head_dim, lv.q_norm, c.rms_eps);
        ref::head_norm(k, c.kv_heads, c.head_dim, lv.k_norm, c.rms_eps);
      }
      ref::rope(q[t], c.heads, c.head_dim, pos_ + t, c.rope, c.rope_neox);
      ref::rope(k, c.kv_heads, c.head_dim, pos_ + t, c.rope, c.rope_neox);
      k_[l].push_back(std::move(k));
      v_[l].push_back(std::move(v));
    }
    for (uint32_t t = 0; t < T; ++t) {
      const auto a = ref::attention(q[t], k_[l], v_[l], pos_ + t, c.heads, c.kv_heads, c.head_dim);
      const auto o = ref::matvec(w.wo, data, a);
      for (uint32_t i = 0; i < D; ++i) x[t][i] += o[i];
      const auto xn = ref::rmsnorm(x[t], norms_[2 * l + 1], c.rms_eps);
      const auto h = ref::swiglu(ref::matvec(w.gate, data, xn), ref::matvec(w.up, data, xn));
      const auto d = ref::matvec(w.down, data, h);
      for (uint32_t i = 0; i < D; ++i) x[t][i] += d[i];
    }
    LayerReport& r = reports_[l];
    for (const auto& xt : x) {
      double ss = 0;
      for (double v : xt) {
        ss += v * v;
        r.max_abs = std::max(r.max_abs, std::fabs(v));
      }
      const double rms = std::sqrt(ss / D);
      r.rms = std::isnan(rms) || std::isnan(r.rms) ? NAN : std::max(r.rms, rms);
    }
    // The rule compares the f32 the device would see.
    const float rms32 = float(r.rms);
    r.anomaly = !(rms32 >= 0.0f && rms32 <= rules_.norm_limit);
    scale = r.anomaly ? double(rules_.damp) : 1.0;
  }
  pos_ += T;
  hidden_ = x.back();
  const auto xn = ref::rmsnorm(x.back(), norms_.back(), c.rms_eps);
  return ref::matvec(m_.output, data, xn);
}

}  // namespace weft::attention
