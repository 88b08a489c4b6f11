// The one descriptor-set layout and pipeline layout every kernel shares, and compute pipelines
// cached by the hash of their SPIR-V, so a kernel used by many stages or programs is built once.
#pragma once

#include <cstdint>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "kernel.h"
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
  // The pipeline for this kernel's variant on this device (built on first use).
  VkPipeline pipeline(const Kernel& kernel);
  size_t size() const;

  static uint64_t hash(const std::vector<uint32_t>& spirv);

 private:
  Device& device_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkPipelineCache vk_cache_ = VK_NULL_HANDLE;
  mutable std::mutex mutex_;
  std::unordered_map<uint64_t, VkPipeline> pipelines_;
};

}  // namespace weft
