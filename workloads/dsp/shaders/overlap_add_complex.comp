#version 450
#extension GL_GOOGLE_include_directive : require
// Overlap-add and output of one channel, complex samples (overlap_add.glsl).
#define WEFT_DSP_COMPLEX
#include "overlap_add.glsl"
