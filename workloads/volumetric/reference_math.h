// Arithmetic the CPU reference's forward (reference.cpp) and backward (backward.cpp) share:
// double-accumulated matrix-vector products over a layer's effective (typed) weights.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "model.h"

namespace weft::volumetric::detail {

using Vec = std::vector<float>;
inline std::string u(uint64_t v) { return std::to_string(v); }
inline double sigmoid(double z) { return 1.0 / (1.0 + std::exp(-z)); }

// y[r] = sum_c W[r][c] * x[xo + c] (+ bias), in double.
inline void matvec(const Vec& W, uint32_t rows, uint32_t cols, const float* x, double* y) {
  for (uint32_t r = 0; r < rows; ++r) {
    double a = 0;
    const float* w = W.data() + uint64_t(r) * cols;
    for (uint32_t c = 0; c < cols; ++c) a += double(w[c]) * x[c];
    y[r] = a;
  }
}

// Filter f's pre-activation at output position p of a convolution (any ConvShape kind): bias plus
// the taps that land on the input, in double.
inline double conv_preactivation(const ConvShape& cs, const Vec& W, float bias, const float* x, uint32_t f, uint32_t p) {
  double z = bias;
  const uint32_t taps = cs.taps();
  for (uint32_t q = 0; q < taps; ++q)
    if (const int64_t i = cs.input_index(q, p); i >= 0) z += double(W[uint64_t(f) * taps + q]) * x[i];
  return z;
}

// The values layer l computes with: its matrices in its numeric type.
inline Vec eff(Layer& l, size_t m) { return l.mats[m].effective(l.dtype); }

inline void softmax_row(float* v, uint32_t n) {
  float mx = v[0];
  for (uint32_t i = 1; i < n; ++i) mx = std::max(mx, v[i]);
  double s = 0;
  for (uint32_t i = 0; i < n; ++i) s += std::exp(double(v[i]) - mx);
  for (uint32_t i = 0; i < n; ++i) v[i] = float(std::exp(double(v[i]) - mx) / s);
}

}  // namespace weft::volumetric::detail
