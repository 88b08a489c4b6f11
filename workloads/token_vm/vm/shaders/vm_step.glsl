// The body of vm_step.comp and vm_step_sampled.comp (variants by TVM_STEP_SAMPLES).
// One token VM step for every stream (one invocation per stream): token choice, matching,
// transition, tags, capture and feed, exactly as the CPU reference (vm/reference.cpp) does it.
// Arguments: TOKEN_VM_STEP_ARGS (token_vm_args.h): the VM's Heap segment, whose header
// (token_vm_layout.h) gives every table and array, and the step slot of this submission (which
// row of the sampled tokens and of the trace).
#include "token_vm_args.h"
#define WEFT_ARGS TOKEN_VM_STEP_ARGS
#include "weft.glsl"
#include "token_vm_layout.h"
#ifdef TVM_STEP_SAMPLES
#include "sample.glsl"
#endif

layout(local_size_x = 64) in;

uint H;       // header base
uint B;       // streams
uint S;       // state base (Globals word)
uint b;       // this stream

uint hdr(uint i) { return heap_u[H + i]; }
uint field_at(uint f) { return S + f * B + b; }
uint getf(uint f) { return globals_u[field_at(f)]; }
void setf(uint f, uint v) { globals_u[field_at(f)] = v; }
uint hist_at(uint k) { return S + (TVM_S_COUNT + k) * B + b; }

// Zone record words (workflow.h's Zone, 16 words).
#define Z_NEXT 0u
#define Z_JUMP 1u
#define Z_FLAGS 2u
#define Z_TOOL 3u
#define Z_TSTART 4u
#define Z_TEND 5u
#define Z_TAGS 6u
#define Z_TIMEOUT 7u
#define Z_CLOSE 8u
#define Z_LOOP 9u
// ZoneFlag bits
#define F_ADVANCE 1u
#define F_JUMP 2u
#define F_INPUT 4u
#define F_OUTPUT 8u
#define F_LOOP 16u

bool matches(uint p, uint count) {
  const uint rec = hdr(TVM_H_PATTERNS) + p * 4u;
  const bool bytes = hdr(TVM_H_MATCH_MODE) == 1u;
  const uint start = bytes ? heap_u[rec + 2u] : heap_u[rec];
  const uint len = bytes ? heap_u[rec + 3u] - heap_u[rec + 2u] : heap_u[rec + 1u] - heap_u[rec];
  const uint units = bytes ? hdr(TVM_H_PATTERN_BYTES) : hdr(TVM_H_PATTERN_TOKENS);
  if (count < len) return false;
  for (uint k = 0u; k < len; ++k)
    if (globals_u[hist_at((count - 1u - k) % TVM_HISTORY)] != heap_u[units + start + len - 1u - k]) return false;
  return true;
}

uint g_bits;
uint g_depth;
bool g_advance;
bool g_jump;

void unit(uint u, uint close_pattern) {
  uint count = getf(TVM_S_HIST_COUNT);
  globals_u[hist_at(count % TVM_HISTORY)] = u;
  count = count + 1u >= 2u * TVM_HISTORY ? count + 1u - TVM_HISTORY : count + 1u;
  setf(TVM_S_HIST_COUNT, count);
  const uint before = g_depth;
  const uint esc_open = hdr(TVM_H_ESCAPE_OPEN), esc_close = hdr(TVM_H_ESCAPE_CLOSE), control = hdr(TVM_H_CONTROL);
  if (esc_open != TVM_NONE && matches(esc_open, count)) {
    g_bits |= TVM_HIT_ESC_OPEN;
    if (g_depth != 0xFFFFFFFFu) g_depth += 1u;
  }
  if (esc_close != TVM_NONE && matches(esc_close, count)) {
    g_bits |= TVM_HIT_ESC_CLOSE;
    if (g_depth > 0u) g_depth -= 1u;
  }
  const bool c = control != TVM_NONE && matches(control, count);
  const bool a = close_pattern != TVM_NONE && matches(close_pattern, count);
  if (c) g_bits |= TVM_HIT_CONTROL;
  if (a) g_bits |= TVM_HIT_CLOSE;
  if (before == 0u && g_depth == 0u) {
    g_jump = g_jump || c;
    g_advance = g_advance || a;
  }
}

void step_stream() {
  H = pc.args.vm;
  B = hdr(TVM_H_BATCH);
  b = gl_GlobalInvocationID.x;
  if (b >= B) return;
  S = hdr(TVM_H_STATE);
  const uint slot = pc.args.step;
#ifdef TVM_STEP_SAMPLES
  // The sampler fused in: this stream's token comes from its own logits row, so no other
  // invocation's result is needed and no stage boundary either; the row is kept for the trace.
  const uint sampled = tvm_sample_token(H, B, b, slot);
  globals_u[hdr(TVM_H_SAMPLED) + slot * B + b] = sampled;
#else
  const uint sampled = globals_u[hdr(TVM_H_SAMPLED) + slot * B + b];
#endif
  const uint rec = hdr(TVM_H_TRACE) + (slot * B + b) * TVM_TRACE_WORDS;
  const uint n = hdr(TVM_H_ZONE_COUNT);
  const uint zpc = getf(TVM_S_PC);
  const uint token_num = getf(TVM_S_TOKEN_NUM);
  g_depth = getf(TVM_S_DEPTH);
  const uint depth_bits = min(g_depth, 0xFFFFu) << TVM_DEPTH_SHIFT;
  globals_u[rec + TVM_T_TOKEN] = hdr(TVM_H_PAD);
  globals_u[rec + TVM_T_TAGS] = 0u;
  globals_u[rec + TVM_T_PC] = zpc;
  globals_u[rec + TVM_T_TOKEN_NUM] = token_num;
  if (zpc >= n) {
    globals_u[rec + TVM_T_BITS] = TVM_SRC_DONE | depth_bits;
    setf(TVM_S_STATUS, TVM_DONE);
    return;
  }
  const uint z = hdr(TVM_H_ZONES) + zpc * 16u;
  const uint flags = heap_u[z + Z_FLAGS];
  // An Output zone does not start while the previous tool call is uncollected.
  if ((flags & F_OUTPUT) != 0u && getf(TVM_S_READY_TOOL) != TVM_NONE) {
    globals_u[rec + TVM_T_BITS] = TVM_SRC_WAIT | depth_bits;
    setf(TVM_S_STATUS, TVM_WAIT_TOOL);
    return;
  }

  // ---- token choice ----
  const uint forced = heap_u[z + Z_TEND] - heap_u[z + Z_TSTART];
  uint token = 0u;
  uint source = TVM_SRC_SAMPLED;
  bool chosen = false;
  if (token_num < forced) {
    token = heap_u[hdr(TVM_H_TOKEN_DATA) + heap_u[z + Z_TSTART] + token_num];
    source = TVM_SRC_FORCED;
    chosen = true;
  } else if ((flags & F_INPUT) != 0u) {
    if (getf(TVM_S_FEEDING) == 0u) {
      if (getf(TVM_S_FEED_LEN) == TVM_NONE) {
        globals_u[rec + TVM_T_BITS] = TVM_SRC_WAIT | depth_bits;
        setf(TVM_S_STATUS, TVM_WAIT_TOOL);
        return;
      }
      setf(TVM_S_FEEDING, 1u);
    }
    const uint pos = getf(TVM_S_FEED_POS);
    if (pos < getf(TVM_S_FEED_LEN)) {
      const uint feed = S + (TVM_S_COUNT + TVM_HISTORY + hdr(TVM_H_LOOP_COUNT)) * B + b * hdr(TVM_H_FEED_CAPACITY);
      token = globals_u[feed + pos];
      setf(TVM_S_FEED_POS, pos + 1u);
      source = TVM_SRC_FEED;
      chosen = true;
    }
  }
  bool timed_out = false;
  if (!chosen) {
    const uint generated = getf(TVM_S_GENERATED) + 1u;
    setf(TVM_S_GENERATED, generated);
    token = sampled;
    timed_out = generated >= heap_u[z + Z_TIMEOUT];
    source = timed_out ? TVM_SRC_TIMEOUT : TVM_SRC_SAMPLED;
    if ((flags & F_OUTPUT) != 0u) {
      const uint len = getf(TVM_S_CAPTURE_LEN);
      const uint cap = hdr(TVM_H_CAPTURE_CAPACITY);
      if (len < cap) {
        const uint feed0 = S + (TVM_S_COUNT + TVM_HISTORY + hdr(TVM_H_LOOP_COUNT)) * B;
        const uint capture = feed0 + B * hdr(TVM_H_FEED_CAPACITY) + b * cap;
        globals_u[capture + len] = token;
        setf(TVM_S_CAPTURE_LEN, len + 1u);
      }
    }
  }

  // ---- matching, one unit (token or byte) at a time ----
  g_bits = source;
  g_advance = false;
  g_jump = false;
  const uint close_pattern = heap_u[z + Z_CLOSE];
  if (hdr(TVM_H_MATCH_MODE) == 0u) {
    unit(token, close_pattern);
  } else if (token < hdr(TVM_H_VOCAB_SIZE)) {
    const uint offsets = hdr(TVM_H_VOCAB_OFFSETS), bytes = hdr(TVM_H_VOCAB_BYTES);
    const uint end = heap_u[offsets + token + 1u];
    for (uint i = heap_u[offsets + token]; i < end; ++i) unit(heap_u[bytes + i], close_pattern);
  }

  // ---- transition: timeout > jump > advance, then loop bounds ----
  uint transition = TVM_TR_NONE;
  if (timed_out)
    transition = TVM_TR_TIMEOUT;
  else if (g_jump && (flags & F_JUMP) != 0u)
    transition = TVM_TR_JUMP;
  else if (g_advance && (flags & F_ADVANCE) != 0u)
    transition = TVM_TR_ADVANCE;
  globals_u[rec + TVM_T_TOKEN] = token;
  globals_u[rec + TVM_T_TAGS] = heap_u[z + Z_TAGS];
  if (transition == TVM_TR_NONE) {
    setf(TVM_S_TOKEN_NUM, token_num + 1u);
    setf(TVM_S_DEPTH, g_depth);
    globals_u[rec + TVM_T_BITS] = g_bits | (min(g_depth, 0xFFFFu) << TVM_DEPTH_SHIFT);
    setf(TVM_S_STATUS, TVM_RUNNING);
    return;
  }
  bool body = transition != TVM_TR_JUMP;
  if ((flags & F_LOOP) != 0u) {
    const uint loop = heap_u[z + Z_LOOP];
    const uint counter_at = S + (TVM_S_COUNT + TVM_HISTORY + loop) * B + b;
    const uint counter = globals_u[counter_at];
    const uint lo = heap_u[hdr(TVM_H_LOOPS) + loop * 2u], hi = heap_u[hdr(TVM_H_LOOPS) + loop * 2u + 1u];
    const bool bounded = counter < lo ? true : (counter >= hi ? false : body);
    if (bounded != body) g_bits |= TVM_LOOP_FORCED;
    body = bounded;
    globals_u[counter_at] = body ? counter + 1u : 0u;
  }
  if ((flags & F_OUTPUT) != 0u) {
    setf(TVM_S_READY_TOOL, heap_u[z + Z_TOOL]);
    setf(TVM_S_READY_LEN, getf(TVM_S_CAPTURE_LEN));
    g_bits |= TVM_CALL_READY;
  }
  if (getf(TVM_S_FEEDING) != 0u) {
    setf(TVM_S_FEED_LEN, TVM_NONE);
    g_bits |= TVM_FEED_DONE;
  }
  globals_u[rec + TVM_T_BITS] = g_bits | (transition << TVM_TRANSITION_SHIFT) | (min(g_depth, 0xFFFFu) << TVM_DEPTH_SHIFT);
  const uint next_pc = body ? heap_u[z + Z_NEXT] : heap_u[z + Z_JUMP];
  setf(TVM_S_PC, next_pc);
  setf(TVM_S_TOKEN_NUM, 0u);
  setf(TVM_S_GENERATED, 0u);
  setf(TVM_S_FEED_POS, 0u);
  setf(TVM_S_FEEDING, 0u);
  setf(TVM_S_HIST_COUNT, 0u);
  setf(TVM_S_DEPTH, 0u);
  setf(TVM_S_STATUS, next_pc >= n ? TVM_DONE : TVM_RUNNING);
}

void main() {
  step_stream();
#ifdef TVM_STEP_SAMPLES
  // The sampler's loops (up to 3 V iterations) run before the step's: on a driver that counts an
  // invocation's loops together, the run fails rather than step with a loop cut short.
  weft_require_loops_whole();
#endif
}
