// An out-of-tree Weft workload: its own kernels (embedded by weft_add_shaders), its own heap
// and globals layout, run on the default device (WEFT_DEVICE picks another) and checked
// against a CPU computation. Exit status: 0 match, 1 mismatch, 2 error.
#include <cmath>
#include <cstdio>
#include <vector>

#include <weft/weft.h>

#include "external_args.h"
#include "external_kernels.h"

namespace {

constexpr uint32_t kN = 1000, kBlock = 50, kBlocks = kN / kBlock;


}  // namespace

int main() {
  try {
    auto device = weft::Device::open();
    std::printf("device: %s\n", device->info().name.c_str());

    // Layout: Heap = coefficients + x (read-only), Globals = y + block sums + a counter.
    weft::Program p("external_poly");
    p.heap().add("coeff", 3 * 4);
    p.heap().add("x", kN * 4);
    p.globals().add("y", kN * 4);
    p.globals().add("sums", kBlocks * 4);
    p.globals().add("positive", 4);
    const weft::InstanceId inst = p.add_instance("poly", 1);
    auto heap = [&](const char* s) { return p.segment(weft::Binding::Heap, s); };
    auto globals = [&](const char* s) { return p.segment(weft::Binding::Globals, s); };

    weft::StageSpec poly;
    poly.name = "poly";
    poly.kernel = external_kernels.get("poly");
    poly.instance = inst;
    poly.groups = {(kN + 63) / 64, 1, 1};
    // Each argument says whether the kernel reads or writes it: the planner's hazards come from here.
    poly.args = PolyArgs{.coeff = heap("coeff"), .x = heap("x"), .y = globals("y"), .positive = globals("positive"), .n = kN}.bind();
    p.add_stage(poly);

    weft::StageSpec sum;
    sum.name = "block_sum";
    sum.kernel = external_kernels.get("block_sum");
    sum.instance = inst;
    sum.groups = {kBlocks, 1, 1};
    sum.args = BlockSumArgs{.y = globals("y"), .sums = globals("sums"), .block = kBlock, .blocks = kBlocks}.bind();
    p.add_stage(sum);

    weft::Executable exe(*device, std::move(p));
    const std::vector<float> coeff = {0.5f, -1.25f, 2.0f};
    std::vector<float> x(kN);
    for (uint32_t i = 0; i < kN; ++i) x[i] = std::sin(0.37f * float(i)) * 3.0f;
    exe.write_segment(weft::Binding::Heap, "coeff", coeff.data(), coeff.size() * 4);
    exe.write_segment(weft::Binding::Heap, "x", x.data(), x.size() * 4);
    exe.run();
    const auto y = exe.read_segment<float>(weft::Binding::Globals, "y");
    const auto sums = exe.read_segment<float>(weft::Binding::Globals, "sums");
    const auto positive = exe.read_segment<uint32_t>(weft::Binding::Globals, "positive");

    // CPU reference, in the kernels' order of operations.
    int bad = 0;
    double worst = 0;
    uint32_t want_positive = 0;
    std::vector<float> want_y(kN);
    for (uint32_t i = 0; i < kN; ++i) {
      want_y[i] = coeff[0] + x[i] * (coeff[1] + x[i] * coeff[2]);
      want_positive += x[i] > 0.0f;
      const double err = std::fabs(double(y[i]) - want_y[i]);
      worst = std::max(worst, err);
      if (err > 1e-5 * std::max(1.0, std::fabs(double(want_y[i])))) ++bad;
    }
    for (uint32_t b = 0; b < kBlocks; ++b) {
      float s = 0;
      for (uint32_t k = 0; k < kBlock; ++k) s += want_y[b * kBlock + k];
      const double err = std::fabs(double(sums[b]) - s);
      worst = std::max(worst, err);
      if (err > 1e-4 * std::max(1.0, std::fabs(double(s)))) ++bad;
    }
    if (positive[0] != want_positive) {
      std::printf("positive count: got %u, want %u\n", positive[0], want_positive);
      ++bad;
    }
    // With WEFT_VALIDATION=1 the Khronos layer watches the run; any message is a failure.
    for (const auto& m : device->validation().messages()) {
      std::printf("validation: %s\n", m.c_str());
      ++bad;
    }
    std::printf("%u values, %u block sums, %u positive: %s (worst abs error %.3g)\n", kN, kBlocks, positive[0],
                bad ? "MISMATCH" : "match", worst);
    return bad ? 1 : 0;
  } catch (const weft::Error& e) {
    std::fprintf(stderr, "external_workload: %s\n", e.what());
    return 2;
  }
}
