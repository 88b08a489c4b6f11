#version 450
#extension GL_GOOGLE_include_directive : require
// Matrix-vector product over f32 weights in a far segment (see matvec.glsl).
#define WTYPE 0
#define FAR_WEIGHTS
#include "matvec.glsl"
