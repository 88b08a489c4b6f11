#include "far_memory.h"

#include <algorithm>
#include <cstring>

#include "device.h"
#include "error.h"
#include "input_file.h"

namespace weft {

namespace {

constexpr uint64_t kTransferPiece = 64ull << 20;  // progress is reported after each piece
constexpr uint32_t kMaxChunkRecordsLog2 = 31;     // kernels shift a 32-bit record index
constexpr uint64_t kMaxChunkBytes = 1ull << 34;   // kernels index a chunk's words with 32 bits

}  // namespace

uint64_t far_allocation_cap(const DeviceInfo& device, uint64_t option) {
  static constexpr InputLimit kAllocationCap{"allocation size", "WEFT_MAX_ALLOCATION_BYTES", UINT64_MAX};
  uint64_t cap = std::min(device.max_memory_allocation_size, input_limit(kAllocationCap));
  if (option) cap = std::min(cap, option);
  return cap;
}

FarPlacement place_far_segment(const Segment& s, const std::string& binding, uint64_t max_allocation_bytes) {
  if (s.record_bytes > max_allocation_bytes)
    fail(ErrorCode::OutOfMemory, binding + " far segment '" + s.name + "': a record of " + std::to_string(s.record_bytes) +
                                     " bytes is larger than the largest allocation, " + std::to_string(max_allocation_bytes) +
                                     " bytes");
  FarPlacement p;
  const uint64_t records = s.size / s.record_bytes, fit = std::min(max_allocation_bytes, kMaxChunkBytes) / s.record_bytes;
  while (p.chunk_records_log2 < kMaxChunkRecordsLog2 && (2ull << p.chunk_records_log2) <= fit &&
         (1ull << p.chunk_records_log2) < records)
    ++p.chunk_records_log2;
  const uint64_t chunk_records = 1ull << p.chunk_records_log2;
  p.chunk_bytes = std::min(chunk_records, records) * s.record_bytes;
  p.chunk_count = (records + chunk_records - 1) / chunk_records;
  return p;
}

FarSegmentMemory::FarSegmentMemory(Device& device, const std::string& buffer_name, const Segment& segment,
                                   const FarPlacement& placement)
    : name_(buffer_name + "." + segment.name), size_(segment.size), record_bytes_(segment.record_bytes), placement_(placement) {
  for (uint64_t c = 0; c < placement_.chunk_count; ++c) {
    const uint64_t n = std::min(placement_.chunk_bytes, size_ - c * placement_.chunk_bytes);
    chunks_.push_back(std::make_unique<Buffer>(device, n, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUse::DeviceLocal,
                                               name_ + "[" + std::to_string(c) + "]"));
    chunks_.back()->fill(0, n, 0);  // far segments start zeroed like the bound buffers
  }
}

namespace {
// The segment a caller's memory stands for, checked as SegmentLayout checks a far segment.
Segment checked_far_segment(const std::string& name, uint64_t bytes, uint64_t record_bytes) {
  SegmentLayout check("far memory");
  return check.add_far(name, bytes, record_bytes);
}
}  // namespace

FarSegmentMemory::FarSegmentMemory(Device& device, std::string name, uint64_t bytes, uint64_t record_bytes,
                                   uint64_t max_allocation_bytes)
    : FarSegmentMemory(device, checked_far_segment(name, bytes, record_bytes), far_allocation_cap(device.info(), max_allocation_bytes)) {}

FarSegmentMemory::FarSegmentMemory(Device& device, const Segment& checked, uint64_t max_allocation_bytes)
    : FarSegmentMemory(device, "far memory", checked, place_far_segment(checked, "far memory", max_allocation_bytes)) {
  name_ = checked.name;  // the caller's name, not "far memory.NAME"
}

// Calls fn(buffer, offset in it, byte offset in the caller's data, bytes) for each piece of
// [offset, offset + bytes), no piece crossing a chunk or longer than kTransferPiece.
template <class Fn>
void FarSegmentMemory::for_each_piece(uint64_t offset, uint64_t bytes, const TransferProgress& progress, Fn&& fn) {
  if (offset > size_ || bytes > size_ - offset)
    fail(ErrorCode::SegmentOutOfRange, "far memory '" + name_ + "': bytes [" + std::to_string(offset) + ", +" +
                                           std::to_string(bytes) + ") past its " + std::to_string(size_) + " bytes");
  for (uint64_t done = 0; done < bytes;) {
    const uint64_t at = offset + done, chunk = at / placement_.chunk_bytes, in_chunk = at % placement_.chunk_bytes;
    const uint64_t n = std::min({bytes - done, placement_.chunk_bytes - in_chunk, kTransferPiece});
    fn(*chunks_[chunk], in_chunk, done, n);
    done += n;
    if (progress && bytes > kTransferPiece) progress(done, bytes);
  }
}

void FarSegmentMemory::write(uint64_t offset, const void* data, uint64_t bytes, const TransferProgress& progress) {
  const auto* src = static_cast<const uint8_t*>(data);
  for_each_piece(offset, bytes, progress, [&](Buffer& b, uint64_t at, uint64_t from, uint64_t n) { b.write(at, src + from, n); });
}

void FarSegmentMemory::read(uint64_t offset, void* data, uint64_t bytes, const TransferProgress& progress) {
  auto* dst = static_cast<uint8_t*>(data);
  for_each_piece(offset, bytes, progress, [&](Buffer& b, uint64_t at, uint64_t to, uint64_t n) { b.read(at, dst + to, n); });
}

FarMemory::FarMemory(Device& device, const Program& program, uint64_t max_allocation_bytes) {
  for (const SegmentLayout* layout : {&program.heap(), &program.globals()}) {
    const Binding b = layout == &program.heap() ? Binding::Heap : Binding::Globals;
    auto& list = b == Binding::Heap ? heap_ : globals_;
    for (uint32_t far = 1; far <= layout->far_count(); ++far) {
      const Segment& s = layout->far_segment(far);
      std::shared_ptr<FarSegmentMemory> memory =
          s.memory ? s.memory
                   : std::make_shared<FarSegmentMemory>(device, layout->buffer_name(), s,
                                                        place_far_segment(s, layout->buffer_name(), max_allocation_bytes));
      list.push_back({b, s, std::move(memory)});
    }
  }
}

void FarMemory::append_tables(std::vector<uint32_t>& control) const {
  abi::WeftControlHeader header;
  std::memcpy(&header, control.data(), sizeof header);
  for (const auto* list : {&heap_, &globals_}) {
    const uint32_t table = uint32_t(control.size());
    (list == &heap_ ? header.heap_far_table : header.globals_far_table) = table;
    control.resize(control.size() + list->size());
    for (size_t i = 0; i < list->size(); ++i) {
      const FarSegmentMemory& m = *(*list)[i].memory;
      control[table + i] = uint32_t(control.size());
      const uint64_t records = m.size() / m.record_bytes();
      abi::WeftFarSegment record{uint32_t(m.record_bytes() / 4), m.placement().chunk_records_log2, uint32_t(m.chunk_count()),
                                 uint32_t(records), uint32_t(records >> 32), {}};
      const size_t at = control.size();
      control.resize(at + WEFT_FAR_SEGMENT_WORDS + 2 * m.chunk_count());
      std::memcpy(&control[at], &record, sizeof record);
      for (size_t c = 0; c < m.chunk_count(); ++c) {
        const uint64_t address = m.chunk_address(c);
        control[at + WEFT_FAR_SEGMENT_WORDS + 2 * c] = uint32_t(address);
        control[at + WEFT_FAR_SEGMENT_WORDS + 2 * c + 1] = uint32_t(address >> 32);
      }
    }
  }
  header.control_words = uint32_t(control.size());
  std::memcpy(control.data(), &header, sizeof header);
}

FarMemory::Placed& FarMemory::placed(const Range& r) {
  auto& list = r.binding == Binding::Heap ? heap_ : globals_;
  if ((r.binding != Binding::Heap && r.binding != Binding::Globals) || r.far == 0 || r.far > list.size())
    fail(ErrorCode::SegmentOutOfRange, std::string(binding_name(r.binding)) + " has no far segment " + std::to_string(r.far));
  return list[r.far - 1];
}

void FarMemory::write(const Range& r, uint64_t offset, const void* data, uint64_t bytes, const TransferProgress& progress) {
  placed(r).memory->write(r.offset + offset, data, bytes, progress);
}

void FarMemory::read(const Range& r, uint64_t offset, void* data, uint64_t bytes, const TransferProgress& progress) {
  placed(r).memory->read(r.offset + offset, data, bytes, progress);
}

std::string FarMemory::describe() const {
  std::string out;
  for (const auto* list : {&heap_, &globals_})
    for (const Placed& p : *list)
      out += std::string(binding_name(p.binding)) + " far segment '" + p.segment.name + "': " + std::to_string(p.segment.size) +
             " bytes, records of " + std::to_string(p.segment.record_bytes) + " bytes, " +
             std::to_string(p.memory->chunk_count()) + " allocation(s) of up to " +
             std::to_string(p.memory->placement().chunk_bytes) + " bytes" +
             (p.segment.memory ? ", imported ('" + p.memory->name() + "')" : "") + "\n";
  return out;
}

}  // namespace weft
