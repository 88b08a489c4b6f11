#version 450
#extension GL_GOOGLE_include_directive : require
// Analysis window of one channel, real samples (window.glsl).
#include "window.glsl"
