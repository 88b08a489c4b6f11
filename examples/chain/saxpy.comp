#version 450
#extension GL_GOOGLE_include_directive : require
// outbox[j] = alpha * x[j] + y[j] for j < n, x and y in Heap.
// One workgroup.
#define WEFT_ARGS(X) X(WEFT_F32, alpha) X(WEFT_IN(Heap), x) X(WEFT_IN(Heap), y) X(WEFT_U32, n)
#include "weft.glsl"
#include "message64.glsl"

layout(local_size_x = 64) in;

void main() {
  const uvec2 start = weft_clock();
  const float alpha = pc.args.alpha;
  const uint x = pc.args.x, y = pc.args.y, n = min(pc.args.n, pc.header.width);
  float sq = 0.0, mx = 0.0;
  for (uint j = gl_LocalInvocationID.x; j < n; j += 64u) {
    const float v = alpha * heap_f[x + j] + heap_f[y + j];
    weft_outbox_f(j, v);
    sq += v * v;
    mx = max(mx, abs(v));
  }
  message64(sq, mx, start);
}
