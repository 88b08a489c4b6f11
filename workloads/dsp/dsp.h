// DSP workload: a multi-channel streaming spectral filter as a chain on Weft's fixed bindings.
//
// Per channel c (one instance, one chain), per replay (one hop of H = N/2 new real samples):
//   window  : frame = [last H samples | new H samples] * Hann_periodic(N)   (complex, imag 0)
//   fft     : VkFFT in place on the frame (Config::fft, default), recorded as a foreign stage; or
//             Weft's own Stockham FFT, twiddles in Heap: radix-8 passes in shared memory in one dispatch
//             when N x 8 bytes fit the device's shared memory (N <= 2048 on any device, 4096
//             with 32 KiB), else one radix-2 dispatch per pass (ping-pong in Globals); by default
//             one dispatch covers every channel (Config::batch_channels), a workgroup row each
//   filter  : X[k] *= G_c[k]            (per-bin complex gains from Heap)
//   ifft    : the inverse transform (unscaled): VkFFT's, or the same passes with conjugate twiddles
//   output  : y[n] = gain_c * (Re(x[n]) / N + tail[n]),  tail[n] = Re(x[n + H]) / N   (n < H)
//             y -> R30 of the channel's instance; Metrics: norm = ||y||2, max_abs = peak,
//             status = kStatusClipped when peak > 1 (the clipping flag), ticks = device ticks of
//             the output stage, counters[0] = frames processed (integer, kept in Globals),
//             counters[1] = f32 bits of the gain applied.
//   regulator (rules as data): max_abs > clip_threshold -> gain_c *= gain_factor.
// The periodic Hann window at 50% overlap sums to 1, so unity gains reproduce the input
// delayed by one hop: the overlap-add stream has no seams.
//
// State carried between replays: Globals (sample history and overlap tail per channel, frame
// counter) and Control (the gain words; the program records with reset_control = false so the
// rule's effect lasts into the following frames).
//
// Complex input (Config::complex_input): samples, history, tail and the output hop are complex
// (interleaved re/im, 2H floats per hop); the output keeps the whole complex IFFT instead of its
// real part, and the peak is the largest magnitude. Gains need no Hermitian symmetry then.
#pragma once

#include <complex>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <weft/weft.h>

namespace weft::dsp {

// Frame sizes: powers of two in [512, 4096]; anything else is BadInput. Channels: at most 32
// (Registers hold 32 x H words per channel: 8 MiB at 32 channels of 4096).
inline constexpr uint32_t kMinFrame = 512;
inline constexpr uint32_t kMaxFrame = 4096;
inline constexpr uint32_t kMaxChannels = 32;
// Largest frame the one-workgroup FFT takes on every device (N x 8 bytes of shared memory <= the
// guaranteed 16 KiB), and on a device with 32 KiB (most GPUs and lavapipe).
inline constexpr uint32_t kFusedMaxFrame = 2048;
inline constexpr uint32_t kFusedMaxFrameLarge = 4096;
inline constexpr uint32_t kStatusClipped = WEFT_STATUS_WORKLOAD_FIRST;

// Which FFT the transform stages run: Weft's own kernels (fft_shared_* / fft_pass), VkFFT recorded
// as foreign stages on the chain's Globals buffer (in place, vkfft_plan.h), or Auto: VkFFT, which
// measured faster at every frame size on every device measured so far (README.md: "Choosing the FFT").
enum class Fft { Auto, Weft, Vkfft };
const char* fft_name(Fft f);                  // "auto", "weft", "vkfft"
Fft parse_fft(const std::string& name);      // BadInput naming the choices for anything else

struct Config {
  uint32_t channels = 1;
  uint32_t frame = 1024;                       // N
  std::vector<std::complex<float>> gains;      // channels x N, channel-major; finite
  bool clip_rule = true;                       // add the clipping rule
  float clip_threshold = 1.0f;                 // max_abs above this lowers the gain
  float gain_factor = 0.5f;                    // ... by this factor, in (0, 1]
  float initial_gain = 1.0f;
  // One dispatch per transform (shared memory) when the frame fits the device's shared memory;
  // else, or when false, one dispatch per radix-2 pass through Globals.
  bool fused = true;
  // The device's maxComputeSharedMemorySize; 0 until Stream fills it in (16 KiB, the Vulkan
  // minimum, is assumed meanwhile).
  uint32_t shared_memory_bytes = 0;
  bool complex_input = false;                  // complex samples in and out (I/Q streams)
  // One dispatch per transform (pass) for all channels, a workgroup row per channel, instead of
  // one per channel: fewer, larger dispatches (what a GPU and a CPU driver both prefer).
  bool batch_channels = true;
  Fft fft = Fft::Auto;
  bool uses_vkfft() const { return fft != Fft::Weft; }
  bool uses_fused() const {
    const uint64_t shared = shared_memory_bytes ? shared_memory_bytes : 16384u;
    return fused && frame <= kFusedMaxFrameLarge && uint64_t(frame) * 8u <= shared;
  }
  uint32_t hop() const { return frame / 2; }
  uint32_t sample_floats() const { return complex_input ? 2u : 1u; }
  uint32_t hop_floats() const { return hop() * sample_floats(); }  // floats per channel per hop
};

// Throws weft::Error BadInput naming what and where.
void validate(const Config& config);
// Samples of one hop, channel-major (channels x hop_floats()): BadInput naming channel and sample for a
// NaN or infinity, or the wrong size.
void validate_block(const Config& config, const std::vector<float>& block);

std::vector<float> hann(uint32_t n);  // periodic: 0.5 - 0.5 cos(2 pi n / N)
// Seeded gains, magnitudes in [0.5, 1.5], random phases; Hermitian-symmetric per channel (a
// real filter) unless `hermitian` is false (for complex input). unity_gains: all 1.
std::vector<std::complex<float>> random_gains(uint32_t channels, uint32_t frame, uint32_t seed, bool hermitian = true);
std::vector<std::complex<float>> unity_gains(uint32_t channels, uint32_t frame);
// Seeded test signal: a few sinusoids per channel plus noise, amplitude `amplitude`, for hop
// `index` of the stream (continuous across hops).
std::vector<float> test_block(uint32_t channels, uint32_t frame, uint32_t index, float amplitude, uint32_t seed);
// The same for the config's sample type: for complex input, tones are complex exponentials at
// positive and negative frequencies plus complex noise (interleaved re/im).
std::vector<float> test_block_for(const Config& config, uint32_t index, float amplitude, uint32_t seed);

struct FrameMetrics {
  double peak = 0, norm = 0, gain = 0;
  bool clipped = false;
  uint32_t frame = 0;   // frames processed so far (1 after the first)
  uint64_t ticks = 0;   // device only
};

// ---- CPU reference: the same chain in double with FFTW, the same rule ---------------------
class Reference {
 public:
  explicit Reference(const Config& config);
  ~Reference();
  Reference(const Reference&) = delete;
  Reference& operator=(const Reference&) = delete;
  // One hop for every channel; returns the output (channels x hop_floats()) and fills metrics.
  std::vector<double> process(const std::vector<float>& block, std::vector<FrameMetrics>* metrics = nullptr);
  // The gain the rule has left for the next hop.
  double gain(uint32_t channel) const { return gain_[channel]; }

 private:
  Config cfg_;
  std::vector<double> window_, hist_, tail_, gain_;
  struct Plans;
  std::unique_ptr<Plans> plans_;
  uint32_t frames_ = 0;
};

// ---- device ------------------------------------------------------------------------------
struct DspProgram {
  Program program;
  std::vector<InstanceId> channels;
  std::vector<uint32_t> gain_words;  // control word of each channel's gain
  StageId regulator;                 // valid when the rule is on
  // Per channel k: segment "input<k>" (the next hop, f32) and instance "channel<k>" (its outbox
  // is the filtered hop).
  Ports ports;
};
DspProgram build_program(const Config& config);
// Appends the chain to a caller's program (a composition): segments "window", "twiddles",
// "c<k>.*", instances "channel<k>", control words "gain<k>". upload() then writes the window,
// twiddles and gains into the Executable made from it and zeroes the stream state.
DspProgram append_program(Program program, const Config& config);
void upload(Executable& exe, const Config& config);
// The next hop of every channel (channels x hop floats, validated) into the inputs.
void write_block(Executable& exe, const DspProgram& dp, const Config& config, const std::vector<float>& block);

// Kinds: window, fft, filter, ifft, output, regulator.
using StageTime = KindTime;

class Stream {
 public:
  // Validates, builds, records once (Control persists between runs), uploads window,
  // twiddles and gains.
  Stream(Device& device, const Config& config);
  // One hop per channel (channels x H, channel-major): validates, uploads, replays, waits.
  void process(const std::vector<float>& block);
  std::vector<float> output(uint32_t channel);  // R30 after process()
  std::vector<float> output_all();              // channels x hop_floats()
  std::vector<FrameMetrics> metrics();          // one per channel
  float gain(uint32_t channel);                 // the live gain word (after the rule)
  void set_gain(uint32_t channel, float gain);
  double gpu_ns();                              // GPU-timestamp time of the last replay
  std::vector<StageTime> stage_times();         // summed over channels per stage kind
  Executable& executable() { return *exe_; }
  const DspProgram& program_info() const { return info_; }
  const Config& config() const { return cfg_; }

 private:
  Config cfg_;
  DspProgram info_;
  std::unique_ptr<Executable> exe_;
};

// Relative L2 error ||dev - ref|| / ||ref|| (inf when the sizes differ).
double relative_l2(const std::vector<float>& dev, const std::vector<double>& ref);
// The stated bound for frame size N: u (14 log2 N + 8) kappa, u = 2^-24, kappa = max|G|/min|G|
// (Higham's normwise radix-2 FFT bound, eta ~ 6.7u per level, twice for FFT + IFFT, plus window,
// filter and overlap-add roundings; the radix-8 kernel rounds fewer times per point, so the
// radix-2 bound covers it too).
double error_bound(uint32_t frame, double kappa);

}  // namespace weft::dsp
