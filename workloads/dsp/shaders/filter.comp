#version 450
#extension GL_GOOGLE_include_directive : require
// Spectral filter of one channel: X[k] *= G[k], the per-bin complex gains from Heap. In place:
// each invocation reads and writes only its own bins.
#include "dsp_args.h"
#define WEFT_ARGS DSP_FILTER_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint x = pc.args.spectrum, g = pc.args.gains, N = pc.args.n;
  for (uint k = gl_GlobalInvocationID.x; k < N; k += gl_NumWorkGroups.x * 64u) {
    const vec2 a = vec2(globals_f[x + 2u * k], globals_f[x + 2u * k + 1u]);
    const vec2 b = vec2(heap_f[g + 2u * k], heap_f[g + 2u * k + 1u]);
    globals_f[x + 2u * k] = a.x * b.x - a.y * b.y;
    globals_f[x + 2u * k + 1u] = a.x * b.y + a.y * b.x;
  }
}
