// Shared by every physics kernel: the parameter block (physics_layout.h, in Heap at
// pc.args.params), the time step (a Control word, pc.args.dt, in the kernels that take it) and
// particle array access. Include after weft.glsl.
#include "physics_layout.h"

uint par_u(uint k) { return heap_u[pc.args.params + k]; }
float par_f(uint k) { return heap_f[pc.args.params + k]; }
uint particle_count() { return par_u(PHYS_N); }

// The time step is a control word so that a regulator rule can change it between two steps of
// the same submission; every kernel that integrates reads it afresh.
#ifdef PHYSICS_TIMED
float time_step() { return weft_control_f(pc.args.dt); }
#endif

vec3 load_vec(uint array, uint i) {
  const uint b = par_u(array) + 4u * i;
  return vec3(globals_f[b], globals_f[b + 1u], globals_f[b + 2u]);
}
void store_vec(uint array, uint i, vec3 v) {
  const uint b = par_u(array) + 4u * i;
  globals_f[b] = v.x;
  globals_f[b + 1u] = v.y;
  globals_f[b + 2u] = v.z;
}
float mass(uint i) { return heap_f[par_u(PHYS_OFF_MASS) + i]; }

uvec3 grid_dims() { return uvec3(par_u(PHYS_GX), par_u(PHYS_GY), par_u(PHYS_GZ)); }
vec3 box_size() { return vec3(par_f(PHYS_BOX_X), par_f(PHYS_BOX_Y), par_f(PHYS_BOX_Z)); }

// Cell coordinates of a position: floor(p * cells per unit), clamped into the grid so that a
// particle on (or, after a violation, beyond) a wall still lands in an edge cell. A product,
// not a division: it is correctly rounded everywhere, so the CPU reference bins identically.
ivec3 cell_coords(vec3 p) {
  const vec3 inv = vec3(par_f(PHYS_INV_CELL_X), par_f(PHYS_INV_CELL_Y), par_f(PHYS_INV_CELL_Z));
  const ivec3 g = ivec3(grid_dims());
  const vec3 c = floor(p * inv);
  // Clamp in float first: a huge or NaN coordinate must not overflow the int conversion.
  const vec3 cf = clamp(c, vec3(0.0), vec3(g - 1));
  return clamp(ivec3(cf), ivec3(0), g - 1);
}
uint cell_index(ivec3 c) {
  const uvec3 g = grid_dims();
  return (uint(c.z) * g.y + uint(c.y)) * g.x + uint(c.x);
}

// Per-particle and per-cell kernels are streaming kernels (WEFT_STREAMING_KERNEL): the engine
// shapes them per device and their stages give the particle or cell count as streaming units.
#define FOR_EACH_PARTICLE(i) WEFT_FOR_EACH_UNIT(i, particle_count())
