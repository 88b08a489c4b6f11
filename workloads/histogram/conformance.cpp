// Conformance cases of the histogram workload: device counts equal the CPU reference's exactly.
#include <random>

#include "conformance.h"
#include "histogram.h"

namespace weft::conformance {

namespace {

using histogram::Config;

// Counts on the device vs the CPU reference; `runs` replays accumulate, so the bins hold runs x counts.
Result counts_match(Device& dev, const std::vector<uint32_t>& values, const Config& config, uint32_t runs = 1) {
  histogram::Histogram h(dev, values, config);
  for (uint32_t r = 0; r < runs; ++r) h.run();
  std::vector<uint32_t> want = histogram::reference(values, config);
  for (uint32_t& w : want) w *= runs;
  const std::vector<uint32_t> got = h.bins();
  const ErrorStats e = compare(got, want);
  return within(std::to_string(values.size()) + " values in " + std::to_string(config.bins) + " bins", e, e.max_abs, 0);
}

std::vector<uint32_t> random_values(size_t n, uint32_t max, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<uint32_t> d(0, max);
  std::vector<uint32_t> v(n);
  for (uint32_t& x : v) x = d(rng);
  return v;
}

Result uniform_values(Device& dev) { return counts_match(dev, random_values(100003, 255, 1), {256, 0}); }

// Every value in one bin: the most contended case for the per-bin atomics.
Result one_hot_bin(Device& dev) { return counts_match(dev, std::vector<uint32_t>(70000, 7), {16, 0}); }

// Values past the last bin all land in it; shifted bins (value >> 4).
Result overflow_into_last_bin(Device& dev) { return counts_match(dev, random_values(5000, 1u << 20, 2), {4096, 4}); }

// Sizes around the workgroup (256) and an empty input: no value lost or counted twice.
Result edge_sizes(Device& dev) {
  for (size_t n : {size_t(0), size_t(1), size_t(255), size_t(256), size_t(257), size_t(513)})
    if (Result r = counts_match(dev, random_values(n, 63, uint32_t(n)), {64, 0}); r.outcome != Outcome::Pass)
      return Result::fail("n = " + std::to_string(n) + ": " + r.detail);
  return Result::pass("n = 0, 1, 255, 256, 257, 513");
}

// A replay adds the same counts again (the bins are Globals, kept between runs).
Result replays_accumulate(Device& dev) { return counts_match(dev, random_values(3000, 99, 3), {100, 0}, 3); }

Result bad_config(Device& dev) {
  for (const Config c : {Config{0, 0}, Config{histogram::kMaxBins + 1, 0}, Config{16, 32}}) {
    try {
      histogram::Histogram h(dev, {1, 2, 3}, c);
    } catch (const Error& e) {
      if (e.code() == ErrorCode::BadInput) continue;
      return Result::fail(std::string("wrong error: ") + e.what());
    }
    return Result::fail("bins " + std::to_string(c.bins) + ", shift " + std::to_string(c.shift) + " was accepted");
  }
  return Result::pass("0 bins, 4097 bins and shift 32 refused with BadInput");
}

}  // namespace

std::vector<Case> histogram_cases() {
  return {
      {"histogram.uniform_values", "exact", uniform_values},
      {"histogram.one_hot_bin", "exact", one_hot_bin},
      {"histogram.overflow_into_last_bin", "exact", overflow_into_last_bin},
      {"histogram.edge_sizes", "exact", edge_sizes},
      {"histogram.replays_accumulate", "exact", replays_accumulate},
      {"histogram.bad_config", "exact", bad_config},
  };
}

}  // namespace weft::conformance
