#version 450
#extension GL_GOOGLE_include_directive : require
// Inverse FFT (unnormalized) of one channel in one workgroup (fft_shared.glsl), N <= 4096: 32 KiB of shared memory.
#define WEFT_DSP_INVERSE
#define WEFT_DSP_LARGE
#include "fft_shared.glsl"
