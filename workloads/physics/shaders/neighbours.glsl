// The neighbour loop shared by the force kernels: the 27 cells around cell `ci` (those inside
// the grid), z then y then x from -1 to 1, and inside a cell the particles in ascending index
// (cell_sort made it so). The CPU reference walks them in exactly this order, so both sum the
// same terms in the same sequence. Inside the loop `j` is the neighbour candidate (i included).
//
//   NEIGHBOURS_BEGIN(ci) ... use j ... NEIGHBOURS_END
#define NEIGHBOURS_BEGIN(ci)                                                                      \
  for (int dz = -1; dz <= 1; ++dz)                                                                \
    for (int dy = -1; dy <= 1; ++dy)                                                              \
      for (int dx = -1; dx <= 1; ++dx) {                                                          \
        const ivec3 nc = (ci) + ivec3(dx, dy, dz);                                                \
        if (any(lessThan(nc, ivec3(0))) || any(greaterThanEqual(nc, ivec3(grid_dims())))) continue; \
        const uint ncell = cell_index(nc);                                                        \
        const uint nfirst = par_u(PHYS_OFF_SORTED) + globals_u[par_u(PHYS_OFF_START) + ncell];    \
        const uint ncount = globals_u[par_u(PHYS_OFF_COUNT) + ncell];                             \
        for (uint nk = 0u; nk < ncount; ++nk) {                                                   \
          const uint j = globals_u[nfirst + nk];
#define NEIGHBOURS_END \
  }                    \
  }
