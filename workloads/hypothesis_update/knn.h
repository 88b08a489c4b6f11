// Exact K nearest neighbours of one query among a graph's nodes (Euclidean, K <= 16).
//
// Brute force over the nodes: at the graph sizes of spec §5 (<= 2000 nodes) one pass over a
// contiguous (N,3) array is cache-resident and beats building and walking a tree per query.
// Ties: among nodes at exactly the same squared distance the lower node index ranks first, so
// the result is deterministic; scipy's KDTree leaves tie order unspecified, which only matters
// when two nodes sit at exactly the same distance from a search location.
#pragma once

#include <cstddef>

namespace weft::hypothesis_update {

inline constexpr int kMaxNeighbors = 16;

// Writes min(k, n) node ids to `ids` in ascending (squared distance, id) order and their squared
// distances to `d2`; returns how many it wrote.
int k_nearest(const double* pos, size_t n, const double* query, int k, int* ids, double* d2);

}  // namespace weft::hypothesis_update
