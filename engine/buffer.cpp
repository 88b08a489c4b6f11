#include "buffer.h"

#include <algorithm>
#include <cstring>

#include "device.h"
#include "error.h"

namespace weft {

namespace {
constexpr uint64_t kStagingChunk = 64ull << 20;
}

Buffer::Buffer(Device& device, uint64_t size, VkBufferUsageFlags usage, MemoryUse use, std::string name)
    : device_(&device), name_(std::move(name)), size_(size) {
  const DeviceInfo& info = device.info();
  // Vulkan has no empty buffers; a zero-sized one still gets a small allocation.
  uint64_t alloc_size = std::max<uint64_t>(size, 16);
  if (info.max_memory_allocation_size && alloc_size > info.max_memory_allocation_size)
    fail(ErrorCode::OutOfMemory, "buffer '" + name_ + "' needs " + std::to_string(alloc_size) +
                                     " bytes, more than this device's maxMemoryAllocationSize " +
                                     std::to_string(info.max_memory_allocation_size));
  usage |= VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bool want_address = info.buffer_device_address && (usage & VK_BUFFER_USAGE_STORAGE_BUFFER_BIT);
  if (want_address) usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;

  VkBufferCreateInfo bi{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bi.size = alloc_size;
  bi.usage = usage;
  bi.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  vk_check(vkCreateBuffer(device.vk(), &bi, nullptr, &buffer_), "vkCreateBuffer");

  VkMemoryRequirements req{};
  vkGetBufferMemoryRequirements(device.vk(), buffer_, &req);
  VkMemoryPropertyFlags required = 0, preferred = 0;
  switch (use) {
    case MemoryUse::DeviceLocal:
    case MemoryUse::DeviceOnly:
      preferred = VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      break;
    case MemoryUse::HostVisible:
      required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
      preferred = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
      break;
    case MemoryUse::Staging:
      required = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT;
      preferred = VK_MEMORY_PROPERTY_HOST_COHERENT_BIT | VK_MEMORY_PROPERTY_HOST_CACHED_BIT;
      break;
  }
  uint32_t type = device.memory_type(req.memoryTypeBits, required, preferred);
  if (type == UINT32_MAX && use == MemoryUse::HostVisible)
    type = device.memory_type(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT, 0);
  if (type == UINT32_MAX) {
    vkDestroyBuffer(device.vk(), buffer_, nullptr);
    fail(ErrorCode::OutOfMemory, "no memory type fits buffer '" + name_ + "'");
  }
  VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
  flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  VkMemoryAllocateInfo ai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  ai.pNext = want_address ? &flags : nullptr;
  ai.allocationSize = req.size;
  ai.memoryTypeIndex = type;
  VkResult r = vkAllocateMemory(device.vk(), &ai, nullptr, &memory_);
  if (r != VK_SUCCESS) {
    vkDestroyBuffer(device.vk(), buffer_, nullptr);
    buffer_ = VK_NULL_HANDLE;
    fail(r == VK_ERROR_OUT_OF_DEVICE_MEMORY || r == VK_ERROR_OUT_OF_HOST_MEMORY ? ErrorCode::OutOfMemory : ErrorCode::Vulkan,
         "allocating " + std::to_string(req.size) + " bytes for buffer '" + name_ + "' failed with " + vk_result_name(r));
  }
  vk_check(vkBindBufferMemory(device.vk(), buffer_, memory_, 0), "vkBindBufferMemory");
  VkMemoryPropertyFlags got = device.memory_flags(type);
  coherent_ = got & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  if ((got & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) && use != MemoryUse::DeviceOnly)
    vk_check(vkMapMemory(device.vk(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "vkMapMemory");
  if (want_address) {
    VkBufferDeviceAddressInfo addr{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    addr.buffer = buffer_;
    address_ = vkGetBufferDeviceAddress(device.vk(), &addr);
  }
}

Buffer::Buffer(Buffer&& o) noexcept
    : device_(o.device_), name_(std::move(o.name_)), size_(o.size_), buffer_(o.buffer_), memory_(o.memory_),
      mapped_(o.mapped_), coherent_(o.coherent_), address_(o.address_) {
  o.buffer_ = VK_NULL_HANDLE;
  o.memory_ = VK_NULL_HANDLE;
  o.mapped_ = nullptr;
}

Buffer::~Buffer() {
  if (buffer_) vkDestroyBuffer(device_->vk(), buffer_, nullptr);
  if (memory_) vkFreeMemory(device_->vk(), memory_, nullptr);
}

void Buffer::check_range(uint64_t offset, uint64_t bytes, const char* what) const {
  if (offset > size_ || bytes > size_ - offset)
    fail(ErrorCode::SegmentOutOfRange, std::string(what) + " of " + std::to_string(bytes) + " bytes at offset " +
                                           std::to_string(offset) + " is outside buffer '" + name_ + "' (" +
                                           std::to_string(size_) + " bytes)");
}

// Non-coherent memory needs flush/invalidate on nonCoherentAtomSize-aligned ranges; from the
// aligned start to the end of the allocation is always valid.
static VkMappedMemoryRange mapped_tail(const Device& device, VkDeviceMemory memory, uint64_t offset) {
  const uint64_t atom = std::max<uint64_t>(device.info().non_coherent_atom_size, 1);
  VkMappedMemoryRange range{VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE};
  range.memory = memory;
  range.offset = offset / atom * atom;
  range.size = VK_WHOLE_SIZE;
  return range;
}

void Buffer::flush(uint64_t offset, uint64_t bytes) {
  if (coherent_ || bytes == 0) return;
  const VkMappedMemoryRange range = mapped_tail(*device_, memory_, offset);
  vk_check(vkFlushMappedMemoryRanges(device_->vk(), 1, &range), "vkFlushMappedMemoryRanges");
}

void Buffer::invalidate(uint64_t offset, uint64_t bytes) {
  if (coherent_ || bytes == 0) return;
  const VkMappedMemoryRange range = mapped_tail(*device_, memory_, offset);
  vk_check(vkInvalidateMappedMemoryRanges(device_->vk(), 1, &range), "vkInvalidateMappedMemoryRanges");
}

void Buffer::write(uint64_t offset, const void* src, uint64_t bytes) {
  check_range(offset, bytes, "write");
  if (bytes == 0) return;
  if (mapped_) {
    std::memcpy(static_cast<char*>(mapped_) + offset, src, bytes);
    flush(offset, bytes);
    return;
  }
  uint64_t chunk = std::min(bytes, kStagingChunk);
  Buffer staging(*device_, chunk, 0, MemoryUse::Staging, name_ + ".staging");
  for (uint64_t done = 0; done < bytes; done += chunk) {
    uint64_t n = std::min(chunk, bytes - done);
    std::memcpy(staging.mapped_, static_cast<const char*>(src) + done, n);
    staging.flush(0, n);
    device_->run_once([&](VkCommandBuffer cmd) {
      VkBufferCopy c{0, offset + done, n};
      vkCmdCopyBuffer(cmd, staging.buffer_, buffer_, 1, &c);
    });
  }
}

void Buffer::read(uint64_t offset, void* dst, uint64_t bytes) {
  check_range(offset, bytes, "read");
  if (bytes == 0) return;
  if (mapped_) {
    invalidate(offset, bytes);
    std::memcpy(dst, static_cast<const char*>(mapped_) + offset, bytes);
    return;
  }
  uint64_t chunk = std::min(bytes, kStagingChunk);
  Buffer staging(*device_, chunk, 0, MemoryUse::Staging, name_ + ".staging");
  for (uint64_t done = 0; done < bytes; done += chunk) {
    uint64_t n = std::min(chunk, bytes - done);
    device_->run_once([&](VkCommandBuffer cmd) {
      VkBufferCopy c{offset + done, 0, n};
      vkCmdCopyBuffer(cmd, buffer_, staging.buffer_, 1, &c);
    });
    staging.invalidate(0, n);
    std::memcpy(static_cast<char*>(dst) + done, staging.mapped_, n);
  }
}

void Buffer::fill(uint64_t offset, uint64_t bytes, uint32_t word) {
  check_range(offset, bytes, "fill");
  if (bytes == 0) return;
  if (offset % 4 || bytes % 4)
    fail(ErrorCode::BadInput, "fill of buffer '" + name_ + "' must be 4-byte aligned (offset " +
                                  std::to_string(offset) + ", " + std::to_string(bytes) + " bytes)");
  device_->run_once([&](VkCommandBuffer cmd) { vkCmdFillBuffer(cmd, buffer_, offset, bytes, word); });
}

}  // namespace weft
