// Steered generation: one GGUF model stream and a token VM over it in one program, K steps per
// submit (compose.h). The step is the model-token-vm composition's, for one stream.
#include "adapter_stage.h"
#include "compose.h"
#include "shaders/compose_args.h"

namespace weft::compose {

namespace {

const char* const kDecoder = "steer";  // the decoder's prefix
const char* const kVm = "steer.tvm.";

const char* const kZoneSets = "steer.zone_sets";  // Heap: per zone its allowed set, or none
const char* const kSetBits = "steer.set_bits";    // Heap: per set one bit per token

uint32_t set_words(uint32_t vocab) { return (vocab + 31) / 32; }

void add_mask_layout(Program& p, const token_vm::Workflow& w, uint32_t vocab) {
  p.heap().add(kZoneSets, uint64_t(w.zones.size()) * 4);
  p.heap().add(kSetBits, uint64_t(w.allowed_sets.size()) * set_words(vocab) * 4);
}

// The logit mask of the zone the stream is in, between the decoder's head and its sampler.
StageSpec mask_stage(Program& p, const attention::DecoderProgram& dp, const token_vm::Workflow& w, const std::string& suffix) {
  const uint32_t vocab = uint32_t(dp.ports.segment("logits").size / 4);
  const Range state = p.segment(Binding::Globals, std::string(kVm) + "state");
  StageSpec s;
  s.name = "steer.mask" + suffix;
  s.kernel = weft_compose_kernels.get("mask_logits");
  s.instance = dp.sampler;  // no message of its own: the sampler's comes after it
  s.args = MaskLogitsArgs{.logits = dp.ports.segment("logits"),
                          .vocabulary = vocab,
                          .zone_word = state.part(uint64_t(TVM_S_PC) * 4, 4),  // stream 0's pc (batch 1)
                          .zones = uint32_t(w.zones.size()),
                          .zone_sets = p.segment(Binding::Heap, kZoneSets),
                          .set_bits = p.segment(Binding::Heap, kSetBits),
                          .set_words = set_words(vocab)}
               .bind();
  s.groups = {grid_stride_groups(vocab, 64), 1, 1};
  s.honour_halt = true;
  return s;
}

void upload_masks(Executable& exe, const token_vm::Workflow& w, uint32_t vocab) {
  std::vector<uint32_t> zone_sets(w.zone_allowed.begin(), w.zone_allowed.end());
  std::vector<uint32_t> bits(w.allowed_sets.size() * size_t(set_words(vocab)), 0);
  for (size_t k = 0; k < w.allowed_sets.size(); ++k)
    for (token_vm::Token t : w.allowed_sets[k]) bits[k * set_words(vocab) + t / 32] |= 1u << (t % 32);
  exe.write_segment(Binding::Heap, kZoneSets, zone_sets.data(), zone_sets.size() * 4);
  exe.write_segment(Binding::Heap, kSetBits, bits.data(), bits.size() * 4);
}

uint32_t bos_of(const attention::Model& m) {
  if (!m.vocab.bos) fail(ErrorCode::BadInput, "steered generation starts from the model's BOS token; " + m.file.source() + " names none");
  return *m.vocab.bos;
}

void check_options(const SteeredOptions& o) {
  if (o.steps_per_submit == 0 || o.steps_per_submit > kModelTokenVmMaxSteps)
    fail(ErrorCode::BadInput, "steered generation: steps per submit must be 1.." + std::to_string(kModelTokenVmMaxSteps) + ", got " +
                                  std::to_string(o.steps_per_submit));
}

}  // namespace

token_vm::VmConfig steered_vm_config(const token_vm::Workflow& w, const token_vm::Tokenizer& tokenizer) {
  token_vm::VmConfig c;
  if (w.match_mode == token_vm::MatchMode::Byte) c.vocab_bytes = token_vm::vocab_bytes(tokenizer);
  return token_vm::resolve_config(w, c);
}

token_vm::ModelTokenizer steered_tokenizer(const attention::Model& m) {
  if (!m.vocab.tokenizer) fail(ErrorCode::BadInput, "steered generation needs the model's own vocabulary; " + m.file.source() + " has none");
  return token_vm::ModelTokenizer::borrowing(*m.vocab.tokenizer);
}

SteeredModel::SteeredModel(Device& device, const attention::Model& model, const token_vm::Workflow& workflow,
                           const token_vm::VmConfig& vm, const SteeredOptions& options)
    : model_(model), options_(options) {
  check_options(options);
  const uint32_t bos = bos_of(model);
  if (!model.vocab.tokenizer || model.vocab.tokenizer->vocab_size() != model.config.vocab)
    fail(ErrorCode::BadInput, "steered generation: the tokenizer of " + model.file.source() + " must have the model's " +
                                  std::to_string(model.config.vocab) + " tokens");
  if (vm.batch != 1) fail(ErrorCode::BadInput, "steered generation runs one stream; the VM configuration asks for " + std::to_string(vm.batch));
  for (const std::vector<token_vm::Token>& set : workflow.allowed_sets)
    if (!set.empty() && set.back() >= model.config.vocab)
      fail(ErrorCode::BadInput, "steered generation: the workflow allows token " + std::to_string(set.back()) + ", outside the model's " +
                                    std::to_string(model.config.vocab) + " tokens");
  const uint32_t K = options.steps_per_submit;
  const bool masked = !workflow.zone_allowed.empty();
  attention::DecoderOptions d;
  d.prefix = kDecoder;
  d.context = options.context;
  d.max_batch = 1;
  d.weights = options.weights;
  d.prepare = [&](Program& p) {
    vm_ = token_vm::add_vm(p, workflow, vm, K, kVm);
    if (masked) add_mask_layout(p, workflow, model.config.vocab);
  };
  if (masked) d.before_sample = [&](Program& p, const attention::DecoderProgram& dp, const std::string& suffix) {
    p.add_stage(mask_stage(p, dp, workflow, suffix));
  };
  Program p = attention::decoder_program(device.info(), model, d, dp_);
  attention::require_loop_cap(device, model, dp_.context);
  const InstanceId handoff = p.add_instance("steer.handoff", 1), feedback = p.add_instance("steer.feedback", 1);
  p.connect(dp_.ports.instance("sampler"), handoff);
  const Range sampled_word = dp_.ports.segment("sampled"), tokens = dp_.ports.segment("tokens"), state = dp_.ports.segment("state");
  const Range handoff_table = p.control_words(p.add_control_words("steer.handoff_words", {sampled_word.first_word()}), 1);
  const Range feedback_table =
      p.control_words(p.add_control_words("steer.feedback_words", {tokens.first_word(), state.first_word()}), 2);
  const Range vm_sampled = vm_.ports.segment("sampled"), vm_trace = vm_.ports.segment("trace");
  for (uint32_t i = 0; i < K; ++i) {
    if (i) attention::append_decoder_step(p, model, dp_, d, ".step" + std::to_string(i));
    StageSpec h = adapter_stage("steer.handoff." + std::to_string(i), "handoff", handoff,
                                HandoffArgs{.streams = 1, .sampled_row = vm_sampled.part(uint64_t(i) * 4, 4),
                                            .vocabulary = model.config.vocab,
                                            .pad_token = 0,  // never used: the sampler picks ids below the vocabulary, the tokenizer's
                                            .stream_words = handoff_table}
                                    .bind());
    h.reads.push_back(sampled_word);
    p.add_stage(h);
    p.add_stage(token_vm::vm_step_stage(p, vm_, i));
    StageSpec f = adapter_stage("steer.feedback." + std::to_string(i), "feedback", feedback,
                                FeedbackArgs{.streams = 1,
                                             .trace_row = vm_trace.part(uint64_t(i) * TVM_TRACE_WORDS * 4, TVM_TRACE_WORDS * 4),
                                             .stream_words = feedback_table}
                                    .bind());
    f.reads.push_back(state);
    f.writes = {tokens, state};
    p.add_stage(f);
  }
  exe_ = std::make_unique<Executable>(device, std::move(p));
  attention::upload(*exe_, dp_, model);
  token_vm::upload_vm(*exe_, vm_, workflow, vm);
  if (masked) upload_masks(*exe_, workflow, model.config.vocab);
  attention::set_sampling(*exe_, dp_, options.sampling);
  const uint32_t first[1] = {bos};
  attention::set_batch(*exe_, dp_, model, first, 0);
}

uint32_t SteeredModel::position() {
  uint32_t pos0 = 0;
  exe_->read_range(dp_.ports.segment("state"), &pos0, 4);
  return pos0;
}

void SteeredModel::run_source(uint32_t steps, std::vector<uint32_t>& trace) {
  const uint32_t K = options_.steps_per_submit;
  if (steps != K)
    fail(ErrorCode::BadInput, "steered generation runs whole submits of " + std::to_string(K) + " steps, not " + std::to_string(steps));
  if (!fits_another_submit())
    fail(ErrorCode::BadInput, "steered generation: " + std::to_string(K) + " more steps from position " + std::to_string(position()) +
                                  " would run past the context of " + std::to_string(dp_.context) + " positions");
  exe_->run();
  const size_t at = trace.size();
  trace.resize(at + size_t(K) * TVM_TRACE_WORDS);
  exe_->read_range(vm_.ports.segment("trace"), trace.data() + at, uint64_t(K) * TVM_TRACE_WORDS * 4);
  sampled_.resize(sampled_.size() + K);
  exe_->read_range(vm_.ports.segment("sampled"), sampled_.data() + sampled_.size() - K, uint64_t(K) * 4);
}

void SteeredModel::run(std::span<const token_vm::Token>, uint32_t, std::vector<uint32_t>&) {
  fail(ErrorCode::BadInput, "steered generation: the model samples the tokens; scripted tokens are not taken");
}

void SteeredModel::set_logits(std::span<const float>, uint32_t) {
  fail(ErrorCode::BadInput, "steered generation: the model computes the logits; given logits are not taken");
}

void SteeredModel::run_sampler(const token_vm::SamplerConfig&, uint32_t, uint32_t, std::vector<uint32_t>&) {
  fail(ErrorCode::BadInput, "steered generation: the model's own sampler draws the tokens; the token VM's sampler is not used");
}

void SteeredModel::read_state(uint64_t word, std::span<uint32_t> out) {
  if (word + out.size() > vm_.layout.words()) fail(ErrorCode::SegmentOutOfRange, "steered generation: VM state read past its end");
  if (!out.empty()) exe_->read_range(vm_.ports.segment("state"), out.data(), out.size() * 4, word * 4);
}

void SteeredModel::write_state(uint64_t word, std::span<const uint32_t> in) {
  if (word + in.size() > vm_.layout.words()) fail(ErrorCode::SegmentOutOfRange, "steered generation: VM state write past its end");
  if (!in.empty()) exe_->write_range(vm_.ports.segment("state"), in.data(), in.size() * 4, word * 4);
}

double SteeredModel::last_gpu_ns() { return exe_->timings().total_ns; }

namespace {

// The logits the sampler draws from in `zone`: -inf outside its allowed set (mask_logits.comp).
std::vector<float> masked(const std::vector<float>& logits, const token_vm::Workflow& w, uint32_t zone) {
  if (zone >= w.zone_allowed.size() || w.zone_allowed[zone] == token_vm::kNone) return logits;
  std::vector<float> out(logits.size(), -INFINITY);
  for (token_vm::Token t : w.allowed_sets[w.zone_allowed[zone]]) out[t] = logits[t];
  return out;
}

}  // namespace

double top_margin(std::span<const float> logits) {
  double a = -INFINITY, b = -INFINITY;
  for (float x : logits) {
    if (x > a) b = a, a = x;
    else if (x > b) b = x;
  }
  return a - b;
}

SteeredCheck check_steered(const attention::Model& model, const token_vm::Workflow& workflow, const token_vm::Tokenizer& tokenizer,
                           const token_vm::VmConfig& vm, const SteeredOptions& options, const std::vector<uint32_t>& sampled,
                           const std::vector<token_vm::TraceRecord>& records, const std::map<std::string, token_vm::ToolFn>& tools) {
  SteeredCheck c;
  c.steps = uint32_t(records.size());
  if (sampled.size() != records.size()) {
    c.first_difference = std::to_string(sampled.size()) + " samples for " + std::to_string(records.size()) + " records";
    return c;
  }
  // The VM: the same submits, the same tool answers between them.
  token_vm::Machine m(workflow, tokenizer, std::make_unique<token_vm::Reference>(workflow, vm));
  for (const auto& [name, fn] : tools) m.set_tool(name, fn);
  const uint32_t K = options.steps_per_submit;
  for (size_t s = 0; s < sampled.size(); s += K) {
    m.run(std::span(sampled).subspan(s, std::min<size_t>(K, sampled.size() - s)), uint32_t(std::min<size_t>(K, sampled.size() - s)));
    if (m.callbacks_ready()) m.resolve_callbacks();
  }
  for (size_t i = 0; i < records.size() && c.ok(); ++i)
    if (!(m.status()[0][i] == records[i]))
      c.first_difference = "step " + std::to_string(i) + ": device " + token_vm::describe(records[i]) + ", CPU reference VM " +
                           token_vm::describe(m.status()[0][i]);
  // The model: what the VM emitted is what it consumed (a pad: the same input again).
  attention::Reference dec(model, model.config.context, attention::Rules{}, 1);
  std::vector<float> logits;
  for (size_t i = 0; i < records.size() && c.ok(); ++i) {
    if (i == 0 || !records[i - 1].pad()) {
      const uint32_t tok = i == 0 ? bos_of(model) : records[i - 1].token;
      const std::vector<double> lg = dec.forward(std::vector<uint32_t>{tok});
      logits.assign(lg.begin(), lg.end());
    }
    const std::vector<float> drawn = masked(logits, workflow, records[i].pc);
    if (options.sampling.temperature == 0 && top_margin(drawn) <= 1e-3) continue;
    const uint32_t want = attention::ref::sample(drawn, options.sampling, attention::ref::sample_uniform(options.sampling.seed, dec.position()));
    ++c.picks_checked;
    if (want == sampled[i]) ++c.picks_agreeing;
    else c.first_difference = "step " + std::to_string(i) + ": the model sampled " + std::to_string(sampled[i]) + ", the CPU reference " + std::to_string(want);
  }
  return c;
}

}  // namespace weft::compose
