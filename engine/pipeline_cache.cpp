#include "pipeline_cache.h"

#include "device.h"
#include "error.h"
#include "weft_layout.h"

namespace weft {

PipelineCache::PipelineCache(Device& device) : device_(device) {
  VkDescriptorSetLayoutBinding bindings[WEFT_BINDING_COUNT]{};
  for (uint32_t b = 0; b < WEFT_BINDING_COUNT; ++b) {
    bindings[b].binding = b;
    bindings[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[b].descriptorCount = 1;
    bindings[b].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  li.bindingCount = WEFT_BINDING_COUNT;
  li.pBindings = bindings;
  vk_check(vkCreateDescriptorSetLayout(device.vk(), &li, nullptr, &set_layout_), "vkCreateDescriptorSetLayout");
  VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, WEFT_PUSH_BYTES};
  VkPipelineLayoutCreateInfo pi{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  pi.setLayoutCount = 1;
  pi.pSetLayouts = &set_layout_;
  pi.pushConstantRangeCount = 1;
  pi.pPushConstantRanges = &push;
  vk_check(vkCreatePipelineLayout(device.vk(), &pi, nullptr, &pipeline_layout_), "vkCreatePipelineLayout");
  VkPipelineCacheCreateInfo ci{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
  vk_check(vkCreatePipelineCache(device.vk(), &ci, nullptr, &vk_cache_), "vkCreatePipelineCache");
}

PipelineCache::~PipelineCache() {
  for (auto& [h, p] : pipelines_) vkDestroyPipeline(device_.vk(), p, nullptr);
  vkDestroyPipelineCache(device_.vk(), vk_cache_, nullptr);
  vkDestroyPipelineLayout(device_.vk(), pipeline_layout_, nullptr);
  vkDestroyDescriptorSetLayout(device_.vk(), set_layout_, nullptr);
}

uint64_t PipelineCache::hash(const std::vector<uint32_t>& spirv) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a over the module's bytes
  for (uint32_t w : spirv)
    for (int b = 0; b < 4; ++b) {
      h ^= (w >> (8 * b)) & 0xFFu;
      h *= 1099511628211ull;
    }
  return h;
}

size_t PipelineCache::size() const {
  std::lock_guard lock(mutex_);
  return pipelines_.size();
}

VkPipeline PipelineCache::pipeline(const Kernel& kernel) {
  const bool clock = device_.info().shader_clock;
  const auto& spirv = kernel.spirv(clock);
  const uint64_t key = hash(spirv);
  std::lock_guard lock(mutex_);
  if (auto it = pipelines_.find(key); it != pipelines_.end()) return it->second;

  const KernelInterface& iface = kernel.interface(clock);
  if (iface.shader_clock && !clock)
    fail(ErrorCode::MissingFeature, "kernel '" + kernel.name() + "' reads the shader clock, which " +
                                        device_.info().name + " does not support");
  if (iface.far_access && !device_.info().buffer_device_address)
    fail(ErrorCode::MissingFeature, "kernel '" + kernel.name() + "' uses far access (buffer device address), which " +
                                        device_.info().name + " does not support");
  const auto& info = device_.info();
  const auto& ls = iface.local_size;
  for (int d = 0; d < 3; ++d)
    if (ls[d] > info.max_workgroup_size[d])
      fail(ErrorCode::InvalidProgram, "kernel '" + kernel.name() + "' has local_size[" + std::to_string(d) + "] = " +
                                          std::to_string(ls[d]) + " > device limit " +
                                          std::to_string(info.max_workgroup_size[d]));
  if (uint64_t(ls[0]) * ls[1] * ls[2] > info.max_workgroup_invocations)
    fail(ErrorCode::InvalidProgram, "kernel '" + kernel.name() + "' workgroup of " +
                                        std::to_string(uint64_t(ls[0]) * ls[1] * ls[2]) +
                                        " invocations exceeds the device limit " +
                                        std::to_string(info.max_workgroup_invocations));

  VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  mi.codeSize = spirv.size() * 4;
  mi.pCode = spirv.data();
  VkShaderModule module = VK_NULL_HANDLE;
  vk_check(vkCreateShaderModule(device_.vk(), &mi, nullptr, &module), "vkCreateShaderModule");
  VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  ci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  ci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  ci.stage.module = module;
  ci.stage.pName = "main";
  ci.layout = pipeline_layout_;
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkResult r = vkCreateComputePipelines(device_.vk(), vk_cache_, 1, &ci, nullptr, &pipeline);
  vkDestroyShaderModule(device_.vk(), module, nullptr);
  vk_check(r, ("vkCreateComputePipelines for kernel '" + kernel.name() + "'").c_str());
  pipelines_[key] = pipeline;
  return pipeline;
}

}  // namespace weft
