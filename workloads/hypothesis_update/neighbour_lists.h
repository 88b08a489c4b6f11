// Precomputed candidate lists for the location-evidence kernel's neighbour search, per graph and
// per (K, radius) of the LMs that use it.
//
// NodeGrid::nearest_within walks the rows of grid cells around every query and keeps the K best
// by insertion; on Monty-sized graphs most of a step's time went there. These lists move the
// walking out of the step: space (the graph's box grown by the radius) is cut into cells of half
// the radius, and each cell lists, once, every node that can be among the K nearest within the
// radius of any point of that cell. A query then reads one contiguous list, computes squared
// distances exactly as nearest_within does, and selects the K smallest (squared distance, id)
// among those inside the radius. The result is the same node set as NodeGrid::nearest_within
// (tests check it); queries outside the lists' box go to the grid.
//
// Why a cell's list is complete: let c be the cell's centre, h its half diagonal and d_K the
// distance from c to its K-th nearest node. A query q in the cell has |q - c| <= h, so K nodes
// lie within d_K + h of q, and each of q's K nearest lies within d_K + 2h of c; each node within
// the radius R of q lies within R + h of c. A cell lists the nodes within min(d_K + 2h, R + h)
// of its centre (d_K only counts when d_K < R - h, else R + h), widened for rounding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "node_grid.h"

namespace weft::hypothesis_update {

class NeighbourLists {
 public:
  // `pos` (N,3) must outlive the lists; `grid` is the graph's grid, used to build them and for
  // queries outside their box. radius > 0, 1 <= k <= kMaxNeighbors. `slack` (>= 0) widens every
  // list by that distance, for queries computed in a lower precision than the lists (the device's
  // float32: a query filed in the next cell by rounding, distances ranked with rounding).
  NeighbourLists(const std::vector<double>& pos, const NodeGrid& grid, int k, double radius, double slack = 0);

  int k() const { return k_; }
  double radius() const { return radius_; }
  size_t entries() const { return nodes_.size(); }

  // The same nodes and squared distances NodeGrid::nearest_within(query, radius(), k(), ...)
  // gives, in no particular order; returns how many.
  int nearest_within(const double* query, int* ids, double* d2) const;

  // The lists themselves, for the device: cell (x, y, z) of a query q is
  // trunc((q - origin) * inverse_cell) per axis, listing nodes[start[c] .. start[c + 1]) with
  // c = (z * dims[1] + y) * dims[0] + x.
  const double* origin() const { return origin_; }
  double inverse_cell() const { return inverse_cell_; }
  const int* dims() const { return dims_; }
  const std::vector<uint32_t>& starts() const { return start_; }
  const std::vector<uint32_t>& nodes() const { return nodes_; }

 private:
  const double* pos_ = nullptr;
  const NodeGrid* grid_ = nullptr;
  int k_ = 0;
  double radius_ = 0;
  double origin_[3] = {0, 0, 0};
  double inverse_cell_ = 1;
  int dims_[3] = {1, 1, 1};
  std::vector<uint32_t> start_;  // CSR over cells, x fastest
  std::vector<uint32_t> nodes_;  // node ids per cell
};

}  // namespace weft::hypothesis_update
