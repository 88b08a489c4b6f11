#version 450
#extension GL_GOOGLE_include_directive : require
// Lennard-Jones forces, shifted-force form: with u(r) = 4 eps ((s/r)^12 - (s/r)^6) and
// F(r) = -u'(r) = 24 eps s6 (2 s6 - 1) / r,
//   u_sf(r) = u(r) - u(r_c) + (r - r_c) F(r_c),   F_sf(r) = F(r) - F(r_c)   for r < r_c,
// so both the potential and the force go to zero at the cutoff: a pair crossing r_c gets no
// kick, which is what keeps the energy of a long NVE run from drifting.
// F_i = sum_j F_sf(r) / r (x_i - x_j).
// One invocation per particle sums over its grid neighbours in f32; acc = F / m, and acc.w =
// half of the particle's pair energies (so the sum over particles is the potential energy).
#include "physics_args.h"
#define WEFT_ARGS PHYSICS_ARGS
#include "weft.glsl"
#include "physics.glsl"
#include "neighbours.glsl"

WEFT_STREAMING_KERNEL;

// Invocations take particles in grid order (sorted[k]), not index order: neighbouring
// invocations then walk the same neighbour cells, so their loops have the same trip counts and
// read the same positions. Each particle's own sum keeps its order, so results are unchanged.

void main() {
  const float rc2 = par_f(PHYS_CUTOFF2), eps = par_f(PHYS_LJ_EPSILON), sigma2 = par_f(PHYS_LJ_SIGMA2);
  const float shift = par_f(PHYS_LJ_SHIFT), rc = par_f(PHYS_LJ_CUTOFF), fc = par_f(PHYS_LJ_FORCE_CUT);
  const uint acc_at = par_u(PHYS_OFF_ACC);
  FOR_EACH_PARTICLE(k) {
    const uint i = globals_u[par_u(PHYS_OFF_SORTED) + k];  // cell order: see the note above main
    const vec3 pi = load_vec(PHYS_OFF_POS, i);
    vec3 f = vec3(0.0);
    float pe = 0.0;
    NEIGHBOURS_BEGIN(cell_coords(pi))
      if (j == i) continue;
      const vec3 d = pi - load_vec(PHYS_OFF_POS, j);
      const float r2 = d.x * d.x + d.y * d.y + d.z * d.z;
      if (r2 >= rc2) continue;
      const float inv2 = sigma2 / r2;
      const float s6 = inv2 * inv2 * inv2;
      const float r = sqrt(r2);
      const float fr = 24.0 * eps * s6 * (2.0 * s6 - 1.0) / r2 - fc / r;
      f += fr * d;
      pe += 0.5 * (4.0 * eps * s6 * (s6 - 1.0) - shift + (r - rc) * fc);
    NEIGHBOURS_END
    const float m = mass(i);
    globals_f[acc_at + 4u * i] = f.x / m;
    globals_f[acc_at + 4u * i + 1u] = f.y / m;
    globals_f[acc_at + 4u * i + 2u] = f.z / m;
    globals_f[acc_at + 4u * i + 3u] = pe;
  }
  weft_require_loops_whole();
}
