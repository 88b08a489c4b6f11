#include "knn.h"

#include <algorithm>

namespace weft::hypothesis_update {

int k_nearest(const double* pos, size_t n, const double* q, int k, int* ids, double* d2) {
  const int count = int(std::min<size_t>(size_t(std::max(k, 0)), n));
  if (count == 0) return 0;
  int filled = 0;
  for (size_t node = 0; node < n; ++node) {
    const double dx = pos[3 * node] - q[0], dy = pos[3 * node + 1] - q[1], dz = pos[3 * node + 2] - q[2];
    const double d = dx * dx + dy * dy + dz * dz;
    // Nodes come in ascending id order, so a strict comparison keeps the lower id first on ties.
    if (filled == count && !(d < d2[count - 1])) continue;
    int slot = filled == count ? count - 1 : filled++;
    while (slot > 0 && d < d2[slot - 1]) {
      d2[slot] = d2[slot - 1];
      ids[slot] = ids[slot - 1];
      --slot;
    }
    d2[slot] = d;
    ids[slot] = int(node);
  }
  return count;
}

}  // namespace weft::hypothesis_update
