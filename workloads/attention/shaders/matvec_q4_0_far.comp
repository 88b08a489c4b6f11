#version 450
#extension GL_GOOGLE_include_directive : require
// Matrix-vector product over q4_0 weights in a far segment (see matvec.glsl).
#define WTYPE 2
#define FAR_WEIGHTS
#include "matvec.glsl"
