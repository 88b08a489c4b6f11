// The regulator: rules stored as data in Control, evaluated on the device by an engine kernel
// (shaders/regulator.comp) at the points of a program where a regulator stage is added.
//
// A rule is a Condition on one Metrics word of one instance plus an Action on Control (or a
// Metrics status). Within one pass every condition sees Metrics as they were when the pass
// began, and the actions of the rules that held apply in rule order, so several rules on one
// word give a deterministic result. The builders below produce abi::WeftRule records; the
// threshold's C++ type says how the source word is read (4.0f: f32, 4u: u32), so an integer
// source is compared as an integer and never rounded through a float.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "program.h"

namespace weft {

// Most rules one regulator pass evaluates (the kernel keeps one bit per rule in shared memory).
inline constexpr uint32_t kMaxRulesPerPass = 1024;

// The source and comparison half of a rule.
struct Condition {
  uint32_t instance = WEFT_NONE;
  uint32_t field = WEFT_METRIC_NORM;  // WEFT_METRIC_* word index inside the Metrics record
  uint32_t type = WEFT_SOURCE_F32;
  uint32_t compare = WEFT_CMP_ALWAYS;
  uint32_t lo = 0, hi = 0;  // raw bits of the thresholds

  static Condition less(InstanceId instance, uint32_t field, float threshold);
  static Condition less(InstanceId instance, uint32_t field, uint32_t threshold);
  static Condition greater(InstanceId instance, uint32_t field, float threshold);
  static Condition greater(InstanceId instance, uint32_t field, uint32_t threshold);
  // Holds when the value is not in [lo, hi]; a NaN f32 source is outside every interval.
  static Condition outside(InstanceId instance, uint32_t field, float lo, float hi);
  static Condition outside(InstanceId instance, uint32_t field, uint32_t lo, uint32_t hi);
  // Zero tests read the field as its natural type: f32 for norm/max_abs, u32 otherwise,
  // unless `type` says (WEFT_SOURCE_F32 / _U32; counters are workload-defined).
  static Condition eq_zero(InstanceId instance, uint32_t field, std::optional<uint32_t> type = {});
  static Condition ne_zero(InstanceId instance, uint32_t field, std::optional<uint32_t> type = {});
  static Condition always();
};

// The effect half of a rule.
struct Action {
  uint32_t action = WEFT_ACTION_SET_WORD;
  uint32_t target = 0;
  uint32_t target_type = WEFT_SOURCE_F32;
  uint32_t value = 0, value2 = 0;

  static Action set_word(uint32_t word, float value);
  static Action set_word(uint32_t word, uint32_t value);
  static Action scale_word(uint32_t word, float factor);
  // An integer word becomes word * numerator / denominator (integer arithmetic, 32-bit).
  static Action scale_word(uint32_t word, uint32_t numerator, uint32_t denominator);
  static Action clamp_word(uint32_t word, float lo, float hi);
  static Action clamp_word(uint32_t word, uint32_t lo, uint32_t hi);
  // Sets the slot's group count x (y and z keep their values).
  static Action set_slot(const Program& program, SlotId slot, uint32_t groups_x);
  // Zeroes x of `count` slots starting at `first`; they must be contiguous in Control (as the
  // slots of one add_loop are). InvalidProgram naming the gap otherwise.
  static Action zero_slots(const Program& program, SlotId first, uint32_t count);
  // Sets Control.halt; stages with honour_halt return at once from then on.
  static Action halt();
  static Action set_status(InstanceId instance, uint32_t status);
};

abi::WeftRule rule(const Condition& when, const Action& then);

// Adds one regulator pass: a stage evaluating `rules` (stored contiguously in Control) against
// the current Metrics. It declares reads of its source instances' Metrics records and of the
// rule block, and writes of the words and slots its rules target, of the rule block (fired
// counters), of the Control header when a rule halts and of the Metrics records whose status a
// rule sets, so the planner orders it after the stages that produce its sources and before the
// stages that read what it changes (indirect dispatches included). Every rule is checked:
// an unknown instance, a target outside Control or in its header, a slot target that is not a
// slot, non-contiguous zeroed slots, a zero divisor or an unknown code is an InvalidProgram
// error naming the regulator and the rule.
StageId add_regulator(Program& program, const std::string& name, const std::vector<abi::WeftRule>& rules);

struct RegulatorOptions {
  std::optional<SlotId> indirect;  // run only when this slot's x > 0 (an iteration gate)
  uint32_t iteration = 0;
  bool honour_halt = false;
};
StageId add_regulator(Program& program, const std::string& name, const std::vector<abi::WeftRule>& rules,
                      const RegulatorOptions& options);

// Control word of the first rule of a regulator stage, and of rule `index`'s fired counter.
uint32_t regulator_rule_word(const Program& program, StageId regulator);
uint32_t regulator_fired_word(const Program& program, StageId regulator, uint32_t index);

// ---- unrolled loops -------------------------------------------------------------------------
//
// add_loop unrolls `iterations` copies of a body. Every iteration owns one indirect slot per
// dispatch shape, allocated up front and contiguous in Control (iteration-major), so the stages
// of iteration i dispatch from their own slots and a rule can end the loop early by zeroing the
// slots of every later iteration (Loop::exit_after). The host never steps the loop.
struct Loop {
  std::string name;
  uint32_t iterations = 0;
  uint32_t shapes = 0;  // slots per iteration
  SlotId first;         // slot of iteration 0, shape 0

  SlotId slot(uint32_t iteration, uint32_t shape = 0) const;
  // Zeroes the slots of iterations iteration+1 .. iterations-1. InvalidProgram for the last
  // iteration (nothing follows it) or an iteration past the loop.
  Action exit_after(const Program& program, uint32_t iteration) const;
};

struct LoopIteration {
  const Loop& loop;
  uint32_t index = 0;
  SlotId slot(uint32_t shape = 0) const { return loop.slot(index, shape); }
  // Adds `spec` as a stage of this iteration: dispatched from slot(shape), pushed the
  // iteration number, named "<name>[i]". honour_halt is kept as the spec says.
  StageId add_stage(Program& program, StageSpec spec, uint32_t shape = 0) const;
  // A regulator pass of this iteration, gated by slot(shape) (whose shape should be 1x1x1).
  StageId add_regulator(Program& program, const std::string& name, const std::vector<abi::WeftRule>& rules,
                        uint32_t shape = 0, bool honour_halt = false) const;
};

using LoopBody = std::function<void(Program&, const LoopIteration&)>;

// `shapes` gives the initial group counts of each iteration's slots (every iteration alike).
Loop add_loop(Program& program, const std::string& name, uint32_t iterations,
              const std::vector<std::array<uint32_t, 3>>& shapes, const LoopBody& body);

}  // namespace weft
