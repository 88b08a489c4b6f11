#version 450
#extension GL_GOOGLE_include_directive : require
// Matrix-vector product over f16 weights (see matvec.glsl).
#define WTYPE 1
#include "matvec.glsl"
