#version 450
#extension GL_GOOGLE_include_directive : require
// ORDER BY: the identity permutation over the padded size.
#include "db_args.h"
#define WEFT_ARGS DB_SORT_INIT_ARGS
#include "weft.glsl"
#include "db.glsl"

WEFT_STREAMING_KERNEL;  // shaped by the engine per device (engine/kernel_shape.h)

void main() {
  WEFT_FOR_EACH_UNIT(i, pc.args.padded) globals_u[pc.args.perm + i] = i;
}
