#version 450
#extension GL_GOOGLE_include_directive : require
// Token embedding lookup from q8_0 weights in a far segment (see embed.glsl).
#define WTYPE 8
#define FAR_WEIGHTS
#include "embed.glsl"
