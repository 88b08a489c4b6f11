#include "slope_tracker.h"

#include <cmath>
#include <limits>

#include "evidence_math.h"

namespace weft::hypothesis_update {

void SlopeTracker::add(size_t count) {
  history_.resize(history_.size() + count * size_t(window_), std::numeric_limits<double>::quiet_NaN());
  ages_.resize(ages_.size() + count, 0);
}

void SlopeTracker::update(const std::vector<double>& values) {
  const size_t w = size_t(window_);
  for (size_t h = 0; h < ages_.size(); ++h) {
    double* row = history_.data() + h * w;
    for (size_t i = 0; i + 1 < w; ++i) row[i] = row[i + 1];
    row[w - 1] = values[h];
    ++ages_[h];
  }
}

std::vector<double> SlopeTracker::slopes() const {
  const size_t w = size_t(window_);
  std::vector<double> out(ages_.size());
  std::vector<double> diffs(w > 1 ? w - 1 : 0);
  for (size_t h = 0; h < ages_.size(); ++h) {
    const double* row = history_.data() + h * w;
    size_t valid = 0;
    // numpy's nansum: NaN differences count as 0 in the sum and not at all in the count.
    for (size_t i = 0; i + 1 < w; ++i) {
      const double d = row[i + 1] - row[i];
      const bool finite = !std::isnan(d);
      diffs[i] = finite ? d : 0.0;
      valid += finite;
    }
    out[h] =
        valid == 0 ? std::numeric_limits<double>::quiet_NaN() : numpy_sum(diffs.data(), diffs.size()) / double(valid);
  }
  return out;
}

std::vector<uint8_t> SlopeTracker::retain_mask(double slope_threshold) const {
  const std::vector<double> s = slopes();
  std::vector<uint8_t> keep(s.size());
  for (size_t h = 0; h < s.size(); ++h) keep[h] = (s[h] >= slope_threshold) || ages_[h] < min_age_;
  return keep;
}

void SlopeTracker::keep(const std::vector<uint8_t>& mask) {
  const size_t w = size_t(window_);
  size_t out = 0;
  for (size_t h = 0; h < ages_.size(); ++h) {
    if (!mask[h]) continue;
    if (out != h) {
      for (size_t i = 0; i < w; ++i) history_[out * w + i] = history_[h * w + i];
      ages_[out] = ages_[h];
    }
    ++out;
  }
  history_.resize(out * w);
  ages_.resize(out);
}

}  // namespace weft::hypothesis_update
