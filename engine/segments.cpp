#include "segments.h"

#include "error.h"

namespace weft {

const Segment& SegmentLayout::add(std::string name, uint64_t bytes, uint64_t align) {
  if (name.empty()) fail(ErrorCode::BadInput, buffer_name_ + ": a segment needs a name");
  if (align < 4 || (align & (align - 1)))
    fail(ErrorCode::BadInput, buffer_name_ + " segment '" + name + "': alignment " + std::to_string(align) +
                                  " is not a power of two >= 4");
  if (contains(name)) fail(ErrorCode::BadInput, buffer_name_ + " already has a segment named '" + name + "'");
  uint64_t offset = (size_ + align - 1) / align * align;
  if (bytes > UINT64_MAX / 2 || offset > UINT64_MAX / 2 - bytes)
    fail(ErrorCode::OutOfMemory, buffer_name_ + " segment '" + name + "' of " + std::to_string(bytes) + " bytes is too large");
  segments_.push_back({std::move(name), offset, bytes});
  size_ = offset + bytes;
  return segments_.back();
}

const Segment& SegmentLayout::at(std::string_view name) const {
  for (const auto& s : segments_)
    if (s.name == name) return s;
  std::string known;
  for (const auto& s : segments_) known += (known.empty() ? "" : ", ") + s.name;
  fail(ErrorCode::SegmentOutOfRange, buffer_name_ + " has no segment '" + std::string(name) + "' (segments: " +
                                         (known.empty() ? "none" : known) + ")");
}

bool SegmentLayout::contains(std::string_view name) const {
  for (const auto& s : segments_)
    if (s.name == name) return true;
  return false;
}

}  // namespace weft
