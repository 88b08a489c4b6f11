#version 450
#extension GL_GOOGLE_include_directive : require
// Forward FFT of one channel in one workgroup (fft_shared.glsl), N <= 2048.
#include "fft_shared.glsl"
