#version 450
#extension GL_GOOGLE_include_directive : require
// Constraints: every particle must be inside the box with a finite state. One reflection is
// not enough for a particle that moved more than a box length in a step (an unstable step):
// it is clamped onto the wall, its velocity zeroed, and counted as a violation
// (PHYS_FLAG_OUTSIDE). A NaN or infinite coordinate is a violation too (PHYS_FLAG_NONFINITE);
// such a particle is left as it is, so the failure stays visible.
#include "physics_args.h"
#define WEFT_ARGS PHYSICS_ARGS
#include "weft.glsl"
#include "physics.glsl"

WEFT_STREAMING_KERNEL;

void main() {
  const vec3 L = box_size();
  const uint flags_at = par_u(PHYS_OFF_FLAGS);
  FOR_EACH_PARTICLE(i) {
    const vec3 p = load_vec(PHYS_OFF_POS, i), v = load_vec(PHYS_OFF_VEL, i);
    uint flags = globals_u[flags_at + i];
    if (any(isnan(p)) || any(isinf(p)) || any(isnan(v)) || any(isinf(v))) {
      flags |= PHYS_FLAG_NONFINITE;
    } else if (any(lessThan(p, vec3(0.0))) || any(greaterThan(p, L))) {
      store_vec(PHYS_OFF_POS, i, clamp(p, vec3(0.0), L));
      store_vec(PHYS_OFF_VEL, i, vec3(0.0));
      flags |= PHYS_FLAG_OUTSIDE;
    }
    globals_u[flags_at + i] = flags;
  }
}
