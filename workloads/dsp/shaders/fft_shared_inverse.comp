#version 450
#extension GL_GOOGLE_include_directive : require
// Inverse FFT (unnormalized) of one channel in one workgroup (fft_shared.glsl), N <= 2048.
#define WEFT_DSP_INVERSE 1
#include "fft_shared.glsl"
