// A uniform grid over a graph's nodes for the location-evidence kernel.
//
// The kernel only needs the K nearest nodes that could still be "near" (Euclidean distance below
// max_match_distance): a node at least that far is far whatever else, scoring -1. So instead of
// a full K-nearest search, the grid returns the K nearest among the nodes inside a ball of radius
// slightly above max_match_distance. If fewer than K come back, the true K-nearest set holds at
// least one node outside the ball, i.e. a far node, and the caller adds its -1. This gives the
// same evidence as the exact K nearest while a hypothesis that drifted off the object touches a
// handful of cells instead of every node.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace weft::hypothesis_update {

class NodeGrid {
 public:
  NodeGrid() = default;
  explicit NodeGrid(const std::vector<double>& pos);  // (N,3)

  // Writes to ids/d2 (ascending squared distance, ties by node id) the up-to-k nearest nodes with
  // squared distance < radius²; returns how many.
  int nearest_within(const double* query, double radius, int k, int* ids, double* d2) const;
  // Every node with squared distance <= radius², ascending ids.
  void within(const double* query, double radius, std::vector<uint32_t>& out) const;

 private:
  double origin_[3] = {0, 0, 0};
  double cell_ = 1;
  int dims_[3] = {1, 1, 1};
  std::vector<uint32_t> cell_start_;  // CSR over cells, x fastest
  std::vector<uint32_t> cell_nodes_;  // node ids, ascending within a cell
  std::vector<double> cell_pos_;      // (N,3) positions in cell_nodes_ order
  double inverse_cell_ = 1;
  int cell_index(double v, int axis) const;
  template <class Visit>
  void visit_cells(const double* q, double radius, Visit&& visit) const;
};

}  // namespace weft::hypothesis_update
