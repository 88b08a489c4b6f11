#version 450
#extension GL_GOOGLE_include_directive : require
// One token VM step for every stream, reading the tokens sampled before it (vm_step.glsl).
#include "vm_step.glsl"
