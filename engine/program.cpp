#include "program.h"

#include <cstring>

#include "device.h"
#include "error.h"

namespace weft {

namespace {
// The first far range a stage declares (read or written), or null.
const Range* first_far_range(const StageSpec& s) {
  for (const auto* ranges : {&s.reads, &s.writes})
    for (const Range& r : *ranges)
      if (r.far) return &r;
  return nullptr;
}

void check_streaming(const StageSpec& spec, const std::string& who) {
  const bool streaming_kernel = spec.kernel->interface(false).streaming;
  const std::string kernel = "kernel '" + spec.kernel->name() + "'";
  if (streaming_kernel && spec.streaming_units == 0)
    fail(ErrorCode::InvalidProgram, who + ": " + kernel + " is a streaming kernel (WEFT_STREAMING_KERNEL); the stage must "
                                          "give streaming_units, the units it walks");
  if (!streaming_kernel && spec.streaming_units)
    fail(ErrorCode::InvalidProgram, who + " gives streaming_units, but " + kernel +
                                        " is not a streaming kernel (it does not declare WEFT_STREAMING_KERNEL)");
  if (!streaming_kernel && !spec.shape.empty())
    fail(ErrorCode::InvalidProgram, who + " gives a kernel shape, but " + kernel + " is not a streaming kernel");
  if (spec.streaming_units > kMaxStreamingUnits)
    fail(ErrorCode::InvalidProgram, who + " walks " + std::to_string(spec.streaming_units) + " units; a streaming stage takes at most " +
                                        std::to_string(kMaxStreamingUnits) + " (split it)");
}

// A foreign stage hands its ranges to another library as VkBuffer + offset and follows none of
// the kernel conventions: refuse what it cannot honour (foreign_stage.h).
void check_foreign(const StageSpec& spec, const std::string& who) {
  if (spec.kernel) fail(ErrorCode::InvalidProgram, who + " has both a kernel and foreign commands");
  if (!spec.foreign->prepare) fail(ErrorCode::InvalidProgram, who + " has foreign commands without a prepare function");
  auto refuse = [&](bool set, const char* what) {
    if (set) fail(ErrorCode::InvalidProgram, who + " records foreign commands ('" + spec.foreign->what + "'), which take no " + what);
  };
  refuse(!spec.args.empty(), "kernel arguments");
  refuse(spec.message, "message traffic (message = true)");
  refuse(spec.honour_halt, "halt check (honour_halt)");
  refuse(spec.indirect.has_value(), "indirect dispatch slot");
  refuse(spec.streaming_units || !spec.shape.empty(), "streaming units or kernel shape");
  if (const Range* r = first_far_range(spec))
    fail(ErrorCode::InvalidProgram, who + " records foreign commands ('" + spec.foreign->what + "') on a far segment of " +
                                        binding_name(r->binding) + ", which has no single VkBuffer + offset to hand them; "
                                        "place the data in the bound window");
}
}  // namespace

const char* binding_name(Binding b) {
  switch (b) {
    case Binding::Registers: return "Registers";
    case Binding::Metrics: return "Metrics";
    case Binding::Globals: return "Globals";
    case Binding::Control: return "Control";
    case Binding::Heap: return "Heap";
  }
  return "?";
}

Range Range::part(uint64_t from, uint64_t bytes) const {
  if (from > size || bytes > size - from)
    fail(ErrorCode::InvalidProgram, std::string("bytes ") + std::to_string(from) + ".." + std::to_string(from + bytes) + " are not inside the " +
                                        binding_name(binding) + " range of " + std::to_string(size) + " bytes at byte " + std::to_string(offset));
  return Range{binding, offset + from, bytes, far};
}

Program::Program(std::string name) : name_(std::move(name)) {}

InstanceId Program::add_instance(std::string name, uint32_t width) {
  if (width == 0) fail(ErrorCode::InvalidProgram, "instance '" + name + "': register width must be at least 1 word");
  uint64_t end = uint64_t(register_words_) + uint64_t(WEFT_REGISTERS_PER_INSTANCE) * width;
  if (end > 0xFFFFFFFFull)
    fail(ErrorCode::RegisterWindowOverflow, "instance '" + name + "': the register file would exceed 2^32 words");
  Instance inst;
  inst.name = std::move(name);
  inst.width = width;
  inst.window = register_words_;
  inst.control = alloc_control(WEFT_INSTANCE_CONTROL_WORDS, 1);
  abi::WeftInstanceControl record{};
  record.scale = 1.0f;
  record.flags = WEFT_INSTANCE_ENABLED;
  std::memcpy(&control_[inst.control], &record, sizeof record);
  register_words_ = uint32_t(end);
  instances_.push_back(std::move(inst));
  return {uint32_t(instances_.size() - 1)};
}

void Program::check_instance(InstanceId id, const char* what) const {
  if (id.index >= instances_.size())
    fail(ErrorCode::InvalidProgram, std::string(what) + ": instance id " +
                                        (id.index == WEFT_NONE ? std::string("(none)") : std::to_string(id.index)) +
                                        " does not exist (" + std::to_string(instances_.size()) + " instances)");
}

const Instance& Program::instance(InstanceId id) const {
  check_instance(id, "instance");
  return instances_[id.index];
}

void Program::connect(InstanceId from, InstanceId to) {
  check_instance(from, "connect");
  check_instance(to, "connect");
  if (from == to) fail(ErrorCode::InvalidProgram, "connect: instance '" + instances_[to.index].name + "' cannot read its own outbox");
  if (instances_[to.index].width > instances_[from.index].width)
    fail(ErrorCode::RegisterWindowOverflow,
         "connect: '" + instances_[to.index].name + "' has registers of " + std::to_string(instances_[to.index].width) +
             " words but its sender '" + instances_[from.index].name + "' only " +
             std::to_string(instances_[from.index].width) + "; its inbox would run past the sender's outbox");
  instances_[to.index].inbox_from = from.index;
}

uint32_t Program::alloc_control(uint32_t words, uint32_t align_words) {
  uint64_t first = (control_.size() + align_words - 1) / align_words * align_words;
  if (first + words > 0xFFFFFFFFull) fail(ErrorCode::InvalidProgram, "program '" + name_ + "': Control exceeds 2^32 words");
  control_.resize(first + words, 0);
  return uint32_t(first);
}

SlotId Program::add_slot(std::string name, std::array<uint32_t, 3> groups) {
  IndirectSlot slot{std::move(name), groups, alloc_control(WEFT_INDIRECT_SLOT_WORDS, WEFT_INDIRECT_SLOT_WORDS)};
  std::memcpy(&control_[slot.word], groups.data(), 12);
  slots_.push_back(std::move(slot));
  return {uint32_t(slots_.size() - 1)};
}

uint32_t Program::add_control_words(std::string name, std::vector<uint32_t> initial) {
  if (initial.empty()) fail(ErrorCode::InvalidProgram, "control words '" + name + "': at least one word");
  const uint32_t first = alloc_control(uint32_t(initial.size()), 1);
  std::copy(initial.begin(), initial.end(), control_.begin() + first);
  return first;
}

// Ticks come from the shader clock; without it every stage writes 0, so a rule on ticks would
// never fire (or always): refused rather than left silent.
void Program::check_tick_rules(const DeviceInfo& device) const {
  if (device.shader_clock) return;
  for (uint32_t first : rule_words_) {
    abi::WeftRule r;
    std::memcpy(&r, &control_[first], sizeof r);
    if (r.compare == WEFT_CMP_ALWAYS || (r.source_field != WEFT_METRIC_TICKS_LO && r.source_field != WEFT_METRIC_TICKS_HI)) continue;
    const std::string source = r.source_instance < instances_.size() ? instances_[r.source_instance].name : std::to_string(r.source_instance);
    fail(ErrorCode::MissingFeature, "program '" + name_ + "': a regulator rule (Control word " + std::to_string(first) +
                                        ") reads the ticks of instance '" + source + "', which " + device.name +
                                        " cannot measure (no shaderSubgroupClock: every stage reports 0 ticks)");
  }
}

uint32_t Program::add_rules(const std::vector<abi::WeftRule>& rules) {
  const uint32_t first = alloc_control(uint32_t(rules.size()) * WEFT_RULE_WORDS, 1);
  std::memcpy(&control_[first], rules.data(), rules.size() * sizeof(abi::WeftRule));
  rule_count_ += uint32_t(rules.size());
  for (uint32_t k = 0; k < rules.size(); ++k) rule_words_.push_back(first + k * WEFT_RULE_WORDS);
  return first;
}

void Program::resolve_shapes(const DeviceInfo& device) {
  std::map<uint32_t, const Stage*> sized_by;  // indirect slot -> the streaming stage that sized it
  for (Stage& s : stages_) {
    if (!s.streaming_units) continue;
    if (s.shape.empty()) s.shape = streaming_shape(device, s.streaming_units);
    check_kernel_shape(s.shape, device, "stage '" + s.name + "'");
    s.groups = streaming_groups(s.streaming_units, s.shape);
    if (s.indirect) size_streaming_slot(s, sized_by);
  }
  for (const Stage& s : stages_)
    if (s.indirect && !s.streaming_units && sized_by.count(s.indirect->index))
      fail(ErrorCode::InvalidProgram, "stage '" + s.name + "' dispatches from indirect slot '" + slots_[s.indirect->index].name +
                                          "', which streaming stage '" + sized_by[s.indirect->index]->name +
                                          "' sizes for its kernel shape");
}

// A streaming stage's slot starts each run with the groups its shape needs on this device; the
// stages that share it must need the same. A host or rule may still write the slot: the kernel's
// grid-stride loop covers its units with any group count, and 0 skips it.
void Program::size_streaming_slot(const Stage& s, std::map<uint32_t, const Stage*>& sized_by) {
  IndirectSlot& slot = slots_[s.indirect->index];
  const std::array<uint32_t, 3> groups{s.groups[0], s.groups[1], s.groups[2]};
  if (auto it = sized_by.find(s.indirect->index); it != sized_by.end() && slot.groups != groups)
    fail(ErrorCode::InvalidProgram, "streaming stages '" + it->second->name + "' and '" + s.name + "' share indirect slot '" +
                                        slot.name + "' but need " + std::to_string(slot.groups[0]) + " and " +
                                        std::to_string(groups[0]) + " groups");
  sized_by[s.indirect->index] = &s;
  slot.groups = groups;
  std::memcpy(&control_[slot.word], groups.data(), 12);
}

StageId Program::add_stage(StageSpec spec) {
  const std::string who = "stage '" + spec.name + "'";
  if (spec.foreign) check_foreign(spec, who);
  else if (!spec.kernel) fail(ErrorCode::InvalidProgram, who + " has no kernel");
  check_instance(spec.instance, who.c_str());
  if (spec.indirect && spec.indirect->index >= slots_.size())
    fail(ErrorCode::InvalidProgram, who + " dispatches from indirect slot " + std::to_string(spec.indirect->index) +
                                        ", which does not exist");
  if (spec.foreign) return push_stage(Stage{std::move(spec)});
  check_streaming(spec, who);
  Stage s;
  BoundArgs bound = bind_args(spec.kernel->signature(), spec.args, who + " (kernel '" + spec.kernel->name() + "')");
  s.push_words = std::move(bound.words);
  spec.reads.insert(spec.reads.end(), bound.reads.begin(), bound.reads.end());
  spec.writes.insert(spec.writes.end(), bound.writes.begin(), bound.writes.end());
  // A stage that reaches a far segment runs the kernel's far variant: the workload names one
  // kernel, and where its data lives decides how the kernel addresses it.
  if (first_far_range(spec) && !spec.kernel->interface(false).far_access() && spec.kernel->far_variant())
    spec.kernel = spec.kernel->far_variant();
  static_cast<StageSpec&>(s) = std::move(spec);
  return push_stage(std::move(s));
}

StageId Program::push_stage(Stage s) {
  s.index = uint32_t(stages_.size());
  stages_.push_back(std::move(s));
  return {uint32_t(stages_.size() - 1)};
}

// ---- layout ---------------------------------------------------------------------------------

uint64_t Program::registers_bytes() const { return uint64_t(register_words_) * 4; }
uint64_t Program::metrics_bytes() const { return uint64_t(instances_.size()) * sizeof(abi::WeftMetrics); }
std::vector<uint32_t> Program::control_image() const {
  std::vector<uint32_t> image = control_;
  abi::WeftControlHeader h{};
  h.instance_count = uint32_t(instances_.size());
  h.slot_count = uint32_t(slots_.size());
  h.rule_count = rule_count_;
  h.control_words = uint32_t(control_.size());
  std::memcpy(image.data(), &h, sizeof h);
  return image;
}

uint64_t Program::binding_size(Binding b) const {
  switch (b) {
    case Binding::Registers: return registers_bytes();
    case Binding::Metrics: return metrics_bytes();
    case Binding::Globals: return globals_.size();
    case Binding::Control: return control_bytes();
    case Binding::Heap: return heap_.size();
  }
  return 0;
}

// ---- ranges ---------------------------------------------------------------------------------

Range Program::registers(InstanceId id, uint32_t first, uint32_t count) const {
  const Instance& in = instance(id);
  if (uint64_t(first) + count > WEFT_REGISTERS_PER_INSTANCE)
    fail(ErrorCode::RegisterWindowOverflow, "registers R" + std::to_string(first) + "..R" +
                                                std::to_string(uint64_t(first) + count - 1) + " of instance '" + in.name +
                                                "' are past its 32-register window");
  return {Binding::Registers, (uint64_t(in.window) + uint64_t(first) * in.width) * 4, uint64_t(count) * in.width * 4};
}
Range Program::outbox(InstanceId id) const { return registers(id, WEFT_R_OUTBOX, 1); }
Range Program::inbox(InstanceId id) const {
  const Instance& in = instance(id);
  if (in.inbox_from == WEFT_NONE) return registers(id, WEFT_R_INBOX, 1);
  Range r = outbox({in.inbox_from});
  r.size = uint64_t(in.width) * 4;
  return r;
}
Range Program::metrics(InstanceId id) const {
  check_instance(id, "metrics");
  return {Binding::Metrics, uint64_t(id.index) * sizeof(abi::WeftMetrics), sizeof(abi::WeftMetrics)};
}
uint32_t Program::instance_control_word(InstanceId id, uint32_t field) const {
  check_instance(id, "instance control");
  if (field >= WEFT_INSTANCE_CONTROL_WORDS)
    fail(ErrorCode::InvalidProgram, "instance control field " + std::to_string(field) + " does not exist");
  return instances_[id.index].control + field;
}
Range Program::instance_control(InstanceId id) const {
  return {Binding::Control, uint64_t(instance_control_word(id, 0)) * 4, WEFT_INSTANCE_CONTROL_WORDS * 4};
}
Range Program::control_header() const { return {Binding::Control, 0, WEFT_CONTROL_HEADER_WORDS * 4}; }
Range Program::control_words(uint32_t first, uint32_t count) const {
  return {Binding::Control, uint64_t(first) * 4, uint64_t(count) * 4};
}
uint32_t Program::slot_word(SlotId slot) const {
  if (slot.index >= slots_.size())
    fail(ErrorCode::InvalidProgram, "indirect slot " + std::to_string(slot.index) + " does not exist");
  return slots_[slot.index].word;
}
Range Program::slot(SlotId s) const { return {Binding::Control, uint64_t(slot_word(s)) * 4, 12}; }
Range Program::segment(Binding b, const std::string& name) const {
  if (b != Binding::Heap && b != Binding::Globals)
    fail(ErrorCode::SegmentOutOfRange, std::string(binding_name(b)) + " has no named segments");
  const Segment& s = (b == Binding::Heap ? heap_ : globals_).at(name);
  return {b, s.offset, s.size, s.far};
}
const Segment& Program::far_segment(Binding b, uint32_t far) const {
  if (b != Binding::Heap && b != Binding::Globals)
    fail(ErrorCode::SegmentOutOfRange, std::string(binding_name(b)) + " has no far segments");
  return (b == Binding::Heap ? heap_ : globals_).far_segment(far);
}
Range Program::whole(Binding b) const { return {b, 0, binding_size(b)}; }
uint32_t Program::window_word(InstanceId id, uint32_t reg) const {
  const Instance& in = instance(id);
  if (reg >= WEFT_REGISTERS_PER_INSTANCE)
    fail(ErrorCode::RegisterWindowOverflow, "register R" + std::to_string(reg) + " of '" + in.name + "' does not exist");
  return in.window + reg * in.width;
}

std::vector<Range> Program::stage_reads(const Stage& s) const {
  std::vector<Range> out = s.reads;
  if (s.message) {
    out.push_back(inbox(s.instance));
    const Instance& in = instances_[s.instance.index];
    if (in.inbox_from != WEFT_NONE) out.push_back(metrics({in.inbox_from}));
    out.push_back(metrics(s.instance));  // the sequence counter is read-modify-write
  }
  // Far arguments find their segments through the tables the Control header points at.
  if (s.honour_halt || first_far_range(s)) out.push_back(control_header());
  return out;
}

std::vector<Range> Program::stage_writes(const Stage& s) const {
  std::vector<Range> out = s.writes;
  if (s.message) {
    out.push_back(outbox(s.instance));
    out.push_back(metrics(s.instance));
  }
  return out;
}

// ---- validation -----------------------------------------------------------------------------

void Program::require_bound_window(const DeviceInfo& device, const std::string& context) const {
  const uint64_t window = device.max_storage_buffer_range;
  for (const SegmentLayout* s : {&heap_, &globals_})
    if (s->size() > window)
      fail(ErrorCode::BadInput, context + ": " + s->buffer_name() + " needs " + std::to_string(s->size()) +
                                    " bytes, over the device's storage-buffer window of " + std::to_string(window) + " bytes");
}

void Program::validate(const DeviceInfo& device) const {
  check_tick_rules(device);
  for (const Stage& s : stages_) {
    const std::string who = "program '" + name_ + "', stage " + std::to_string(s.index) + " '" + s.name + "'";
    auto check_range = [&](const Range& r, const char* verb) {
      const Segment* far = r.far ? &far_segment(r.binding, r.far) : nullptr;
      const uint64_t size = far ? far->size : binding_size(r.binding);
      if (r.offset > size || r.size > size - r.offset)
        fail(r.binding == Binding::Registers ? ErrorCode::RegisterWindowOverflow : ErrorCode::SegmentOutOfRange,
             who + " " + verb + " " + binding_name(r.binding) + (far ? " far segment '" + far->name + "'" : std::string()) +
                 " bytes [" + std::to_string(r.offset) + ", " + std::to_string(r.offset + r.size) + ") but " +
                 (far ? "it" : "the buffer") + " has " + std::to_string(size) + " bytes");
      if (r.binding == Binding::Registers && r.size > 0) {
        // A register range must lie inside one instance's window.
        const uint64_t first = r.offset / 4, last = (r.offset + r.size - 1) / 4;
        for (const Instance& in : instances_) {
          if (first >= in.window && first < uint64_t(in.window) + in.window_words()) {
            if (last >= uint64_t(in.window) + in.window_words())
              fail(ErrorCode::RegisterWindowOverflow, who + " " + verb + " registers past the window of instance '" +
                                                          in.name + "'");
            break;
          }
        }
      }
    };
    const auto reads = stage_reads(s);
    const auto writes = stage_writes(s);
    uint32_t declared_read = 0, declared_write = 0;
    for (const Range& r : reads) {
      check_range(r, "reads");
      declared_read |= 1u << uint32_t(r.binding);
    }
    for (const Range& r : writes) {
      check_range(r, "writes");
      if (r.binding == Binding::Heap) fail(ErrorCode::InvalidProgram, who + " writes Heap, which is read-only for kernels");
      declared_write |= 1u << uint32_t(r.binding);
    }
    if (s.foreign) continue;  // no kernel interface to check; its ranges were checked above
    const KernelInterface& k = s.kernel->interface(device.shader_clock);
    if (const Range* r = first_far_range(s); r && !k.far_access())
      fail(ErrorCode::InvalidProgram, who + " declares far segment '" + far_segment(r->binding, r->far).name + "', but kernel '" +
                                          s.kernel->name() + "' has no far access (define WEFT_FAR_ACCESS in it, or give it "
                                          "a far variant: FAR_KERNELS in weft_add_workload)");
    if (k.shared_bytes > device.max_compute_shared_memory)
      fail(ErrorCode::InvalidProgram, who + ": kernel '" + s.kernel->name() + "' declares " + std::to_string(k.shared_bytes) +
                                          " bytes of shared memory; the device allows " + std::to_string(device.max_compute_shared_memory));
    const uint32_t declared = declared_read | declared_write;
    for (uint32_t b = 0; b < WEFT_BINDING_COUNT; ++b) {
      const std::string bname = binding_name(Binding(b));
      if ((k.used_bindings() & (1u << b)) && !(declared & (1u << b)))
        fail(ErrorCode::UndeclaredBinding, who + ": kernel '" + s.kernel->name() + "' uses " + bname +
                                               " but the stage declares no " + bname + " range");
      if ((k.bindings_written & (1u << b)) && !(declared_write & (1u << b)))
        fail(ErrorCode::UndeclaredBinding, who + ": kernel '" + s.kernel->name() + "' writes " + bname +
                                               " but the stage declares only reads of it");
    }
    if (!s.indirect)
      for (int d = 0; d < 3; ++d)
        if (s.groups[d] > device.max_workgroup_count[d])
          fail(ErrorCode::InvalidProgram, who + " dispatches " + std::to_string(s.groups[d]) + " groups in dimension " +
                                              std::to_string(d) + "; the device allows " +
                                              std::to_string(device.max_workgroup_count[d]));
  }
  // A slot's size at the start of a run must be dispatchable; sizes that kernels or rules write
  // later are the writer's responsibility (the device clamps nothing for us).
  for (const IndirectSlot& slot : slots_)
    for (int d = 0; d < 3; ++d)
      if (slot.groups[d] > device.max_workgroup_count[d])
        fail(ErrorCode::InvalidProgram, "program '" + name_ + "': indirect slot '" + slot.name + "' starts with " +
                                            std::to_string(slot.groups[d]) + " groups in dimension " + std::to_string(d) +
                                            "; the device allows " + std::to_string(device.max_workgroup_count[d]));
  // A rule that sets a slot's group count sets a size the device must be able to dispatch:
  // past maxComputeWorkGroupCount the dispatch is undefined (in practice: billions of groups, a
  // run that never ends).
  for (uint32_t word : rule_words_) {
    abi::WeftRule r;
    std::memcpy(&r, &control_[word], sizeof r);
    if (r.action == WEFT_ACTION_SET_SLOT && r.value > device.max_workgroup_count[0])
      fail(ErrorCode::InvalidProgram, "program '" + name_ + "': the rule at Control word " + std::to_string(word) + " sets " +
                                          std::to_string(r.value) + " groups; the device allows " +
                                          std::to_string(device.max_workgroup_count[0]));
  }
  for (Binding b : {Binding::Heap, Binding::Globals, Binding::Registers, Binding::Metrics, Binding::Control}) {
    const uint64_t size = binding_size(b);
    if (size > device.max_storage_buffer_range)
      fail(ErrorCode::InvalidProgram, std::string("program '") + name_ + "': " + binding_name(b) + " needs " +
                                          std::to_string(size) + " bytes, more than the device's storage-buffer window (maxStorageBufferRange " +
                                          std::to_string(device.max_storage_buffer_range) + ")" +
                                          (b == Binding::Heap || b == Binding::Globals
                                               ? "; declare the large segments far (SegmentLayout::add_far)"
                                               : ""));
  }
  if ((heap_.far_count() || globals_.far_count()) && !device.buffer_device_address)
    for (const Stage& s : stages_)
      if (const Range* r = first_far_range(s))
        fail(ErrorCode::MissingFeature, "program '" + name_ + "', stage '" + s.name + "' reaches far segment '" +
                                            far_segment(r->binding, r->far).name +
                                            "', and the device has no bufferDeviceAddress for far access");
}

}  // namespace weft
