// VkFFT (libvkfft-dev) alone on the same device as a peer for `weft bench dsp`: a batched complex
// forward + inverse FFT (unnormalized) in a buffer of its own, recorded once between two GPU
// timestamps and replayed; the same work the chain's fft + ifft stages do. The bench replays it
// in turn with the chain's frames, so that both see the same load on a shared machine.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <vector>

#include <weft/weft.h>

#include "vkfft_plan.h"

namespace weft::bench {

class VkfftPeer {
 public:
  // MissingFeature when the device has no compute timestamps or VkFFT cannot plan the shape.
  // as_stages: recorded as a chain gives its transform stages (a barrier before each transform,
  // a timestamp after each), to tell the stages' own cost from the shape of a chain around them.
  VkfftPeer(Device& device, uint32_t n, uint32_t batch, bool as_stages = false);
  ~VkfftPeer();
  VkfftPeer(const VkfftPeer&) = delete;
  VkfftPeer& operator=(const VkfftPeer&) = delete;

  // Uploads the seeded input, submits, waits: the GPU time of forward + inverse in ns.
  double replay();
  // max |x - ifft(fft(x)) / n| after the last replay: the timed work is real.
  double roundtrip_error();

 private:
  struct Vulkan;
  void record(bool as_stages);
  Device& dev_;
  uint32_t n_;
  std::vector<std::complex<float>> x_;
  std::unique_ptr<Buffer> buffer_;
  std::unique_ptr<Vulkan> vk_;
  std::unique_ptr<dsp::VkfftPlan> plan_;
};

}  // namespace weft::bench
