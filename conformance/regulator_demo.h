// The self-stopping Jacobi solver of regulator.jacobi_early_exit, as functions the benchmarks
// reuse (regulated early exit against the same loop run to the end).
#pragma once

#include <cstdint>
#include <vector>

#include <weft/weft.h>

namespace weft::conformance {

// A strictly diagonally dominant system (row-major A, and b): Jacobi contracts by about 2/3.
struct JacobiSystem {
  uint32_t n = 0;
  std::vector<float> a, b;
};
JacobiSystem make_jacobi_system(uint32_t n, uint32_t seed);

struct JacobiProgram {
  Program program;
  InstanceId solver;  // its Metrics: norm = residual of the last sweep, sequence = sweeps run
  Loop loop;
};
// `iterations` unrolled sweeps for n <= 64 unknowns. With `early_exit`, a regulator after every
// sweep but the last ends the loop once the residual is below `tol`; without, every sweep runs.
JacobiProgram jacobi_program(uint32_t n, uint32_t iterations, float tol, bool early_exit);

struct JacobiRun {
  uint32_t sweeps = 0;  // read from Metrics.sequence
  float residual = 0;   // the device's residual after the last sweep
  std::vector<float> x;
};
// Loads the system, starts from x = 0, runs once and reads the result back.
JacobiRun run_jacobi(Executable& exe, const JacobiSystem& system, InstanceId solver);

}  // namespace weft::conformance
