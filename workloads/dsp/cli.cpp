// weft dsp demo|bench: the DSP workload (workloads/dsp) on one device against its FFTW reference.
//
//   weft dsp demo  [--channels C --frame N --frames F --amplitude A --seed S --device SEL --validation]
//     streams F hops of a seeded multi-tone signal through the chain (window -> FFT -> filter ->
//     IFFT -> overlap-add) with the clipping rule on; prints per frame and channel the peak, the
//     clipping flag and the gain the output stage applied (device, and the FFTW reference's), the
//     GPU time per stage of the last frame, and the relative L2 error against the reference.
//   weft dsp bench [--channels C --frame N --frames F --fft F --device SEL]
//     one JSON line per frame size (512..4096, or only N): GPU-timestamp time per frame (median)
//     and its ratio to the FFTW double-precision chain on one CPU thread; the transform stages
//     (fft + ifft, median over frames) against VkFFT alone doing the same transforms; the chain
//     with the hand-written FFT; all measured in the same run.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>

#include <weft/weft.h>

#include "bench.h"
#include "vkfft_peer.h"
#include "cli.h"
#include "dsp.h"

namespace {

using namespace weft;
using namespace weft::dsp;

using cli::u32;
using cli::f32;

// `weft help` lines of this command.
const char* const kHelpLines =
    "  dsp demo|bench|plan [--channels C --frame N --frames F --fft auto|vkfft|weft]\n"
    "                                          streaming FFT filter chain vs FFTW\n";

const char* kDspUsage =
    "usage: weft dsp demo  [--channels C] [--frame N] [--frames F] [--amplitude A] [--seed S] [--complex] [--fft F]\n"
    "                      [--device SEL] [--validation]\n"
    "       weft dsp bench [--channels C] [--frame N] [--frames F] [--complex] [--fft F] [--device SEL]\n"
    "       weft dsp plan  [--channels C] [--frame N] [--complex] [--fft F]   (stages and barriers, no device)\n"
    "  --complex: complex (I/Q) samples in and out with a complex (non-Hermitian) filter\n"
    "  --fft auto|vkfft|weft: the transform stages run VkFFT recorded into the chain (auto: the faster here) or\n"
    "        Weft's own Stockham kernels\n"
    "  demo: stream F hops of a seeded signal through the spectral filter chain with the clipping rule\n"
    "        (peak > 1 halves the channel's gain); per-frame peak/clip/gain, GPU time per stage, error vs FFTW\n"
    "  bench: JSON lines, GPU time per frame and the ratio to FFTW (double, 1 thread) in the same run; the\n"
    "         transform stages inside the chain (one submit) against VkFFT alone (batched complex forward +\n"
    "         inverse) on the same device: transform_vs_vkfft = VkFFT time / stage time; and the hand-written FFT\n"
    "  N is a power of two in [512, 4096]; C is at most 32\n";

Config make_config(uint32_t channels, uint32_t frame, uint32_t seed, bool complex_input = false) {
  Config c;
  c.channels = channels;
  c.frame = frame;
  c.complex_input = complex_input;
  // Gains first need a valid size: let validate() name a bad frame or channel count.
  if (channels <= kMaxChannels && frame >= kMinFrame && frame <= kMaxFrame && (frame & (frame - 1)) == 0)
    c.gains = random_gains(channels, frame, seed, !complex_input);
  validate(c);
  return c;
}

double kappa_of(const Config& c) {
  double lo = 1e300, hi = 0;
  for (const auto& g : c.gains) lo = std::min(lo, double(std::abs(g))), hi = std::max(hi, double(std::abs(g)));
  return hi / lo;
}

int run_demo(const cli::Args& a) {
  Config cfg = make_config(u32(a, "channels", 2), u32(a, "frame", 1024), u32(a, "seed", 1), a.flag("complex"));
  cfg.fft = parse_fft(a.get("fft", "auto"));
  const uint32_t frames = std::max<uint32_t>(1, u32(a, "frames", 8)), seed = u32(a, "seed", 1);
  const float amp = f32(a, "amplitude", 1.5f);
  auto dev = open_device(a);
  std::printf("device: %s\nstream: %u %s channel(s), frame %u (hop %u), %u frames, amplitude %g, seed %u, fft %s\n",
              dev->info().name.c_str(), cfg.channels, cfg.complex_input ? "complex" : "real", cfg.frame, cfg.hop(), frames,
              double(amp), seed, cfg.uses_vkfft() ? "vkfft (foreign stages)" : "weft");
  std::printf("rule: peak > %g -> gain x %g (the output stage multiplies by the gain word)\n\n", double(cfg.clip_threshold),
              double(cfg.gain_factor));
  Stream s(*dev, cfg);
  Reference ref(cfg);
  const double bound = error_bound(cfg.frame, kappa_of(cfg));
  double worst = 0;
  bool agree = true;
  std::printf("frame  chan  peak(dev)  peak(fftw)  clip  gain(dev)  gain(fftw)  rel.L2 err  ticks\n");
  for (uint32_t f = 0; f < frames; ++f) {
    const std::vector<float> block = test_block_for(cfg, f, amp, seed);
    std::vector<FrameMetrics> rm;
    const std::vector<double> want = ref.process(block, &rm);
    s.process(block);
    const std::vector<FrameMetrics> dm = s.metrics();
    for (uint32_t c = 0; c < cfg.channels; ++c) {
      const std::vector<float> got = s.output(c);
      const std::vector<double> rc(want.begin() + size_t(c) * cfg.hop_floats(), want.begin() + size_t(c + 1) * cfg.hop_floats());
      const double e = relative_l2(got, rc);
      worst = std::max(worst, e);
      agree = agree && dm[c].clipped == rm[c].clipped && dm[c].gain == rm[c].gain;
      std::printf("%5u  %4u  %-9.5f  %-10.5f  %-4s  %-9.5g  %-10.5g  %.3e   %llu\n", f, c, dm[c].peak, rm[c].peak,
                  dm[c].clipped ? "yes" : "no", dm[c].gain, rm[c].gain, e, (unsigned long long)dm[c].ticks);
    }
  }
  std::printf("\nGPU time per stage of the last frame (timestamps, summed over channels and passes):\n");
  for (const StageTime& t : s.stage_times()) std::printf("  %-10s %10.3f us\n", t.kind.c_str(), t.ns * 1e-3);
  std::printf("  %-10s %10.3f us\n", "total", s.gpu_ns() * 1e-3);
  const bool ok = agree && worst <= bound;
  std::printf("\nworst relative L2 error vs FFTW (double): %.3e (bound u(14 log2 N + 8) kappa = %.2e); clip flags and gains %s: %s\n",
              worst, bound, agree ? "agree" : "DIFFER", ok ? "ok" : "FAIL");
  return ok ? 0 : 1;
}

using bench::median;

// One chain on one device, a hop at a time: per frame after the first (the warm-up: pipelines,
// first touch) the GPU time of the frame and of its transform stages (fft + ifft); the worst
// error against FFTW and FFTW's time per frame.
class ChainRun {
 public:
  ChainRun(Device& dev, const Config& cfg) : s_(dev, cfg), ref_(cfg) {}
  void step(uint32_t f) {
    const std::vector<float> block = test_block_for(s_.config(), f, 0.4f, 7);
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<double> want = ref_.process(block);
    cpu_ns_ += std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
    s_.process(block);
    error_ = std::max(error_, relative_l2(s_.output_all(), want));
    ++steps_;
    if (f == 0) return;
    gpu_.push_back(s_.gpu_ns());
    double fft = 0;
    for (const StageTime& st : s_.stage_times())
      if (st.kind == "fft" || st.kind == "ifft") fft += st.ns;
    transform_.push_back(fft);
  }
  double gpu_ns() const { return median(gpu_); }
  double transform_ns() const { return median(transform_); }
  double cpu_ns() const { return cpu_ns_ / steps_; }
  double error() const { return error_; }
  const Config& config() const { return s_.config(); }

 private:
  Stream s_;
  Reference ref_;
  std::vector<double> gpu_, transform_;
  double cpu_ns_ = 0, error_ = 0;
  uint32_t steps_ = 0;
};

// The chain's stages and planned barriers, as `weft run --dry-run` prints a manifest's: the
// transform stages show as foreign="vkfft ..." or as Weft's FFT kernels. No device needed.
int run_plan(const cli::Args& a) {
  Config cfg = make_config(u32(a, "channels", 2), u32(a, "frame", 1024), 1, a.flag("complex"));
  cfg.fft = parse_fft(a.get("fft", "auto"));
  const DspProgram dp = build_program(cfg);
  std::printf("%s", plan_program(dp.program, BarrierMode::Planned).describe(dp.program).c_str());
  return 0;
}

int run_bench(const cli::Args& a) {
  const uint32_t channels = u32(a, "channels", 8), frames = std::max<uint32_t>(3, u32(a, "frames", 20)), only = u32(a, "frame", 0);
  const Fft fft = parse_fft(a.get("fft", "auto"));
  auto dev = open_device(a);
  for (uint32_t n = kMinFrame; n <= kMaxFrame; n *= 2) {
    if (only && n != only) continue;
    Config cfg = make_config(channels, n, 7, a.flag("complex"));
    cfg.clip_rule = false;  // the figure is the chain itself
    cfg.fft = fft;
    Config own = cfg;
    own.fft = Fft::Weft;
    ChainRun chain(*dev, cfg);
    // The hand-written FFT in the same run, so that the choice `auto` makes can be checked.
    std::unique_ptr<ChainRun> hand = cfg.uses_vkfft() ? std::make_unique<ChainRun>(*dev, own) : nullptr;
    // VkFFT alone: the same batched complex forward + inverse on the same device, one submit.
    // And recorded with the barrier and timestamp a chain puts around each transform stage.
    std::unique_ptr<bench::VkfftPeer> peer, staged;
    std::string peer_error;
    try {
      peer = std::make_unique<bench::VkfftPeer>(*dev, n, channels);
      staged = std::make_unique<bench::VkfftPeer>(*dev, n, channels, true);
    } catch (const Error& e) {
      peer_error = e.message();
    }
    // In turn, frame by frame: load from other processes on a shared machine hits all alike.
    std::vector<double> vk, vk_staged;
    for (uint32_t f = 0; f < frames; ++f) {
      chain.step(f);
      if (hand) hand->step(f);
      if (!peer) continue;
      const double alone = peer->replay(), as_stages = staged->replay();
      if (f) vk.push_back(alone), vk_staged.push_back(as_stages);  // frame 0 warms up
    }
    const ChainRun& h = hand ? *hand : chain;
    const double vk_ns = median(vk);
    bench::Line("dsp.stream", *dev)
        .num("channels", channels)
        .num("frame", n)
        .num("hop", n / 2)
        .str("samples", cfg.complex_input ? "complex" : "real")
        .num("frames", frames)
        .str("fft", cfg.uses_vkfft() ? "vkfft_stages" : "weft")
        .num("gpu_us_per_frame", chain.gpu_ns() * 1e-3)
        .str("peer", "fftw3_double_chain_1thread")
        .num("cpu_us_per_frame", chain.cpu_ns() * 1e-3)
        .num("speedup_vs_fftw", chain.cpu_ns() / chain.gpu_ns())
        .num("relative_l2_error", chain.error())
        .num("error_bound", error_bound(n, kappa_of(cfg)))
        .num("transform_us", chain.transform_ns() * 1e-3)
        .str("fft_peer", peer ? "vkfft_c2c_forward_inverse_alone" : "vkfft_unavailable: " + peer_error)
        .num("vkfft_fft_ifft_us", peer ? vk_ns * 1e-3 : NAN)
        .num("vkfft_roundtrip_error", peer ? peer->roundtrip_error() : NAN)
        .num("transform_vs_vkfft", peer ? vk_ns / chain.transform_ns() : NAN)
        .num("vkfft_as_stages_us", peer ? median(vk_staged) * 1e-3 : NAN)
        .num("transform_vs_vkfft_as_stages", peer ? median(vk_staged) / chain.transform_ns() : NAN)
        .str("handwritten_fft", h.config().uses_fused() ? "one_workgroup_shared" : "per_pass_global")
        .num("handwritten_fft_ifft_us", h.transform_ns() * 1e-3)
        .num("handwritten_gpu_us_per_frame", h.gpu_ns() * 1e-3)
        .num("handwritten_relative_l2_error", h.error())
        .num("handwritten_vs_vkfft", peer ? vk_ns / h.transform_ns() : NAN)
        .print();
  }
  return 0;
}

}  // namespace

WEFT_CLI_COMMAND(dsp) {
  return {.name = "dsp", .options = {"channels", "frame", "frames", "amplitude", "seed", "device", "fft"},
          .flags = {"validation", "complex"}, .verbs = {{"demo", run_demo}, {"bench", run_bench}, {"plan", run_plan}},
          .usage = kHelpLines, .help = kDspUsage};
}
