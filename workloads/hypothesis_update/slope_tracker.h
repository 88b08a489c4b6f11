// Per-graph evidence slope tracker of the burst-sampling updater (spec §3.7): the last `window`
// evidence values of every hypothesis and its age, in hypothesis order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace weft::hypothesis_update {

class SlopeTracker {
 public:
  SlopeTracker(int window = 10, int min_age = 5) : window_(window), min_age_(min_age) {}

  size_t size() const { return ages_.size(); }
  // New hypotheses start with no history (NaN) and age 0.
  void add(size_t count);
  // Shifts every history by one, appends `values`, ages everyone by one.
  void update(const std::vector<double>& values);
  // Mean of the finite consecutive differences; NaN when there is none.
  std::vector<double> slopes() const;
  // Spec §3.7: keep when slope >= threshold or age < min_age.
  std::vector<uint8_t> retain_mask(double slope_threshold) const;
  void keep(const std::vector<uint8_t>& mask);
  void clear() { history_.clear(), ages_.clear(); }
  const std::vector<int64_t>& ages() const { return ages_; }

 private:
  int window_, min_age_;
  std::vector<double> history_;  // (H, window) oldest first
  std::vector<int64_t> ages_;
};

}  // namespace weft::hypothesis_update
