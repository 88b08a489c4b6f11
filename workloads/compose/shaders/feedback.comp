#version 450
#extension GL_GOOGLE_include_directive : require
// Adapter token VM -> LLM: the token the VM emitted for each stream in this step (its trace
// row) is what that stream's decoder consumes next, one position further on: tokens[0] = it,
// pos0 += 1 (the decoder's state word 0). R30 = [stream 0's emitted token].
// user: [0] streams B, [1] the VM's trace row of this step (Globals word), [2 + b] decoder b's
//       `tokens` word, [2 + B + b] decoder b's `state` word (Globals)
#include "weft.glsl"
#include "token_vm_layout.h"

layout(local_size_x = 64) in;

void main() {
  if (weft_halted()) return;
  const uint b = gl_GlobalInvocationID.x, B = pc.user[0];
  if (b >= B) return;
  const uint tok = globals_u[pc.user[1] + b * TVM_TRACE_WORDS + TVM_T_TOKEN];
  globals_u[pc.user[2u + b]] = tok;
  globals_u[pc.user[2u + B + b]] += 1u;
  if (b == 0u) {
    weft_outbox_u(0u, tok);
    weft_message_write(0.0, 0.0, WEFT_STATUS_OK, uvec2(0u));
  }
}
