#version 450
#extension GL_GOOGLE_include_directive : require
// Token embedding lookup from q8_0 weights (see embed.glsl).
#define WTYPE 8
#include "embed.glsl"
