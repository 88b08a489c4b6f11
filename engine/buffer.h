// One VkBuffer with its own memory. Reads and writes go through a mapping when the memory is
// host-visible (UMA devices, ReBAR, lavapipe) and through a staging copy otherwise.
#pragma once

#include <cstdint>
#include <string>

#include "vk.h"

namespace weft {

class Device;

enum class MemoryUse {
  DeviceLocal,  // fastest for kernels; mapped only if the device-local type is host-visible too
  HostVisible,  // always mapped (Metrics: the host polls it while a program runs)
  Staging,      // host-visible transfer source/destination
  DeviceOnly,   // never mapped: every transfer is staged (how that path is tested on UMA devices)
};

class Buffer {
 public:
  Buffer(Device& device, uint64_t size, VkBufferUsageFlags usage, MemoryUse use, std::string name);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&&) = delete;
  Buffer(const Buffer&) = delete;

  VkBuffer vk() const { return buffer_; }
  uint64_t size() const { return size_; }
  const std::string& name() const { return name_; }
  bool mapped() const { return mapped_ != nullptr; }
  void* mapped_data() const { return mapped_; }
  uint64_t device_address() const { return address_; }

  // Byte-exact transfers at any offset and size; SegmentOutOfRange past the end.
  void write(uint64_t offset, const void* src, uint64_t bytes);
  void read(uint64_t offset, void* dst, uint64_t bytes);
  void fill(uint64_t offset, uint64_t bytes, uint32_t word);

  // Takes the flush/invalidate path of non-coherent memory even where the memory is coherent
  // (flushing coherent memory is valid and harmless). Lets the conformance suite exercise that
  // path, with validation checking its ranges, on devices that only expose coherent memory.
  void treat_as_non_coherent() { coherent_ = false; }
  bool coherent() const { return coherent_; }

 private:
  void check_range(uint64_t offset, uint64_t bytes, const char* what) const;
  void flush(uint64_t offset, uint64_t bytes);
  void invalidate(uint64_t offset, uint64_t bytes);

  Device* device_;
  std::string name_;
  uint64_t size_ = 0;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void* mapped_ = nullptr;
  bool coherent_ = true;
  uint64_t address_ = 0;
};

}  // namespace weft
