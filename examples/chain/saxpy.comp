#version 450
#extension GL_GOOGLE_include_directive : require
// outbox[j] = alpha * x[j] + y[j] for j < n, x and y in Heap.
// push: alpha (f32), x word offset, y word offset, n. One workgroup.
#include "weft.glsl"
#include "message64.glsl"

layout(local_size_x = 64) in;

void main() {
  const uvec2 start = weft_clock();
  const float alpha = weft_user_f(0);
  const uint x = pc.user[1], y = pc.user[2], n = min(pc.user[3], pc.header.width);
  float sq = 0.0, mx = 0.0;
  for (uint j = gl_LocalInvocationID.x; j < n; j += 64u) {
    const float v = alpha * heap_f[x + j] + heap_f[y + j];
    weft_outbox_f(j, v);
    sq += v * v;
    mx = max(mx, abs(v));
  }
  message64(sq, mx, start);
}
