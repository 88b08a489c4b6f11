#version 450
#extension GL_GOOGLE_include_directive : require
// Fills `count` Globals words from `dst` on with `value`, shaped by the engine per device.
#include "weft_engine_args.h"
#define WEFT_ARGS WEFT_FILL_ARGS
#include "weft.glsl"

WEFT_STREAMING_KERNEL;

void main() {
  const uint first = pc.args.dst, value = pc.args.value;
  WEFT_FOR_EACH_UNIT(i, pc.args.count) globals_u[first + i] = value;
}
