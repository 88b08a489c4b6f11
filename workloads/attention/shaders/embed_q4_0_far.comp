#version 450
#extension GL_GOOGLE_include_directive : require
// Token embedding lookup from q4_0 weights in a far segment (see embed.glsl).
#define WTYPE 2
#define FAR_WEIGHTS
#include "embed.glsl"
