#version 450
#extension GL_GOOGLE_include_directive : require
// outbox[j] = drive * signal[j] (signal in Heap). One workgroup.
#define WEFT_ARGS(X) X(WEFT_F32, drive) X(WEFT_IN(Heap), signal) X(WEFT_U32, n)
#include "weft.glsl"
#include "message64.glsl"

layout(local_size_x = 64) in;

void main() {
  const uvec2 start = weft_clock();
  const float drive = pc.args.drive;
  const uint signal = pc.args.signal, n = min(pc.args.n, pc.header.width);
  float sq = 0.0, mx = 0.0;
  for (uint j = gl_LocalInvocationID.x; j < n; j += 64u) {
    const float v = drive * heap_f[signal + j];
    weft_outbox_f(j, v);
    sq += v * v;
    mx = max(mx, abs(v));
  }
  message64(sq, mx, start);
}
