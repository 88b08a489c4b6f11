// Physics workload: a particle simulation as a chain on Weft's fixed bindings.
//
// Model. N particles in the box [0, Lx) x [0, Ly) x [0, Lz) with reflecting walls, either a
// Lennard-Jones gas (shifted-force form: potential and force both zero at r_c) or a simple SPH fluid (Mueller et al. 2003:
// poly6 density, spiky pressure gradient, viscosity, gravity). Time integration is velocity
// Verlet; the time step is a Control word that every integrating kernel reads each step.
//
// Layout. Heap: the parameter block "params" (shaders/physics_layout.h: sizes, constants and the
// word offset of every array, shared by C++ and GLSL) and the masses. Globals: positions,
// velocities and accelerations (N x 4 f32; acc.w = the particle's potential-energy share), the
// spatial hash grid (cell of each particle, its rank, per-cell counts and starts, the prefix-sum
// block totals, particle indices sorted by cell), per-particle flags, SPH density/pressure,
// reduction partials and the run state (E0, the reference energy, step count).
//
// One step (one instance "step<k>", registers 16 words wide; R30 = PHYS_MSG_* summary, R31 =
// the previous step's):
//   kick_drift -> collide -> constrain -> grid_clear -> grid_count -> scan_blocks -> scan_sums
//   -> scan_add -> grid_scatter -> cell_sort -> forces (LJ; or SPH density then forces) -> kick
//   -> reduce -> energy -> regulator
// Every arrow where data flows is a barrier the recorder plans (sub-step barriers inside the
// instance). A submission runs `steps_per_submit` steps; the first submission also runs a
// prologue (grid + forces + energy on instance "init") from indirect slots that the host then
// zeroes, so later submissions continue from the accelerations the last step left.
//
// Message and rules. The energy stage writes Metrics: norm = drift |E - E_ref| / |E_ref| (E_ref:
// the energy when the current dt began to be used; floored, see energy.comp), max_abs = the
// largest speed, status ATTENTION on a constraint violation, counters PHYS_CTR_*. Rules (data):
//   drift outside [0, drift_bound]  -> dt *= dt_factor, then clamp dt to [dt_min, dt_initial]
//   speed outside [0, runaway_speed] -> status ANOMALY on that step's record
// The regulator runs after each step, so a halved dt is used by the next step of the same
// submission.
//
// Determinism. The counting sort's atomic ranks depend on scheduling; cell_sort orders each
// cell by particle index, so forces are summed in an order fixed by the positions alone, and
// the CPU reference (f32, same order) matches the device to rounding (the device may fuse
// multiply-adds). Energy sums go through a fixed reduction tree.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <weft/weft.h>

#include "physics_layout.h"

namespace weft::physics {

enum class Model : uint32_t { LennardJones = PHYS_MODEL_LJ, Sph = PHYS_MODEL_SPH };
const char* model_name(Model m);

// Most cells a grid may have (the counts and starts take 8 bytes each).
inline constexpr uint64_t kMaxCells = uint64_t(1) << 24;
inline constexpr uint32_t kStatusOk = WEFT_STATUS_OK;

struct Params {
  Model model = Model::LennardJones;
  std::array<float, 3> box{10.0f, 10.0f, 10.0f};
  float cutoff = 2.5f;  // LJ: r_c; SPH: the smoothing length h
  float epsilon = 1.0f, sigma = 1.0f;  // LJ
  float rest_density = 1.0f, stiffness = 100.0f, viscosity = 0.1f;  // SPH
  std::array<float, 3> gravity{0.0f, 0.0f, 0.0f};
  float restitution = 1.0f;  // walls: 1 = elastic
  float dt = 0.005f;         // initial time step
};

struct Rules {
  std::optional<float> drift_bound;    // energy drift above this scales dt by dt_factor
  float dt_factor = 0.5f;
  float dt_min = 0.0f;                 // dt is clamped to [dt_min, Params::dt]
  std::optional<float> runaway_speed;  // a speed above this marks the step ANOMALY
};

struct Config {
  Params params;
  Rules rules;
  uint32_t steps_per_submit = 8;
};

// Particle state, xyz interleaved (3 floats per particle).
struct State {
  std::vector<float> pos, vel, mass;
  uint32_t count() const { return uint32_t(mass.size()); }
};

// BadInput naming what and where (particle index and component) for anything the simulation
// cannot run: sizes that disagree, a non-finite or non-positive mass, a position outside the
// box or not finite, a non-finite velocity, bad parameters, a grid over kMaxCells.
void validate(const Config& config, const State& state);

struct Scenario {
  Config config;
  State state;
};
// A Lennard-Jones gas on a simple cubic lattice filling a cube at `density` (sigma = eps = m =
// 1), Maxwell velocities at `temperature` with zero total momentum. Seeded.
Scenario lj_gas(uint32_t n, float density, float temperature, float dt, uint32_t seed);
// A compact LJ cluster (lattice spacing 1.12 sigma) in the middle of a box `margin` wider on
// every side, with thermal velocities at `temperature` plus a common drift velocity (so the
// total momentum is not zero).
Scenario lj_cluster(uint32_t n, float temperature, std::array<float, 3> drift, float margin, float dt, uint32_t seed);
// SPH dam break: a block of fluid (lattice spacing h/2) in one corner of a box 4 blocks wide,
// under gravity; rest density = the lattice's own interior density. Seeded jitter.
Scenario dam_break(uint32_t n, float dt, uint32_t seed);

// What one step reports (the device fills all; the reference computes them in double).
struct StepRecord {
  uint32_t step = 0;
  double energy = 0, kinetic = 0, potential = 0;
  double drift = 0, drift0 = 0;  // from E_ref and from E0
  double max_speed = 0;
  std::array<double, 3> momentum{0, 0, 0};
  double dt = 0;  // the time step this step used
  uint32_t violations = 0, wall_hits = 0;
  uint32_t status = 0;
  bool dt_rule_fired = false;       // this step's drift made the rule change dt
  bool runaway_rule_fired = false;  // this step's speed made the rule set ANOMALY
};

// ---- CPU reference ----------------------------------------------------------------------------
// The same chain in f32 in the device's summation order (grid cells ascending by particle
// index, the 27 cells z-y-x), energies accumulated in double, the same rules.
class Reference {
 public:
  Reference(const Config& config, const State& state);  // the prologue: grid, forces, E0
  StepRecord step();
  const State& state() const { return state_; }
  const std::vector<float>& accelerations() const { return acc_; }  // N x 4 (w = PE share)
  float dt() const { return dt_; }
  const StepRecord& initial() const { return initial_; }
  // The grid of the last force evaluation: starts per cell and indices grouped by cell.
  const std::vector<uint32_t>& cell_start() const { return start_; }
  const std::vector<uint32_t>& sorted() const { return sorted_; }

 private:
  void build_grid();
  void compute_forces();
  StepRecord measure(bool count_step);
  Config cfg_;
  State state_;
  std::vector<float> acc_, density_;
  std::vector<uint32_t> flags_, start_, count_, sorted_;
  std::array<uint32_t, 3> grid_{1, 1, 1};
  std::array<float, 3> inv_cell_{1, 1, 1};
  float dt_ = 0;
  double e0_ = 0, scale0_ = 0, eref_ = 0, scale_ = 0;
  float dt_seen_ = 0;
  bool have_e0_ = false;
  uint32_t steps_ = 0;
  StepRecord initial_;
};

// Grid shape for a box and cutoff: cells at least cutoff wide (with a 1e-5 margin, so f32
// rounding of the inverse cell size never makes one narrower).
std::array<uint32_t, 3> grid_shape(const Params& params);

// The f32 constants the kernels read from the parameter block, computed once here so the host
// block and the CPU reference use bit-identical values.
struct Derived {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<float, 3> inv_cell{1, 1, 1};  // cells per unit length
  float cutoff2 = 0, sigma2 = 0, shift = 0;  // LJ: r_c^2, sigma^2, u(r_c)
  float force_cut = 0;                       // LJ: F(r_c) = -u'(r_c)
  float poly6 = 0, spiky = 0;                // SPH: 315 / (64 pi h^9), 45 / (pi h^6)
  uint64_t cells() const { return uint64_t(grid[0]) * grid[1] * grid[2]; }
};
Derived derive(const Params& params);

// ---- device -----------------------------------------------------------------------------------
struct PhysicsProgram {
  Program program;
  InstanceId init;
  std::vector<InstanceId> steps;
  uint32_t dt_word = 0;
  std::vector<SlotId> prologue_slots;  // zeroed by the host after the first submission
  std::vector<StageId> regulators;     // one per step when there are rules
  int drift_rule = -1, runaway_rule = -1;  // rule index inside each regulator block
  std::vector<uint32_t> params;        // the Heap parameter block (physics_layout.h)
  // Segments "positions", "velocities" (f32[particles][4]); instance "last_step" (its outbox is
  // the last step's summary, PHYS_MSG_*).
  Ports ports;
};
PhysicsProgram build_program(const Config& config, uint32_t particles);
// Appends the physics chain to a caller's program (a composition): segments, the callback's
// stages (they run before the prologue and may write the state), then the prologue and steps.
// Segment names are the ones above; instances "init", "step<k>"; control word "dt".
using BeforeStages = std::function<void(Program&, const PhysicsProgram&)>;
PhysicsProgram append_program(Program program, const Config& config, uint32_t particles, const BeforeStages& before_stages = {});
// The state in an Executable made from the program: upload() writes the parameter block, the
// masses, positions and velocities; read_state() reads them back.
void upload(Executable& exe, const PhysicsProgram& pp, const State& state);
State read_state(Executable& exe, const PhysicsProgram& pp);

// Kinds: kick_drift, collide, constrain, grid_clear, grid_count, scan_blocks, scan_sums,
// scan_add, grid_scatter, cell_sort, forces_lj | density_sph + forces_sph, kick, reduce, energy,
// regulator.
using StageTime = KindTime;

class Simulation {
 public:
  // Validates, checks the storage-buffer window, builds, records once (Control persists across
  // submissions so the time step a rule set stays), uploads the state.
  Simulation(Device& device, const Config& config, const State& state);
  // One submission: steps_per_submit steps (plus the prologue the first time). Returns the
  // records of those steps, in order.
  std::vector<StepRecord> advance();
  StepRecord initial();  // the prologue's measurement (after the first advance)
  State state();
  std::vector<float> accelerations();  // N x 4
  float dt();
  uint32_t steps_taken();
  // The grid of the last force evaluation (read back for checks).
  std::vector<uint32_t> cell_start();
  std::vector<uint32_t> cell_count();
  std::vector<uint32_t> sorted();
  double gpu_ns();                      // GPU-timestamp time of the last submission
  std::vector<StageTime> stage_times();  // summed per stage kind
  Executable& executable() { return *exe_; }
  const PhysicsProgram& program_info() const { return info_; }

 private:
  Config cfg_;
  uint32_t n_;
  PhysicsProgram info_;
  std::unique_ptr<Executable> exe_;
  bool primed_ = false;
  bool prologue_in_last_run_ = false;  // the last advance() ran the prologue stages too
  std::vector<uint32_t> fired_drift_, fired_runaway_;
};

}  // namespace weft::physics
