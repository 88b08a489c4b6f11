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

KernelRef kernel(const std::string& name) { return find_kernel(weft_dsp_kernels, weft_dsp_kernels_count, name); }

std::string seg(uint32_t c, const char* what) { return "c" + std::to_string(c) + "." + what; }

}  // namespace

DspProgram build_program(const Config& cfg) {
  validate(cfg);
  const uint32_t N = cfg.frame, L = uint32_t(std::countr_zero(N));
  const uint32_t HF = cfg.hop_floats();  // floats of one hop: H real or H complex samples
  DspProgram dp{Program("dsp"), {}, {}, {}};
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
    const InstanceId ch = p.add_instance("channel" + std::to_string(c), HF);
    dp.channels.push_back(ch);
    dp.gain_words.push_back(p.add_control_words("gain" + std::to_string(c), {f32_bits(cfg.initial_gain)}));
    const std::string tag = ".c" + std::to_string(c);

    StageSpec w;
    w.name = "window" + tag;
    w.kernel = kernel(cfg.complex_input ? "window_complex" : "window");
    w.instance = ch;
    w.groups = {N / 64, 1, 1};
    w.push = {word(Binding::Globals, seg(c, "hist")), word(Binding::Globals, seg(c, "in")), word(Binding::Heap, "window"),
              word(Binding::Globals, seg(c, "buf0")), N};
    w.reads = {G(seg(c, "hist")), G(seg(c, "in")), Hp("window")};
    w.writes = {G(seg(c, "hist")), G(seg(c, "buf0"))};
    p.add_stage(w);

    // Passes 0 .. L-1 forward, L .. 2L-1 inverse; pass q reads buf[q % 2] and writes the other,
    // so the filter works on buf[L % 2] and the inverse ends in buf0.
    auto pass = [&](uint32_t q) {
      const bool inverse = q >= L;
      const uint32_t ns = 1u << (q % L);
      const std::string src = seg(c, q % 2 ? "buf1" : "buf0"), dst = seg(c, q % 2 ? "buf0" : "buf1");
      StageSpec f;
      f.name = std::string(inverse ? "ifft" : "fft") + tag + ".p" + std::to_string(q % L);
      f.kernel = kernel(inverse ? "fft_inverse" : "fft_forward");
      f.instance = ch;
      f.groups = {N / 128, 1, 1};
      f.push = {word(Binding::Globals, src), word(Binding::Globals, dst), word(Binding::Heap, "twiddles"), N, ns, N / (2 * ns)};
      f.reads = {G(src), Hp("twiddles")};
      f.writes = {G(dst)};
      p.add_stage(f);
    };
    // One transform in one workgroup: buf0 -> buf1 forward, buf1 -> buf0 inverse.
    auto fused = [&](bool inverse) {
      const std::string src = seg(c, inverse ? "buf1" : "buf0"), dst = seg(c, inverse ? "buf0" : "buf1");
      StageSpec f;
      f.name = std::string(inverse ? "ifft" : "fft") + tag;
      f.kernel = kernel(inverse ? "fft_shared_inverse" : "fft_shared_forward");
      f.instance = ch;
      f.groups = {1, 1, 1};
      f.push = {word(Binding::Globals, src), word(Binding::Globals, dst), word(Binding::Heap, "twiddles"), N};
      f.reads = {G(src), Hp("twiddles")};
      f.writes = {G(dst)};
      p.add_stage(f);
    };
    if (cfg.uses_fused())
      fused(false);
    else
      for (uint32_t q = 0; q < L; ++q) pass(q);

    const std::string spec = seg(c, cfg.uses_fused() || L % 2 ? "buf1" : "buf0");
    StageSpec fl;
    fl.name = "filter" + tag;
    fl.kernel = kernel("filter");
    fl.instance = ch;
    fl.groups = {N / 64, 1, 1};
    fl.push = {word(Binding::Globals, spec), word(Binding::Heap, seg(c, "gains")), N};
    fl.reads = {G(spec), Hp(seg(c, "gains"))};
    fl.writes = {G(spec)};
    p.add_stage(fl);

    if (cfg.uses_fused())
      fused(true);
    else
      for (uint32_t q = L; q < 2 * L; ++q) pass(q);

    StageSpec o;
    o.name = "output" + tag;
    o.kernel = kernel(cfg.complex_input ? "overlap_add_complex" : "overlap_add");
    o.instance = ch;
    o.groups = {1, 1, 1};
    o.message = true;
    o.push = {word(Binding::Globals, seg(c, "buf0")), word(Binding::Globals, seg(c, "tail")), N, dp.gain_words[c],
              word(Binding::Globals, seg(c, "frames")), f32_bits(cfg.clip_threshold)};
    o.reads = {G(seg(c, "buf0")), G(seg(c, "tail")), G(seg(c, "frames")), p.control_words(dp.gain_words[c], 1)};
    o.writes = {G(seg(c, "tail")), G(seg(c, "frames"))};
    p.add_stage(o);
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
