// Far memory: the allocations behind a program's far segments (SegmentLayout::add_far), the
// Control table kernels find them through, and host transfers in and out of them.
//
// Each far segment is split into chunks of 2^k whole records, the largest such chunk one
// allocation may hold, so a kernel finds record r in chunk r >> k with a shift and a mask
// (bindings_layout/weft_layout.h). Chunks are allocated one by one: no allocation is larger than
// the cap and no host copy of a whole segment is ever made.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "buffer.h"
#include "program.h"

namespace weft {

class Device;

// How a far segment is split, given the largest allocation allowed.
struct FarPlacement {
  uint32_t chunk_records_log2 = 0;
  uint64_t chunk_bytes = 0;  // of every chunk but maybe the last
  uint64_t chunk_count = 0;
};
// OutOfMemory naming the segment and both sizes when one record does not fit an allocation.
FarPlacement place_far_segment(const Segment& segment, const std::string& binding, uint64_t max_allocation_bytes);

// Called after each piece of a long transfer: bytes done so far of `total`.
using TransferProgress = std::function<void(uint64_t done, uint64_t total)>;

class FarMemory {
 public:
  FarMemory(Device& device, const Program& program, uint64_t max_allocation_bytes);

  // Appends the far tables and records to `control` (the program's Control image) and points
  // the header's heap_far_table / globals_far_table at them.
  void append_tables(std::vector<uint32_t>& control) const;

  // Bytes [offset, offset + bytes) of `range` (a far range); the caller checked the bounds.
  void write(const Range& range, uint64_t offset, const void* data, uint64_t bytes, const TransferProgress& progress);
  void read(const Range& range, uint64_t offset, void* data, uint64_t bytes, const TransferProgress& progress);

  // One line per far segment: its size, records and chunks (for layout listings).
  std::string describe() const;

 private:
  struct Placed {
    Binding binding;
    Segment segment;
    FarPlacement placement;
    std::vector<std::unique_ptr<Buffer>> chunks;
  };
  Placed& placed(const Range& range);
  template <class Fn>
  void for_each_piece(const Range& range, uint64_t offset, uint64_t bytes, const TransferProgress& progress, Fn&& fn);

  std::vector<Placed> heap_, globals_;
};

}  // namespace weft
