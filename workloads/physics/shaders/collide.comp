#version 450
#extension GL_GOOGLE_include_directive : require
// Wall collisions: a particle past a wall of the box [0, L) is mirrored back inside and its
// normal velocity reversed (times the restitution). Writes the particle's flags afresh
// (PHYS_FLAG_WALL when it hit a wall this step).
#include "physics_args.h"
#define WEFT_ARGS PHYSICS_ARGS
#include "weft.glsl"
#include "physics.glsl"

WEFT_STREAMING_KERNEL;

void main() {
  const vec3 L = box_size();
  const float e = par_f(PHYS_RESTITUTION);
  const uint flags_at = par_u(PHYS_OFF_FLAGS);
  FOR_EACH_PARTICLE(i) {
    vec3 p = load_vec(PHYS_OFF_POS, i), v = load_vec(PHYS_OFF_VEL, i);
    uint flags = 0u;
    for (int a = 0; a < 3; ++a) {
      if (p[a] < 0.0) {
        p[a] = -p[a];
        v[a] = -e * v[a];
        flags |= PHYS_FLAG_WALL;
      } else if (p[a] > L[a]) {
        p[a] = 2.0 * L[a] - p[a];
        v[a] = -e * v[a];
        flags |= PHYS_FLAG_WALL;
      }
    }
    if (flags != 0u) {
      store_vec(PHYS_OFF_POS, i, p);
      store_vec(PHYS_OFF_VEL, i, v);
    }
    globals_u[flags_at + i] = flags;
  }
}
