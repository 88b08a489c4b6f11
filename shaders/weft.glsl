// weft.glsl — what every Weft kernel includes first.
//
// Usage: #version 450, `#extension GL_GOOGLE_include_directive : require`, then
// `#define WEFT_ARGS <the kernel's argument list>` (bindings_layout/weft_args.h) and
// `#include "weft.glsl"` before any declaration; the kernel reads its arguments as pc.args.NAME.
// Define WEFT_FAR_ACCESS before the include to reach far segments (data beyond the bound window;
// see bindings_layout/weft_layout.h).
// The engine defines WEFT_SHADER_CLOCK when it builds the variant for devices with
// VK_KHR_shader_clock; kernels never test for it themselves.
#ifndef WEFT_GLSL
#define WEFT_GLSL

#ifdef WEFT_SHADER_CLOCK
#extension GL_ARB_shader_clock : require
#endif
#ifdef WEFT_FAR_ACCESS
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#endif

#include "weft_layout.h"
#include "weft_args.h"

#ifdef WEFT_DESCRIBE_ARGS
// Preprocessing pass that tells the engine this kernel's arguments (see weft_args.h).
#define WEFT_DESCRIBE_ARG(type, name) weft_signature_arg type name ;
#ifdef WEFT_ARGS
WEFT_ARGS(WEFT_DESCRIBE_ARG)
#endif
#endif

// ---- the five bindings ------------------------------------------------------------------
// Registers and Globals have a uint and a float view of the same memory. Within one invocation,
// do not write a word through one view and read it back through the other.
layout(set = 0, binding = WEFT_BINDING_REGISTERS, std430) buffer WeftRegistersU { uint regs_u[]; };
layout(set = 0, binding = WEFT_BINDING_REGISTERS, std430) buffer WeftRegistersF { float regs_f[]; };
layout(set = 0, binding = WEFT_BINDING_METRICS, std430) buffer WeftMetricsBlock { WeftMetrics metrics[]; };
layout(set = 0, binding = WEFT_BINDING_GLOBALS, std430) buffer WeftGlobalsU { uint globals_u[]; };
layout(set = 0, binding = WEFT_BINDING_GLOBALS, std430) buffer WeftGlobalsF { float globals_f[]; };
layout(set = 0, binding = WEFT_BINDING_CONTROL, std430) buffer WeftControl {
  WeftControlHeader header;
  uint words[];  // word w of the whole buffer is words[w - WEFT_CONTROL_HEADER_WORDS]
} control;
// The engine's own view of Control: only weft_require_loop_end writes through it. Kernels need
// not declare it, and the barrier planner leaves it out (the engine reads it after the run).
layout(set = 0, binding = WEFT_BINDING_CONTROL, std430) buffer WeftEngineStatus { uint words[]; } weft_engine_status;
layout(set = 0, binding = WEFT_BINDING_HEAP, std430) readonly buffer WeftHeapU { uint heap_u[]; };
layout(set = 0, binding = WEFT_BINDING_HEAP, std430) readonly buffer WeftHeapF { float heap_f[]; };

// ---- push constants: the header every stage gets, then the kernel's own arguments -----------
#ifdef WEFT_ARGS
#define WEFT_GLSL_ARG_FIELD(type, name) type name;
struct WeftArgs { WEFT_ARGS(WEFT_GLSL_ARG_FIELD) };
#endif
layout(push_constant, std430) uniform WeftPushBlock {
  WeftPushHeader header;
#ifdef WEFT_ARGS
  WeftArgs args;  // a kernel without arguments declares no WEFT_ARGS
#endif
} pc;

// ---- streaming kernels: their shape is the engine's (engine/kernel_shape.h) ----------------
// A kernel that walks `count` independent units writes WEFT_STREAMING_KERNEL; in place of its own
// local_size layout and loops with WEFT_FOR_EACH_UNIT(i, count) { ... }. The engine sets the
// workgroup size and the units per invocation for the device (specialization constants 0 and 1)
// and dispatches enough groups; the loop strides over the grid when there are fewer. Within a
// step, neighbouring invocations take neighbouring units (coalesced where the device has that).
#define WEFT_STREAMING_KERNEL                                     \
  layout(local_size_x = 64, local_size_x_id = 0) in;             \
  layout(constant_id = 1) const uint weft_units_per_invocation = 1u
// The engine keeps a stage at 2^31 units and a workgroup step at 2^24, so no index overflows
// before the step that ends the loop, which stops at `count` rather than wrap.
#define WEFT_FOR_EACH_UNIT(i, count)                                                                          \
  for (uint weft_step_ = gl_WorkGroupID.x * gl_WorkGroupSize.x * weft_units_per_invocation + gl_LocalInvocationID.x, \
            weft_stride_ = gl_NumWorkGroups.x * gl_WorkGroupSize.x * weft_units_per_invocation;                      \
       weft_step_ < (count); weft_step_ = (count) - weft_step_ > weft_stride_ ? weft_step_ + weft_stride_ : (count))  \
    for (uint i = weft_step_, weft_unit_ = 0u; weft_unit_ < weft_units_per_invocation && i < (count);                  \
         ++weft_unit_, i += gl_WorkGroupSize.x)

// ---- loops a driver may stop early ----------------------------------------------------------
// Some drivers stop a kernel's loops after a fixed number of iterations per invocation and go on
// after the loop (llvmpipe: 65535, all the invocation's loops together). A loop whose length
// depends on the data is followed by weft_require_loop_end(it ran to its end): when it did not,
// the run fails with MissingFeature naming this stage, rather than returning a wrong answer.
void weft_require_loop_end(bool ended) {
  if (!ended) atomicCompSwap(weft_engine_status.words[WEFT_CONTROL_LOOP_CUT_WORD], 0u, pc.header.stage + 1u);
}
// The same for every loop of the kernel at once, called last: a driver that counts all of an
// invocation's loops together (llvmpipe; Device::loop_iteration_limit measures it) lets a loop
// that starts after the count ran out make one iteration only, so a two-iteration loop here ends
// early exactly when an earlier loop may have been stopped. (Its bound is not a constant, so no
// compiler unrolls it away.)
void weft_require_loops_whole() {
  const uint two = 2u + (pc.header.stage >> 31);
  uint i = 0u;
  for (; i < two; ++i) {}
  weft_require_loop_end(i == two);
}

// ---- control -----------------------------------------------------------------------------
uint weft_control_word(uint w) { return control.words[w - WEFT_CONTROL_HEADER_WORDS]; }
float weft_control_f(uint w) { return uintBitsToFloat(weft_control_word(w)); }
void weft_set_control_word(uint w, uint v) { control.words[w - WEFT_CONTROL_HEADER_WORDS] = v; }

// Field `field` of this stage's instance control record (WeftInstanceControl).
uint weft_instance_control_word(uint field) { return weft_control_word(pc.header.control + field); }
// The scale word of this stage's instance (1.0 unless a host or a rule changed it).
float weft_scale() { return uintBitsToFloat(weft_instance_control_word(0u)); }
uint weft_instance_flags() { return weft_instance_control_word(1u); }
uint weft_limit() { return weft_instance_control_word(2u); }
float weft_param(uint i) { return uintBitsToFloat(weft_instance_control_word(4u + i)); }

// A stage that honours halt calls this first and returns when it is true.
bool weft_halted() {
  return (pc.header.flags & WEFT_PUSH_HONOUR_HALT) != 0u && control.header.halt != 0u;
}

// ---- registers and messages ---------------------------------------------------------------
uint weft_reg_index(uint r, uint j) { return pc.header.window + r * pc.header.width + j; }
float weft_inbox_f(uint j) { return regs_f[pc.header.inbox + j]; }
uint weft_inbox_u(uint j) { return regs_u[pc.header.inbox + j]; }
void weft_outbox_f(uint j, float v) { regs_f[pc.header.outbox + j] = v; }
void weft_outbox_u(uint j, uint v) { regs_u[pc.header.outbox + j] = v; }

bool weft_has_inbox() { return pc.header.inbox_instance != WEFT_NONE; }

// ---- device ticks ---------------------------------------------------------------------------
uvec2 weft_clock() {
#ifdef WEFT_SHADER_CLOCK
  return clock2x32ARB();
#else
  return uvec2(0u);
#endif
}
uvec2 weft_ticks_since(uvec2 start) {
  uvec2 now = weft_clock();
  uint borrow = now.x < start.x ? 1u : 0u;
  return uvec2(now.x - start.x, now.y - start.y - borrow);
}

// Writes this stage's message metadata. Call from exactly one invocation, after the payload is
// written (the ticks then cover the work of that invocation's workgroup).
void weft_message_write(float norm, float max_abs, uint status, uvec2 ticks) {
  uint i = pc.header.instance;
  metrics[i].norm = norm;
  metrics[i].max_abs = max_abs;
  metrics[i].status = status;
  metrics[i].ticks_lo = ticks.x;
  metrics[i].ticks_hi = ticks.y;
  metrics[i].sequence = metrics[i].sequence + 1u;
}

// ---- segment references (WEFT_REF_* arguments): a word of the window or a far segment ------
bool weft_ref_is_far(uint ref) { return ref != WEFT_NONE && (ref & WEFT_REF_FAR) != 0u; }

// ---- far segments: data beyond the bound window (see bindings_layout/weft_layout.h) -------
// A kernel opens a far argument once (weft_far_heap / weft_far_globals of pc.args.NAME, a
// WEFT_FAR_IN/OUT/INOUT) and addresses it by record and word: records up to 2^32, words within
// a record up to 2^32. Opening reads the segment's Control record once, so a loop over records
// pays only the chunk's address per access (about a third of the cost of looking the segment up
// each time on lavapipe).
#ifdef WEFT_FAR_ACCESS
layout(buffer_reference, std430, buffer_reference_align = 4) buffer WeftFarWords { uint w[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer WeftFarVec4 { uvec4 v; };

struct WeftFar {
  uint record;        // Control word of the segment's WeftFarSegment record
  uint record_words;
  uint chunk_records_log2;
};
WeftFar weft_far_open(uint table, uint seg) {
  const uint at = weft_control_word(table + seg);
  return WeftFar(at, weft_control_word(at), weft_control_word(at + 1u));
}
WeftFar weft_far_heap(uint seg) { return weft_far_open(control.header.heap_far_table, seg); }
WeftFar weft_far_globals(uint seg) { return weft_far_open(control.header.globals_far_table, seg); }
// The far segment a reference names (weft_ref_is_far(ref) must hold).
WeftFar weft_ref_far_heap(uint ref) { return weft_far_heap(ref & ~WEFT_REF_FAR); }
WeftFar weft_ref_far_globals(uint ref) { return weft_far_globals(ref & ~WEFT_REF_FAR); }

// Address of word `word` (a 32-bit word index reaches 16 GiB) of the buffer at `base`.
uvec2 weft_word_address(uint base_lo, uint base_hi, uint word) {
  uint lo = base_lo + (word << 2);
  return uvec2(lo, base_hi + (word >> 30) + (lo < base_lo ? 1u : 0u));
}
uvec2 weft_far_address(WeftFar f, uint record, uint word) {
  const uint chunk = record >> f.chunk_records_log2;  // the engine keeps the log2 <= 31
  const uint in_chunk = record & ((1u << f.chunk_records_log2) - 1u);
  const uint base = f.record + WEFT_FAR_SEGMENT_WORDS + 2u * chunk;
  return weft_word_address(weft_control_word(base), weft_control_word(base + 1u), in_chunk * f.record_words + word);
}
uint weft_far_u(WeftFar f, uint record, uint word) { return WeftFarWords(weft_far_address(f, record, word)).w[0]; }
float weft_far_f(WeftFar f, uint record, uint word) { return uintBitsToFloat(weft_far_u(f, record, word)); }
// Writes reach Globals far segments only (the planner refuses a far Heap argument written).
void weft_far_set_u(WeftFar f, uint record, uint word, uint v) { WeftFarWords(weft_far_address(f, record, word)).w[0] = v; }
void weft_far_set_f(WeftFar f, uint record, uint word, float v) { weft_far_set_u(f, record, word, floatBitsToUint(v)); }
// Four words at once (streaming): the record's size in words and `word` must be multiples of 4.
uvec4 weft_far_u4(WeftFar f, uint record, uint word) { return WeftFarVec4(weft_far_address(f, record, word)).v; }
void weft_far_set_u4(WeftFar f, uint record, uint word, uvec4 v) { WeftFarVec4(weft_far_address(f, record, word)).v = v; }
#endif

#endif  // WEFT_GLSL
