#version 450
#extension GL_GOOGLE_include_directive : require
// Matrix-vector product over f32 weights (see matvec.glsl).
#define WTYPE 0
#include "matvec.glsl"
