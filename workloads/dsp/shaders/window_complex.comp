#version 450
#extension GL_GOOGLE_include_directive : require
// Analysis window of one channel, complex samples (window.glsl).
#define WEFT_DSP_COMPLEX
#include "window.glsl"
