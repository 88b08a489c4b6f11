#include "device_vm.h"

#include <cstring>

#include "sampler.h"
#include "shaders/token_vm_args.h"
#include "weft_token_vm_kernels.h"

namespace weft::token_vm {

namespace {


enum Shape : uint32_t { kStepShape = 0, kSampleShape = 1 };

// The Heap image: the header (token_vm_layout.h) and every table, at Heap word `base`.
std::vector<uint32_t> heap_image(const Workflow& w, const VmConfig& c, uint32_t base, const Program& p, uint32_t sampler_vocab,
                                 const std::string& prefix = "") {
  std::vector<uint32_t> img(TVM_H_WORDS, 0);
  auto table = [&](uint32_t header_word, const void* data, size_t words) {
    img[header_word] = base + uint32_t(img.size());
    const size_t at = img.size();
    img.resize(at + words);
    if (words) std::memcpy(&img[at], data, words * 4);
  };
  auto words_of = [](const auto& v) { return std::vector<uint32_t>(v.begin(), v.end()); };
  img[TVM_H_ZONE_COUNT] = uint32_t(w.zones.size());
  img[TVM_H_LOOP_COUNT] = uint32_t(w.loops.size());
  img[TVM_H_BATCH] = c.batch;
  img[TVM_H_CONTROL] = w.control_pattern;
  img[TVM_H_ESCAPE_OPEN] = w.escape_open;
  img[TVM_H_ESCAPE_CLOSE] = w.escape_close;
  img[TVM_H_MATCH_MODE] = uint32_t(w.match_mode);
  img[TVM_H_PAD] = w.pad_token;
  img[TVM_H_FEED_CAPACITY] = c.feed_capacity;
  img[TVM_H_CAPTURE_CAPACITY] = c.capture_capacity;
  img[TVM_H_VOCAB_SIZE] = uint32_t(c.vocab_bytes.size());
  table(TVM_H_ZONES, w.zones.data(), w.zones.size() * sizeof(Zone) / 4);
  table(TVM_H_LOOPS, w.loops.data(), w.loops.size() * sizeof(Loop) / 4);
  table(TVM_H_PATTERNS, w.patterns.data(), w.patterns.size() * sizeof(Pattern) / 4);
  table(TVM_H_PATTERN_TOKENS, w.pattern_tokens.data(), w.pattern_tokens.size());
  const std::vector<uint32_t> pattern_bytes = words_of(w.pattern_bytes);
  table(TVM_H_PATTERN_BYTES, pattern_bytes.data(), pattern_bytes.size());
  table(TVM_H_TOKEN_DATA, w.token_data.data(), w.token_data.size());
  std::vector<uint32_t> offsets{0}, bytes;
  for (const std::string& s : c.vocab_bytes) {
    for (unsigned char ch : s) bytes.push_back(ch);
    offsets.push_back(uint32_t(bytes.size()));
  }
  table(TVM_H_VOCAB_OFFSETS, offsets.data(), offsets.size());
  table(TVM_H_VOCAB_BYTES, bytes.data(), bytes.size());
  img[TVM_H_STATE] = p.globals().at(prefix + "state").word_offset();
  img[TVM_H_SAMPLED] = p.globals().at(prefix + "sampled").word_offset();
  img[TVM_H_TRACE] = p.globals().at(prefix + "trace").word_offset();
  img[TVM_H_LOGITS] = p.globals().at(prefix + "logits").word_offset();
  img[TVM_H_VOCAB_LOGITS] = sampler_vocab;
  img[TVM_H_SAMPLER] = p.globals().at(prefix + "sampler").word_offset();
  return img;
}

uint64_t heap_words(const Workflow& w, const VmConfig& c) {
  uint64_t bytes = 0;
  for (const std::string& s : c.vocab_bytes) bytes += s.size();
  return TVM_H_WORDS + w.zones.size() * 16 + w.loops.size() * 2 + w.patterns.size() * 4 + w.pattern_tokens.size() +
         w.pattern_bytes.size() + w.token_data.size() + c.vocab_bytes.size() + 1 + bytes;
}

}  // namespace

VmSegments add_vm(Program& p, const Workflow& w, const VmConfig& resolved, uint32_t steps, const std::string& prefix) {
  if (steps == 0) fail(ErrorCode::BadInput, "token_vm: add_vm needs at least one step");
  VmSegments v;
  v.prefix = prefix;
  v.steps = steps;
  v.layout = StateLayout(w, resolved);
  const uint32_t B = resolved.batch;
  p.heap().add(prefix + "tvm", heap_words(w, resolved) * 4);
  p.globals().add(prefix + "state", v.layout.words() * 4);
  p.globals().add(prefix + "sampled", uint64_t(steps) * B * 4);
  p.globals().add(prefix + "trace", uint64_t(steps) * B * TVM_TRACE_WORDS * 4);
  p.globals().add(prefix + "logits", 4);
  p.globals().add(prefix + "sampler", TVM_P_WORDS * 4);
  v.instance = p.add_instance(prefix + "token_vm", 1);
  v.ports = Ports("token_vm " + prefix);
  v.ports.add_segment("sampled", p.segment(Binding::Globals, prefix + "sampled"), "u32[steps][batch]: the tokens step i consumes")
      .add_segment("trace", p.segment(Binding::Globals, prefix + "trace"), "u32[steps][batch][TVM_TRACE_WORDS]: what step i emitted")
      .add_segment("state", p.segment(Binding::Globals, prefix + "state"), "u32[]: the VM state (StateLayout)")
      .add_instance("vm", v.instance, "the instance its steps run on");
  return v;
}

StageSpec vm_step_stage(Program& p, const VmSegments& v, uint32_t step) {
  if (step >= v.steps) fail(ErrorCode::BadInput, "token_vm: step " + std::to_string(step) + " beyond the " + std::to_string(v.steps) + " added");
  const uint32_t B = v.layout.batch;
  const Range sampled = p.segment(Binding::Globals, v.prefix + "sampled"), trace = p.segment(Binding::Globals, v.prefix + "trace");
  StageSpec s;
  s.name = "vm_step." + v.prefix + std::to_string(step);
  s.kernel = weft_token_vm_kernels.get("vm_step");
  s.instance = v.instance;
  s.groups = {groups_for(B, 64), 1, 1};
  s.args = StepArgs{.vm = p.segment(Binding::Heap, v.prefix + "tvm"), .step = step}.bind();
  // What the kernel reaches through the VM header: the state, this step's sampled row and trace row.
  const Range state = p.segment(Binding::Globals, v.prefix + "state");
  s.reads = {state, Range{Binding::Globals, sampled.offset + uint64_t(step) * B * 4, uint64_t(B) * 4}};
  s.writes = {state, Range{Binding::Globals, trace.offset + uint64_t(step) * B * TVM_TRACE_WORDS * 4, uint64_t(B) * TVM_TRACE_WORDS * 4}};
  return s;
}

void upload_vm(Executable& exe, const VmSegments& v, const Workflow& w, const VmConfig& resolved) {
  const Program& p = exe.program();
  const std::vector<uint32_t> image = heap_image(w, resolved, p.heap().at(v.prefix + "tvm").word_offset(), p, 0, v.prefix);
  exe.write_segment(Binding::Heap, v.prefix + "tvm", image.data(), image.size() * 4);
  const std::vector<uint32_t> init = initial_state(v.layout);
  exe.write_segment(Binding::Globals, v.prefix + "state", init.data(), init.size() * 4);
}

DeviceVm::DeviceVm(Device& device, const Workflow& workflow, const VmConfig& config, const DeviceVmOptions& options)
    : w_(workflow), config_(resolve_config(workflow, config)), options_(options), layout_(w_, config_) {
  const uint32_t N = options_.steps_per_submit, B = config_.batch, V = options_.sampler_vocab;
  if (N == 0 || N > 4096)
    fail(ErrorCode::BadInput, "token_vm: steps_per_submit " + std::to_string(N) + " outside 1..4096");
  if (V > kMaxSamplerVocab)
    fail(ErrorCode::BadInput, "token_vm: sampler vocabulary " + std::to_string(V) + " over " + std::to_string(kMaxSamplerVocab));
  groups_ = groups_for(B, 64);  // B <= 2^20 (resolve_config): at most 16384 groups

  Program p("token_vm");
  p.heap().add("tvm", heap_words(w_, config_) * 4);
  p.globals().add("state", layout_.words() * 4);
  p.globals().add("sampled", uint64_t(N) * B * 4);
  p.globals().add("trace", uint64_t(N) * B * TVM_TRACE_WORDS * 4);
  p.globals().add("logits", std::max<uint64_t>(uint64_t(B) * V, 1) * 4);
  p.globals().add("sampler", TVM_P_WORDS * 4);
  p.require_bound_window(device.info(), "token_vm: batch " + std::to_string(B) + ", " + std::to_string(N) +
                                            " steps per submit, sampler vocabulary " + std::to_string(V));
  const InstanceId inst = p.add_instance("token_vm", 1);
  const uint32_t header = p.heap().at("tvm").word_offset();
  const Range vm = p.segment(Binding::Heap, "tvm"), state = p.segment(Binding::Globals, "state");
  const Range sampled = p.segment(Binding::Globals, "sampled"), trace = p.segment(Binding::Globals, "trace");
  std::vector<std::array<uint32_t, 3>> shapes = {{groups_, 1, 1}};
  const bool rows = V && (options_.sampler_kernel == SamplerKernel::PerRow ||
                          (options_.sampler_kernel == SamplerKernel::Auto && V >= kRowSamplerMinVocab));
  if (V && !rows) {
    // One invocation scans its stream's logits up to three times (argmax, total, pick); a
    // driver that stops loops sooner (llvmpipe: 65535 iterations) would sample wrongly.
    device.require_loop_steps(3ull * V + 8,
                              "token_vm: the per-stream sampler scans " + std::to_string(V) + " logits up to three times, which",
                              "use the per-row sampler, SamplerKernel::PerRow or Auto");
    sample_x_ = groups_;
    shapes.push_back({groups_, 1, 1});
  } else if (V) {
    // One workgroup per stream, on a 2D grid when B exceeds the x limit.
    const uint32_t max_x = device.info().max_workgroup_count[0] ? device.info().max_workgroup_count[0] : kGuaranteedGroupCount;
    const uint32_t max_y = device.info().max_workgroup_count[1] ? device.info().max_workgroup_count[1] : kGuaranteedGroupCount;
    sample_x_ = std::min(B, max_x);
    const uint32_t y = groups_for(B, sample_x_);
    if (y > max_y)
      fail(ErrorCode::BadInput, "token_vm: batch " + std::to_string(B) + " needs a " + std::to_string(sample_x_) + " x " +
                                    std::to_string(y) + " sampler grid, over the device's workgroup count limits");
    shapes.push_back({sample_x_, y, 1});
  }
  // The per-stream sampler runs inside the step (vm_step_sampled) in the sampler's slot; the
  // plain step's slot then dispatches nothing. The row sampler needs its own workgroups per
  // stream, so it stays a stage before the plain step (as the per-stream one does unfused).
  fused_sampler_ = V && !rows && options_.fuse_sampler;
  loop_ = add_loop(p, "step", N, shapes, [&](Program& prog, const LoopIteration& it) {
    const uint32_t i = it.index;
    const Range sampled_i{Binding::Globals, sampled.offset + uint64_t(i) * B * 4, uint64_t(B) * 4};
    const Range trace_i{Binding::Globals, trace.offset + uint64_t(i) * B * TVM_TRACE_WORDS * 4, uint64_t(B) * TVM_TRACE_WORDS * 4};
    const std::vector<Range> sampler_inputs = {prog.segment(Binding::Globals, "logits"), prog.segment(Binding::Globals, "sampler")};
    if (V) {
      StageSpec s;
      s.instance = inst;
      s.reads = sampler_inputs;  // through the VM header, like everything below
      if (fused_sampler_) {
        s.name = "vm_step_sampled";
        s.kernel = weft_token_vm_kernels.get("vm_step_sampled");
        s.args = StepArgs{.vm = vm, .step = i}.bind();
        s.reads.push_back(state);
        s.writes = {state, sampled_i, trace_i};
      } else {
        s.name = "sample";
        s.kernel = weft_token_vm_kernels.get(rows ? "sample_rows" : "sample");
        s.args = SampleArgs{.vm = vm, .step = i}.bind();
        s.writes = {sampled_i};
      }
      it.add_stage(prog, s, kSampleShape);
    }
    StageSpec s;
    s.name = "vm_step";
    s.kernel = weft_token_vm_kernels.get("vm_step");
    s.instance = inst;
    s.args = StepArgs{.vm = vm, .step = i}.bind();
    s.reads = {state, sampled_i};
    s.writes = {state, trace_i};
    it.add_stage(prog, s, kStepShape);
  });
  const std::vector<uint32_t> image = heap_image(w_, config_, header, p, V);
  exe_ = std::make_unique<Executable>(device, std::move(p));
  exe_->write_segment(Binding::Heap, "tvm", image.data(), image.size() * 4);
  state_offset_ = exe_->program().globals().at("state").offset;
  const std::vector<uint32_t> init = initial_state(layout_);
  exe_->write_segment(Binding::Globals, "state", init.data(), init.size() * 4);
  slot_x_.assign(size_t(N) * shapes.size(), groups_);
  for (uint32_t i = 0; V && i < N; ++i) slot_x_[size_t(i) * shapes.size() + kSampleShape] = sample_x_;
}

DeviceVm::~DeviceVm() = default;

void DeviceVm::gate(uint32_t steps, bool sampler) {
  const uint32_t shapes = loop_.shapes;
  for (uint32_t i = 0; i < options_.steps_per_submit; ++i)
    for (uint32_t k = 0; k < shapes; ++k) {
      // The plain step runs unless the fused one (in the sampler's slot) does its work.
      const bool plain_step = !(sampler && fused_sampler_);
      const uint32_t x = i >= steps              ? 0
                         : k == kStepShape       ? (plain_step ? groups_ : 0)
                         : sampler               ? sample_x_
                                                 : 0;
      uint32_t& cur = slot_x_[size_t(i) * shapes + k];
      if (cur != x) {
        exe_->set_control_word(exe_->program().slot_word(loop_.slot(i, k)), x);
        cur = x;
      }
    }
}

void DeviceVm::read_trace(uint32_t steps, std::vector<uint32_t>& trace) {
  const size_t words = size_t(steps) * layout_.batch * TVM_TRACE_WORDS;
  const size_t base = trace.size();
  trace.resize(base + words);
  exe_->read_segment(Binding::Globals, "trace", trace.data() + base, words * 4);
}

void DeviceVm::run(std::span<const Token> sampled, uint32_t steps, std::vector<uint32_t>& trace) {
  const uint32_t B = layout_.batch;
  if (steps == 0) return;
  if (steps > options_.steps_per_submit)
    fail(ErrorCode::BadInput, "token_vm: " + std::to_string(steps) + " steps in one run, the device VM was built for " +
                                  std::to_string(options_.steps_per_submit));
  if (sampled.size() < uint64_t(steps) * B)
    fail(ErrorCode::BadInput, "token_vm: " + std::to_string(sampled.size()) + " sampled tokens for " + std::to_string(steps) +
                                  " steps of " + std::to_string(B) + " streams");
  exe_->write_segment(Binding::Globals, "sampled", sampled.data(), uint64_t(steps) * B * 4);
  gate(steps, false);
  exe_->run();
  read_trace(steps, trace);
}

void DeviceVm::set_logits(std::span<const float> logits, uint32_t vocab) {
  if (options_.sampler_vocab == 0) fail(ErrorCode::BadInput, "token_vm: this device VM was built without a sampler");
  if (vocab != options_.sampler_vocab || logits.size() != size_t(vocab) * layout_.batch)
    fail(ErrorCode::BadInput, "token_vm: logits need batch x " + std::to_string(options_.sampler_vocab) + " floats, got " +
                                  std::to_string(logits.size()) + " for vocab " + std::to_string(vocab));
  exe_->write_segment(Binding::Globals, "logits", logits.data(), logits.size() * 4);
}

void DeviceVm::run_sampler(const SamplerConfig& sampler, uint32_t first_step, uint32_t steps, std::vector<uint32_t>& trace) {
  if (options_.sampler_vocab == 0) fail(ErrorCode::BadInput, "token_vm: this device VM was built without a sampler");
  if (steps == 0) return;
  if (steps > options_.steps_per_submit)
    fail(ErrorCode::BadInput, "token_vm: " + std::to_string(steps) + " steps in one run, the device VM was built for " +
                                  std::to_string(options_.steps_per_submit));
  const uint32_t params[TVM_P_WORDS] = {sampler.mode, sampler.seed, f32_bits(sampler.scale), first_step};
  exe_->write_segment(Binding::Globals, "sampler", params, sizeof(params));
  gate(steps, true);
  exe_->run();
  read_trace(steps, trace);
}

void DeviceVm::replay(uint32_t steps, bool sampler) {
  gate(steps, sampler);
  exe_->run();
}

void DeviceVm::read_state(uint64_t word, std::span<uint32_t> out) {
  if (word + out.size() > layout_.words()) fail(ErrorCode::SegmentOutOfRange, "token_vm: state read past its end");
  if (!out.empty()) exe_->read(Binding::Globals, state_offset_ + word * 4, out.data(), out.size() * 4);
}

void DeviceVm::write_state(uint64_t word, std::span<const uint32_t> in) {
  if (word + in.size() > layout_.words()) fail(ErrorCode::SegmentOutOfRange, "token_vm: state write past its end");
  if (!in.empty()) exe_->write(Binding::Globals, state_offset_ + word * 4, in.data(), in.size() * 4);
}

double DeviceVm::last_gpu_ns() { return exe_->timings().total_ns; }

}  // namespace weft::token_vm
