#version 450
#extension GL_GOOGLE_include_directive : require
// Overlap-add and output of one channel, real samples (overlap_add.glsl).
#include "overlap_add.glsl"
