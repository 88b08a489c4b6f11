// The CPU reference: the same window -> FFT -> filter -> IFFT -> overlap-add -> gain chain in
// double precision with FFTW (an independent FFT), and the same clipping rule on its own peaks.
#include <cmath>
#include <complex>
#include <fftw3.h>

#include "dsp.h"

namespace weft::dsp {

// FFTW plans on one in-place buffer (planning is not thread-safe; the suite is single-threaded).
struct Reference::Plans {
  fftw_complex* buf = nullptr;
  fftw_plan forward = nullptr, inverse = nullptr;
  explicit Plans(uint32_t n) {
    buf = static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * n));
    forward = fftw_plan_dft_1d(int(n), buf, buf, FFTW_FORWARD, FFTW_ESTIMATE);
    inverse = fftw_plan_dft_1d(int(n), buf, buf, FFTW_BACKWARD, FFTW_ESTIMATE);
  }
  ~Plans() {
    fftw_destroy_plan(forward);
    fftw_destroy_plan(inverse);
    fftw_free(buf);
  }
};

Reference::Reference(const Config& config) : cfg_(config) {
  validate(cfg_);
  const uint32_t n = cfg_.frame, h = cfg_.hop();
  // The device's window is the f32 table; the reference uses the same rounded values so the
  // comparison measures the chain's arithmetic, not the table.
  for (float w : hann(n)) window_.push_back(w);
  hist_.assign(size_t(cfg_.channels) * h * cfg_.sample_floats(), 0.0);
  tail_.assign(size_t(cfg_.channels) * h * cfg_.sample_floats(), 0.0);
  gain_.assign(cfg_.channels, cfg_.initial_gain);
  plans_ = std::make_unique<Plans>(n);
}

Reference::~Reference() = default;

std::vector<double> Reference::process(const std::vector<float>& block, std::vector<FrameMetrics>* metrics) {
  validate_block(cfg_, block);
  const uint32_t n = cfg_.frame, h = cfg_.hop(), per = cfg_.sample_floats(), hf = cfg_.hop_floats();
  std::vector<double> out(size_t(cfg_.channels) * hf);
  if (metrics) metrics->assign(cfg_.channels, {});
  fftw_complex* x = plans_->buf;
  ++frames_;
  // Sample i of a hop as a complex value (imaginary 0 for real input).
  auto sample = [per](const auto* v, uint32_t i) {
    return per == 2 ? std::complex<double>(v[2 * i], v[2 * i + 1]) : std::complex<double>(v[i], 0.0);
  };
  for (uint32_t c = 0; c < cfg_.channels; ++c) {
    double* hist = hist_.data() + size_t(c) * hf;
    double* tail = tail_.data() + size_t(c) * hf;
    const float* in = block.data() + size_t(c) * hf;
    for (uint32_t i = 0; i < n; ++i) {
      const std::complex<double> v = i < h ? sample(hist, i) : sample(in, i - h);
      x[i][0] = v.real() * window_[i];
      x[i][1] = v.imag() * window_[i];
    }
    for (uint32_t i = 0; i < hf; ++i) hist[i] = in[i];
    fftw_execute(plans_->forward);
    const std::complex<float>* G = cfg_.gains.data() + size_t(c) * n;
    for (uint32_t k = 0; k < n; ++k) {
      const std::complex<double> v = std::complex<double>(x[k][0], x[k][1]) * std::complex<double>(G[k]);
      x[k][0] = v.real();
      x[k][1] = v.imag();
    }
    fftw_execute(plans_->inverse);  // unnormalized, like the device's inverse passes
    double peak = 0, sum = 0;
    const double g = gain_[c];
    for (uint32_t i = 0; i < h; ++i) {
      // Real input keeps the real part (the imaginary part is rounding noise of a real filter).
      const std::complex<double> y = g * (std::complex<double>(x[i][0], per == 2 ? x[i][1] : 0.0) / double(n) + sample(tail, i));
      if (per == 2) {
        tail[2 * i] = x[i + h][0] / n;
        tail[2 * i + 1] = x[i + h][1] / n;
        out[size_t(c) * hf + 2 * i] = y.real();
        out[size_t(c) * hf + 2 * i + 1] = y.imag();
      } else {
        tail[i] = x[i + h][0] / n;
        out[size_t(c) * hf + i] = y.real();
      }
      peak = std::max(peak, std::abs(y));
      sum += std::norm(y);
    }
    const bool clipped = peak > cfg_.clip_threshold;
    if (metrics) {
      FrameMetrics& m = (*metrics)[c];
      m.peak = peak;
      m.norm = std::sqrt(sum);
      m.gain = g;
      m.clipped = clipped;
      m.frame = frames_;
    }
    // The rule, as the regulator applies it to the f32 gain word.
    if (cfg_.clip_rule && clipped) gain_[c] = double(float(g) * cfg_.gain_factor);
  }
  return out;
}

}  // namespace weft::dsp
