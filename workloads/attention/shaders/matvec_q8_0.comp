#version 450
#extension GL_GOOGLE_include_directive : require
// Matrix-vector product over q8_0 weights (see matvec.glsl).
#define WTYPE 8
#include "matvec.glsl"
