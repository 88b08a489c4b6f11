#version 450
#extension GL_GOOGLE_include_directive : require
// The regulator: evaluates a block of WeftRule records (engine/regulator.h) against Metrics and
// applies the actions of those that hold, inside the submission.
//
// Arguments: `rules`, the Control word index of the first rule, and `rule_count`.
//
// Semantics, chosen so that a pass is deterministic whatever the device schedules:
//  1. Every condition is evaluated in parallel against Metrics as they were when the pass
//     began (a rule's SET_STATUS never changes what a later rule of the same pass sees).
//  2. The actions of the rules that held are then applied by one invocation in rule order, so
//     when several rules target the same word the later rule acts on the earlier one's result
//     (set then scale = scaled set value), exactly like a sequential program.
//  3. HALT keeps the first rule that raised it in halt_rule (it is not overwritten by later
//     rules or later passes while halt stays set).
// Only workgroup 0 works: dispatched from an indirect slot with a larger x, the extra groups
// return, so an action is never applied twice. No subgroup operation is used.
#include "weft_engine_args.h"
#define WEFT_ARGS WEFT_REGULATOR_ARGS
#include "weft.glsl"

#define WEFT_REGULATOR_GROUP 64u
// Most rules one pass evaluates (the host refuses more): one bit each in shared memory.
#define WEFT_REGULATOR_MAX_RULES 1024u

layout(local_size_x = 64) in;

// A flat word view of Metrics: rules name their source as a word index inside a record.
layout(set = 0, binding = WEFT_BINDING_METRICS, std430) buffer WeftMetricsWords { uint metrics_words[]; };

shared uint held[WEFT_REGULATOR_MAX_RULES / 32u];

uint rule_word(uint rule, uint field) { return weft_control_word(pc.args.rules + rule * WEFT_RULE_WORDS + field); }

// Field indices inside WeftRule (see bindings_layout/weft_layout.h).
const uint R_SOURCE_INSTANCE = 0u, R_SOURCE_FIELD = 1u, R_SOURCE_TYPE = 2u, R_COMPARE = 3u, R_LO = 4u, R_HI = 5u,
           R_ACTION = 6u, R_TARGET = 7u, R_TARGET_TYPE = 8u, R_VALUE = 9u, R_VALUE2 = 10u, R_FIRED = 11u;

bool holds_f32(uint compare, float v, float lo, float hi) {
  switch (compare) {
    case WEFT_CMP_LESS: return v < lo;
    case WEFT_CMP_GREATER: return v > lo;
    // NaN lies inside no interval, so a non-finite source counts as outside.
    case WEFT_CMP_OUTSIDE: return !(v >= lo && v <= hi);
    case WEFT_CMP_EQ_ZERO: return v == 0.0;
    case WEFT_CMP_NE_ZERO: return v != 0.0;
    case WEFT_CMP_ALWAYS: return true;
  }
  return false;
}

bool holds_u32(uint compare, uint v, uint lo, uint hi) {
  switch (compare) {
    case WEFT_CMP_LESS: return v < lo;
    case WEFT_CMP_GREATER: return v > lo;
    case WEFT_CMP_OUTSIDE: return v < lo || v > hi;
    case WEFT_CMP_EQ_ZERO: return v == 0u;
    case WEFT_CMP_NE_ZERO: return v != 0u;
    case WEFT_CMP_ALWAYS: return true;
  }
  return false;
}

bool evaluate(uint r) {
  const uint compare = rule_word(r, R_COMPARE), lo = rule_word(r, R_LO), hi = rule_word(r, R_HI);
  if (compare == WEFT_CMP_ALWAYS) return true;  // needs no source (it may name no instance)
  const uint v = metrics_words[rule_word(r, R_SOURCE_INSTANCE) * WEFT_METRICS_WORDS + rule_word(r, R_SOURCE_FIELD)];
  if (rule_word(r, R_SOURCE_TYPE) == WEFT_SOURCE_U32) return holds_u32(compare, v, lo, hi);
  return holds_f32(compare, uintBitsToFloat(v), uintBitsToFloat(lo), uintBitsToFloat(hi));
}

void apply(uint r) {
  const uint target = rule_word(r, R_TARGET), value = rule_word(r, R_VALUE), value2 = rule_word(r, R_VALUE2);
  const bool is_u32 = rule_word(r, R_TARGET_TYPE) == WEFT_SOURCE_U32;
  switch (rule_word(r, R_ACTION)) {
    case WEFT_ACTION_SET_WORD:
      weft_set_control_word(target, value);
      break;
    case WEFT_ACTION_SCALE_WORD: {
      const uint w = weft_control_word(target);
      // Integer words scale by the fraction value / value2 in integer arithmetic.
      weft_set_control_word(target, is_u32 ? (w * value) / value2
                                           : floatBitsToUint(uintBitsToFloat(w) * uintBitsToFloat(value)));
      break;
    }
    case WEFT_ACTION_CLAMP_WORD: {
      const uint w = weft_control_word(target);
      weft_set_control_word(target, is_u32 ? clamp(w, value, value2)
                                           : floatBitsToUint(clamp(uintBitsToFloat(w), uintBitsToFloat(value),
                                                                   uintBitsToFloat(value2))));
      break;
    }
    case WEFT_ACTION_SET_SLOT:
      weft_set_control_word(target, value);  // x only: y and z keep the slot's shape
      break;
    case WEFT_ACTION_ZERO_SLOTS:
      // x = 0 is an empty dispatch; y and z stay so a later SET_SLOT revives the slot.
      for (uint k = 0u; k < value2; ++k) weft_set_control_word(target + k * WEFT_INDIRECT_SLOT_WORDS, 0u);
      break;
    case WEFT_ACTION_HALT:
      if (control.header.halt == 0u) {
        control.header.halt = 1u;
        control.header.halt_rule = pc.args.rules + r * WEFT_RULE_WORDS + 1u;
      }
      break;
    case WEFT_ACTION_SET_STATUS:
      metrics_words[target * WEFT_METRICS_WORDS + WEFT_METRIC_STATUS] = value;
      break;
  }
}

void main() {
  if (weft_halted()) return;  // only when the stage was added with honour_halt
  if (gl_WorkGroupID.x != 0u || gl_WorkGroupID.y != 0u || gl_WorkGroupID.z != 0u) return;
  const uint t = gl_LocalInvocationIndex;
  const uint count = min(pc.args.rule_count, WEFT_REGULATOR_MAX_RULES);
  for (uint k = t; k < WEFT_REGULATOR_MAX_RULES / 32u; k += WEFT_REGULATOR_GROUP) held[k] = 0u;
  barrier();

  // Phase 1: conditions in parallel. Each rule's fired counter is written only by its evaluator.
  for (uint r = t; r < count; r += WEFT_REGULATOR_GROUP) {
    if (evaluate(r)) {
      atomicOr(held[r / 32u], 1u << (r % 32u));
      const uint fired = pc.args.rules + r * WEFT_RULE_WORDS + R_FIRED;
      weft_set_control_word(fired, weft_control_word(fired) + 1u);
    }
  }
  // Every source read and counter write of phase 1 completes before any action writes.
  memoryBarrierBuffer();
  barrier();

  // Phase 2: actions in rule order.
  if (t == 0u)
    for (uint r = 0u; r < count; ++r)
      if ((held[r / 32u] & (1u << (r % 32u))) != 0u) apply(r);
}
