#include "vkfft_peer.h"

#include <algorithm>
#include <cmath>
#include <random>

namespace weft::bench {

// The command pool, command buffer, fence and query pool of the timed replay, destroyed in reverse.
struct VkfftPeer::Vulkan {
  VkDevice device;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkQueryPool queries = VK_NULL_HANDLE;
  ~Vulkan() {
    if (queries) vkDestroyQueryPool(device, queries, nullptr);
    if (fence) vkDestroyFence(device, fence, nullptr);
    if (pool) vkDestroyCommandPool(device, pool, nullptr);
  }
};

VkfftPeer::VkfftPeer(Device& dev, uint32_t n, uint32_t batch, bool as_stages) : dev_(dev), n_(n), x_(size_t(n) * batch) {
  if (!dev.info().timestamps) fail(ErrorCode::MissingFeature, "VkFFT peer: '" + dev.info().name + "' has no compute timestamps");
  const uint64_t bytes = x_.size() * 8;
  buffer_ = std::make_unique<Buffer>(dev, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, MemoryUse::DeviceLocal, "vkfft");
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : x_) v = {u(rng), u(rng)};
  // Unnormalized, as the chain's transform stages (its output stage divides by n).
  plan_ = std::make_unique<dsp::VkfftPlan>(dev, buffer_->vk(), bytes, dsp::VkfftShape{n, batch, 0, 0, false, 0});

  vk_ = std::make_unique<Vulkan>(Vulkan{dev.vk()});
  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.queueFamilyIndex = dev.queue_family();
  vk_check(vkCreateCommandPool(vk_->device, &pi, nullptr, &vk_->pool), "vkCreateCommandPool");
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  vk_check(vkCreateFence(vk_->device, &fi, nullptr, &vk_->fence), "vkCreateFence");
  VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qi.queryCount = 3;
  vk_check(vkCreateQueryPool(vk_->device, &qi, nullptr, &vk_->queries), "vkCreateQueryPool");
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = vk_->pool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  vk_check(vkAllocateCommandBuffers(vk_->device, &ai, &vk_->cmd), "vkAllocateCommandBuffers");

  record(as_stages);
}

// Alone: timestamp, forward, barrier, inverse, timestamp. As stages: what a chain's stages give
// the same transforms, a barrier before each (its input was just written) and a timestamp after.
void VkfftPeer::record(bool as_stages) {
  VkCommandBuffer cmd = vk_->cmd;
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vk_check(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
  vkCmdResetQueryPool(cmd, vk_->queries, 0, 3);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, vk_->queries, 0);
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  auto barrier = [&] {
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr,
                         0, nullptr);
  };
  if (as_stages) barrier();
  plan_->append(cmd, -1);
  if (as_stages) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, vk_->queries, 1);
  barrier();
  plan_->append(cmd, 1);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, vk_->queries, 2);
  vk_check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
}

VkfftPeer::~VkfftPeer() = default;

double VkfftPeer::replay() {
  buffer_->write(0, x_.data(), x_.size() * 8);  // unnormalized data would grow n-fold per replay
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &vk_->cmd;
  vk_check(vkResetFences(vk_->device, 1, &vk_->fence), "vkResetFences");
  dev_.submit(si, vk_->fence);
  vk_check(vkWaitForFences(vk_->device, 1, &vk_->fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
  uint64_t t[3] = {0, 0, 0};  // query 1 is written only as stages: read 0 and 2
  for (uint32_t q : {0u, 2u})
    vk_check(vkGetQueryPoolResults(vk_->device, vk_->queries, q, 1, 8, &t[q], 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
             "vkGetQueryPoolResults");
  return double(t[2] - t[0]) * dev_.info().timestamp_period_ns;
}

double VkfftPeer::roundtrip_error() {
  std::vector<std::complex<float>> back(x_.size());
  buffer_->read(0, back.data(), back.size() * 8);
  double worst = 0;
  for (size_t i = 0; i < x_.size(); ++i) worst = std::max(worst, double(std::abs(back[i] / float(n_) - x_[i])));
  return worst;
}

}  // namespace weft::bench
