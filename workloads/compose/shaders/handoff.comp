#version 450
#extension GL_GOOGLE_include_directive : require
// Adapter LLM -> token VM: the token each stream's decoder sampled becomes that stream's sampled
// token of this VM step. Stream 0's token arrives as a message (its sampler's R30 is this
// instance's R31); the others are read from their decoders' `sampled` words in Globals. A
// model id the tokenizer does not have (>= vocab) becomes the pad token (it carries no bytes).
// R30 = [stream 0's token].
// user: [0] streams B, [1] the VM's sampled row of this step (Globals word), [2] tokenizer
//       vocabulary, [3] pad token, [4 + b] decoder b's `sampled` word (Globals)
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  if (weft_halted()) return;
  const uint b = gl_GlobalInvocationID.x, B = pc.user[0];
  if (b >= B) return;
  uint tok = b == 0u ? weft_inbox_u(0u) : globals_u[pc.user[4u + b]];
  if (tok >= pc.user[2]) tok = pc.user[3];
  globals_u[pc.user[1] + b] = tok;
  if (b == 0u) {
    weft_outbox_u(0u, tok);
    weft_message_write(0.0, 0.0, WEFT_STATUS_OK, uvec2(0u));
  }
}
