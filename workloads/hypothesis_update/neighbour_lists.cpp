#include "neighbour_lists.h"

#include <weft/error.h>

#include <algorithm>
#include <cmath>
#include <utility>

#include "knn.h"

namespace weft::hypothesis_update {

namespace {
constexpr int kMaxCellsPerAxis = 96;
constexpr size_t kMaxListed = 256;  // a longer list (many nodes at one spot) goes to the grid

// The k-th smallest of d[0..m): the K smallest so far in ascending order, each value merged in
// with min and max alone, every slot from the previous slots (independent of each other, so they
// run in parallel and stay in registers for a fixed K), no branches to mispredict.
template <int K>
double kth_smallest_of(const double* d, int m) {
  double best[K];
  for (int j = 0; j < K; ++j) best[j] = INFINITY;
  for (int i = 0; i < m; ++i) {
    const double x = d[i];
    for (int j = K - 1; j > 0; --j) {
      const double shifted = best[j - 1] > x ? best[j - 1] : x;
      best[j] = best[j] < shifted ? best[j] : shifted;
    }
    best[0] = best[0] < x ? best[0] : x;
  }
  return best[K - 1];
}

template <int... K>
double kth_smallest_dispatch(const double* d, int m, int k, std::integer_sequence<int, K...>) {
  double kth = INFINITY;
  ((k == K + 1 ? (kth = kth_smallest_of<K + 1>(d, m), true) : false) || ...);
  return kth;
}

double kth_smallest(const double* d, int m, int k) {
  return kth_smallest_dispatch(d, m, k, std::make_integer_sequence<int, kMaxNeighbors>{});
}
}  // namespace

NeighbourLists::NeighbourLists(const std::vector<double>& pos, const NodeGrid& grid, int k, double radius, double slack)
    : pos_(pos.data()), grid_(&grid), k_(k), radius_(radius) {
  if (!(radius > 0) || !std::isfinite(radius) || k < 1 || k > kMaxNeighbors || pos.empty() || pos.size() % 3 ||
      !(slack >= 0) || !std::isfinite(slack))
    fail(ErrorCode::BadInput, "neighbour lists: radius > 0, 1 <= k <= 16, slack >= 0 and (N,3) positions needed");
  const size_t n = pos.size() / 3;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a)
      lo[a] = std::min(lo[a], pos[3 * i + size_t(a)]), hi[a] = std::max(hi[a], pos[3 * i + size_t(a)]);
  // Cells of half the radius over the box grown by the radius (outside it nothing is near), at
  // most kMaxCellsPerAxis along an axis.
  double cell = radius / 2;
  for (int a = 0; a < 3; ++a) cell = std::max(cell, (hi[a] - lo[a] + 2 * radius) / kMaxCellsPerAxis);
  inverse_cell_ = 1 / cell;
  for (int a = 0; a < 3; ++a) {
    origin_[a] = lo[a] - radius;
    dims_[a] = std::clamp(int((hi[a] - lo[a] + 2 * radius) * inverse_cell_) + 1, 1, kMaxCellsPerAxis);
  }
  // A query is filed by truncating (q - origin) * inverse_cell_; rounding may put it this much
  // outside its cell's box, which the half diagonal gets on top.
  double scale = 0;
  for (int a = 0; a < 3; ++a) scale = std::max(scale, std::abs(origin_[a]) + dims_[a] * cell);
  const double half_diagonal = cell * std::sqrt(3.0) / 2 + 1e-9 * cell + 1e-12 * scale + slack;

  const size_t cells = size_t(dims_[0]) * size_t(dims_[1]) * size_t(dims_[2]);
  start_.assign(cells + 1, 0);
  std::vector<uint32_t> listed;
  int ids[kMaxNeighbors];
  double d2[kMaxNeighbors];
  for (size_t c = 0; c < cells; ++c) {
    const size_t xyz[3] = {c % size_t(dims_[0]), (c / size_t(dims_[0])) % size_t(dims_[1]),
                           c / (size_t(dims_[0]) * size_t(dims_[1]))};
    double centre[3];
    for (int a = 0; a < 3; ++a) centre[a] = origin_[a] + (double(xyz[a]) + 0.5) * cell;
    double reach = radius + half_diagonal;
    if (radius > half_diagonal && grid.nearest_within(centre, radius - half_diagonal, k, ids, d2) == k)
      reach = std::min(reach, std::sqrt(d2[k - 1]) + 2 * half_diagonal);
    grid.within(centre, reach * (1 + 1e-9) + 1e-12 * scale, listed);
    nodes_.insert(nodes_.end(), listed.begin(), listed.end());
    start_[c + 1] = uint32_t(nodes_.size());
  }
}

int NeighbourLists::nearest_within(const double* q, int* ids, double* d2) const {
  size_t cell = 0, stride = 1;
  for (int a = 0; a < 3; ++a) {
    const double f = (q[a] - origin_[a]) * inverse_cell_;
    if (!(f >= 0 && f < dims_[a])) return grid_->nearest_within(q, radius_, k_, ids, d2);  // nothing listed there
    cell += size_t(f) * stride;
    stride *= size_t(dims_[a]);
  }
  const uint32_t* list = nodes_.data() + start_[cell];
  const size_t count = start_[cell + 1] - start_[cell];
  if (count > kMaxListed) return grid_->nearest_within(q, radius_, k_, ids, d2);
  // Squared distances as nearest_within computes them; those inside the radius gathered without
  // branches.
  const double r2 = radius_ * radius_;
  double near_d[kMaxListed];
  int near_id[kMaxListed];
  int m = 0;
  for (size_t i = 0; i < count; ++i) {
    const int id = int(list[i]);
    const double* p = pos_ + 3 * size_t(id);
    const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
    const double d = dx * dx + dy * dy + dz * dz;
    near_d[m] = d, near_id[m] = id;
    m += d < r2;
  }
  if (m <= k_) {
    std::copy_n(near_id, m, ids), std::copy_n(near_d, m, d2);
    return m;
  }
  const double kth = kth_smallest(near_d, m, k_);
  // Everything below the k-th, then the nodes at exactly that distance by ascending id.
  int out = 0, tied = 0;
  int tie_ids[kMaxListed];
  for (int i = 0; i < m; ++i) {
    if (near_d[i] < kth) {
      ids[out] = near_id[i], d2[out] = near_d[i];
      ++out;
    } else if (near_d[i] == kth) {
      tie_ids[tied++] = near_id[i];
    }
  }
  std::sort(tie_ids, tie_ids + tied);
  for (int i = 0; out < k_; ++i) ids[out] = tie_ids[i], d2[out] = kth, ++out;
  return out;
}

}  // namespace weft::hypothesis_update
