#version 450
#extension GL_GOOGLE_include_directive : require
// Adapter token VM -> LLM sampler: in a zone with a logit mask (UDPL `allow`), every token
// outside the zone's allowed set gets logit -inf, so the sampler draws only allowed tokens (the
// mask is read from the zone the stream is in now: the one the next token is chosen in). A stream
// past its last zone, or a zone without a mask, leaves the logits as they are.
#include "compose_args.h"
#define WEFT_ARGS COMPOSE_MASK_LOGITS_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  if (weft_halted()) return;
  const uint zone = globals_u[pc.args.zone_word];
  if (zone >= pc.args.zones) return;
  const uint set = heap_u[pc.args.zone_sets + zone];
  if (set == 0xFFFFFFFFu) return;
  const uint bits = pc.args.set_bits + set * pc.args.set_words;
  for (uint v = gl_GlobalInvocationID.x; v < pc.args.vocabulary; v += gl_NumWorkGroups.x * gl_WorkGroupSize.x)
    if ((heap_u[bits + (v >> 5u)] & (1u << (v & 31u))) == 0u) globals_u[pc.args.logits + v] = 0xFF800000u;  // -inf
}
