#version 450
#extension GL_GOOGLE_include_directive : require
// Velocity Verlet, second half: v += dt/2 a(t + dt), with the acceleration just computed.
#include "physics_args.h"
#define WEFT_ARGS PHYSICS_TIMED_ARGS
#include "weft.glsl"
#define PHYSICS_TIMED
#include "physics.glsl"

WEFT_STREAMING_KERNEL;

void main() {
  const float dt = time_step();
  FOR_EACH_PARTICLE(i) {
    store_vec(PHYS_OFF_VEL, i, load_vec(PHYS_OFF_VEL, i) + (0.5 * dt) * load_vec(PHYS_OFF_ACC, i));
  }
}
