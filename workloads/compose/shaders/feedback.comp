#version 450
#extension GL_GOOGLE_include_directive : require
// Adapter token VM -> LLM: the token the VM emitted for each stream in this step (its trace
// row) is what that stream's decoder consumes next, one position further on: tokens[0] = it,
// pos0 += 1 (the decoder's state word 0). A pad (the stream waits for a tool's answer or is
// DONE) is no text: the decoder's input stays as it was, so its next step recomputes the same
// position. R30 = [stream 0's emitted token].
#include "compose_args.h"
#define WEFT_ARGS COMPOSE_FEEDBACK_ARGS
#include "weft.glsl"
#include "token_vm_layout.h"

layout(local_size_x = 64) in;

void main() {
  if (weft_halted()) return;
  const uint b = gl_GlobalInvocationID.x, B = pc.args.streams;
  if (b >= B) return;
  const uint record = pc.args.trace_row + b * TVM_TRACE_WORDS;
  const uint tok = globals_u[record + TVM_T_TOKEN];
  const uint source = globals_u[record + TVM_T_BITS] & TVM_SRC_MASK;
  if (source != TVM_SRC_WAIT && source != TVM_SRC_DONE) {
    globals_u[weft_control_word(pc.args.stream_words + b)] = tok;
    globals_u[weft_control_word(pc.args.stream_words + B + b)] += 1u;
  }
  if (b == 0u) {
    weft_outbox_u(0u, tok);
    weft_message_write(0.0, 0.0, WEFT_STATUS_OK, uvec2(0u));
  }
}
