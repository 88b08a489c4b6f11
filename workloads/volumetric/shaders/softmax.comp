#version 450
#extension GL_GOOGLE_include_directive : require
// Softmax per row of width n (max subtracted first), one invocation per row.
// Arguments: VOLUMETRIC_SOFTMAX_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_SOFTMAX_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint x = pc.args.x, y = pc.args.y, rows = pc.args.rows, n = pc.args.n;
  for (uint r = gl_GlobalInvocationID.x; r < rows; r += gl_NumWorkGroups.x * 64u) {
    const uint row = x + r * n;
    float mx = globals_f[row];
    for (uint i = 1u; i < n; ++i) mx = max(mx, globals_f[row + i]);
    float s = 0.0;
    for (uint i = 0u; i < n; ++i) s += exp(globals_f[row + i] - mx);
    for (uint i = 0u; i < n; ++i) globals_f[y + r * n + i] = exp(globals_f[row + i] - mx) / s;
  }
  weft_require_loops_whole();
}
