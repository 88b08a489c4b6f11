// VkFFT (libvkfft-dev) on the same device as a peer for `weft bench dsp`: a batched complex
// forward + inverse FFT (unnormalized) timed with GPU timestamps, the same work the chain's fft + ifft
// stages do.
#pragma once

#include <cstdint>
#include <string>

#include <weft/weft.h>

namespace weft::bench {

struct VkfftTiming {
  bool ok = false;
  std::string error;            // why VkFFT could not run (plan or launch failure)
  double median_ns = 0;         // forward + inverse, `batch` transforms of `n` points
  double roundtrip_error = 0;   // max |x - ifft(fft(x)) / n| after the last replay: the timed work is real
};

VkfftTiming time_vkfft_c2c(Device& device, uint32_t n, uint32_t batch, uint32_t reps);

}  // namespace weft::bench
