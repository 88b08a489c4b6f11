#include "vkfft_peer.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

#include "vkfft_plan.h"

namespace weft::bench {
namespace {

// The command pool, fence and query pool of the timed command buffer, destroyed in reverse.
struct Scratch {
  VkDevice device;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkQueryPool queries = VK_NULL_HANDLE;
  ~Scratch() {
    if (queries) vkDestroyQueryPool(device, queries, nullptr);
    if (fence) vkDestroyFence(device, fence, nullptr);
    if (pool) vkDestroyCommandPool(device, pool, nullptr);
  }
};

}  // namespace

VkfftTiming time_vkfft_c2c(Device& dev, uint32_t n, uint32_t batch, uint32_t reps) {
  VkfftTiming out;
  if (!dev.info().timestamps) {
    out.error = "the device has no compute timestamps";
    return out;
  }
  const uint64_t bytes = uint64_t(n) * batch * 8;
  Buffer buffer(dev, bytes, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                MemoryUse::DeviceLocal, "vkfft");
  std::vector<std::complex<float>> x(size_t(n) * batch);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  for (auto& v : x) v = {u(rng), u(rng)};

  Scratch s{dev.vk()};
  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pi.queueFamilyIndex = dev.queue_family();
  vk_check(vkCreateCommandPool(s.device, &pi, nullptr, &s.pool), "vkCreateCommandPool");
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  vk_check(vkCreateFence(s.device, &fi, nullptr, &s.fence), "vkCreateFence");
  VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
  qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
  qi.queryCount = 2;
  vk_check(vkCreateQueryPool(s.device, &qi, nullptr, &s.queries), "vkCreateQueryPool");

  std::unique_ptr<dsp::VkfftPlan> plan;
  try {
    // Unnormalized, as the chain's transform stages (its output stage divides by n): the same work.
    plan = std::make_unique<dsp::VkfftPlan>(dev, buffer.vk(), bytes, dsp::VkfftShape{n, batch, 0, 0, false, 0});
  } catch (const Error& e) {
    out.error = e.message();
    return out;
  }

  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = s.pool;
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  vk_check(vkAllocateCommandBuffers(s.device, &ai, &cmd), "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  vk_check(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
  vkCmdResetQueryPool(cmd, s.queries, 0, 2);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, s.queries, 0);
  plan->append(cmd, -1);
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr,
                       0, nullptr);
  plan->append(cmd, 1);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s.queries, 1);
  vk_check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");

  std::vector<double> ns;
  for (uint32_t rep = 0; rep < reps + 1; ++rep) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    buffer.write(0, x.data(), bytes);  // every replay transforms x (unnormalized data would grow n-fold)
    vk_check(vkResetFences(s.device, 1, &s.fence), "vkResetFences");
    dev.submit(si, s.fence);
    vk_check(vkWaitForFences(s.device, 1, &s.fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
    uint64_t t[2] = {0, 0};
    vk_check(vkGetQueryPoolResults(s.device, s.queries, 0, 2, sizeof t, t, sizeof t[0],
                                   VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
             "vkGetQueryPoolResults");
    if (rep > 0) ns.push_back(double(t[1] - t[0]) * dev.info().timestamp_period_ns);  // rep 0 warms up
  }
  std::vector<std::complex<float>> back(x.size());
  buffer.read(0, back.data(), bytes);
  for (size_t i = 0; i < x.size(); ++i)
    out.roundtrip_error = std::max(out.roundtrip_error, double(std::abs(back[i] / float(n) - x[i])));
  std::sort(ns.begin(), ns.end());
  out.median_ns = ns.empty() ? 0 : ns[ns.size() / 2];
  out.ok = true;
  return out;
}

}  // namespace weft::bench
