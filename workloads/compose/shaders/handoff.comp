#version 450
#extension GL_GOOGLE_include_directive : require
// Adapter LLM -> token VM: the token each stream's decoder sampled becomes that stream's sampled
// token of this VM step. Stream 0's token arrives as a message (its sampler's R30 is this
// instance's R31); the others are read from their decoders' `sampled` words in Globals. A
// model id the tokenizer does not have (>= vocab) becomes the pad token (it carries no bytes).
// R30 = [stream 0's token].
#include "compose_args.h"
#define WEFT_ARGS COMPOSE_HANDOFF_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  if (weft_halted()) return;
  const uint b = gl_GlobalInvocationID.x, B = pc.args.streams;
  if (b >= B) return;
  uint tok = b == 0u ? weft_inbox_u(0u) : globals_u[weft_control_word(pc.args.stream_words + b)];
  if (tok >= pc.args.vocabulary) tok = pc.args.pad_token;
  globals_u[pc.args.sampled_row + b] = tok;
  if (b == 0u) {
    weft_outbox_u(0u, tok);
    weft_message_write(0.0, 0.0, WEFT_STATUS_OK, uvec2(0u));
  }
}
