// Decoder: the chain on one device, recorded once; each prefill chunk or step is one replay.
#include <cmath>

#include "attention.h"

namespace weft::attention {

namespace {

Program make_program(const Model& m, const DecoderOptions& o, DecoderProgram& dp) {
  Program p("attention");
  if (o.prepare) o.prepare(p);
  dp = add_decoder(p, m, o);
  return p;
}

// The kernels reach everything but far weights through the bound window: the KV cache and the
// activations (and in-window weights) must fit it.
Program checked(Program p, const DeviceInfo& info, const std::string& what) {
  p.require_bound_window(info, what + " (use a smaller model or --context)");
  return p;
}

}  // namespace

Program decoder_program(const DeviceInfo& info, const Model& model, const DecoderOptions& options, DecoderProgram& dp) {
  const std::string what = "attention: " + model.file.source();
  DecoderOptions o = options;
  if (o.weights == WeightPlacement::Auto) {
    // The window when the in-window layout's Heap fits it (it is the faster to read), else far.
    o.weights = WeightPlacement::InWindow;
    Program p = make_program(model, o, dp);
    if (p.heap().size() <= info.max_storage_buffer_range) return checked(std::move(p), info, what);
    o.weights = WeightPlacement::Far;
  }
  // Said here rather than by the engine's stage check, so the user learns why the weights went far.
  if (o.weights == WeightPlacement::Far && !info.buffer_device_address) {
    const std::string why = options.weights == WeightPlacement::Far
                                ? "as asked"
                                : "they exceed the storage-buffer window of " + std::to_string(info.max_storage_buffer_range) + " bytes";
    fail(ErrorCode::MissingFeature, what + ": " + std::to_string(model.file.data_section().size()) + " bytes of weights placed far (" + why +
                                        ") need bufferDeviceAddress, which " + info.name + " does not support");
  }
  return checked(make_program(model, o, dp), info, what);
}

// One invocation of attn_scores loops over ctx/64 positions of head_dim products, one of
// attn_values over head_dim/64 outputs of ctx positions. A driver that stops loops sooner
// (llvmpipe: 65535 iterations) would attend to a prefix of the context without a sign of it.
void require_loop_cap(Device& device, const Model& model, uint32_t context) {
  const uint64_t hd = model.config.head_dim, limit = device.loop_iteration_limit();
  auto steps = [&](uint64_t ctx) { return std::max((ctx + 63) / 64 * (hd + 1), (hd + 63) / 64 * (ctx + 1)) + 8; };
  if (steps(context) <= limit) return;
  uint64_t fits = context;
  while (fits > 0 && steps(fits) > limit) fits = fits * 15 / 16;
  device.require_loop_steps(steps(context), "attention: a context of " + std::to_string(context) + " positions",
                            "use --context " + std::to_string(fits) + " or less there");
}

Decoder::Decoder(Device& device, const Model& model, DecoderOptions options) : model_(model) {
  Program p = decoder_program(device.info(), model, options, dp_);
  require_loop_cap(device, model, dp_.context);
  RecordOptions ro;
  ro.max_allocation_bytes = options.max_allocation_bytes;
  exe_ = std::make_unique<Executable>(device, std::move(p), ro);
  upload(*exe_, dp_, model_);
}

std::vector<float> Decoder::prefill(std::span<const uint32_t> tokens) {
  if (tokens.empty()) fail(ErrorCode::BadInput, "attention: prefill of no tokens");
  if (uint64_t(pos_) + tokens.size() > dp_.context)
    fail(ErrorCode::BadInput, "attention: " + std::to_string(pos_ + tokens.size()) + " positions exceed the context of " + std::to_string(dp_.context));
  for (size_t i = 0; i < tokens.size(); i += dp_.max_batch) {
    const auto chunk = tokens.subspan(i, std::min<size_t>(dp_.max_batch, tokens.size() - i));
    set_batch(*exe_, dp_, model_, chunk, pos_);
    exe_->run();
    pos_ += uint32_t(chunk.size());
    merge_metrics(i == 0);
  }
  return read_logits(*exe_, dp_);
}

uint32_t Decoder::sampled() { return read_sampled(*exe_, dp_); }

void Decoder::set_sampling(const Sampling& s) { attention::set_sampling(*exe_, dp_, s); }

void Decoder::merge_metrics(bool first) {
  if (first) metrics_.clear();
  for (size_t l = 0; l < dp_.layers.size(); ++l) {
    const abi::WeftMetrics m = exe_->metrics(dp_.layers[l]);
    const LayerMetrics run{m.norm, m.max_abs, m.status, m.counters[0], m.counters[1], m.counters[2], m.sequence};
    if (first) {
      metrics_.push_back(run);
      continue;
    }
    // A chunked prefill reports as one batch: the largest norm (NaN sticks), any anomaly, all
    // its tokens from the first chunk's position on.
    LayerMetrics& a = metrics_[l];
    a.rms = std::isnan(a.rms) || std::isnan(run.rms) ? NAN : std::max(a.rms, run.rms);
    a.max_abs = std::isnan(a.max_abs) || std::isnan(run.max_abs) ? NAN : std::max(a.max_abs, run.max_abs);
    if (run.status == WEFT_STATUS_ANOMALY) a.status = run.status;
    a.tokens += run.tokens;
    a.sequence = run.sequence;
  }
}

std::vector<float> Decoder::hidden() {
  std::vector<float> h = exe_->read_register<float>(dp_.layers.back(), WEFT_R_OUTBOX);
  h.resize(model_.config.dim);
  return h;
}

double Decoder::gpu_ns() { return exe_->timings().total_ns; }

std::vector<KindTime> Decoder::stage_times() { return stage_times_by_kind(exe_->program(), exe_->timings()); }

}  // namespace weft::attention
