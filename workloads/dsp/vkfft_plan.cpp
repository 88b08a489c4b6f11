#include "vkfft_plan.h"

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

namespace weft::dsp {

// VkFFT keeps pointers to these handles for the application's life, so they live here, at a
// stable address; the command pool and fence are its own (it submits uploads while planning).
struct VkfftPlan::App {
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  VkCommandPool pool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkBuffer buffer = VK_NULL_HANDLE;
  uint64_t buffer_size = 0;
  VkFFTApplication app{};
  bool planned = false;
  ~App() {
    if (planned) deleteVkFFT(&app);
    if (fence) vkDestroyFence(device, fence, nullptr);
    if (pool) vkDestroyCommandPool(device, pool, nullptr);
    glslang_finalize_process();  // refcounted with the engine's own compiler
  }
};

VkfftPlan::VkfftPlan(Device& dev, VkBuffer buffer, uint64_t buffer_size, const VkfftShape& shape)
    : shape_(shape), app_(std::make_unique<App>()) {
  glslang_initialize_process();
  App& a = *app_;
  a.physical = dev.physical();
  a.device = dev.vk();
  a.queue = dev.queue();
  a.buffer = buffer;
  a.buffer_size = buffer_size;
  VkCommandPoolCreateInfo pi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pi.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pi.queueFamilyIndex = dev.queue_family();
  vk_check(vkCreateCommandPool(a.device, &pi, nullptr, &a.pool), "vkCreateCommandPool");
  VkFenceCreateInfo fi{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  vk_check(vkCreateFence(a.device, &fi, nullptr, &a.fence), "vkCreateFence");

  VkFFTConfiguration c{};
  c.FFTdim = 1;
  c.size[0] = shape.n;
  c.size[1] = shape.batch;  // one 1D transform per row; rows stride_bytes apart
  c.bufferStride[0] = (shape.stride_bytes ? shape.stride_bytes : uint64_t(shape.n) * 8) / 8;
  c.bufferOffset = shape.offset;
  c.physicalDevice = &a.physical;
  c.device = &a.device;
  c.queue = &a.queue;
  c.commandPool = &a.pool;
  c.fence = &a.fence;
  c.isCompilerInitialized = 1;  // glslang_initialize_process above
  c.buffer = &a.buffer;
  c.bufferSize = &a.buffer_size;
  c.normalize = shape.normalize ? 1 : 0;
  c.makeForwardPlanOnly = shape.direction == -1;
  c.makeInversePlanOnly = shape.direction == 1;
  VkFFTResult r = VKFFT_SUCCESS;
  {
    auto queue_lock = dev.queue_lock();  // VkFFT submits its own uploads to the queue while planning
    r = initializeVkFFT(&a.app, c);
  }
  if (r != VKFFT_SUCCESS)
    fail(ErrorCode::MissingFeature, "VkFFT cannot plan " + std::to_string(shape.batch) + " complex transforms of " +
                                        std::to_string(shape.n) + " points on '" + dev.info().name + "': VkFFTResult " +
                                        std::to_string(int(r)));
  a.planned = true;
}

VkfftPlan::~VkfftPlan() = default;

void VkfftPlan::append(VkCommandBuffer cmd, int direction) {
  VkFFTLaunchParams lp{};
  lp.commandBuffer = &cmd;
  lp.buffer = &app_->buffer;
  lp.bufferOffset = shape_.offset;  // VkFFT re-plans when a launch names another offset than the plan's
  if (const VkFFTResult r = VkFFTAppend(&app_->app, direction, &lp); r != VKFFT_SUCCESS)
    fail(ErrorCode::Vulkan, "VkFFTAppend (" + std::string(direction < 0 ? "forward" : "inverse") + ", " +
                                std::to_string(shape_.n) + " points) failed with VkFFTResult " + std::to_string(int(r)));
}

namespace {

class VkfftCommands : public ForeignCommands {
 public:
  VkfftCommands(std::unique_ptr<VkfftPlan> plan, int direction) : plan_(std::move(plan)), direction_(direction) {}
  void record(VkCommandBuffer cmd) override { plan_->append(cmd, direction_); }

 private:
  std::unique_ptr<VkfftPlan> plan_;
  int direction_;
};

}  // namespace

std::shared_ptr<ForeignStage> vkfft_stage(uint32_t n, uint32_t batch, uint64_t stride_bytes, bool inverse) {
  auto f = std::make_shared<ForeignStage>();
  f->what = std::string("vkfft c2c ") + (inverse ? "inverse " : "forward ") + std::to_string(n) + " x " + std::to_string(batch);
  f->prepare = [=](Device& dev, const ForeignBuffers& b) -> std::unique_ptr<ForeignCommands> {
    const BufferSpan& first = b.reads.at(0);
    const VkfftShape shape{n, batch, first.offset, stride_bytes, false, inverse ? 1 : -1};
    return std::make_unique<VkfftCommands>(std::make_unique<VkfftPlan>(dev, first.buffer, first.buffer_size, shape),
                                           inverse ? 1 : -1);
  };
  return f;
}

}  // namespace weft::dsp
