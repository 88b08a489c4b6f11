#version 450
#extension GL_GOOGLE_include_directive : require
// Backward of a row softmax from its output y: dx = y * (dy - sum(dy * y)), one invocation per row.
// Arguments: VOLUMETRIC_SOFTMAX_BACKWARD_ARGS (volumetric_args.h).
#include "volumetric_args.h"
#define WEFT_ARGS VOLUMETRIC_SOFTMAX_BACKWARD_ARGS
#include "weft.glsl"

layout(local_size_x = 64) in;

void main() {
  const uint y = pc.args.y, dy = pc.args.dy, dx = pc.args.dx, rows = pc.args.rows, n = pc.args.n;
  for (uint r = gl_GlobalInvocationID.x; r < rows; r += gl_NumWorkGroups.x * 64u) {
    float s = 0.0;
    for (uint i = 0u; i < n; ++i) s += globals_f[dy + r * n + i] * globals_f[y + r * n + i];
    for (uint i = 0u; i < n; ++i) globals_f[dx + r * n + i] = globals_f[y + r * n + i] * (globals_f[dy + r * n + i] - s);
  }
  weft_require_loops_whole();
}
