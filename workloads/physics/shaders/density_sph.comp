#version 450
#extension GL_GOOGLE_include_directive : require
// SPH density and pressure (Mueller et al. 2003): rho_i = sum_j m_j W_poly6(r_ij, h) over the
// neighbours within h (i itself included), p_i = stiffness * max(rho_i - rest, 0) (no tension,
// so free surfaces do not clump).
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
  const float h2 = par_f(PHYS_CUTOFF2), poly6 = par_f(PHYS_SPH_POLY6);
  const uint rho_at = par_u(PHYS_OFF_DENSITY);
  FOR_EACH_PARTICLE(k) {
    const uint i = globals_u[par_u(PHYS_OFF_SORTED) + k];  // cell order: see the note above main
    const vec3 pi = load_vec(PHYS_OFF_POS, i);
    float rho = 0.0;
    NEIGHBOURS_BEGIN(cell_coords(pi))
      const vec3 d = pi - load_vec(PHYS_OFF_POS, j);
      const float r2 = d.x * d.x + d.y * d.y + d.z * d.z;
      if (r2 >= h2) continue;
      const float w = h2 - r2;
      rho += mass(j) * poly6 * (w * w * w);
    NEIGHBOURS_END
    globals_f[rho_at + 2u * i] = rho;
    globals_f[rho_at + 2u * i + 1u] = par_f(PHYS_SPH_STIFF) * max(rho - par_f(PHYS_SPH_REST), 0.0);
  }
  weft_require_loops_whole();
}
