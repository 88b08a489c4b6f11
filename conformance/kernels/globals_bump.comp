#version 450
#extension GL_GOOGLE_include_directive : require
// Globals word 0 += 1, with no arguments: its stages declare the ranges it touches themselves
// (the declared-range checks of conformance/engine_cases.cpp).
#include "weft.glsl"

layout(local_size_x = 1) in;

void main() { globals_u[0] += 1u; }
