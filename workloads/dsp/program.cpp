// The DSP chain as a Weft program: per channel (one instance each) window -> forward FFT (VkFFT
// as a foreign stage, or Weft's one shared-memory dispatch, or log2 N Stockham passes) -> filter -> inverse FFT -> overlap-add and
// output, then one regulator pass holding every channel's clipping rule. The channels' chains touch disjoint segments, so
// the planner puts no barrier between channels: their stages share levels and may overlap.
#include <bit>
#include <string>

#include "dsp.h"
#include "shaders/dsp_args.h"
#include "vkfft_plan.h"
#include "weft_dsp_kernels.h"

namespace weft::dsp {

namespace {


std::string seg(uint32_t c, const char* what) { return "c" + std::to_string(c) + "." + what; }

}  // namespace

DspProgram build_program(const Config& cfg) { return append_program(Program("dsp"), cfg); }

namespace {

void add_segments(Program& p, const Config& cfg) {
  const uint64_t N = cfg.frame, HF = cfg.hop_floats();  // floats of one hop: H real or H complex samples
  p.heap().add("window", N * 4);
  p.heap().add("twiddles", N / 2 * 8);
  for (uint32_t c = 0; c < cfg.channels; ++c) p.heap().add(seg(c, "gains"), N * 8);
  for (uint32_t c = 0; c < cfg.channels; ++c) {
    p.globals().add(seg(c, "in"), HF * 4);
    p.globals().add(seg(c, "hist"), HF * 4);
    p.globals().add(seg(c, "tail"), HF * 4);
    p.globals().add(seg(c, "buf0"), N * 8);
    p.globals().add(seg(c, "buf1"), N * 8);
    p.globals().add(seg(c, "frames"), 4);
  }
}

// Batched transforms address channel c's buffers at a fixed distance from channel 0's: every
// channel's segments have the same sizes and alignment, so the distance is uniform (checked).
uint32_t channel_stride(const Program& p, uint32_t channels) {
  auto word = [&](const std::string& s) { return p.globals().at(s).word_offset(); };
  const uint32_t stride = channels > 1 ? word(seg(1, "buf0")) - word(seg(0, "buf0")) : 0;
  for (uint32_t c = 1; c < channels; ++c)
    if (word(seg(c, "buf0")) != word(seg(0, "buf0")) + c * stride)
      fail(ErrorCode::InvalidProgram, "dsp: channel buffers are not evenly spaced; cannot batch the transforms");
  return stride;
}

// The stages of the filter chain. Transforms of channels [c, c + count) are one dispatch,
// workgroup row y = channel c + y. Passes 0 .. L-1 forward, L .. 2L-1 inverse; pass q reads
// buf[q % 2] and writes the other, so the filter works on buf[L % 2] and the inverse ends in buf0.
class Chain {
 public:
  Chain(DspProgram& dp, const Config& cfg)
      : dp_(dp), p_(dp.program), cfg_(cfg), N_(cfg.frame), L_(uint32_t(std::countr_zero(cfg.frame))),
        stride_(channel_stride(p_, cfg.channels)) {}

  void window(uint32_t c) {
    StageSpec w = stage("window.c" + std::to_string(c), cfg_.complex_input ? "window_complex" : "window", c);
    w.groups = {grid_stride_groups(N_, 64), 1, 1};
    w.args = WindowArgs{.history = G(seg(c, "hist")), .hop = G(seg(c, "in")), .window = Hp("window"), .frame = G(seg(c, "buf0")),
                        .n = N_}.bind();
    p_.add_stage(w);
  }

  void transform(uint32_t c, uint32_t count, bool inverse) {
    if (cfg_.uses_vkfft())
      vkfft(c, count, inverse);
    else if (cfg_.uses_fused())
      fused(c, count, inverse);
    else
      for (uint32_t q = inverse ? L_ : 0; q < (inverse ? 2 * L_ : L_); ++q) pass(c, count, q);
  }

  void filter(uint32_t c) {
    const bool in_buf1 = !cfg_.uses_vkfft() && (cfg_.uses_fused() || L_ % 2);  // VkFFT transforms buf0 in place
    const std::string spec = seg(c, in_buf1 ? "buf1" : "buf0");
    StageSpec fl = stage("filter.c" + std::to_string(c), "filter", c);
    fl.groups = {grid_stride_groups(N_, 64), 1, 1};
    fl.args = FilterArgs{.spectrum = G(spec), .gains = Hp(seg(c, "gains")), .n = N_}.bind();
    p_.add_stage(fl);
  }

  void output(uint32_t c) {
    StageSpec o = stage("output.c" + std::to_string(c), cfg_.complex_input ? "overlap_add_complex" : "overlap_add", c);
    o.groups = {1, 1, 1};
    o.message = true;
    o.args = OverlapAddArgs{.x = G(seg(c, "buf0")), .tail = G(seg(c, "tail")), .n = N_,
                            .gain = p_.control_words(dp_.gain_words[c], 1), .frames = G(seg(c, "frames")),
                            .threshold = cfg_.clip_threshold}.bind();
    p_.add_stage(o);
  }

 private:
  Range G(const std::string& s) const { return p_.segment(Binding::Globals, s); }
  Range Hp(const std::string& s) const { return p_.segment(Binding::Heap, s); }
  StageSpec stage(const std::string& name, const char* kernel, uint32_t c) const {
    StageSpec s;
    s.name = name;
    s.kernel = weft_dsp_kernels.get(kernel);
    s.instance = dp_.channels[c];
    return s;
  }
  static std::string name_of(const char* kind, uint32_t c, uint32_t count) {
    return std::string(kind) + (count > 1 ? ".all" : ".c" + std::to_string(c));
  }
  // The arguments name channel c's buffers; the other channels of a batch are declared here.
  void other_channels(StageSpec& f, uint32_t c, uint32_t count, const char* src, const char* dst) const {
    for (uint32_t k = c + 1; k < c + count; ++k) {
      f.reads.push_back(G(seg(k, src)));
      f.writes.push_back(G(seg(k, dst)));
    }
  }

  void pass(uint32_t c, uint32_t count, uint32_t q) {
    const bool inverse = q >= L_;
    const uint32_t ns = 1u << (q % L_);
    const char *src = q % 2 ? "buf1" : "buf0", *dst = q % 2 ? "buf0" : "buf1";
    StageSpec f = stage(name_of(inverse ? "ifft" : "fft", c, count) + ".p" + std::to_string(q % L_),
                        inverse ? "fft_inverse" : "fft_forward", c);
    f.groups = {grid_stride_groups(N_ / 2, 64), count, 1};
    f.args = FftPassArgs{.src = G(seg(c, src)), .dst = G(seg(c, dst)), .twiddles = Hp("twiddles"), .n = N_, .ns = ns,
                         .twiddle_stride = N_ / (2 * ns), .channel_stride = stride_}.bind();
    other_channels(f, c, count, src, dst);
    p_.add_stage(f);
  }

  // One transform per workgroup: buf0 -> buf1 forward, buf1 -> buf0 inverse. A frame over
  // kFusedMaxFrame takes the variant with the larger shared array (32 KiB).
  void fused(uint32_t c, uint32_t count, bool inverse) {
    const char *src = inverse ? "buf1" : "buf0", *dst = inverse ? "buf0" : "buf1";
    const bool large = N_ > kFusedMaxFrame;
    StageSpec f = stage(name_of(inverse ? "ifft" : "fft", c, count),
                        large ? (inverse ? "fft_shared_large_inverse" : "fft_shared_large_forward")
                              : (inverse ? "fft_shared_inverse" : "fft_shared_forward"),
                        c);
    f.groups = {1, count, 1};
    f.args = FftSharedArgs{.src = G(seg(c, src)), .dst = G(seg(c, dst)), .twiddles = Hp("twiddles"), .n = N_,
                           .channel_stride = stride_}.bind();
    other_channels(f, c, count, src, dst);
    p_.add_stage(f);
  }

  // VkFFT in place on buf0 of channels [c, c + count), recorded as a foreign stage: one VkFFT
  // application per stage (per transform shape and direction), rows `stride_` words apart.
  void vkfft(uint32_t c, uint32_t count, bool inverse) {
    StageSpec f;
    f.name = name_of(inverse ? "ifft" : "fft", c, count);
    f.instance = dp_.channels[c];
    f.foreign = vkfft_stage(N_, count, uint64_t(count > 1 ? stride_ : 2 * N_) * 4, inverse);
    for (uint32_t k = c; k < c + count; ++k) {
      f.reads.push_back(G(seg(k, "buf0")));  // the first read is where the transforms start
      f.writes.push_back(G(seg(k, "buf0")));
    }
    p_.add_stage(f);
  }

  DspProgram& dp_;
  Program& p_;
  const Config& cfg_;
  uint32_t N_, L_, stride_;
};

}  // namespace

DspProgram append_program(Program program, const Config& cfg) {
  validate(cfg);
  DspProgram dp{std::move(program), {}, {}, {}, Ports("dsp")};
  Program& p = dp.program;
  add_segments(p, cfg);
  for (uint32_t c = 0; c < cfg.channels; ++c) {
    // R30 carries the output hop: H (or 2H, complex) words per register.
    dp.channels.push_back(p.add_instance("channel" + std::to_string(c), cfg.hop_floats()));
    dp.gain_words.push_back(p.add_control_words("gain" + std::to_string(c), {f32_bits(cfg.initial_gain)}));
    const std::string k = std::to_string(c);
    dp.ports.add_segment("input" + k, p.segment(Binding::Globals, "c" + k + ".in"), "f32[hop floats]: channel " + k + "'s next hop")
        .add_instance("channel" + k, dp.channels.back(), "its outbox (R30): channel " + k + "'s filtered hop, f32[hop floats]");
  }
  Chain chain(dp, cfg);
  if (cfg.batch_channels && cfg.channels > 1) {
    // Per-channel stages around one dispatch per transform for all channels.
    for (uint32_t c = 0; c < cfg.channels; ++c) chain.window(c);
    chain.transform(0, cfg.channels, false);
    for (uint32_t c = 0; c < cfg.channels; ++c) chain.filter(c);
    chain.transform(0, cfg.channels, true);
    for (uint32_t c = 0; c < cfg.channels; ++c) chain.output(c);
  } else {
    // One chain per channel; chains touch disjoint segments, so they share levels.
    for (uint32_t c = 0; c < cfg.channels; ++c) {
      chain.window(c);
      chain.transform(c, 1, false);
      chain.filter(c);
      chain.transform(c, 1, true);
      chain.output(c);
    }
  }

  // The regulator role, as data: a channel whose output peak passed the threshold has its gain
  // word scaled down; the next frame's output stage multiplies by the lowered gain.
  if (cfg.clip_rule) {
    std::vector<abi::WeftRule> rs;
    for (uint32_t c = 0; c < cfg.channels; ++c)
      rs.push_back(rule(Condition::greater(dp.channels[c], WEFT_METRIC_MAX_ABS, cfg.clip_threshold),
                        Action::scale_word(dp.gain_words[c], cfg.gain_factor)));
    dp.regulator = add_regulator(p, "regulator", rs);
  }
  return dp;
}

}  // namespace weft::dsp
