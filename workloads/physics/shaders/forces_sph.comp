#version 450
#extension GL_GOOGLE_include_directive : require
// SPH forces (Mueller et al. 2003) with gravity:
//   pressure   f_i += m_j (p_i + p_j) / (2 rho_j) * C (h - r)^2 (x_i - x_j) / r
//   viscosity  f_i += mu m_j (v_j - v_i) / rho_j * C (h - r)          C = 45 / (pi h^6)
//   a_i = f_i / rho_i + g,  acc.w = -m_i g . x_i (the particle's gravitational energy).
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
  const float h2 = par_f(PHYS_CUTOFF2), h = par_f(PHYS_SPH_H), spiky = par_f(PHYS_SPH_SPIKY), mu = par_f(PHYS_SPH_VISC);
  const vec3 g = vec3(par_f(PHYS_GRAVITY_X), par_f(PHYS_GRAVITY_Y), par_f(PHYS_GRAVITY_Z));
  const uint rho_at = par_u(PHYS_OFF_DENSITY), acc_at = par_u(PHYS_OFF_ACC);
  FOR_EACH_PARTICLE(k) {
    const uint i = globals_u[par_u(PHYS_OFF_SORTED) + k];  // cell order: see the note above main
    const vec3 pi = load_vec(PHYS_OFF_POS, i), vi = load_vec(PHYS_OFF_VEL, i);
    const float rho_i = globals_f[rho_at + 2u * i], p_i = globals_f[rho_at + 2u * i + 1u];
    vec3 f = vec3(0.0);
    NEIGHBOURS_BEGIN(cell_coords(pi))
      if (j == i) continue;
      const vec3 d = pi - load_vec(PHYS_OFF_POS, j);
      const float r2 = d.x * d.x + d.y * d.y + d.z * d.z;
      if (r2 >= h2 || r2 == 0.0) continue;
      const float r = sqrt(r2), w = h - r;
      const float rho_j = globals_f[rho_at + 2u * j], p_j = globals_f[rho_at + 2u * j + 1u], m_j = mass(j);
      f += (m_j * (p_i + p_j) / (2.0 * rho_j) * spiky * w * w / r) * d;
      f += (mu * m_j / rho_j * spiky * w) * (load_vec(PHYS_OFF_VEL, j) - vi);
    NEIGHBOURS_END
    const vec3 a = f / rho_i + g;
    globals_f[acc_at + 4u * i] = a.x;
    globals_f[acc_at + 4u * i + 1u] = a.y;
    globals_f[acc_at + 4u * i + 2u] = a.z;
    globals_f[acc_at + 4u * i + 3u] = -mass(i) * dot(g, pi);
  }
  weft_require_loops_whole();
}
