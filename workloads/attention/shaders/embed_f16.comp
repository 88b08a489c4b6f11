#version 450
#extension GL_GOOGLE_include_directive : require
// Token embedding lookup from f16 weights (see embed.glsl).
#define WTYPE 1
#include "embed.glsl"
