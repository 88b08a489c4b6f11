#version 450
#extension GL_GOOGLE_include_directive : require
// Inverse FFT pass (unnormalized): the Stockham body of fft_pass.glsl with conjugate twiddles.
#define WEFT_DSP_INVERSE 1
#include "fft_pass.glsl"
