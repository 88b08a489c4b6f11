// Named, aligned segments inside one of the five buffers (Heap and Globals use this).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace weft {

struct Segment {
  std::string name;
  uint64_t offset = 0;  // bytes from the start of the buffer
  uint64_t size = 0;    // bytes
  uint32_t word_offset() const { return uint32_t(offset / 4); }
};

class SegmentLayout {
 public:
  explicit SegmentLayout(std::string buffer_name) : buffer_name_(std::move(buffer_name)) {}

  // Appends a segment; `align` is a power of two >= 4. Names are unique within the layout.
  const Segment& add(std::string name, uint64_t bytes, uint64_t align = 256);
  // SegmentOutOfRange naming the buffer and the known segments when `name` is unknown.
  const Segment& at(std::string_view name) const;
  bool contains(std::string_view name) const;
  uint64_t size() const { return size_; }
  const std::vector<Segment>& segments() const { return segments_; }
  const std::string& buffer_name() const { return buffer_name_; }

 private:
  std::string buffer_name_;
  std::vector<Segment> segments_;
  uint64_t size_ = 0;
};

using HeapLayout = SegmentLayout;

}  // namespace weft
