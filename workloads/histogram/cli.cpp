// weft histogram demo|bench: the histogram workload on one device against its CPU reference.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>

#include <weft/weft.h>

#include "bench.h"
#include "cli.h"
#include "conformance.h"
#include "histogram.h"

namespace weft::histogram {

namespace {

// `weft help` lines of this command.
const char* const kHelpLines =
    "  histogram demo|bench [--values N --bins B --shift S]\n"
    "                                          u32 values counted in bins vs the CPU reference (the template workload)\n";

const char* kUsage =
    "usage: weft histogram demo|bench [--values N] [--bins B] [--shift S] [--runs R] [--device SEL] [--validation]\n"
    "  demo:  counts N random values (default 1e6) in B bins (default 256) on the device and\n"
    "         compares them with the CPU reference\n"
    "  bench: one JSON line: GPU time, values/s and GB/s, and the CPU reference's time in the same run\n";

std::vector<uint32_t> random_values(uint32_t n, const Config& c) {
  std::mt19937 rng(1);
  std::uniform_int_distribution<uint32_t> d(0, (c.bins << c.shift) - 1);
  std::vector<uint32_t> v(n);
  for (uint32_t& x : v) x = d(rng);
  return v;
}

Config config_of(const cli::Args& a) { return {cli::u32(a, "bins", 256, kMaxBins), cli::u32(a, "shift", 0, 31)}; }

int demo(const cli::Args& a) {
  auto dev = cli::open_device(a);
  const Config c = config_of(a);
  const auto values = random_values(cli::u32(a, "values", 1000000), c);
  Histogram h(*dev, values, c);
  h.run();
  const conformance::ErrorStats e = conformance::compare(h.bins(), reference(values, c));
  std::printf("%zu values in %u bins on %s: %.3f ms GPU; device vs CPU reference: %s -> %s\n", values.size(), c.bins,
              dev->info().name.c_str(), h.gpu_ns() * 1e-6, e.describe().c_str(), e.max_abs == 0 ? "identical" : "DIFFERENT");
  return e.max_abs == 0 && e.comparable() ? 0 : 1;
}

int bench(const cli::Args& a) {
  auto dev = cli::open_device(a);
  const Config c = config_of(a);
  const auto values = random_values(cli::u32(a, "values", 4000000), c);
  const uint32_t runs = cli::u32(a, "runs", 5, 1000);
  Histogram h(*dev, values, c);
  std::vector<double> gpu, cpu;
  bool matches = true;
  for (uint32_t r = 0; r < runs; ++r) {
    h.clear();
    h.run();
    gpu.push_back(h.gpu_ns());
    const auto t0 = std::chrono::steady_clock::now();
    const auto ref = reference(values, c);
    cpu.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count());
    matches = matches && h.bins() == ref;
  }
  std::sort(gpu.begin(), gpu.end());
  std::sort(cpu.begin(), cpu.end());
  const double g = gpu[runs / 2], cref = cpu[runs / 2];
  const double copy_bound = bench::copy_bound_gb_per_s(*dev, bench::default_copy_bytes(*dev), runs);
  bench::Line("histogram.count", *dev)
      .num("values", double(values.size()))
      .num("bins", c.bins)
      .num("gpu_ms", g * 1e-6)
      .num("values_per_s", double(values.size()) / (g * 1e-9))
      .num("gb_per_s", double(values.size()) * 4 / g)
      .num("copy_kernel_gb_per_s", copy_bound)
      .num("fraction_of_copy_bound", double(values.size()) * 4 / g / copy_bound)
      .num("cpu_reference_ms", cref * 1e-6)
      .num("speedup_vs_cpu_reference", cref / g)
      .boolean("matches_reference", matches)
      .print();
  return matches ? 0 : 1;
}

}  // namespace
}  // namespace weft::histogram

WEFT_CLI_COMMAND(histogram) {
  return {.name = "histogram", .options = {"values", "bins", "shift", "runs", "device"},
          .flags = {"validation"}, .verbs = {{"demo", histogram::demo}, {"bench", histogram::bench}},
          .usage = histogram::kHelpLines, .help = histogram::kUsage};
}
