/* The physics workload's parameter block: one header included by the C++ host and the GLSL
 * kernels, so both agree on which Heap word holds which parameter.
 *
 * The block lives in the Heap segment "params" (immutable during a run). Words are u32 or f32
 * as named; every array offset is a 32-bit word index into Globals (or Heap for the masses), so
 * a kernel needs only the block's address in its push constants to find all its data.
 */
#ifndef WEFT_PHYSICS_LAYOUT_H
#define WEFT_PHYSICS_LAYOUT_H

/* ---- sizes (u32) ---- */
#define PHYS_N            0u   /* particles */
#define PHYS_GX           1u   /* grid cells along x, y, z */
#define PHYS_GY           2u
#define PHYS_GZ           3u
#define PHYS_CELLS        4u   /* gx * gy * gz */
#define PHYS_MODEL        5u   /* PHYS_MODEL_LJ / PHYS_MODEL_SPH */
#define PHYS_SCAN_BLOCKS  6u   /* blocks of PHYS_SCAN_BLOCK cells in the prefix sum */
#define PHYS_PARTIALS     7u   /* workgroups of the energy reduction */

/* ---- geometry and model constants (f32) ---- */
#define PHYS_BOX_X        8u   /* the box is [0, box) on each axis */
#define PHYS_BOX_Y        9u
#define PHYS_BOX_Z        10u
#define PHYS_INV_CELL_X   11u  /* cells per unit length (1 / cell size) */
#define PHYS_INV_CELL_Y   12u
#define PHYS_INV_CELL_Z   13u
#define PHYS_CUTOFF2      14u  /* LJ: r_c^2; SPH: h^2 */
#define PHYS_LJ_EPSILON   15u
#define PHYS_LJ_SIGMA2    16u
#define PHYS_LJ_SHIFT     17u  /* u(r_c), subtracted so the potential is continuous at r_c */
#define PHYS_SPH_H        18u
#define PHYS_SPH_REST     19u  /* rest density */
#define PHYS_SPH_STIFF    20u  /* p = stiffness * max(rho - rest, 0) */
#define PHYS_SPH_VISC     21u  /* viscosity mu */
#define PHYS_SPH_POLY6    22u  /* 315 / (64 pi h^9) */
#define PHYS_SPH_SPIKY    23u  /* 45 / (pi h^6): gradient of spiky and laplacian of viscosity */
#define PHYS_GRAVITY_X    24u
#define PHYS_GRAVITY_Y    25u
#define PHYS_GRAVITY_Z    26u
#define PHYS_RESTITUTION  27u  /* wall reflection keeps this fraction of the normal speed */
#define PHYS_LJ_CUTOFF    28u  /* r_c */
#define PHYS_LJ_FORCE_CUT 29u  /* F(r_c) = -u'(r_c), subtracted so the force is continuous at r_c */

/* ---- array offsets: Globals words unless noted (u32) ---- */
#define PHYS_OFF_POS      32u  /* N x 4 f32: x y z 0 */
#define PHYS_OFF_VEL      33u  /* N x 4 f32: vx vy vz 0 */
#define PHYS_OFF_ACC      34u  /* N x 4 f32: ax ay az, w = potential energy share of the particle */
#define PHYS_OFF_CELL     35u  /* N u32: the particle's cell */
#define PHYS_OFF_RANK     36u  /* N u32: its arrival rank in the cell (atomic order, then sorted) */
#define PHYS_OFF_COUNT    37u  /* cells u32: particles per cell */
#define PHYS_OFF_START    38u  /* cells u32: exclusive prefix sum of COUNT */
#define PHYS_OFF_BLOCKS   39u  /* scan blocks u32: block totals, then their exclusive sums */
#define PHYS_OFF_SORTED   40u  /* N u32: particle indices grouped by cell, ascending in a cell */
#define PHYS_OFF_FLAGS    41u  /* N u32: PHYS_FLAG_* of the last step */
#define PHYS_OFF_PARTIAL  42u  /* partials x PHYS_PARTIAL_WORDS: per-workgroup sums */
#define PHYS_OFF_SIM      43u  /* PHYS_SIM_WORDS: run state kept between steps and submits */
#define PHYS_OFF_DENSITY  44u  /* N x 2 f32 (SPH): density, pressure */
#define PHYS_OFF_MASS     45u  /* Heap word: N f32 masses */

#define PHYS_PARAM_WORDS  48u

#define PHYS_MODEL_LJ  0u
#define PHYS_MODEL_SPH 1u

/* Cells per prefix-sum block (128 threads x 8 cells). */
#define PHYS_SCAN_BLOCK 1024u
#define PHYS_SCAN_PER_THREAD 8u
/* Particles per energy-reduction workgroup and the most workgroups it uses. */
#define PHYS_REDUCE_GROUP 128u
#define PHYS_MAX_PARTIALS 256u

/* flags of a particle after collide + constrain */
#define PHYS_FLAG_WALL      1u  /* hit a wall this step (reflected) */
#define PHYS_FLAG_OUTSIDE   2u  /* still outside the box after reflection: clamped (violation) */
#define PHYS_FLAG_NONFINITE 4u  /* NaN or infinite position or velocity (violation) */

/* one partial: f32 KE, PE, px, py, pz, max speed; u32 violations, wall hits */
#define PHYS_PARTIAL_WORDS 8u

/* run state (Globals "sim") */
#define PHYS_SIM_E0_VALID 0u  /* u32: 0 until the first energy stage records E0 */
#define PHYS_SIM_E0       1u  /* f32: energy at the start of the run */
#define PHYS_SIM_EREF     2u  /* f32: energy the drift is measured from (E0, or E after a dt change) */
#define PHYS_SIM_SCALE    3u  /* f32: K + |U| at the reference: floors the drift's denominator */
#define PHYS_SIM_DT_SEEN  4u  /* f32: the time step when EREF was taken */
#define PHYS_SIM_STEP     5u  /* u32: steps taken */
#define PHYS_SIM_SCALE0   6u  /* f32: K + |U| at the start: floors the denominator of drift since E0 */
#define PHYS_SIM_WORDS    8u

/* Message payload in R30 of a step instance (16 words; u32 where named). */
#define PHYS_MSG_ENERGY     0u
#define PHYS_MSG_KINETIC    1u
#define PHYS_MSG_POTENTIAL  2u
#define PHYS_MSG_DRIFT      3u   /* |E - Eref| / max(|Eref|, 1e-3 scale): what the rule reads */
#define PHYS_MSG_DRIFT0     4u   /* |E - E0| / max(|E0|, 1e-3 scale): since the run began */
#define PHYS_MSG_MAX_SPEED  5u
#define PHYS_MSG_PX         6u
#define PHYS_MSG_PY         7u
#define PHYS_MSG_PZ         8u
#define PHYS_MSG_DT         9u
#define PHYS_MSG_VIOLATIONS 10u  /* u32 */
#define PHYS_MSG_WALL_HITS  11u  /* u32 */
#define PHYS_MSG_STEP       12u  /* u32 */
#define PHYS_MSG_WORDS      16u

/* Metrics counters of a step instance: counters[k] (u32 or f32 bits as named). */
#define PHYS_CTR_STEP       0u  /* u32 */
#define PHYS_CTR_VIOLATIONS 1u  /* u32 */
#define PHYS_CTR_WALL_HITS  2u  /* u32 */
#define PHYS_CTR_ENERGY     3u  /* f32 */
#define PHYS_CTR_KINETIC    4u  /* f32 */
#define PHYS_CTR_POTENTIAL  5u  /* f32 */
#define PHYS_CTR_DRIFT0     6u  /* f32 */
#define PHYS_CTR_PX         7u  /* f32 */
#define PHYS_CTR_PY         8u  /* f32 */
#define PHYS_CTR_PZ         9u  /* f32; the time step used is in R30 (PHYS_MSG_DT) */

#endif /* WEFT_PHYSICS_LAYOUT_H */
