/* Arguments of the physics kernels, shared by C++ and GLSL (bindings_layout/weft_args.h).
 * Every kernel reads the parameter block (physics_layout.h), which also holds the word offsets of
 * the particle and grid arrays, so the stages declare those arrays' ranges themselves. */
#ifndef PHYSICS_ARGS_H
#define PHYSICS_ARGS_H
#include "weft_args.h"

/* grid, forces, collisions, constraints, reductions: the parameter block alone. */
#define PHYSICS_ARGS(X) X(WEFT_IN(Heap), params)
/* kick, kick_drift: also the time step, a Control word a rule may change between steps. */
#define PHYSICS_TIMED_ARGS(X) X(WEFT_IN(Heap), params) X(WEFT_IN(Control), dt)
/* energy: the time step, and whether this is a step (counted) or the prologue. */
#define PHYSICS_ENERGY_ARGS(X) X(WEFT_IN(Heap), params) X(WEFT_IN(Control), dt) X(WEFT_U32, counts_step)

#ifdef __cplusplus
namespace weft::physics {
WEFT_KERNEL_ARGS(Args, PHYSICS_ARGS)
WEFT_KERNEL_ARGS(TimedArgs, PHYSICS_TIMED_ARGS)
WEFT_KERNEL_ARGS(EnergyArgs, PHYSICS_ENERGY_ARGS)
}  // namespace weft::physics
#endif
#endif /* PHYSICS_ARGS_H */
