// The DSP workload on the device against its FFTW-based double-precision reference: the whole
// streaming chain per frame size, overlap-add continuity across replays, the clipping rule
// changing the output as the reference's rule does, and bad input refused with BadInput.
//
// Error measure, per channel and frame: ||y_dev - y_ref||2 / ||y_ref||2. Bound (dsp::error_bound):
// u (14 log2 N + 8) kappa with u = 2^-24 and kappa = max|G| / min|G| of the channel's gains.
// Why: Higham (Accuracy and Stability, thm 24.2) bounds a radix-2 FFT's normwise relative error
// by log2 N * eta, eta = mu + gamma_4 (sqrt 2 + mu) ~ 6.7u with twiddles rounded once (mu ~ u);
// the chain runs two transforms (2 x 6.7u log2 N < 14u log2 N), plus the window, the complex
// gain (~2u each side), the 1/N scale (exact) and the overlap-add sum (8u in all). A filter with
// uneven gains can raise the error relative to the output by up to kappa. N = 4096, kappa = 3:
// 3.1e-5; the measured errors are two orders of magnitude below it.
#include <cmath>
#include <limits>
#include <sstream>

#include "conformance.h"
#include "dsp.h"

namespace weft::conformance {

namespace {

using namespace weft::dsp;

double kappa(const Config& cfg, uint32_t c) {
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (uint32_t k = 0; k < cfg.frame; ++k) {
    const double m = std::abs(std::complex<double>(cfg.gains[size_t(c) * cfg.frame + k]));
    lo = std::min(lo, m);
    hi = std::max(hi, m);
  }
  return lo > 0 ? hi / lo : std::numeric_limits<double>::infinity();
}

std::vector<float> channel_of(const std::vector<float>& v, uint32_t c, uint32_t h) {
  return {v.begin() + size_t(c) * h, v.begin() + size_t(c + 1) * h};
}
std::vector<double> channel_of(const std::vector<double>& v, uint32_t c, uint32_t h) {
  return {v.begin() + size_t(c) * h, v.begin() + size_t(c + 1) * h};
}

// Streams `frames` hops through the device and the reference; every frame and channel must agree
// in output (relative L2), peak, norm, clipping flag, gain and frame count.
Result stream_compare(Stream& s, Reference& ref, uint32_t frames, float amplitude, uint32_t seed, double& worst,
                      std::vector<std::vector<double>>* gains = nullptr) {
  const Config& cfg = s.config();
  const uint32_t H = cfg.hop_floats();
  for (uint32_t f = 0; f < frames; ++f) {
    const std::vector<float> block = test_block_for(cfg, f, amplitude, seed);
    std::vector<FrameMetrics> rm;
    const std::vector<double> want = ref.process(block, &rm);
    s.process(block);
    const std::vector<float> got = s.output_all();
    const std::vector<FrameMetrics> dm = s.metrics();
    if (gains) gains->push_back({});
    for (uint32_t c = 0; c < cfg.channels; ++c) {
      const std::string where = "frame " + std::to_string(f) + ", channel " + std::to_string(c);
      const double bound = error_bound(cfg.frame, kappa(cfg, c));
      const std::vector<double> rc = channel_of(want, c, H);
      double rnorm = 0;
      for (double v : rc) rnorm += v * v;
      // Frame 0 has only half a frame of signal, but it is not zero; a zero reference would make
      // the relative measure meaningless, so the fixture must avoid it.
      if (rnorm == 0) return Result::fail(where + ": reference output is zero");
      const double e = relative_l2(channel_of(got, c, H), rc);
      worst = std::max(worst, e);
      if (!(e <= bound)) return Result::fail(where + ": relative L2 error " + str(e) + " > " + str(bound), e);
      const double dp = std::fabs(dm[c].peak - rm[c].peak) / rm[c].peak, dn = std::fabs(dm[c].norm - rm[c].norm) / rm[c].norm;
      if (!(dp <= bound * 4) || !(dn <= bound))
        return Result::fail(where + ": peak " + str(dm[c].peak) + " vs " + str(rm[c].peak) + ", norm " + str(dm[c].norm) +
                            " vs " + str(rm[c].norm));
      if (dm[c].clipped != rm[c].clipped || dm[c].gain != rm[c].gain || dm[c].frame != f + 1)
        return Result::fail(where + ": clipped " + std::to_string(dm[c].clipped) + " vs " + std::to_string(rm[c].clipped) +
                            ", gain " + str(dm[c].gain) + " vs " + str(rm[c].gain) + ", frame counter " +
                            std::to_string(dm[c].frame) + " (want " + std::to_string(f + 1) + ")");
      if (gains) gains->back().push_back(dm[c].gain);
    }
  }
  return Result::pass();
}

// How a case builds its chain. shared_memory_bytes 0: the device's limit; 16384 plays a device
// with only the Vulkan minimum (both only matter to the hand-written FFT).
struct Variant {
  Fft fft = Fft::Weft;
  bool fused = true;
  bool complex_input = false;
  bool batch_channels = true;
  uint32_t shared_memory_bytes = 0;
};

std::string fft_label(const Config& c) {
  return c.uses_vkfft() ? "VkFFT stages" : c.uses_fused() ? "one-workgroup FFT" : "per-pass FFT";
}

Result chain(Device& dev, uint32_t N, Variant v) {
  Config cfg;
  cfg.fft = v.fft;
  cfg.fused = v.fused;
  cfg.shared_memory_bytes = v.shared_memory_bytes;
  cfg.batch_channels = v.batch_channels;
  cfg.channels = 3;
  cfg.frame = N;
  const bool complex_input = cfg.complex_input = v.complex_input;
  // Complex input takes gains without Hermitian symmetry: the filter itself is complex.
  cfg.gains = random_gains(cfg.channels, N, 100 + N, !complex_input);
  Reference ref(cfg);
  Stream s(dev, cfg);
  double worst = 0;
  // Amplitude 0.4 with gains <= 1.5 keeps peaks well below 1: the rule is on but never fires.
  if (Result r = stream_compare(s, ref, 5, 0.4f, N, worst); r.outcome != Outcome::Pass) return r;
  // The channels touch disjoint segments: their windows (and every later stage) share a level.
  const Plan& plan = s.executable().plan();
  uint32_t level = WEFT_NONE;
  for (const Stage& st : s.executable().program().stages())
    if (st.name.rfind("window.", 0) == 0) {
      if (level != WEFT_NONE && plan.level[st.index] != level) return Result::fail("channel windows are not in one level");
      level = plan.level[st.index];
    }
  return Result::pass(std::string(complex_input ? "complex input, " : "") + fft_label(s.config()) +
                          ", 3 channels x 5 frames, N " +
                          std::to_string(N) + ": worst relative L2 error " + str(worst) +
                          " (bound " + str(error_bound(N, kappa(cfg, 0))) + " for channel 0)",
                      worst);
}

// Unity gains: the periodic Hann window at 50% overlap sums to 1, so the stream must reproduce
// its input one hop late, seamlessly across the replays that carry history and tail in Globals.
Result continuity(Device& dev, Fft fft) {
  Config cfg;
  cfg.fft = fft;
  cfg.channels = 2;
  cfg.frame = 1024;
  cfg.gains = unity_gains(2, 1024);
  const uint32_t H = cfg.hop(), frames = 8;
  Reference ref(cfg);
  Stream s(dev, cfg);
  double worst = 0;
  std::vector<float> prev;
  for (uint32_t f = 0; f < frames; ++f) {
    const std::vector<float> block = test_block(2, 1024, f, 0.5f, 77);
    const std::vector<double> want = ref.process(block);
    s.process(block);
    const std::vector<float> got = s.output_all();
    for (uint32_t c = 0; c < 2; ++c) {
      if (f == 0) {
        // The first hop follows zero history: its exact output is 0, so the error is measured
        // against the energy of the input that produced it.
        double e2 = 0, in2 = 0;
        for (uint32_t n = 0; n < H; ++n) e2 += double(got[size_t(c) * H + n]) * got[size_t(c) * H + n],
                                         in2 += double(block[size_t(c) * H + n]) * block[size_t(c) * H + n];
        const double e = std::sqrt(e2 / in2);
        worst = std::max(worst, e);
        if (!(e <= error_bound(1024, 1))) return Result::fail("frame 0 is not silent: ||y|| / ||x|| = " + str(e), e);
        continue;
      }
      const double e = relative_l2(channel_of(got, c, H), channel_of(want, c, H));
      worst = std::max(worst, e);
      if (!(e <= error_bound(1024, 1))) return Result::fail("frame " + std::to_string(f) + " vs FFTW: " + str(e), e);
      std::vector<double> delayed(prev.begin() + size_t(c) * H, prev.begin() + size_t(c + 1) * H);
      const double d = relative_l2(channel_of(got, c, H), delayed);
      worst = std::max(worst, d);
      if (!(d <= error_bound(1024, 1)))
        return Result::fail("frame " + std::to_string(f) + ", channel " + std::to_string(c) +
                                ": output is not the previous hop's input (relative L2 " + str(d) + ")",
                            d);
    }
    prev = block;
  }
  return Result::pass(fft_label(s.config()) + ", unity gains, 2 channels x 8 hops: output = input delayed one hop, worst relative L2 " +
                          str(worst),
                      worst);
}

// Clipping rule: a loud channel's peak passes 1.0, the regulator halves its gain word, and the
// next frames' output stage multiplies by the lower gain, exactly as the reference's rule; a
// quiet channel keeps gain 1. The same stream without the rule keeps clipping.
Result clipping(Device& dev, Fft fft) {
  Config cfg;
  cfg.fft = fft;
  cfg.channels = 2;
  cfg.frame = 1024;
  // Channel 0 with gains x3 (loud), channel 1 at 0.5x (quiet): the seeded test signal is the same.
  cfg.gains = random_gains(2, 1024, 9);
  for (uint32_t k = 0; k < 1024; ++k) cfg.gains[k] *= 3.0f, cfg.gains[1024 + k] *= 0.5f;
  const uint32_t frames = 6;
  double worst = 0;
  // Fixture: no reference peak within 1e-3 of the threshold, so no verdict can flip on rounding.
  {
    Reference probe(cfg);
    std::vector<FrameMetrics> m;
    for (uint32_t f = 0; f < frames; ++f) {
      probe.process(test_block(2, 1024, f, 0.5f, 5), &m);
      for (const FrameMetrics& x : m)
        if (std::fabs(x.peak - 1.0) < 1e-3) return Result::fail("fixture: a peak within 1e-3 of the threshold");
    }
  }
  Reference ref(cfg);
  Stream s(dev, cfg);
  std::vector<std::vector<double>> gains;
  if (Result r = stream_compare(s, ref, frames, 0.5f, 5, worst, &gains); r.outcome != Outcome::Pass) return r;
  if (!(gains.back()[0] < 1.0)) return Result::fail("the loud channel's gain was never lowered");
  if (gains.back()[1] != 1.0) return Result::fail("the quiet channel's gain changed to " + str(gains.back()[1]));
  const uint32_t fired = s.executable().control_word(regulator_fired_word(s.executable().program(), s.program_info().regulator, 0));
  if (fired == 0) return Result::fail("the rule's fired counter is 0");

  Config off = cfg;
  off.clip_rule = false;
  Stream free_run(dev, off);
  for (uint32_t f = 0; f < frames; ++f) free_run.process(test_block(2, 1024, f, 0.5f, 5));
  const std::vector<FrameMetrics> fm = free_run.metrics(), rm = s.metrics();
  if (!fm[0].clipped || fm[0].gain != 1.0) return Result::fail("without the rule the loud channel should still clip at gain 1");
  // Same input, same chain: the only difference is the gain the rule set, so the outputs differ
  // by exactly that factor (to rounding) on the loud channel and not at all on the quiet one.
  const std::vector<float> a = s.output(0), b = free_run.output(0);
  std::vector<double> scaled(b.size());
  for (size_t k = 0; k < b.size(); ++k) scaled[k] = double(b[k]) * rm[0].gain;
  const double e = relative_l2(a, scaled);
  if (!(e <= error_bound(1024, kappa(cfg, 0))))
    return Result::fail("ruled output is not the free output x gain " + str(rm[0].gain) + " (" + str(e) + ")");
  if (s.output(1) != free_run.output(1)) return Result::fail("the quiet channel differs with the rule on");
  std::string seq;
  for (const auto& g : gains) seq += (seq.empty() ? "" : " ") + str(g[0]);
  return Result::pass(fft_label(s.config()) + ": loud channel gain per frame: " + seq + " (as the reference); peak " + str(rm[0].peak) +
                          " with the rule vs " + str(fm[0].peak) + " without; worst relative L2 " + str(worst),
                      worst);
}

Result bad_input(Device& dev, Fft fft) {
  auto expect = [&](const char* what, const std::function<void()>& f, const std::string& piece) -> std::string {
    try {
      f();
      return std::string(what) + ": accepted";
    } catch (const Error& e) {
      if (e.code() != ErrorCode::BadInput) return std::string(what) + ": error code " + to_string(e.code());
      if (std::string(e.what()).find(piece) == std::string::npos)
        return std::string(what) + ": message '" + e.what() + "' does not say '" + piece + "'";
    }
    return {};
  };
  auto config = [fft](uint32_t channels, uint32_t frame) {
    Config c;
    c.channels = channels;
    c.frame = frame;
    c.gains = unity_gains(channels, frame);
    c.fft = fft;
    return c;
  };
  for (uint32_t n : {1000u, 256u, 8192u, 0u}) {
    const std::string m = expect("frame size", [&] { Stream s(dev, config(1, n)); }, "frame size " + std::to_string(n));
    if (!m.empty()) return Result::fail(m);
  }
  if (auto m = expect("channels", [&] { Stream s(dev, config(kMaxChannels + 1, 512)); }, "channel count 33"); !m.empty())
    return Result::fail(m);
  Config short_gains = config(2, 512);
  short_gains.gains.pop_back();
  if (auto m = expect("gains", [&] { Stream s(dev, short_gains); }, "gains hold 1023 bins"); !m.empty()) return Result::fail(m);

  // A NaN block is refused before upload: the stream goes on as if it had never been offered.
  Config cfg = config(2, 512);
  cfg.gains = random_gains(2, 512, 3);
  Reference ref(cfg);
  Stream s(dev, cfg);
  double worst = 0;
  if (Result r = stream_compare(s, ref, 2, 0.4f, 8, worst); r.outcome != Outcome::Pass) return r;
  std::vector<float> bad = test_block(2, 512, 2, 0.4f, 8);
  bad[256 + 17] = std::numeric_limits<float>::quiet_NaN();
  if (auto m = expect("NaN sample", [&] { s.process(bad); }, "NaN sample at channel 1, sample 17"); !m.empty())
    return Result::fail(m);
  bad.pop_back();
  if (auto m = expect("short block", [&] { s.process(bad); }, "input block holds 511 samples"); !m.empty()) return Result::fail(m);
  // Frames 2.. continue the stream (the refused blocks did not touch its state).
  for (uint32_t f = 2; f < 4; ++f) {
    const std::vector<float> block = test_block(2, 512, f, 0.4f, 8);
    const std::vector<double> want = ref.process(block);
    s.process(block);
    const double e = relative_l2(s.output_all(), want);
    worst = std::max(worst, e);
    if (!(e <= error_bound(512, 3))) return Result::fail("after the refusals, frame " + std::to_string(f) + ": " + str(e), e);
  }
  return Result::pass(fft_label(s.config()) + ": frame sizes 1000/256/8192/0, 33 channels, short gains, NaN and short blocks refused with BadInput; "
                      "the stream continues unharmed",
                      worst);
}

}  // namespace

std::vector<Case> dsp_cases() {
  const std::string tol = "per channel and frame ||y_dev - y_ref||2 / ||y_ref||2 <= u (14 log2 N + 8) max|G|/min|G| vs "
                          "FFTW in double (Higham's radix-2 FFT bound, two transforms, plus window, filter, overlap-add)";
  std::vector<Case> cases;
  // Every chain case runs on both FFT paths: Weft's own kernels (the names without a suffix) and
  // VkFFT recorded as foreign stages on the chain's buffers ("_vkfft").
  auto both = [&](const std::string& name, const std::string& how, std::function<Result(Device&, Fft)> run) {
    cases.push_back({name, how, [run](Device& d) { return run(d, Fft::Weft); }});
    cases.push_back({name + "_vkfft", how, [run](Device& d) { return run(d, Fft::Vkfft); }});
  };
  for (uint32_t n : {512u, 1024u, 2048u, 4096u})
    both("dsp.chain_" + std::to_string(n), tol, [n](Device& d, Fft f) { return chain(d, n, {.fft = f}); });
  // The per-pass kernels on sizes the fused one takes, and where a device's 16 KiB of shared
  // memory cannot hold a 4096 frame (on a 32 KiB device the chain_4096 case above is fused).
  for (uint32_t n : {512u, 2048u})
    cases.push_back({"dsp.chain_" + std::to_string(n) + "_per_pass", tol, [n](Device& d) { return chain(d, n, {.fused = false}); }});
  cases.push_back({"dsp.chain_4096_16k_shared_memory", tol,
                   [](Device& d) { return chain(d, 4096, {.shared_memory_bytes = 16384}); }});
  // Complex (I/Q) input with a complex filter.
  for (uint32_t n : {1024u, 4096u})
    both("dsp.complex_chain_" + std::to_string(n), tol + " (|y| for complex samples)",
         [n](Device& d, Fft f) { return chain(d, n, {.fft = f, .complex_input = true}); });
  // Channels batched into one dispatch per transform is the default; one chain per channel too.
  for (uint32_t n : {1024u, 4096u})
    both("dsp.chain_" + std::to_string(n) + "_per_channel", tol,
         [n](Device& d, Fft f) { return chain(d, n, {.fft = f, .batch_channels = false}); });
  both("dsp.overlap_add_continuity", tol + "; and vs the input delayed one hop", continuity);
  both("dsp.clipping_rule", tol + "; gains and clip flags exact", clipping);
  both("dsp.bad_input", "exact: BadInput naming what and where", bad_input);
  return cases;
}

}  // namespace weft::conformance
