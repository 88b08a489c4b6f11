#version 450
#extension GL_GOOGLE_include_directive : require
// Velocity Verlet, second half: v += dt/2 a(t + dt), with the acceleration just computed.
// user: [0] params (Heap word), [1] time-step control word.
#include "weft.glsl"
#include "physics.glsl"

layout(local_size_x = 64) in;

void main() {
  const float dt = time_step();
  FOR_EACH_PARTICLE(i, 64u) {
    store_vec(PHYS_OFF_VEL, i, load_vec(PHYS_OFF_VEL, i) + (0.5 * dt) * load_vec(PHYS_OFF_ACC, i));
  }
}
