#version 450
#extension GL_GOOGLE_include_directive : require
// outbox[j] = inbox[j] * gain, where gain is a Control word (a regulator rule may have changed
// it earlier in the same submission).
#define WEFT_ARGS(X) X(WEFT_IN(Control), gain)
#include "weft.glsl"
#include "message64.glsl"

layout(local_size_x = 64) in;

void main() {
  const uvec2 start = weft_clock();
  const float gain = weft_control_f(pc.args.gain);
  float sq = 0.0, mx = 0.0;
  for (uint j = gl_LocalInvocationID.x; j < pc.header.width; j += 64u) {
    const float v = weft_inbox_f(j) * gain;
    weft_outbox_f(j, v);
    sq += v * v;
    mx = max(mx, abs(v));
  }
  message64(sq, mx, start);
}
