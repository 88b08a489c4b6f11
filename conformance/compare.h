// Comparing a result with its reference: the one comparator every conformance case, test and
// bench uses, so they all agree on sizes, NaN and infinity, and on what an error is.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

namespace weft::conformance {

struct ErrorStats {
  size_t count = 0;          // elements compared
  bool size_mismatch = false;
  size_t non_finite = 0;     // elements where got and want disagree on being NaN / +Inf / -Inf
  double max_abs = 0;        // largest |got - want| over the finite pairs
  double scale = 0;          // largest |want|
  double max_scaled = 0;     // largest |got - want| / max(1, |want|)
  double sum_sq_err = 0, sum_sq_ref = 0;
  size_t worst_index = 0;    // where |got - want| is largest (or the first non-finite mismatch)

  bool comparable() const { return !size_mismatch && non_finite == 0; }
  // max |got - want| / max |want| (the absolute error when the reference is all zeros).
  double normalized_max() const {
    if (!comparable()) return std::numeric_limits<double>::infinity();
    return scale > 0 ? max_abs / scale : max_abs;
  }
  // Normalized mean squared error: sum (got - want)^2 / sum want^2.
  double nmse() const {
    if (!comparable()) return std::numeric_limits<double>::infinity();
    return sum_sq_ref > 0 ? sum_sq_err / sum_sq_ref : sum_sq_err;
  }
  // max |got - want| / max(1, |want|): absolute near zero, relative elsewhere.
  double mixed() const { return comparable() ? max_scaled : std::numeric_limits<double>::infinity(); }
  // "12 values, max error 1.5e-07 at [3]" (or what made them incomparable).
  std::string describe() const;
};

namespace detail {
inline int finite_kind(double v) { return std::isnan(v) ? 1 : std::isinf(v) ? (v > 0 ? 2 : 3) : 0; }
}  // namespace detail

// `got` against `want`, element by element (any two indexable containers of numbers).
template <class Got, class Want>
ErrorStats compare(const Got& got, const Want& want) {
  ErrorStats s;
  s.size_mismatch = got.size() != want.size();
  s.count = got.size() < want.size() ? got.size() : want.size();
  for (size_t k = 0; k < s.count; ++k) {
    const double g = double(got[k]), w = double(want[k]);
    const int gk = detail::finite_kind(g), wk = detail::finite_kind(w);
    if (gk || wk) {
      if (gk != wk && s.non_finite++ == 0) s.worst_index = k;
      continue;
    }
    const double d = std::fabs(g - w);
    if (d > s.max_abs && s.non_finite == 0) s.worst_index = k;
    s.max_abs = d > s.max_abs ? d : s.max_abs;
    s.scale = std::fabs(w) > s.scale ? std::fabs(w) : s.scale;
    const double scaled = d / (std::fabs(w) > 1 ? std::fabs(w) : 1.0);
    s.max_scaled = scaled > s.max_scaled ? scaled : s.max_scaled;
    s.sum_sq_err += d * d;
    s.sum_sq_ref += w * w;
  }
  return s;
}

}  // namespace weft::conformance
