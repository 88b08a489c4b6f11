#include "node_grid.h"

#include <algorithm>
#include <cmath>

namespace weft::hypothesis_update {

NodeGrid::NodeGrid(const std::vector<double>& pos) {
  const size_t n = pos.size() / 3;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  for (size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a)
      lo[a] = std::min(lo[a], pos[3 * i + size_t(a)]), hi[a] = std::max(hi[a], pos[3 * i + size_t(a)]);
  double widest = 0;
  for (int a = 0; a < 3; ++a) origin_[a] = lo[a], widest = std::max(widest, hi[a] - lo[a]);
  // About two nodes per cell of the bounding box, at most 64 cells along an axis.
  double volume = 1;
  for (int a = 0; a < 3; ++a) volume *= std::max(hi[a] - lo[a], widest / 64);
  cell_ = std::max(std::cbrt(volume / std::max(1.0, double(n) / 2)), widest / 64);
  if (!(cell_ > 0)) cell_ = 1;  // a single node, or all nodes at one point
  inverse_cell_ = 1 / cell_;
  for (int a = 0; a < 3; ++a) dims_[a] = std::clamp(int((hi[a] - lo[a]) / cell_) + 1, 1, 64);

  const size_t cells = size_t(dims_[0]) * size_t(dims_[1]) * size_t(dims_[2]);
  std::vector<uint32_t> cell_of(n);
  cell_start_.assign(cells + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    const size_t c = size_t(cell_index(pos[3 * i], 0)) +
                     size_t(dims_[0]) * (size_t(cell_index(pos[3 * i + 1], 1)) +
                                         size_t(dims_[1]) * size_t(cell_index(pos[3 * i + 2], 2)));
    cell_of[i] = uint32_t(c);
    ++cell_start_[c + 1];
  }
  for (size_t c = 0; c < cells; ++c) cell_start_[c + 1] += cell_start_[c];
  cell_nodes_.resize(n);
  std::vector<uint32_t> fill(cell_start_.begin(), cell_start_.end() - 1);
  for (size_t i = 0; i < n; ++i) cell_nodes_[fill[cell_of[i]]++] = uint32_t(i);
  // Positions in cell order, so a scan over a row of cells reads one contiguous run.
  cell_pos_.resize(n * 3);
  for (size_t j = 0; j < n; ++j)
    for (int a = 0; a < 3; ++a) cell_pos_[3 * j + size_t(a)] = pos[3 * size_t(cell_nodes_[j]) + size_t(a)];
}

// floor((v - origin) / cell) clamped to the grid: monotone in v, so every node whose coordinate
// lies in [a, b] sits in a cell between cell_index(a) and cell_index(b).
int NodeGrid::cell_index(double v, int axis) const {
  // Truncation is floor here (f >= 0), and a product instead of a quotient: no libm call, no
  // division. Still monotone in v, which is all the searches rely on.
  const double f = (v - origin_[axis]) * inverse_cell_;
  if (!(f >= 0)) return 0;
  return f >= dims_[axis] - 1 ? dims_[axis] - 1 : int(f);
}

// Calls visit(j, d) with the squared distance d of every node j (index in cell order) of the cells
// that a ball of `radius` around q reaches.
template <class Visit>
void NodeGrid::visit_cells(const double* q, double radius, Visit&& visit) const {
  int lo[3], hi[3];
  for (int a = 0; a < 3; ++a) lo[a] = cell_index(q[a] - radius, a), hi[a] = cell_index(q[a] + radius, a);
  for (int z = lo[2]; z <= hi[2]; ++z)
    for (int y = lo[1]; y <= hi[1]; ++y) {
      const size_t row = size_t(dims_[0]) * (size_t(y) + size_t(dims_[1]) * size_t(z));
      for (uint32_t j = cell_start_[row + size_t(lo[0])]; j < cell_start_[row + size_t(hi[0]) + 1]; ++j) {
        const double* p = cell_pos_.data() + 3 * size_t(j);
        const double dx = p[0] - q[0], dy = p[1] - q[1], dz = p[2] - q[2];
        visit(j, dx * dx + dy * dy + dz * dz);
      }
    }
}

int NodeGrid::nearest_within(const double* q, double radius, int k, int* ids, double* d2) const {
  if (k <= 0) return 0;
  const double r2 = radius * radius;
  // The k best so far in ascending (squared distance, id) order, kept by insertion: cells are not
  // visited in id order, and keys are unique because ids are. Most nodes inside the ball lose to
  // the current k-th after the first few, so this costs about one comparison per node, where
  // ranking all candidates against each other cost their count squared.
  int m = 0;
  visit_cells(q, radius, [&](uint32_t j, double d) {
    if (!(d < r2)) return;
    const int id = int(cell_nodes_[j]);
    if (m == k && !(d < d2[k - 1] || (d == d2[k - 1] && id < ids[k - 1]))) return;
    int at = m < k ? m++ : k - 1;  // the slot freed at the end, then shift down to place it
    while (at > 0 && (d < d2[at - 1] || (d == d2[at - 1] && id < ids[at - 1]))) {
      d2[at] = d2[at - 1], ids[at] = ids[at - 1];
      --at;
    }
    d2[at] = d, ids[at] = id;
  });
  return m;
}

void NodeGrid::within(const double* q, double radius, std::vector<uint32_t>& out) const {
  out.clear();
  const double r2 = radius * radius;
  visit_cells(q, radius, [&](uint32_t j, double d) {
    if (d <= r2) out.push_back(cell_nodes_[j]);
  });
  std::sort(out.begin(), out.end());
}

}  // namespace weft::hypothesis_update
