#include "vkfft_peer.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <random>
#include <vector>

// VkFFT calls Vulkan by its global names; with VK_NO_PROTOTYPES those are volk's pointers.
#include <volk.h>
#define VKFFT_BACKEND 0
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wall"
#pragma GCC diagnostic ignored "-Wextra"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wunused-variable"
#pragma GCC diagnostic ignored "-Wunused-but-set-variable"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include "vkfft_compat.h"  // vkFFT.h as shipped, adapted to this glslang
#pragma GCC diagnostic pop

namespace weft::bench {
namespace {

// Vulkan objects VkFFT needs that the engine does not hand out, destroyed in reverse.
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
  buffer.write(0, x.data(), bytes);

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

  VkPhysicalDevice physical = dev.physical();
  VkDevice device = dev.vk();
  VkQueue queue = dev.queue();
  VkBuffer vk_buffer = buffer.vk();
  uint64_t buffer_size = bytes;
  VkFFTConfiguration config{};
  config.FFTdim = 1;
  config.size[0] = n;
  config.numberBatches = batch;
  config.physicalDevice = &physical;
  config.device = &device;
  config.queue = &queue;
  config.commandPool = &s.pool;
  config.fence = &s.fence;
  config.isCompilerInitialized = 1;  // the process-wide glslang init below, refcounted with the engine's
  config.buffer = &vk_buffer;
  config.bufferSize = &buffer_size;
  config.normalize = 1;  // inverse divides by n, as Weft's output stage does: data stays bounded over replays
  glslang_initialize_process();
  VkFFTApplication app{};
  VkFFTResult init = VKFFT_SUCCESS;
  {
    auto queue_lock = dev.queue_lock();  // VkFFT submits its own uploads to the queue while initializing
    init = initializeVkFFT(&app, config);
  }
  if (const VkFFTResult r = init; r != VKFFT_SUCCESS) {
    glslang_finalize_process();
    out.error = "initializeVkFFT failed with VkFFTResult " + std::to_string(int(r));
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
  VkFFTLaunchParams lp{};
  lp.commandBuffer = &cmd;
  lp.buffer = &vk_buffer;
  VkFFTResult r = VkFFTAppend(&app, -1, &lp);
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb, 0, nullptr,
                       0, nullptr);
  if (r == VKFFT_SUCCESS) r = VkFFTAppend(&app, 1, &lp);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, s.queries, 1);
  vk_check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
  if (r != VKFFT_SUCCESS) {
    deleteVkFFT(&app);
    glslang_finalize_process();
    out.error = "VkFFTAppend failed with VkFFTResult " + std::to_string(int(r));
    return out;
  }

  std::vector<double> ns;
  for (uint32_t rep = 0; rep < reps + 1; ++rep) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
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
    out.roundtrip_error = std::max(out.roundtrip_error, double(std::abs(back[i] - x[i])));
  deleteVkFFT(&app);
  glslang_finalize_process();
  std::sort(ns.begin(), ns.end());
  out.median_ns = ns.empty() ? 0 : ns[ns.size() / 2];
  out.ok = true;
  return out;
}

}  // namespace weft::bench
