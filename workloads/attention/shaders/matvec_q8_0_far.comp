#version 450
#extension GL_GOOGLE_include_directive : require
// Matrix-vector product over q8_0 weights in a far segment (see matvec.glsl).
#define WTYPE 8
#define FAR_WEIGHTS
#include "matvec.glsl"
