#version 450
#extension GL_GOOGLE_include_directive : require
// sums[b] = y[b * block] + ... + y[b * block + block - 1], one workgroup per block (sequential
// within the block so the CPU reference can add in the same order).
#include "external_args.h"
#define WEFT_ARGS BLOCK_SUM_ARGS
#include "weft.glsl"

layout(local_size_x = 1) in;

void main() {
  const uint y = pc.args.y, sums = pc.args.sums, block = pc.args.block, b = gl_WorkGroupID.x;
  if (b >= pc.args.blocks) return;
  float s = 0.0;
  for (uint k = 0u; k < block; ++k) s += globals_f[y + b * block + k];
  globals_f[sums + b] = s;
}
