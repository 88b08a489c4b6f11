#version 450
#extension GL_GOOGLE_include_directive : require
// Neighbour aggregation, sum variant (the kernel is aggregate.glsl).
#define GNN_AGG 0
#include "aggregate.glsl"
