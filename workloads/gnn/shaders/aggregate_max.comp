#version 450
#extension GL_GOOGLE_include_directive : require
// Neighbour aggregation, max variant (the kernel is aggregate.glsl).
#define GNN_AGG 2
#include "aggregate.glsl"
