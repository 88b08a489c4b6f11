// Histogram workload: counts of u32 values in 2^k-wide bins on the device, against a CPU count.
// The smallest complete workload, and the template for a new one: its folder holds everything
// (kernel + argument header, program builder, CPU reference, `weft histogram`, conformance
// cases) and its CMakeLists.txt registers it; no file outside this folder names it.
//
// Layout: Heap holds the values (n words), Globals the bins (bin_count words). One instance,
// one stage; a run adds the values' counts to the bins (zero them with clear() between runs).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include <weft/weft.h>

namespace weft::histogram {

inline constexpr uint32_t kMaxBins = 4096;  // the kernel's shared-memory array

struct Config {
  uint32_t bins = 256;  // 1..kMaxBins; the last bin also collects every larger value
  uint32_t shift = 0;   // bin = value >> shift
};

// The CPU reference: the same counts, in a plain loop.
std::vector<uint32_t> reference(const std::vector<uint32_t>& values, const Config& config);

// Appends the histogram's segments, its instance and its stage to `p` (so it composes with other
// workloads in one program). Its ports: "values" (Heap, u32[n], in) and "bins" (Globals,
// u32[bins], counts added to).
Ports add_histogram(Program& p, uint64_t n, const Config& config);

// Builds, records once and uploads; run() replays.
class Histogram {
 public:
  // BadInput when bins is 0 or over kMaxBins, or shift over 31.
  Histogram(Device& device, const std::vector<uint32_t>& values, const Config& config);
  void clear();                   // zero the bins
  void run();                     // count the values into the bins
  std::vector<uint32_t> bins();   // read back
  double gpu_ns();                // GPU-timestamp time of the last run

 private:
  Config config_;
  std::unique_ptr<Executable> exe_;
};

}  // namespace weft::histogram
