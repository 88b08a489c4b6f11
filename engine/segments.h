// Named, aligned segments inside one of the five buffers (Heap and Globals use this), and far
// segments: ones with their own allocations, for data beyond the bound window (weft_layout.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace weft {

class FarSegmentMemory;

struct Segment {
  std::string name;
  uint64_t offset = 0;  // bytes from the start of the buffer (0 for a far segment)
  uint64_t size = 0;    // bytes
  uint32_t far = 0;     // 0: in the bound buffer; k: far segment k - 1 of the layout
  uint64_t record_bytes = 4;  // far segments: the unit chunks hold whole (a multiple of 4)
  // A far segment imported from the caller's memory (far_memory.h), else null: the executable
  // allocates the segment's memory itself.
  std::shared_ptr<FarSegmentMemory> memory;
  uint32_t word_offset() const { return uint32_t(offset / 4); }
};

class SegmentLayout {
 public:
  explicit SegmentLayout(std::string buffer_name) : buffer_name_(std::move(buffer_name)) {}

  // Appends a segment; `align` is a power of two >= 4. Names are unique within the layout.
  const Segment& add(std::string name, uint64_t bytes, uint64_t align = 256);
  // Appends a far segment of `bytes` (a multiple of `record_bytes`, itself a multiple of 4):
  // it takes no room in the bound buffer; the engine gives it allocations of its own, each
  // holding whole records. Kernels reach it through far arguments (weft_args.h).
  const Segment& add_far(std::string name, uint64_t bytes, uint64_t record_bytes = 4);
  // Appends a far segment whose memory the caller made (its size and records): executables of
  // the program use that memory, with its contents, instead of allocating their own.
  const Segment& add_far(std::string name, std::shared_ptr<FarSegmentMemory> memory);
  // SegmentOutOfRange naming the buffer and the known segments when `name` is unknown.
  const Segment& at(std::string_view name) const;
  bool contains(std::string_view name) const;
  uint64_t size() const { return size_; }  // of the bound buffer: far segments excluded
  uint32_t far_count() const { return far_count_; }
  // The far segment with index `far` - 1 (Range::far, Segment::far).
  const Segment& far_segment(uint32_t far) const;
  const std::vector<Segment>& segments() const { return segments_; }
  const std::string& buffer_name() const { return buffer_name_; }

 private:
  std::string buffer_name_;
  std::vector<Segment> segments_;
  // Position in segments_ by name, so that looking a segment up does not grow with the layout
  // (a 20,000-cell volumetric mesh has 10^5 segments).
  std::unordered_map<std::string, size_t> by_name_;
  uint64_t size_ = 0;
  uint32_t far_count_ = 0;
  void check_new_name(const std::string& name) const;
};

using HeapLayout = SegmentLayout;

}  // namespace weft
