// Programs: the DAG of stages a workload (or several) adds, with the buffer layout it needs.
//
// A workload appends to a Program the way VkFFT appends to a caller's command buffer: it adds
// its heap/globals segments, instances, indirect slots, control words, rules and stages. Two
// workloads adding to the same Program compose into one command buffer and one submit.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "args.h"
#include "foreign_stage.h"
#include "kernel.h"
#include "kernel_shape.h"
#include "range.h"
#include "segments.h"
#include "weft_layout.h"

namespace weft {

struct DeviceInfo;

struct InstanceId {
  uint32_t index = WEFT_NONE;
  bool operator==(const InstanceId&) const = default;
};
struct SlotId {
  uint32_t index = WEFT_NONE;
};
struct StageId {
  uint32_t index = WEFT_NONE;
};

struct Instance {
  std::string name;
  uint32_t width = 1;       // 32-bit words per register
  uint32_t window = 0;      // word offset of R0 in Registers
  uint32_t inbox_from = WEFT_NONE;  // instance whose R30 is this instance's R31
  uint32_t control = 0;     // word index of its WeftInstanceControl record
  uint32_t window_words() const { return WEFT_REGISTERS_PER_INSTANCE * width; }
};

struct IndirectSlot {
  std::string name;
  std::array<uint32_t, 3> groups{0, 1, 1};  // initial value at the start of every run
  uint32_t word = 0;                        // word index in Control (16-byte aligned)
};

struct StageSpec {
  std::string name;
  KernelRef kernel;
  InstanceId instance;
  std::array<uint32_t, 3> groups{1, 1, 1};  // direct dispatch size
  std::optional<SlotId> indirect;           // dispatch size from a Control slot instead
  // The kernel's typed arguments, bound by name (bindings_layout/weft_args.h). Segment
  // arguments declare their ranges as read or written, so `reads`/`writes` list only what the
  // kernel touches beyond its arguments.
  std::vector<StageArg> args;
  std::vector<Range> reads;
  std::vector<Range> writes;
  // Declares the message traffic: reads the inbox payload and its sender's Metrics record,
  // writes this instance's outbox and its own Metrics record.
  bool message = false;
  // Return early when Control.halt is set (the stage reads the Control header).
  bool honour_halt = false;
  uint32_t iteration = 0;  // loop iteration the stage belongs to (pushed to the kernel)
  // A streaming stage: its kernel declares WEFT_STREAMING_KERNEL and walks `streaming_units`
  // units with WEFT_FOR_EACH_UNIT. The engine gives the kernel its shape on the device
  // (streaming_shape, or `shape` when set) and the grid-stride group count, so `groups` is left
  // alone (Program::resolve_shapes fills it in). With `indirect`, that count is the slot's
  // initial value (streaming stages sharing a slot must agree; no other stage may use it), and a
  // host or rule that writes the slot later only changes how the grid strides (0 skips it).
  uint64_t streaming_units = 0;
  KernelShape shape;
  // Set instead of `kernel`: the stage records another library's commands (foreign_stage.h),
  // declared in `reads` and `writes`; shared, so that copies of the program share it.
  std::shared_ptr<const ForeignStage> foreign;
};

// A stage as the program holds it: its arguments bound to the kernel's signature, so `reads` and
// `writes` include the argument ranges and `push_words` are what the kernel receives.
struct Stage : StageSpec {
  uint32_t index = 0;
  std::vector<uint32_t> push_words;
};

class Program {
 public:
  explicit Program(std::string name = "program");

  const std::string& name() const { return name_; }
  SegmentLayout& heap() { return heap_; }
  SegmentLayout& globals() { return globals_; }
  const SegmentLayout& heap() const { return heap_; }
  const SegmentLayout& globals() const { return globals_; }

  // An instance owns 32 registers of `width` words each.
  InstanceId add_instance(std::string name, uint32_t width);
  // Zero-copy message: `to` reads `from`'s R30 as its R31. RegisterWindowOverflow when `to`'s
  // registers are wider than `from`'s (its inbox would run past the sender's outbox).
  void connect(InstanceId from, InstanceId to);
  SlotId add_slot(std::string name, std::array<uint32_t, 3> groups);
  // Free control words with initial values; returns the word index of the first. Control is
  // allocated append-only: every word index handed out stays valid as the program grows.
  uint32_t add_control_words(std::string name, std::vector<uint32_t> initial);
  // A contiguous block of regulator rules; returns the word index of the first rule.
  uint32_t add_rules(const std::vector<abi::WeftRule>& rules);
  StageId add_stage(StageSpec spec);

  // ---- ranges for stage declarations ----
  Range registers(InstanceId instance, uint32_t first_register = 0, uint32_t count = WEFT_REGISTERS_PER_INSTANCE) const;
  Range outbox(InstanceId instance) const;
  Range inbox(InstanceId instance) const;  // the sender's R30, or this instance's own R31
  Range metrics(InstanceId instance) const;
  Range instance_control(InstanceId instance) const;
  Range control_header() const;
  Range control_words(uint32_t first_word, uint32_t count) const;
  Range slot(SlotId slot) const;
  Range segment(Binding binding, const std::string& name) const;  // far segments too (Range::far)
  const Segment& far_segment(Binding binding, uint32_t far) const;  // by Range::far
  Range whole(Binding binding) const;

  // ---- word indices kernels and rules use ----
  uint32_t instance_control_word(InstanceId instance, uint32_t field) const;
  uint32_t slot_word(SlotId slot) const;
  uint32_t window_word(InstanceId instance, uint32_t reg) const;

  // ---- layout: sizes in bytes, fixed once the program is complete ----
  uint64_t registers_bytes() const;
  uint64_t metrics_bytes() const;
  uint64_t control_bytes() const { return uint64_t(control_.size()) * 4; }
  // The Control image a run starts from (header, instance records, slots, rules, words).
  std::vector<uint32_t> control_image() const;

  const std::vector<Instance>& instances() const { return instances_; }
  const std::vector<IndirectSlot>& slots() const { return slots_; }
  uint32_t rule_count() const { return rule_count_; }
  const std::vector<Stage>& stages() const { return stages_; }
  const Instance& instance(InstanceId id) const;

  // Gives every streaming stage its kernel shape on `device` and the groups that shape needs (in
  // its indirect slot's initial value when it dispatches from one).
  void resolve_shapes(const DeviceInfo& device);

  // Every check that does not need a device, then the device limits (MissingFeature for a rule
  // on ticks without the shader clock). Throws the typed error naming the stage and the problem.
  void validate(const DeviceInfo& device) const;
  // For programs whose kernels address Heap and Globals through the bound window only: BadInput
  // naming `context` (what the sizes are for) when either exceeds the device's window.
  void require_bound_window(const DeviceInfo& device, const std::string& context) const;

  // Effective reads and writes of a stage: its declarations plus what `message`,
  // `honour_halt` and `indirect` imply.
  std::vector<Range> stage_reads(const Stage& s) const;
  std::vector<Range> stage_writes(const Stage& s) const;

 private:
  void check_tick_rules(const DeviceInfo& device) const;
  uint64_t binding_size(Binding b) const;
  StageId push_stage(Stage s);
  void size_streaming_slot(const Stage& s, std::map<uint32_t, const Stage*>& sized_by);
  void check_instance(InstanceId id, const char* what) const;

  std::string name_;
  SegmentLayout heap_{"Heap"};
  SegmentLayout globals_{"Globals"};
  std::vector<Instance> instances_;
  uint32_t register_words_ = 0;
  uint32_t alloc_control(uint32_t words, uint32_t align_words);
  std::vector<IndirectSlot> slots_;
  std::vector<uint32_t> control_ = std::vector<uint32_t>(WEFT_CONTROL_HEADER_WORDS, 0);
  uint32_t rule_count_ = 0;
  std::vector<uint32_t> rule_words_;  // Control word of every rule, in the order added
  std::vector<Stage> stages_;
};

}  // namespace weft
