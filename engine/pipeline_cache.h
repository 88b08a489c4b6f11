// The one descriptor-set layout and pipeline layout every kernel shares, and compute pipelines
// cached by the hash of their SPIR-V, so a kernel used by many stages or programs is built once.
//
// The driver's pipeline cache also persists between processes (WEFT_PIPELINE_CACHE: a folder;
// default $XDG_CACHE_HOME/weft or ~/.cache/weft; "0" or "off": none), one file per device and
// driver. It is written atomically (a temporary file renamed over the old one, so a process
// killed mid-write leaves the previous cache intact) and checked on load — Weft's header, length
// and checksum, then the Vulkan header's vendor, device and pipelineCacheUUID — and a file that
// fails any check is ignored (the cache starts empty and is rewritten), never handed to the driver.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "kernel.h"
#include "kernel_shape.h"
#include "vk.h"

namespace weft {

class Device;

class PipelineCache {
 public:
  explicit PipelineCache(Device& device);
  ~PipelineCache();
  PipelineCache(const PipelineCache&) = delete;
  PipelineCache& operator=(const PipelineCache&) = delete;

  VkDescriptorSetLayout set_layout() const { return set_layout_; }
  VkPipelineLayout pipeline_layout() const { return pipeline_layout_; }
  // The pipeline for this kernel's variant on this device (built on first use); a streaming
  // kernel's needs its shape (kernel_shape.h), which it is specialized for.
  VkPipeline pipeline(const Kernel& kernel, const KernelShape& shape = {});
  size_t size() const;

  static uint64_t hash(const std::vector<uint32_t>& spirv);
  // The file this device's cache persists in; empty when persistence is off.
  const std::string& file() const { return file_; }
  // Why the file found at start was not used ("" when it was, or when there was none).
  const std::string& rejected() const { return rejected_; }

 private:
  Device& device_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkPipelineCache vk_cache_ = VK_NULL_HANDLE;
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, VkPipeline> pipelines_;
  std::string file_, rejected_;
  std::vector<uint8_t> load();  // the validated driver data of file_, or none
  void save() const;
};

}  // namespace weft
