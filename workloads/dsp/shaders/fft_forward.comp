#version 450
#extension GL_GOOGLE_include_directive : require
// Forward FFT pass: the Stockham body of fft_pass.glsl with W = exp(-2 pi i / N).
#include "fft_pass.glsl"
