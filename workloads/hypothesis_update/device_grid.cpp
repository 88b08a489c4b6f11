#include "device_grid.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include "neighbour_lists.h"
#include "node_grid.h"

namespace weft::hypothesis_update {

DeviceGrid build_device_grid(const ObjectGraph& g, double mmd) {
  DeviceGrid grid;
  // Wider than max_match_distance by far more than float32 rounding of a squared distance, so
  // every node the device could rate "near" is found; nodes in the margin are rated exactly as
  // the brute-force search rates them.
  grid.radius = float(mmd * (1 + 1e-4));
  double lo[3], hi[3];
  for (int c = 0; c < 3; ++c) lo[c] = hi[c] = g.pos[size_t(c)];
  for (size_t n = 0; n < g.num_nodes; ++n)
    for (int c = 0; c < 3; ++c) lo[c] = std::min(lo[c], g.pos[n * 3 + size_t(c)]), hi[c] = std::max(hi[c], g.pos[n * 3 + size_t(c)]);
  double cell = std::max(double(grid.radius), 1e-9);
  const double max_cells = 8.0 * double(g.num_nodes) + 64;
  auto cells_for = [&](double h) {
    double total = 1;
    for (int c = 0; c < 3; ++c) total *= std::floor((hi[c] - lo[c]) / h) + 1;
    return total;
  };
  while (cells_for(cell) > max_cells) cell *= 1.25;
  grid.cell = float(cell);
  for (int c = 0; c < 3; ++c) {
    grid.origin[c] = float(lo[c]);
    grid.dims[c] = uint32_t(std::floor((hi[c] - double(grid.origin[c])) / double(grid.cell))) + 1;
  }
  const size_t cells = size_t(grid.dims[0]) * grid.dims[1] * grid.dims[2];
  std::vector<uint32_t> cell_of(g.num_nodes);
  grid.cell_start.assign(cells + 1, 0);
  for (size_t n = 0; n < g.num_nodes; ++n) {
    uint32_t idx[3];
    for (int c = 0; c < 3; ++c) {
      // The same float32 arithmetic as the device's query (location_evidence.comp).
      const float t = (float(g.pos[n * 3 + size_t(c)]) - grid.origin[c]) / grid.cell;
      idx[c] = std::min(uint32_t(std::max(std::floor(t), 0.0f)), grid.dims[c] - 1);
    }
    cell_of[n] = (idx[2] * grid.dims[1] + idx[1]) * grid.dims[0] + idx[0];
    ++grid.cell_start[cell_of[n] + 1];
  }
  for (size_t c = 0; c < cells; ++c) grid.cell_start[c + 1] += grid.cell_start[c];
  grid.nodes.resize(g.num_nodes);
  std::vector<uint32_t> fill(grid.cell_start.begin(), grid.cell_start.end() - 1);
  for (size_t n = 0; n < g.num_nodes; ++n) grid.nodes[fill[cell_of[n]]++] = uint32_t(n);  // ascending ids
  return grid;
}

DeviceLists build_device_lists(const ObjectGraph& g, int k, float radius, size_t max_words) {
  const NodeGrid node_grid(g.pos);
  // float32 rounding of a query's coordinates, its cell and its squared distances is below
  // 1e-6 of the coordinates' scale; the lists are widened by ten times that.
  double scale = double(radius);
  for (double v : g.pos) scale = std::max(scale, std::abs(v) + double(radius));
  const NeighbourLists lists(g.pos, node_grid, k, double(radius), 1e-5 * scale);
  DeviceLists out;
  if (lists.starts().size() + lists.nodes().size() * kListRecordWords > max_words) return out;
  for (int a = 0; a < 3; ++a) out.origin[a] = float(lists.origin()[a]), out.dims[a] = uint32_t(lists.dims()[a]);
  out.inverse_cell = float(lists.inverse_cell());
  out.starts = lists.starts();
  out.records.reserve(lists.nodes().size() * kListRecordWords);
  for (uint32_t n : lists.nodes()) {
    for (int a = 0; a < 3; ++a) out.records.push_back(std::bit_cast<uint32_t>(float(g.pos[size_t(n) * 3 + size_t(a)])));
    out.records.push_back(n);
  }
  return out;
}

}  // namespace weft::hypothesis_update
