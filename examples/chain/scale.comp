#version 450
#extension GL_GOOGLE_include_directive : require
// outbox[j] = inbox[j] * factor. One workgroup.
#define WEFT_ARGS(X) X(WEFT_F32, factor)
#include "weft.glsl"
#include "message64.glsl"

layout(local_size_x = 64) in;

void main() {
  const uvec2 start = weft_clock();
  const float factor = pc.args.factor;
  float sq = 0.0, mx = 0.0;
  for (uint j = gl_LocalInvocationID.x; j < pc.header.width; j += 64u) {
    const float v = weft_inbox_f(j) * factor;
    weft_outbox_f(j, v);
    sq += v * v;
    mx = max(mx, abs(v));
  }
  message64(sq, mx, start);
}
