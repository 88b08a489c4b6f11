#version 450
#extension GL_GOOGLE_include_directive : require
// Velocity Verlet, first half: v += dt/2 a(t); x += dt v. a(t) is the acceleration the last
// force stage left (the prologue computes it for the first step).
#include "physics_args.h"
#define WEFT_ARGS PHYSICS_TIMED_ARGS
#include "weft.glsl"
#define PHYSICS_TIMED
#include "physics.glsl"

WEFT_STREAMING_KERNEL;

void main() {
  const float dt = time_step();
  FOR_EACH_PARTICLE(i) {
    const vec3 v = load_vec(PHYS_OFF_VEL, i) + (0.5 * dt) * load_vec(PHYS_OFF_ACC, i);
    store_vec(PHYS_OFF_VEL, i, v);
    store_vec(PHYS_OFF_POS, i, load_vec(PHYS_OFF_POS, i) + dt * v);
  }
}
