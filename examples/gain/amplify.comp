#version 450
#extension GL_GOOGLE_include_directive : require
// outbox[j] = drive * signal[j] (signal in Heap). push: drive (f32), signal word offset, n.
#include "weft.glsl"
#include "message64.glsl"

layout(local_size_x = 64) in;

void main() {
  const uvec2 start = weft_clock();
  const float drive = weft_user_f(0);
  const uint signal = pc.user[1], n = min(pc.user[2], pc.header.width);
  float sq = 0.0, mx = 0.0;
  for (uint j = gl_LocalInvocationID.x; j < n; j += 64u) {
    const float v = drive * heap_f[signal + j];
    weft_outbox_f(j, v);
    sq += v * v;
    mx = max(mx, abs(v));
  }
  message64(sq, mx, start);
}
