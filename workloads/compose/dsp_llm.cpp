// dsp-llm: DSP chain -> features adapter (projection of each filtered hop to an input row) ->
// llama decoder prefill + sampler, as one program (one submit) and as two host-driven submits
// with the projection on the host, plus the CPU references chained alike.
#include <algorithm>
#include <cmath>
#include <random>

#include "compose.h"
#include "shaders/compose_args.h"
#include "weft_compose_kernels.h"

namespace weft::compose {

namespace {

void write_inputs(Executable& exe, const dsp::DspProgram& dp, const DspLlmSetup& s) {
  dsp::upload(exe, s.dsp);  // window, twiddles, gains; a fresh stream (history and tail zero)
  dsp::write_block(exe, dp, s.dsp, s.block);
}

// The decoder's batch: T rows at positions 0..T-1 (the token ids are unused with DecoderOptions::embed).
void set_rows_batch(Executable& exe, const attention::DecoderProgram& dp, const DspLlmSetup& s) {
  const std::vector<uint32_t> unused(s.cfg.tokens, 0);
  attention::set_batch(exe, dp, s.model, unused, 0);
  attention::set_sampling(exe, dp, attention::Sampling{});
}

void read_decoder(Executable& exe, const attention::DecoderProgram& dp, DspLlmResult& r) {
  r.logits = attention::read_logits(exe, dp);
  r.sampled = attention::read_sampled(exe, dp);
}

}  // namespace

DspLlmSetup::DspLlmSetup(const DspLlmConfig& c, const Device* device)
    : cfg(c), model(attention::Model::from(gguf::File::parse(attention::seeded_model(c.model).bytes(), "<seeded model>"))) {
  if (c.tokens == 0 || c.tokens > dsp::kMaxChannels || c.tokens > c.model.context)
    fail(ErrorCode::BadInput, "compose dsp-llm: tokens (= DSP channels) must be 1.." + std::to_string(std::min(dsp::kMaxChannels, c.model.context)));
  dsp.channels = c.tokens;
  dsp.frame = c.frame;
  dsp.gains = dsp::random_gains(c.tokens, c.frame, c.seed);
  dsp.clip_rule = false;  // one hop from a fresh stream: no gain state to carry
  if (device) dsp.shared_memory_bytes = device->info().max_compute_shared_memory;
  dsp::validate(dsp);
  block = dsp::test_block(c.tokens, c.frame, 0, 0.5f, c.seed);
  const uint32_t H = dsp.hop(), D = model.config.dim;
  if (D > H) fail(ErrorCode::BadInput, "compose dsp-llm: the model's dim exceeds the DSP hop (the adapter's message must fit the channel's R30)");
  // A fixed random projection, scaled so an input row has about unit RMS (like an embedding row).
  std::mt19937 rng(c.seed);
  std::normal_distribution<float> n(0.0f, 1.0f / std::sqrt(float(H)) * 8.0f);
  projection.resize(size_t(D) * H);
  for (float& v : projection) v = n(rng);
}

attention::DecoderOptions DspLlmSetup::decoder_options() const {
  attention::DecoderOptions o;
  o.prefix = "attn";
  o.context = cfg.model.context;
  o.max_batch = cfg.tokens;
  return o;
}

// ---- single submit ---------------------------------------------------------------------------
DspLlmComposed::DspLlmComposed(Device& device, const DspLlmConfig& cfg) : setup_(cfg, &device) {
  const uint32_t T = cfg.tokens, H = setup_.dsp.hop(), D = setup_.dim();
  dsp_ = dsp::append_program(Program("dsp-llm"), setup_.dsp);
  Program p = std::move(dsp_.program);
  p.heap().add("compose.projection", uint64_t(D) * H * 4);
  p.globals().add("compose.rows", uint64_t(T) * D * 4);
  features_ = p.add_instance("compose.features", D);
  std::vector<InstanceId> channels;
  for (uint32_t c = 0; c < T; ++c) channels.push_back(dsp_.ports.instance("channel" + std::to_string(c)));
  p.connect(channels.back(), features_);
  // The kernel walks the channels' outboxes with one stride.
  const uint32_t r30 = p.window_word(channels[0], WEFT_R_OUTBOX);
  const uint32_t stride = T > 1 ? p.window_word(channels[1], WEFT_R_OUTBOX) - r30 : 0;
  for (uint32_t c = 1; c < T; ++c)
    if (p.window_word(channels[c], WEFT_R_OUTBOX) != r30 + c * stride)
      fail(ErrorCode::InvalidProgram, "compose dsp-llm: the channels' registers are not evenly spaced");
  attention::DecoderOptions o = setup_.decoder_options();
  o.embed = [&](Program& q, const attention::DecoderProgram& dp) {
    StageSpec s;
    s.name = "features";
    s.kernel = weft_compose_kernels.get("features");
    s.instance = features_;
    s.groups = {T, 1, 1};
    s.args = FeaturesArgs{.hops = q.outbox(channels[0]),
                          .hop_stride = stride,
                          .hop_floats = H,
                          .projection = q.segment(Binding::Heap, "compose.projection"),
                          .dim = D,
                          .rows = dp.ports.segment("input_rows"),
                          .tokens = T,
                          .rows_copy = q.segment(Binding::Globals, "compose.rows")}.bind();
    for (uint32_t c = 1; c < T; ++c) s.reads.push_back(q.outbox(channels[c]));
    s.message = true;
    s.honour_halt = true;
    q.add_stage(s);
  };
  dec_ = attention::add_decoder(p, setup_.model, o);
  p.connect(features_, dec_.ports.instance("first_layer"));
  exe_ = std::make_unique<Executable>(device, p);
  attention::upload(*exe_, dec_, setup_.model);
  exe_->write_segment(Binding::Heap, "compose.projection", setup_.projection.data(), setup_.projection.size() * 4);
}

DspLlmResult DspLlmComposed::run() {
  write_inputs(*exe_, dsp_, setup_);
  set_rows_batch(*exe_, dec_, setup_);
  exe_->run();
  DspLlmResult r;
  r.submits = 1;
  r.gpu_ns = exe_->timings().total_ns;
  for (InstanceId ch : dsp_.channels) {
    const auto y = exe_->read_register<float>(ch, WEFT_R_OUTBOX);
    r.dsp_out.insert(r.dsp_out.end(), y.begin(), y.begin() + setup_.dsp.hop());
  }
  r.rows = exe_->read_segment<float>(Binding::Globals, "compose.rows");
  read_decoder(*exe_, dec_, r);
  return r;
}

// ---- host-orchestrated: the DSP, the host projection, the decoder (two submits) ------------
DspLlmOrchestrated::DspLlmOrchestrated(Device& device, const DspLlmConfig& cfg) : setup_(cfg, &device) {
  dsp_ = dsp::build_program(setup_.dsp);
  dsp_exe_ = std::make_unique<Executable>(device, dsp_.program);
  attention::DecoderOptions o = setup_.decoder_options();
  o.embed = [](Program&, const attention::DecoderProgram&) {};  // the host writes the rows
  Program p("dsp-llm.decoder");
  dec_ = attention::add_decoder(p, setup_.model, o);
  dec_exe_ = std::make_unique<Executable>(device, p);
  attention::upload(*dec_exe_, dec_, setup_.model);
}

DspLlmResult DspLlmOrchestrated::run() {
  DspLlmResult r;
  const uint32_t T = setup_.cfg.tokens, H = setup_.dsp.hop(), D = setup_.dim();
  write_inputs(*dsp_exe_, dsp_, setup_);
  dsp_exe_->run();  // submit 1
  r.gpu_ns += dsp_exe_->timings().total_ns;
  for (InstanceId ch : dsp_.channels) {
    const auto y = dsp_exe_->read_register<float>(ch, WEFT_R_OUTBOX);
    r.dsp_out.insert(r.dsp_out.end(), y.begin(), y.begin() + H);
  }
  r.rows.assign(size_t(T) * D, 0.0f);
  for (uint32_t t = 0; t < T; ++t)
    for (uint32_t j = 0; j < D; ++j) {
      float s = 0.0f;  // the adapter kernel's order
      for (uint32_t n = 0; n < H; ++n) s += setup_.projection[size_t(j) * H + n] * r.dsp_out[size_t(t) * H + n];
      r.rows[size_t(t) * D + j] = s;
    }
  dec_exe_->write_range(dec_.ports.segment("input_rows"), r.rows.data(), r.rows.size() * 4);
  set_rows_batch(*dec_exe_, dec_, setup_);
  dec_exe_->run();  // submit 2
  r.gpu_ns += dec_exe_->timings().total_ns;
  read_decoder(*dec_exe_, dec_, r);
  r.submits = 2;
  return r;
}

DspLlmResult dsp_llm_reference(const DspLlmConfig& cfg) {
  const DspLlmSetup s(cfg, nullptr);
  const uint32_t T = cfg.tokens, H = s.dsp.hop(), D = s.dim();
  dsp::Reference dref(s.dsp);
  const std::vector<double> y = dref.process(s.block);
  DspLlmResult r;
  r.dsp_out.assign(y.begin(), y.end());
  std::vector<std::vector<double>> rows(T, std::vector<double>(D, 0.0));
  for (uint32_t t = 0; t < T; ++t)
    for (uint32_t j = 0; j < D; ++j) {
      double acc = 0;
      for (uint32_t n = 0; n < H; ++n) acc += double(s.projection[size_t(j) * H + n]) * y[size_t(t) * H + n];
      rows[t][j] = acc;
      r.rows.push_back(float(acc));
    }
  attention::Reference aref(s.model, cfg.model.context, attention::Rules{}, T);
  const std::vector<double> logits = aref.forward_rows(rows);
  r.logits.assign(logits.begin(), logits.end());
  r.sampled = uint32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
  r.submits = 0;
  return r;
}

}  // namespace weft::compose
