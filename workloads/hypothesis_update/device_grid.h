// The uniform grid the Vulkan backend searches nearest nodes with (one per (LM, graph) space,
// built on the host when the program is recorded, uploaded with the object models).
//
// Only nodes within the LM's max_match_distance of a hypothesis can score anything but the
// "far" value -1, so the device looks for the K nearest among the nodes in the cells the
// search sphere touches and, when fewer than K are that close, adds the far value: the same
// evidence as an exact K-nearest search (node_grid.h explains why), for a fraction of the work.
// Cell edge = the search radius (grown when the graph's bounding box would need more than
// 8 cells per node), so a query touches at most 3x3x3 cells.
#pragma once

#include <cstdint>
#include <vector>

#include "hypothesis_types.h"

namespace weft::hypothesis_update {

inline constexpr uint32_t kGridHeaderWords = 32;  // see G_* in hypothesis_update.glsl
inline constexpr uint32_t kGridListWord = 16;     // the neighbour lists' header within it
inline constexpr uint32_t kListHeaderWords = 10;

struct DeviceGrid {
  float origin[3] = {0, 0, 0};
  float cell = 1;      // cell edge
  float radius = 0;    // search radius: max_match_distance widened by float32 rounding
  uint32_t dims[3] = {1, 1, 1};
  std::vector<uint32_t> cell_start;  // (cells + 1): nodes of cell c are nodes[cell_start[c] .. cell_start[c+1])
  std::vector<uint32_t> nodes;       // local node ids, by cell, ascending within a cell
};

DeviceGrid build_device_grid(const ObjectGraph& graph, double max_match_distance);

// The CPU backend's neighbour lists (neighbour_lists.h) for the device: per cell of half the
// search radius, every node that can be among a query's K nearest within the radius, as records
// (x, y, z as float32 bits, node id) so a query reads one contiguous run. A query reads one list
// instead of walking the grid's cells: fewer candidates and one flat loop. Widened for float32
// queries; the kernel still ranks candidates by their float32 squared distances exactly as the
// grid walk does, so both give the same nodes. Empty (`starts` empty) when the lists (cell starts
// and records) would exceed `max_words`, e.g. for many nodes at one spot; the grid serves those graphs.
struct DeviceLists {
  float origin[3] = {0, 0, 0};
  float inverse_cell = 1;
  uint32_t dims[3] = {1, 1, 1};
  std::vector<uint32_t> starts;   // (cells + 1), in records
  std::vector<uint32_t> records;  // 4 words per listed node
};
inline constexpr uint32_t kListRecordWords = 4;

DeviceLists build_device_lists(const ObjectGraph& graph, int k, float radius, size_t max_words);

}  // namespace weft::hypothesis_update
