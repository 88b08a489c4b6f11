#version 450
#extension GL_GOOGLE_include_directive : require
// Neighbour aggregation, mean variant (the kernel is aggregate.glsl).
#define GNN_AGG 1
#include "aggregate.glsl"
