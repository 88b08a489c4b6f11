// model-token-vm: B seeded llama decoders (one per stream) + their samplers -> handoff adapter ->
// token VM step -> feedback adapter -> the decoders' next step, N steps recorded into one
// program (one submit); the same parts stepped by the host (2N submits); and the CPU reference
// token VM fed the sampled tokens.
#include <algorithm>

#include "adapter_stage.h"
#include "compose.h"
#include "shaders/compose_args.h"

namespace weft::compose {

namespace {

constexpr uint32_t kMaxStreams = 4;

// The model's ids the byte tokenizer lacks (256..258) become its pad token.
uint32_t to_vm(uint32_t model_token, const token_vm::ByteTokenizer& t) {
  return model_token < t.vocab_size() ? model_token : token_vm::ByteTokenizer::kPad;
}

// Every run starts fresh: each decoder at position 0 with the first token, the VM at zone 0.
void start_decoders(Executable& exe, const std::vector<attention::DecoderProgram>& dec, const ModelTokenVmSetup& s) {
  const uint32_t first[1] = {s.cfg.first_token};
  for (uint32_t b = 0; b < dec.size(); ++b) {
    attention::set_batch(exe, dec[b], s.model, first, 0);
    attention::set_sampling(exe, dec[b], s.sampling(b));
  }
}

}  // namespace

const std::string& model_token_vm_default_prompts() {
  static const std::string text = R"([config]
zone_patterns = ["[Q]", "[A]", "[EOS]"]
required_patterns = ["[Q]", "[A]"]
valid_tags = ["question", "answer"]
default_max_token_length = 64
sequences = ["colour", "animal"]
control_pattern = "[Jump]"
escape_patterns = ["[Escape]", "[EndEscape]"]

[[colour]]
text = "[Q] A colour? [A]"
tags = [["question"], ["answer"]]
max_gen_tokens = 6

[[animal]]
text = "[Q] An animal? [A]"
tags = [["question"], ["answer"]]
max_gen_tokens = 6
)";
  return text;
}

ModelTokenVmSetup::ModelTokenVmSetup(const ModelTokenVmConfig& c)
    : cfg(c), model(attention::Model::from(gguf::File::parse(attention::seeded_model([&] {
                                                                attention::SeededOptions o = c.model;
                                                                o.context = std::max(o.context, c.steps);
                                                                return o;
                                                              }())
                                                                .bytes(),
                                                            "<seeded model>"))) {
  cfg.model.context = std::max(c.model.context, c.steps);
  if (c.streams == 0 || c.streams > kMaxStreams)
    fail(ErrorCode::BadInput, "compose model-token-vm: streams must be 1.." + std::to_string(kMaxStreams));
  if (c.steps == 0 || c.steps > kModelTokenVmMaxSteps)
    fail(ErrorCode::BadInput, "compose model-token-vm: steps must be 1.." + std::to_string(kModelTokenVmMaxSteps));
  if (c.first_token >= tokenizer.vocab_size())
    fail(ErrorCode::BadInput, "compose model-token-vm: the first token " + std::to_string(c.first_token) + " is not a byte-tokenizer id");
  auto prompts = std::make_shared<const token_vm::Prompts>(
      token_vm::parse_udpl(c.prompts_toml.empty() ? model_token_vm_default_prompts() : c.prompts_toml, c.prompts_path));
  token_vm::Program flow(prompts);
  for (const std::string& seq : prompts->config.sequences) flow.run(seq);
  flow.extract("answers", {"answer"});
  workflow = flow.compile(tokenizer);
  token_vm::VmConfig v;
  v.batch = c.streams;
  v.vocab_bytes = token_vm::vocab_bytes(tokenizer);
  vm = token_vm::resolve_config(workflow, v);
}

attention::DecoderOptions ModelTokenVmSetup::decoder_options(uint32_t stream) const {
  attention::DecoderOptions o;
  o.prefix = "s" + std::to_string(stream);
  o.context = cfg.model.context;
  o.max_batch = 1;
  return o;
}

attention::Sampling ModelTokenVmSetup::sampling(uint32_t stream) const {
  attention::Sampling s = cfg.sampling;
  s.seed += stream;
  return s;
}

// ---- single submit ---------------------------------------------------------------------------
ModelTokenVmComposed::ModelTokenVmComposed(Device& device, const ModelTokenVmConfig& cfg) : setup_(cfg) {
  const uint32_t B = cfg.streams, N = cfg.steps;
  Program p("model-token-vm");
  for (uint32_t b = 0; b < B; ++b) dec_.push_back(attention::add_decoder(p, setup_.model, setup_.decoder_options(b)));
  vm_ = token_vm::add_vm(p, setup_.workflow, setup_.vm, N, "tvm.");
  handoff_ = p.add_instance("compose.handoff", 1);
  feedback_ = p.add_instance("compose.feedback", 1);
  p.connect(dec_[0].ports.instance("sampler"), handoff_);
  // The adapters reach each stream's decoder words through a table in Control: handoff reads
  // decoder b's `sampled` word from [b]; feedback writes its `tokens` word [b] and `state` [B + b].
  std::vector<uint32_t> sampled_words, decoder_words;
  for (const auto& d : dec_) sampled_words.push_back(d.ports.segment("sampled").first_word());
  for (const char* port : {"tokens", "state"})
    for (const auto& d : dec_) decoder_words.push_back(d.ports.segment(port).first_word());
  const Range handoff_table = p.control_words(p.add_control_words("compose.handoff_words", sampled_words), B);
  const Range feedback_table = p.control_words(p.add_control_words("compose.feedback_words", decoder_words), 2 * B);
  const Range vm_sampled = vm_.ports.segment("sampled"), vm_trace = vm_.ports.segment("trace");
  for (uint32_t i = 0; i < N; ++i) {
    if (i)
      for (uint32_t b = 0; b < B; ++b) attention::append_decoder_step(p, setup_.model, dec_[b], setup_.decoder_options(b), ".step" + std::to_string(i));
    StageSpec h = adapter_stage("handoff." + std::to_string(i), "handoff", handoff_,
                                HandoffArgs{.streams = B,
                                            .sampled_row = vm_sampled.part(uint64_t(i) * B * 4, uint64_t(B) * 4),
                                            .vocabulary = setup_.tokenizer.vocab_size(),
                                            .pad_token = token_vm::ByteTokenizer::kPad,
                                            .stream_words = handoff_table}
                                    .bind());
    for (const auto& d : dec_) h.reads.push_back(d.ports.segment("sampled"));
    p.add_stage(h);
    p.add_stage(token_vm::vm_step_stage(p, vm_, i));
    const uint64_t row_bytes = uint64_t(B) * TVM_TRACE_WORDS * 4;
    StageSpec f = adapter_stage("feedback." + std::to_string(i), "feedback", feedback_,
                                FeedbackArgs{.streams = B, .trace_row = vm_trace.part(i * row_bytes, row_bytes), .stream_words = feedback_table}
                                    .bind());
    for (const auto& d : dec_) {
      f.reads.push_back(d.ports.segment("state"));
      f.writes.push_back(d.ports.segment("tokens"));
      f.writes.push_back(d.ports.segment("state"));
    }
    p.add_stage(f);
  }
  exe_ = std::make_unique<Executable>(device, p);
  for (const auto& d : dec_) attention::upload(*exe_, d, setup_.model);
}

ModelTokenVmResult ModelTokenVmComposed::run() {
  const uint32_t B = setup_.cfg.streams, N = setup_.cfg.steps;
  start_decoders(*exe_, dec_, setup_);
  token_vm::upload_vm(*exe_, vm_, setup_.workflow, setup_.vm);
  exe_->run();
  ModelTokenVmResult r;
  r.submits = 1;
  r.gpu_ns = exe_->timings().total_ns;
  r.sampled.resize(size_t(N) * B);
  exe_->read_range(vm_.ports.segment("sampled"), r.sampled.data(), r.sampled.size() * 4);
  r.trace.resize(size_t(N) * B * TVM_TRACE_WORDS);
  exe_->read_range(vm_.ports.segment("trace"), r.trace.data(), r.trace.size() * 4);
  r.vm_state = exe_->read_range<uint32_t>(vm_.ports.segment("state"));
  for (const auto& d : dec_) r.logits.push_back(attention::read_logits(*exe_, d));
  r.handoff_message = exe_->read_register<uint32_t>(handoff_, WEFT_R_OUTBOX)[0];
  r.feedback_message = exe_->read_register<uint32_t>(feedback_, WEFT_R_OUTBOX)[0];
  return r;
}

// ---- host-orchestrated: per step a decoder submit and a token VM submit ------------------------
ModelTokenVmOrchestrated::ModelTokenVmOrchestrated(Device& device, const ModelTokenVmConfig& cfg) : device_(device), setup_(cfg) {
  Program p("model-token-vm.decoders");
  for (uint32_t b = 0; b < cfg.streams; ++b) dec_.push_back(attention::add_decoder(p, setup_.model, setup_.decoder_options(b)));
  exe_ = std::make_unique<Executable>(device, p);
  for (const auto& d : dec_) attention::upload(*exe_, d, setup_.model);
  vm_ = std::make_unique<token_vm::DeviceVm>(device, setup_.workflow, setup_.vm);
}

ModelTokenVmResult ModelTokenVmOrchestrated::run() {
  const uint32_t B = setup_.cfg.streams, N = setup_.cfg.steps;
  token_vm::DeviceVm& vm = *vm_;
  vm.write_state(0, token_vm::initial_state(vm.layout()));  // every stream back at zone 0
  ModelTokenVmResult r;
  start_decoders(*exe_, dec_, setup_);
  std::vector<uint32_t> sampled(B), position(B, 0);
  for (uint32_t i = 0; i < N; ++i) {
    exe_->run();
    r.gpu_ns += exe_->timings().total_ns;
    for (uint32_t b = 0; b < B; ++b) sampled[b] = to_vm(attention::read_sampled(*exe_, dec_[b]), setup_.tokenizer);
    r.sampled.insert(r.sampled.end(), sampled.begin(), sampled.end());
    const size_t at = r.trace.size();
    vm.run(sampled, 1, r.trace);
    r.gpu_ns += vm.last_gpu_ns();
    for (uint32_t b = 0; b < B; ++b) {  // as the feedback adapter: a pad leaves the decoder's input as it was
      const token_vm::TraceRecord rec = token_vm::trace_record(std::span(r.trace).subspan(at), B, 0, b);
      if (i + 1 < N && !rec.pad()) {
        const uint32_t next[1] = {rec.token};
        attention::set_batch(*exe_, dec_[b], setup_.model, next, ++position[b]);
      }
    }
    r.submits += 2;
  }
  r.vm_state = vm.state();
  for (const auto& d : dec_) r.logits.push_back(attention::read_logits(*exe_, d));
  return r;
}

ModelTokenVmReplay model_token_vm_replay(const ModelTokenVmSetup& s, const std::vector<uint32_t>& sampled) {
  const uint32_t B = s.cfg.streams;
  const uint32_t N = uint32_t(sampled.size() / B);
  token_vm::Machine m(s.workflow, s.tokenizer, std::make_unique<token_vm::Reference>(s.workflow, s.vm));
  m.run(sampled, N);
  ModelTokenVmReplay r;
  r.records = m.status();
  r.extractions = m.extract();
  r.text = m.generative_sequence();
  return r;
}

}  // namespace weft::compose
