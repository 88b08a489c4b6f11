// The physics chain as a Weft program: a prologue (grid, forces, energy) dispatched from
// indirect slots the host zeroes after the first submission, then steps_per_submit unrolled
// steps, each one instance with its sub-step stages and a regulator pass.
#include <algorithm>
#include <string>

#include "physics.h"
#include "shaders/physics_args.h"
#include "weft_physics_kernels.h"

namespace weft::physics {

namespace {

// Dispatch shapes of the prologue's slots.
enum Shape : uint32_t { kParticles = 0, kCells = 1, kBlocks = 2, kSingle = 3, kPartials = 4, kShapes = 5 };

}  // namespace

PhysicsProgram build_program(const Config& cfg, uint32_t n) { return append_program(Program("physics"), cfg, n); }

namespace {

// What the segments and dispatches are sized by.
struct Sizes {
  uint32_t n = 0;
  uint64_t cells = 0;
  uint32_t blocks = 0, partials = 0;
  bool sph = false;
};

Sizes sizes_of(const Params& prm, const Derived& d, uint32_t n) {
  Sizes z;
  z.n = n;
  z.cells = d.cells();
  z.blocks = groups_for(z.cells, PHYS_SCAN_BLOCK);  // one workgroup per scan block
  z.partials = std::min<uint32_t>(grid_stride_groups(n, PHYS_REDUCE_GROUP), PHYS_MAX_PARTIALS);
  z.sph = prm.model == Model::Sph;
  return z;
}

void add_segments(Program& p, const Sizes& z) {
  const uint64_t n = z.n;
  p.heap().add("params", PHYS_PARAM_WORDS * 4);
  p.heap().add("mass", n * 4);
  for (const char* v : {"pos", "vel", "acc"}) p.globals().add(v, n * 16);
  p.globals().add("cell", n * 4);
  p.globals().add("rank", n * 4);
  p.globals().add("count", z.cells * 4);
  p.globals().add("start", z.cells * 4);
  p.globals().add("blocks", uint64_t(z.blocks) * 4);
  p.globals().add("sorted", n * 4);
  p.globals().add("flags", n * 4);
  p.globals().add("partial", uint64_t(z.partials) * PHYS_PARTIAL_WORDS * 4);
  p.globals().add("sim", PHYS_SIM_WORDS * 4);
  p.globals().add("density", z.sph ? n * 8 : 8);
}

// The parameter block (physics_layout.h) every kernel reads: sizes, constants and the word
// offsets of the arrays.
std::vector<uint32_t> parameter_block(const Program& p, const Params& prm, const Derived& d, const Sizes& z) {
  std::vector<uint32_t> w(PHYS_PARAM_WORDS, 0);
  auto setf = [&](uint32_t k, float v) { w[k] = f32_bits(v); };
  w[PHYS_N] = z.n;
  w[PHYS_GX] = d.grid[0];
  w[PHYS_GY] = d.grid[1];
  w[PHYS_GZ] = d.grid[2];
  w[PHYS_CELLS] = uint32_t(z.cells);
  w[PHYS_MODEL] = uint32_t(prm.model);
  w[PHYS_SCAN_BLOCKS] = z.blocks;
  w[PHYS_PARTIALS] = z.partials;
  for (uint32_t a = 0; a < 3; ++a) {
    setf(PHYS_BOX_X + a, prm.box[a]);
    setf(PHYS_INV_CELL_X + a, d.inv_cell[a]);
    setf(PHYS_GRAVITY_X + a, prm.gravity[a]);
  }
  setf(PHYS_CUTOFF2, d.cutoff2);
  setf(PHYS_LJ_EPSILON, prm.epsilon);
  setf(PHYS_LJ_SIGMA2, d.sigma2);
  setf(PHYS_LJ_SHIFT, d.shift);
  setf(PHYS_LJ_CUTOFF, prm.cutoff);
  setf(PHYS_LJ_FORCE_CUT, d.force_cut);
  setf(PHYS_SPH_H, prm.cutoff);
  setf(PHYS_SPH_REST, prm.rest_density);
  setf(PHYS_SPH_STIFF, prm.stiffness);
  setf(PHYS_SPH_VISC, prm.viscosity);
  setf(PHYS_SPH_POLY6, d.poly6);
  setf(PHYS_SPH_SPIKY, d.spiky);
  setf(PHYS_RESTITUTION, prm.restitution);
  const std::pair<uint32_t, const char*> arrays[] = {
      {PHYS_OFF_POS, "pos"},     {PHYS_OFF_VEL, "vel"},         {PHYS_OFF_ACC, "acc"},       {PHYS_OFF_CELL, "cell"},
      {PHYS_OFF_RANK, "rank"},   {PHYS_OFF_COUNT, "count"},     {PHYS_OFF_START, "start"},   {PHYS_OFF_BLOCKS, "blocks"},
      {PHYS_OFF_SORTED, "sorted"}, {PHYS_OFF_FLAGS, "flags"},   {PHYS_OFF_PARTIAL, "partial"}, {PHYS_OFF_SIM, "sim"},
      {PHYS_OFF_DENSITY, "density"}};
  for (const auto& [word, name] : arrays) w[word] = uint32_t(p.globals().at(name).word_offset());
  w[PHYS_OFF_MASS] = uint32_t(p.heap().at("mass").word_offset());
  return w;
}

// The stages of the prologue and of each step. A kernel reads the parameter block (which holds
// the arrays' offsets), so each stage declares the array ranges it touches itself.
class Stages {
 public:
  Stages(PhysicsProgram& pp, const Sizes& z)
      : pp_(pp), p_(pp.program), z_(z), params_(p_.segment(Binding::Heap, "params")),
        mass_(p_.segment(Binding::Heap, "mass")), dt_(p_.control_words(pp.dt_word, 1)) {
    // Particle and cell kernels loop with a grid stride.
    shapes_ = {{{grid_stride_groups(z.n, 64), 1, 1},
                {grid_stride_groups(z.cells, 64), 1, 1},
                {z.blocks, 1, 1},
                {1, 1, 1},
                {z.partials, 1, 1}}};
    const char* names[kShapes] = {"init.particles", "init.cells", "init.blocks", "init.single", "init.partials"};
    for (uint32_t s = 0; s < kShapes; ++s) pp.prologue_slots.push_back(p_.add_slot(names[s], shapes_[s]));
  }

  // Grid rebuild -> forces -> energy, the prologue's work (iteration -1).
  void prologue() {
    grid_and_forces(pp_.init, -1);
    measure(pp_.init, -1);
  }

  // Velocity Verlet step k: kick + drift, walls, constraints, new forces, kick, energy.
  void step(uint32_t k) {
    const InstanceId st = pp_.steps[k];
    const int it = int(k);
    const TimedArgs timed{.params = params_, .dt = dt_};
    add("kick_drift", st, it, kParticles, {g("pos"), g("vel"), g("acc")}, {g("pos"), g("vel")}, timed.bind());
    add("collide", st, it, kParticles, {g("pos"), g("vel")}, {g("pos"), g("vel"), g("flags")});
    add("constrain", st, it, kParticles, {g("pos"), g("vel"), g("flags")}, {g("pos"), g("vel"), g("flags")});
    grid_and_forces(st, it);
    add("kick", st, it, kParticles, {g("vel"), g("acc")}, {g("vel")}, timed.bind());
    measure(st, it);
  }

 private:
  Range g(const char* s) const { return p_.segment(Binding::Globals, s); }

  // One stage: in the prologue (iteration < 0) from the slot of its shape, else direct.
  // `args`: the kernel's arguments when it takes more than the parameter block.
  void add(const std::string& name, InstanceId inst, int iteration, Shape shape, std::vector<Range> reads,
           std::vector<Range> writes, std::vector<StageArg> args = {}, bool message = false) {
    StageSpec s;
    s.kernel = weft_physics_kernels.get(name);
    s.instance = inst;
    s.args = args.empty() ? Args{.params = params_}.bind() : std::move(args);
    s.reads = std::move(reads);
    s.writes = std::move(writes);
    s.message = message;
    // Per-particle kernels are streaming kernels: the engine shapes them per device and sizes
    // their dispatch (the prologue's slot too) from the particle count.
    if (shape == kParticles) s.streaming_units = z_.n;
    if (iteration < 0) {
      s.name = name + "[init]";
      s.indirect = pp_.prologue_slots[shape];
    } else {
      s.name = name + "[" + std::to_string(iteration) + "]";
      s.iteration = uint32_t(iteration);
      if (!s.streaming_units) s.groups = shapes_[shape];
    }
    p_.add_stage(std::move(s));
  }

  void grid_and_forces(InstanceId inst, int it) {
    add("grid_clear", inst, it, kCells, {}, {g("count")});
    add("grid_count", inst, it, kParticles, {g("pos")}, {g("cell"), g("rank"), g("count")});
    add("scan_blocks", inst, it, kBlocks, {g("count")}, {g("start"), g("blocks")});
    add("scan_sums", inst, it, kSingle, {g("blocks")}, {g("blocks")});
    add("scan_add", inst, it, kCells, {g("start"), g("blocks")}, {g("start")});
    add("grid_scatter", inst, it, kParticles, {g("cell"), g("rank"), g("start")}, {g("sorted")});
    add("cell_sort", inst, it, kCells, {g("count"), g("start"), g("sorted")}, {g("sorted")});
    const std::vector<Range> grid = {g("pos"), g("sorted"), g("start"), g("count"), mass_};
    if (z_.sph) {
      add("density_sph", inst, it, kParticles, grid, {g("density")});
      std::vector<Range> r = grid;
      r.push_back(g("vel"));
      r.push_back(g("density"));
      add("forces_sph", inst, it, kParticles, r, {g("acc")});
    } else {
      add("forces_lj", inst, it, kParticles, grid, {g("acc")});
    }
  }

  void measure(InstanceId inst, int it) {
    add("reduce", inst, it, kPartials, {g("vel"), g("acc"), g("flags"), mass_}, {g("partial")});
    add("energy", inst, it, kSingle, {g("partial"), g("sim")}, {g("sim")},
        EnergyArgs{.params = params_, .dt = dt_, .counts_step = it < 0 ? 0u : 1u}.bind(), true);
  }

  PhysicsProgram& pp_;
  Program& p_;
  Sizes z_;
  Range params_, mass_, dt_;
  std::array<std::array<uint32_t, 3>, kShapes> shapes_;
};

// The regulator role of step `st`, as data: drift halves the time step (clamped), a runaway
// speed marks the step ANOMALY. Outside [0, bound] also catches a NaN drift or speed.
std::vector<abi::WeftRule> step_rules(PhysicsProgram& pp, InstanceId st, const Rules& rules, float dt_max) {
  std::vector<abi::WeftRule> rs;
  if (rules.drift_bound) {
    const Condition drifted = Condition::outside(st, WEFT_METRIC_NORM, 0.0f, *rules.drift_bound);
    pp.drift_rule = int(rs.size());
    rs.push_back(rule(drifted, Action::scale_word(pp.dt_word, rules.dt_factor)));
    rs.push_back(rule(drifted, Action::clamp_word(pp.dt_word, rules.dt_min, dt_max)));
  }
  if (rules.runaway_speed) {
    pp.runaway_rule = int(rs.size());
    rs.push_back(rule(Condition::outside(st, WEFT_METRIC_MAX_ABS, 0.0f, *rules.runaway_speed),
                      Action::set_status(st, WEFT_STATUS_ANOMALY)));
  }
  return rs;
}

}  // namespace

PhysicsProgram append_program(Program program, const Config& cfg, uint32_t n, const BeforeStages& before_stages) {
  const Params& prm = cfg.params;
  const Derived d = derive(prm);
  const Sizes z = sizes_of(prm, d, n);
  PhysicsProgram pp{std::move(program), {}, {}, 0, {}, {}, -1, -1, {}, Ports("physics")};
  Program& p = pp.program;
  add_segments(p, z);
  pp.params = parameter_block(p, prm, d, z);
  pp.ports.add_segment("positions", p.segment(Binding::Globals, "pos"), "f32[particles][4]: x, y, z, unused")
      .add_segment("velocities", p.segment(Binding::Globals, "vel"), "f32[particles][4]: x, y, z, unused");

  // A composition's stages that must run before the prologue (e.g. setting the state up) see
  // the physics segments here.
  if (before_stages) before_stages(p, pp);

  pp.init = p.add_instance("init", PHYS_MSG_WORDS);
  for (uint32_t k = 0; k < cfg.steps_per_submit; ++k) {
    pp.steps.push_back(p.add_instance("step" + std::to_string(k), PHYS_MSG_WORDS));
    if (k) p.connect(pp.steps[k - 1], pp.steps[k]);  // R31 of a step = the previous step's summary
  }
  pp.ports.add_instance("last_step", pp.steps.back(), "its outbox (R30): the last step's summary, PHYS_MSG_* (physics_layout.h)");
  pp.dt_word = p.add_control_words("dt", {f32_bits(prm.dt)});

  Stages stages(pp, z);
  stages.prologue();
  for (uint32_t k = 0; k < cfg.steps_per_submit; ++k) {
    stages.step(k);
    const auto rs = step_rules(pp, pp.steps[k], cfg.rules, prm.dt);
    if (!rs.empty()) pp.regulators.push_back(add_regulator(p, "regulator[" + std::to_string(k) + "]", rs));
  }
  return pp;
}

}  // namespace weft::physics
