// The DSP chain as a Weft program: per channel (one instance each) window -> forward FFT (one
// shared-memory dispatch, or log2 N Stockham passes) -> filter -> inverse FFT -> overlap-add and
// output, then one regulator pass holding every channel's clipping rule. The channels' chains touch disjoint segments, so
// the planner puts no barrier between channels: their stages share levels and may overlap.
#include <bit>
#include <string>

#include "dsp.h"
#include "weft_dsp_kernels.h"

namespace weft::dsp {

namespace {


std::string seg(uint32_t c, const char* what) { return "c" + std::to_string(c) + "." + what; }

}  // namespace

DspProgram build_program(const Config& cfg) { return append_program(Program("dsp"), cfg); }

DspProgram append_program(Program program, const Config& cfg) {
  validate(cfg);
  const uint32_t N = cfg.frame, L = uint32_t(std::countr_zero(N));
  const uint32_t HF = cfg.hop_floats();  // floats of one hop: H real or H complex samples
  DspProgram dp{std::move(program), {}, {}, {}};
  Program& p = dp.program;

  p.heap().add("window", uint64_t(N) * 4);
  p.heap().add("twiddles", uint64_t(N / 2) * 8);
  for (uint32_t c = 0; c < cfg.channels; ++c) p.heap().add(seg(c, "gains"), uint64_t(N) * 8);
  for (uint32_t c = 0; c < cfg.channels; ++c) {
    p.globals().add(seg(c, "in"), uint64_t(HF) * 4);
    p.globals().add(seg(c, "hist"), uint64_t(HF) * 4);
    p.globals().add(seg(c, "tail"), uint64_t(HF) * 4);
    p.globals().add(seg(c, "buf0"), uint64_t(N) * 8);
    p.globals().add(seg(c, "buf1"), uint64_t(N) * 8);
    p.globals().add(seg(c, "frames"), 4);
  }

  auto word = [&](Binding b, const std::string& s) {
    return (b == Binding::Heap ? p.heap() : p.globals()).at(s).word_offset();
  };
  auto G = [&](const std::string& s) { return p.segment(Binding::Globals, s); };
  auto Hp = [&](const std::string& s) { return p.segment(Binding::Heap, s); };

  for (uint32_t c = 0; c < cfg.channels; ++c) {
    // R30 carries the output hop: H (or 2H, complex) words per register.
    dp.channels.push_back(p.add_instance("channel" + std::to_string(c), HF));
    dp.gain_words.push_back(p.add_control_words("gain" + std::to_string(c), {f32_bits(cfg.initial_gain)}));
  }
  // Batched transforms address channel c's buffers at a fixed distance from channel 0's: every
  // channel's segments have the same sizes and alignment, so the distance is uniform (checked).
  const uint32_t stride = cfg.channels > 1 ? word(Binding::Globals, seg(1, "buf0")) - word(Binding::Globals, seg(0, "buf0")) : 0;
  for (uint32_t c = 1; c < cfg.channels; ++c)
    if (word(Binding::Globals, seg(c, "buf0")) != word(Binding::Globals, seg(0, "buf0")) + c * stride)
      fail(ErrorCode::InvalidProgram, "dsp: channel buffers are not evenly spaced; cannot batch the transforms");
  const bool batched = cfg.batch_channels && cfg.channels > 1;

  auto window = [&](uint32_t c) {
    StageSpec w;
    w.name = "window.c" + std::to_string(c);
    w.kernel = weft_dsp_kernels.get(cfg.complex_input ? "window_complex" : "window");
    w.instance = dp.channels[c];
    w.groups = {N / 64, 1, 1};
    w.push = {word(Binding::Globals, seg(c, "hist")), word(Binding::Globals, seg(c, "in")), word(Binding::Heap, "window"),
              word(Binding::Globals, seg(c, "buf0")), N};
    w.reads = {G(seg(c, "hist")), G(seg(c, "in")), Hp("window")};
    w.writes = {G(seg(c, "hist")), G(seg(c, "buf0"))};
    p.add_stage(w);
  };
  // The transforms of channels [c, c + count): one dispatch, workgroup row y = channel c + y.
  // Passes 0 .. L-1 forward, L .. 2L-1 inverse; pass q reads buf[q % 2] and writes the other,
  // so the filter works on buf[L % 2] and the inverse ends in buf0.
  auto name_of = [&](const char* kind, uint32_t c, uint32_t count) {
    return std::string(kind) + (count > 1 ? ".all" : ".c" + std::to_string(c));
  };
  auto buffers = [&](StageSpec& f, uint32_t c, uint32_t count, const char* src, const char* dst) {
    for (uint32_t k = c; k < c + count; ++k) {
      f.reads.push_back(G(seg(k, src)));
      f.writes.push_back(G(seg(k, dst)));
    }
    f.reads.push_back(Hp("twiddles"));
  };
  auto pass = [&](uint32_t c, uint32_t count, uint32_t q) {
    const bool inverse = q >= L;
    const uint32_t ns = 1u << (q % L);
    const char *src = q % 2 ? "buf1" : "buf0", *dst = q % 2 ? "buf0" : "buf1";
    StageSpec f;
    f.name = name_of(inverse ? "ifft" : "fft", c, count) + ".p" + std::to_string(q % L);
    f.kernel = weft_dsp_kernels.get(inverse ? "fft_inverse" : "fft_forward");
    f.instance = dp.channels[c];
    f.groups = {N / 128, count, 1};
    f.push = {word(Binding::Globals, seg(c, src)), word(Binding::Globals, seg(c, dst)), word(Binding::Heap, "twiddles"), N, ns,
              N / (2 * ns), stride};
    buffers(f, c, count, src, dst);
    p.add_stage(f);
  };
  // One transform per workgroup: buf0 -> buf1 forward, buf1 -> buf0 inverse.
  auto fused = [&](uint32_t c, uint32_t count, bool inverse) {
    const char *src = inverse ? "buf1" : "buf0", *dst = inverse ? "buf0" : "buf1";
    StageSpec f;
    f.name = name_of(inverse ? "ifft" : "fft", c, count);
    // A frame over kFusedMaxFrame takes the variant with the larger shared array (32 KiB).
    const bool large = N > kFusedMaxFrame;
    f.kernel = weft_dsp_kernels.get(large ? (inverse ? "fft_shared_large_inverse" : "fft_shared_large_forward")
                            : (inverse ? "fft_shared_inverse" : "fft_shared_forward"));
    f.instance = dp.channels[c];
    f.groups = {1, count, 1};
    f.push = {word(Binding::Globals, seg(c, src)), word(Binding::Globals, seg(c, dst)), word(Binding::Heap, "twiddles"), N, stride};
    buffers(f, c, count, src, dst);
    p.add_stage(f);
  };
  auto transform = [&](uint32_t c, uint32_t count, bool inverse) {
    if (cfg.uses_fused())
      fused(c, count, inverse);
    else
      for (uint32_t q = inverse ? L : 0; q < (inverse ? 2 * L : L); ++q) pass(c, count, q);
  };
  auto filter = [&](uint32_t c) {
    const std::string spec = seg(c, cfg.uses_fused() || L % 2 ? "buf1" : "buf0");
    StageSpec fl;
    fl.name = "filter.c" + std::to_string(c);
    fl.kernel = weft_dsp_kernels.get("filter");
    fl.instance = dp.channels[c];
    fl.groups = {N / 64, 1, 1};
    fl.push = {word(Binding::Globals, spec), word(Binding::Heap, seg(c, "gains")), N};
    fl.reads = {G(spec), Hp(seg(c, "gains"))};
    fl.writes = {G(spec)};
    p.add_stage(fl);
  };
  auto output = [&](uint32_t c) {
    StageSpec o;
    o.name = "output.c" + std::to_string(c);
    o.kernel = weft_dsp_kernels.get(cfg.complex_input ? "overlap_add_complex" : "overlap_add");
    o.instance = dp.channels[c];
    o.groups = {1, 1, 1};
    o.message = true;
    o.push = {word(Binding::Globals, seg(c, "buf0")), word(Binding::Globals, seg(c, "tail")), N, dp.gain_words[c],
              word(Binding::Globals, seg(c, "frames")), f32_bits(cfg.clip_threshold)};
    o.reads = {G(seg(c, "buf0")), G(seg(c, "tail")), G(seg(c, "frames")), p.control_words(dp.gain_words[c], 1)};
    o.writes = {G(seg(c, "tail")), G(seg(c, "frames"))};
    p.add_stage(o);
  };

  if (batched) {
    // Per-channel stages around one dispatch per transform for all channels.
    for (uint32_t c = 0; c < cfg.channels; ++c) window(c);
    transform(0, cfg.channels, false);
    for (uint32_t c = 0; c < cfg.channels; ++c) filter(c);
    transform(0, cfg.channels, true);
    for (uint32_t c = 0; c < cfg.channels; ++c) output(c);
  } else {
    // One chain per channel; chains touch disjoint segments, so they share levels.
    for (uint32_t c = 0; c < cfg.channels; ++c) {
      window(c);
      transform(c, 1, false);
      filter(c);
      transform(c, 1, true);
      output(c);
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
