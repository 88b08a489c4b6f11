#version 450
#extension GL_GOOGLE_include_directive : require
// Token embedding lookup from f32 weights (see embed.glsl).
#define WTYPE 0
#include "embed.glsl"
