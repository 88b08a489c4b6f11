// VkFFT (Debian's libvkfft-dev 1.2.26, header-only) behind a small class: one application for one
// transform shape on one device, appended to a caller's command buffer. The DSP chain records it
// as foreign stages on Weft's own Globals buffer (vkfft_stage); the bench's peer runs it alone.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <weft/weft.h>

namespace weft::dsp {

// `batch` single-precision complex transforms of `n` points, in place in a buffer: transform k
// at byte offset + k * stride_bytes.
struct VkfftShape {
  uint32_t n = 0;
  uint32_t batch = 1;
  uint64_t offset = 0;
  uint64_t stride_bytes = 0;  // 0: n * 8 (packed)
  bool normalize = false;     // the inverse divides by n (the chain's output stage divides itself)
  int direction = 0;          // -1: forward only, 1: inverse only, 0: both (what VkFFT compiles)
};

class VkfftPlan {
 public:
  // Compiles VkFFT's kernels for `shape` on `buffer` (whole size `buffer_size`). MissingFeature
  // naming the VkFFTResult when VkFFT cannot plan it.
  VkfftPlan(Device& device, VkBuffer buffer, uint64_t buffer_size, const VkfftShape& shape);
  ~VkfftPlan();
  VkfftPlan(const VkfftPlan&) = delete;
  VkfftPlan& operator=(const VkfftPlan&) = delete;

  // Appends the forward (-1) or inverse (1) transform to `cmd`. Vulkan error naming the result on failure.
  void append(VkCommandBuffer cmd, int direction);
  const VkfftShape& shape() const { return shape_; }

 private:
  struct App;
  VkfftShape shape_;
  std::unique_ptr<App> app_;
};

// A foreign stage (engine/foreign_stage.h) transforming in place the transforms of `shape`
// (n, batch, stride; normalize off) starting at the stage's first declared read range, one
// VkFFT application per Executable, compiled for this stage's direction only.
std::shared_ptr<ForeignStage> vkfft_stage(uint32_t n, uint32_t batch, uint64_t stride_bytes, bool inverse);

}  // namespace weft::dsp
