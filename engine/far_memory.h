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
struct DeviceInfo;

// How a far segment is split, given the largest allocation allowed.
struct FarPlacement {
  uint32_t chunk_records_log2 = 0;
  uint64_t chunk_bytes = 0;  // of every chunk but maybe the last
  uint64_t chunk_count = 0;
};
// The largest allocation a far segment's chunk may take: the device's maxMemoryAllocationSize,
// WEFT_MAX_ALLOCATION_BYTES when smaller, and `option` when non-zero and smaller still.
uint64_t far_allocation_cap(const DeviceInfo& device, uint64_t option);
// OutOfMemory naming the segment and both sizes when one record does not fit an allocation.
FarPlacement place_far_segment(const Segment& segment, const std::string& binding, uint64_t max_allocation_bytes);

// Called after each piece of a long transfer: bytes done so far of `total`.
using TransferProgress = std::function<void(uint64_t done, uint64_t total)>;

// The allocations behind one far segment, zeroed when made. An executable makes one for each far
// segment its program declares; a caller may make one itself and import it into programs
// (SegmentLayout::add_far with the memory): it then outlives their executables and keeps its
// contents across them — data resident on the device, uploaded once, read by many programs.
// The caller keeps the Device alive, and writes it only while no run that reads it is in flight.
class FarSegmentMemory {
 public:
  // OutOfMemory as place_far_segment; chunks of at most far_allocation_cap(max_allocation_bytes).
  FarSegmentMemory(Device& device, std::string name, uint64_t bytes, uint64_t record_bytes, uint64_t max_allocation_bytes = 0);
  // The memory of `segment` (of the buffer named `buffer_name`), split as `placement` says.
  FarSegmentMemory(Device& device, const std::string& buffer_name, const Segment& segment, const FarPlacement& placement);

  const std::string& name() const { return name_; }
  uint64_t size() const { return size_; }
  uint64_t record_bytes() const { return record_bytes_; }
  const FarPlacement& placement() const { return placement_; }
  size_t chunk_count() const { return chunks_.size(); }
  uint64_t chunk_address(size_t chunk) const { return chunks_[chunk]->device_address(); }

  // Bytes [offset, offset + bytes); SegmentOutOfRange past the end.
  void write(uint64_t offset, const void* data, uint64_t bytes, const TransferProgress& progress = {});
  void read(uint64_t offset, void* data, uint64_t bytes, const TransferProgress& progress = {});

 private:
  // A caller's memory: `checked` as SegmentLayout checks a far segment, placed under the cap.
  FarSegmentMemory(Device& device, const Segment& checked, uint64_t max_allocation_bytes);
  template <class Fn>
  void for_each_piece(uint64_t offset, uint64_t bytes, const TransferProgress& progress, Fn&& fn);
  std::string name_;
  uint64_t size_ = 0, record_bytes_ = 4;
  FarPlacement placement_;
  std::vector<std::unique_ptr<Buffer>> chunks_;
};

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
    std::shared_ptr<FarSegmentMemory> memory;  // the segment's own, or the one it imports
  };
  Placed& placed(const Range& range);

  std::vector<Placed> heap_, globals_;
};

}  // namespace weft
