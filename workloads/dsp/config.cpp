// Input validation (BadInput naming what and where), the Hann window, seeded gains and signals,
// the error measure and its stated bound.
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <utility>

#include "dsp.h"

namespace weft::dsp {

namespace {

bool power_of_two(uint32_t n) { return n && (n & (n - 1)) == 0; }

}  // namespace

void validate(const Config& c) {
  if (!power_of_two(c.frame) || c.frame < kMinFrame || c.frame > kMaxFrame)
    fail(ErrorCode::BadInput, "dsp: frame size " + std::to_string(c.frame) + " is not a power of two in [" +
                                  std::to_string(kMinFrame) + ", " + std::to_string(kMaxFrame) + "]");
  if (c.channels == 0 || c.channels > kMaxChannels)
    fail(ErrorCode::BadInput, "dsp: channel count " + std::to_string(c.channels) + " is outside the capacity [1, " +
                                  std::to_string(kMaxChannels) + "]");
  const size_t want = size_t(c.channels) * c.frame;
  if (c.gains.size() != want)
    fail(ErrorCode::BadInput, "dsp: gains hold " + std::to_string(c.gains.size()) + " bins, want channels x frame = " +
                                  std::to_string(want));
  for (size_t k = 0; k < want; ++k)
    if (!std::isfinite(c.gains[k].real()) || !std::isfinite(c.gains[k].imag()))
      fail(ErrorCode::BadInput, "dsp: gain not finite at channel " + std::to_string(k / c.frame) + ", bin " +
                                    std::to_string(k % c.frame));
  if (!(c.gain_factor > 0.0f && c.gain_factor <= 1.0f))
    fail(ErrorCode::BadInput, "dsp: gain factor " + std::to_string(c.gain_factor) + " is outside (0, 1]");
  if (!std::isfinite(c.initial_gain) || !std::isfinite(c.clip_threshold))
    fail(ErrorCode::BadInput, "dsp: initial gain and clip threshold must be finite");
}

void validate_block(const Config& c, const std::vector<float>& block) {
  const uint32_t h = c.hop_floats(), per = c.sample_floats();
  if (block.size() != size_t(c.channels) * h) {
    std::string what = "dsp: input block holds " + std::to_string(block.size());
    what += per == 2 ? " floats, want channels x hop x 2 (complex) = " : " samples, want channels x hop = ";
    fail(ErrorCode::BadInput, what + std::to_string(size_t(c.channels) * h));
  }
  for (size_t k = 0; k < block.size(); ++k) {
    if (std::isfinite(block[k])) continue;
    std::string what = "dsp: ";
    what += std::isnan(block[k]) ? "NaN" : "infinite";
    what += " sample at channel " + std::to_string(k / h) + ", sample " + std::to_string(k % h / per);
    if (per == 2) what += k % 2 ? " (imaginary part)" : " (real part)";
    fail(ErrorCode::BadInput, what);
  }
}

namespace {
constexpr std::pair<Fft, const char*> kFftNames[] = {{Fft::Auto, "auto"}, {Fft::Weft, "weft"}, {Fft::Vkfft, "vkfft"}};
}  // namespace

const char* fft_name(Fft f) {
  for (const auto& [value, name] : kFftNames)
    if (value == f) return name;
  return "?";
}

Fft parse_fft(const std::string& text) {
  for (const auto& [value, name] : kFftNames)
    if (text == name) return value;
  fail(ErrorCode::BadInput, "dsp: fft '" + text + "' is not one of auto, weft, vkfft");
}

std::vector<float> hann(uint32_t n) {
  std::vector<float> w(n);
  for (uint32_t i = 0; i < n; ++i) w[i] = float(0.5 - 0.5 * std::cos(2.0 * std::numbers::pi * i / n));
  return w;
}

std::vector<std::complex<float>> unity_gains(uint32_t channels, uint32_t frame) {
  return std::vector<std::complex<float>>(size_t(channels) * frame, {1.0f, 0.0f});
}

std::vector<std::complex<float>> random_gains(uint32_t channels, uint32_t frame, uint32_t seed, bool hermitian) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> mag(0.5, 1.5), ph(-std::numbers::pi, std::numbers::pi);
  std::vector<std::complex<float>> g(size_t(channels) * frame);
  for (uint32_t c = 0; c < channels; ++c) {
    std::complex<float>* G = g.data() + size_t(c) * frame;
    if (!hermitian) {
      for (uint32_t k = 0; k < frame; ++k) G[k] = std::polar(float(mag(rng)), float(ph(rng)));
      continue;
    }
    // Hermitian symmetry G[N-k] = conj(G[k]) keeps the filtered frame real.
    G[0] = float(mag(rng));
    G[frame / 2] = float(mag(rng));
    for (uint32_t k = 1; k < frame / 2; ++k) {
      G[k] = std::polar(float(mag(rng)), float(ph(rng)));
      G[frame - k] = std::conj(G[k]);
    }
  }
  return g;
}

std::vector<float> test_block(uint32_t channels, uint32_t frame, uint32_t index, float amplitude, uint32_t seed) {
  const uint32_t h = frame / 2;
  std::vector<float> b(size_t(channels) * h);
  std::mt19937 rng(seed * 7919u + index);
  std::normal_distribution<double> noise(0.0, 0.05);
  for (uint32_t c = 0; c < channels; ++c) {
    // Three tones per channel at seeded, channel-dependent frequencies (cycles per sample).
    std::mt19937 tone_rng(seed * 104729u + c);
    std::uniform_real_distribution<double> f(0.002, 0.2), ph(0, 2 * std::numbers::pi);
    double fr[3], p[3];
    for (int t = 0; t < 3; ++t) fr[t] = f(tone_rng), p[t] = ph(tone_rng);
    for (uint32_t n = 0; n < h; ++n) {
      const double t = double(index) * h + n;
      double v = 0.5 * std::sin(2 * std::numbers::pi * fr[0] * t + p[0]) + 0.3 * std::sin(2 * std::numbers::pi * fr[1] * t + p[1]) +
                 0.2 * std::sin(2 * std::numbers::pi * fr[2] * t + p[2]) + noise(rng);
      b[size_t(c) * h + n] = float(amplitude * v);
    }
  }
  return b;
}

std::vector<float> test_block_for(const Config& cfg, uint32_t index, float amplitude, uint32_t seed) {
  if (!cfg.complex_input) return test_block(cfg.channels, cfg.frame, index, amplitude, seed);
  const uint32_t h = cfg.hop();
  std::vector<float> b(size_t(cfg.channels) * h * 2);
  std::mt19937 rng(seed * 7919u + index);
  std::normal_distribution<double> noise(0.0, 0.05);
  for (uint32_t c = 0; c < cfg.channels; ++c) {
    // Three complex tones per channel, frequencies of either sign (an I/Q stream is not symmetric).
    std::mt19937 tone_rng(seed * 104729u + c);
    std::uniform_real_distribution<double> f(-0.2, 0.2), ph(0, 2 * std::numbers::pi);
    double fr[3], p[3];
    for (int t = 0; t < 3; ++t) fr[t] = f(tone_rng), p[t] = ph(tone_rng);
    const double amp[3] = {0.5, 0.3, 0.2};
    for (uint32_t n = 0; n < h; ++n) {
      const double t = double(index) * h + n;
      std::complex<double> v(noise(rng), noise(rng));
      for (int k = 0; k < 3; ++k) v += std::polar(amp[k], 2 * std::numbers::pi * fr[k] * t + p[k]);
      b[(size_t(c) * h + n) * 2] = float(amplitude * v.real());
      b[(size_t(c) * h + n) * 2 + 1] = float(amplitude * v.imag());
    }
  }
  return b;
}

double relative_l2(const std::vector<float>& dev, const std::vector<double>& ref) {
  if (dev.size() != ref.size()) return std::numeric_limits<double>::infinity();
  double e = 0, r = 0;
  for (size_t k = 0; k < ref.size(); ++k) {
    const double d = double(dev[k]) - ref[k];
    e += d * d;
    r += ref[k] * ref[k];
  }
  return r > 0 ? std::sqrt(e / r) : std::sqrt(e);
}

double error_bound(uint32_t frame, double kappa) {
  const double u = std::ldexp(1.0, -24);
  return u * (14.0 * std::log2(double(frame)) + 8.0) * kappa;
}

}  // namespace weft::dsp
