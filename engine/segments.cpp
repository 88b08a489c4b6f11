#include "segments.h"

#include "error.h"
#include "far_memory.h"

namespace weft {

void SegmentLayout::check_new_name(const std::string& name) const {
  if (name.empty()) fail(ErrorCode::BadInput, buffer_name_ + ": a segment needs a name");
  if (contains(name)) fail(ErrorCode::BadInput, buffer_name_ + " already has a segment named '" + name + "'");
}

const Segment& SegmentLayout::add(std::string name, uint64_t bytes, uint64_t align) {
  check_new_name(name);
  if (align < 4 || (align & (align - 1)))
    fail(ErrorCode::BadInput, buffer_name_ + " segment '" + name + "': alignment " + std::to_string(align) +
                                  " is not a power of two >= 4");
  uint64_t offset = (size_ + align - 1) / align * align;
  if (bytes > UINT64_MAX / 2 || offset > UINT64_MAX / 2 - bytes)
    fail(ErrorCode::OutOfMemory, buffer_name_ + " segment '" + name + "' of " + std::to_string(bytes) + " bytes is too large");
  by_name_.emplace(name, segments_.size());
  segments_.push_back({std::move(name), offset, bytes});
  size_ = offset + bytes;
  return segments_.back();
}

const Segment& SegmentLayout::add_far(std::string name, uint64_t bytes, uint64_t record_bytes) {
  check_new_name(name);
  if (record_bytes == 0 || record_bytes % 4 || record_bytes > (1ull << 32))
    fail(ErrorCode::BadInput, buffer_name_ + " far segment '" + name + "': a record of " + std::to_string(record_bytes) +
                                  " bytes is not a multiple of 4 in 4..2^32");
  if (bytes == 0 || bytes % record_bytes)
    fail(ErrorCode::BadInput, buffer_name_ + " far segment '" + name + "': " + std::to_string(bytes) +
                                  " bytes is not a positive whole number of " + std::to_string(record_bytes) + "-byte records");
  if (bytes / record_bytes > (1ull << 32))
    fail(ErrorCode::BadInput, buffer_name_ + " far segment '" + name + "': " + std::to_string(bytes / record_bytes) +
                                  " records; kernels index at most 2^32");
  by_name_.emplace(name, segments_.size());
  Segment s{std::move(name), 0, bytes, ++far_count_, record_bytes};
  segments_.push_back(std::move(s));
  return segments_.back();
}

const Segment& SegmentLayout::add_far(std::string name, std::shared_ptr<FarSegmentMemory> memory) {
  if (!memory) fail(ErrorCode::BadInput, buffer_name_ + " far segment '" + name + "': no memory to import");
  add_far(std::move(name), memory->size(), memory->record_bytes());
  segments_.back().memory = std::move(memory);
  return segments_.back();
}

const Segment& SegmentLayout::far_segment(uint32_t far) const {
  for (const auto& s : segments_)
    if (s.far == far && far != 0) return s;
  fail(ErrorCode::SegmentOutOfRange, buffer_name_ + " has no far segment " + std::to_string(far));
}

const Segment& SegmentLayout::at(std::string_view name) const {
  if (const auto it = by_name_.find(std::string(name)); it != by_name_.end()) return segments_[it->second];
  std::string known;
  for (const auto& s : segments_) known += (known.empty() ? "" : ", ") + s.name;
  fail(ErrorCode::SegmentOutOfRange, buffer_name_ + " has no segment '" + std::string(name) + "' (segments: " +
                                         (known.empty() ? "none" : known) + ")");
}

bool SegmentLayout::contains(std::string_view name) const { return by_name_.count(std::string(name)) != 0; }

}  // namespace weft
