// Stream: a DSP program on one device, recorded once with Control kept between replays (the
// gain words are state); each process() uploads one hop per channel and replays.
#include <cmath>
#include <numbers>

#include "dsp.h"

namespace weft::dsp {

namespace {

std::string seg(uint32_t c, const char* what) { return "c" + std::to_string(c) + "." + what; }

RecordOptions options() {
  RecordOptions o;
  o.reset_control = false;  // the gains the rule lowered carry into the next frames
  return o;
}

Config with_device_limits(Config c, const Device& device) {
  if (!c.shared_memory_bytes) c.shared_memory_bytes = device.info().max_compute_shared_memory;
  return c;
}

}  // namespace

Stream::Stream(Device& device, const Config& config)
    : cfg_(with_device_limits(config, device)), info_(build_program(cfg_)) {
  exe_ = std::make_unique<Executable>(device, info_.program, options());
  upload(*exe_, cfg_);
}

void upload(Executable& exe, const Config& cfg) {
  const uint32_t N = cfg.frame;
  const std::vector<float> w = hann(N);
  exe.write_segment(Binding::Heap, "window", w.data(), w.size() * 4);
  std::vector<float> tw(N);
  for (uint32_t m = 0; m < N / 2; ++m) {
    const double a = -2.0 * std::numbers::pi * m / N;
    tw[2 * m] = float(std::cos(a));
    tw[2 * m + 1] = float(std::sin(a));
  }
  exe.write_segment(Binding::Heap, "twiddles", tw.data(), tw.size() * 4);
  for (uint32_t c = 0; c < cfg.channels; ++c)
    exe.write_segment(Binding::Heap, seg(c, "gains"), cfg.gains.data() + size_t(c) * N, uint64_t(N) * 8);
  // History, tail and frame counters start at zero (a fresh stream).
  const std::vector<float> zeros(size_t(N) * 2, 0.0f);
  for (uint32_t c = 0; c < cfg.channels; ++c) {
    for (const char* s : {"hist", "tail", "in"})
      exe.write_segment(Binding::Globals, seg(c, s), zeros.data(), uint64_t(cfg.hop_floats()) * 4);
    exe.write_segment(Binding::Globals, seg(c, "frames"), zeros.data(), 4);
  }
}

void write_block(Executable& exe, const DspProgram& dp, const Config& cfg, const std::vector<float>& block) {
  validate_block(cfg, block);  // before any upload: a refused block leaves the stream as it was
  const uint32_t HF = cfg.hop_floats();
  for (uint32_t c = 0; c < cfg.channels; ++c)
    exe.write_range(dp.ports.segment("input" + std::to_string(c)), block.data() + size_t(c) * HF, uint64_t(HF) * 4);
}

void Stream::process(const std::vector<float>& block) {
  write_block(*exe_, info_, cfg_, block);
  exe_->run();
}

std::vector<float> Stream::output(uint32_t channel) {
  if (channel >= cfg_.channels)
    fail(ErrorCode::BadInput, "dsp: output of channel " + std::to_string(channel) + " requested, the stream has " +
                                  std::to_string(cfg_.channels));
  return exe_->read_register<float>(info_.channels[channel], WEFT_R_OUTBOX);
}

std::vector<float> Stream::output_all() {
  std::vector<float> out;
  for (uint32_t c = 0; c < cfg_.channels; ++c) {
    const std::vector<float> o = output(c);
    out.insert(out.end(), o.begin(), o.end());
  }
  return out;
}

std::vector<FrameMetrics> Stream::metrics() {
  std::vector<FrameMetrics> out;
  for (InstanceId id : info_.channels) {
    const abi::WeftMetrics m = exe_->metrics(id);
    FrameMetrics f;
    f.peak = m.max_abs;
    f.norm = m.norm;
    f.gain = bits_f32(m.counters[1]);
    f.clipped = m.status == kStatusClipped;
    f.frame = m.counters[0];
    f.ticks = (uint64_t(m.ticks_hi) << 32) | m.ticks_lo;
    out.push_back(f);
  }
  return out;
}

float Stream::gain(uint32_t channel) {
  if (channel >= cfg_.channels) fail(ErrorCode::BadInput, "dsp: gain of channel " + std::to_string(channel) + " requested");
  return bits_f32(exe_->control_word(info_.gain_words[channel]));
}

void Stream::set_gain(uint32_t channel, float g) {
  if (channel >= cfg_.channels) fail(ErrorCode::BadInput, "dsp: gain of channel " + std::to_string(channel) + " set");
  if (!std::isfinite(g)) fail(ErrorCode::BadInput, "dsp: gain of channel " + std::to_string(channel) + " must be finite");
  exe_->set_control_word(info_.gain_words[channel], f32_bits(g));
}

double Stream::gpu_ns() { return exe_->timings().total_ns; }

std::vector<StageTime> Stream::stage_times() { return stage_times_by_kind(exe_->program(), exe_->timings()); }

}  // namespace weft::dsp
