// The physics chain as a Weft program: a prologue (grid, forces, energy) dispatched from
// indirect slots the host zeroes after the first submission, then steps_per_submit unrolled
// steps, each one instance with its sub-step stages and a regulator pass.
#include <algorithm>
#include <string>

#include "physics.h"
#include "weft_physics_kernels.h"

namespace weft::physics {

namespace {


uint32_t groups_for(uint64_t items, uint32_t local) {
  // Grid-stride kernels: at most 65535 groups (the guaranteed maxComputeWorkGroupCount[0]).
  return uint32_t(std::clamp<uint64_t>((items + local - 1) / local, 1, 65535));
}

// Dispatch shapes of the prologue's slots.
enum Shape : uint32_t { kParticles = 0, kCells = 1, kBlocks = 2, kSingle = 3, kPartials = 4, kShapes = 5 };

}  // namespace

PhysicsProgram build_program(const Config& cfg, uint32_t n) { return append_program(Program("physics"), cfg, n); }

PhysicsProgram append_program(Program program, const Config& cfg, uint32_t n, const BeforeStages& before_stages) {
  const Params& prm = cfg.params;
  const Derived d = derive(prm);
  const uint64_t cells = d.cells();
  const uint32_t blocks = uint32_t((cells + PHYS_SCAN_BLOCK - 1) / PHYS_SCAN_BLOCK);
  const uint32_t partials = uint32_t(std::min<uint64_t>((uint64_t(n) + PHYS_REDUCE_GROUP - 1) / PHYS_REDUCE_GROUP, PHYS_MAX_PARTIALS));
  const bool sph = prm.model == Model::Sph;

  PhysicsProgram pp{std::move(program), {}, {}, 0, {}, {}, -1, -1, {}};
  Program& p = pp.program;
  p.heap().add("params", PHYS_PARAM_WORDS * 4);
  p.heap().add("mass", uint64_t(n) * 4);
  p.globals().add("pos", uint64_t(n) * 16);
  p.globals().add("vel", uint64_t(n) * 16);
  p.globals().add("acc", uint64_t(n) * 16);
  p.globals().add("cell", uint64_t(n) * 4);
  p.globals().add("rank", uint64_t(n) * 4);
  p.globals().add("count", cells * 4);
  p.globals().add("start", cells * 4);
  p.globals().add("blocks", uint64_t(blocks) * 4);
  p.globals().add("sorted", uint64_t(n) * 4);
  p.globals().add("flags", uint64_t(n) * 4);
  p.globals().add("partial", uint64_t(partials) * PHYS_PARTIAL_WORDS * 4);
  p.globals().add("sim", PHYS_SIM_WORDS * 4);
  p.globals().add("density", sph ? uint64_t(n) * 8 : 8);

  auto gw = [&](const char* s) { return uint32_t(p.globals().at(s).word_offset()); };
  std::vector<uint32_t>& w = pp.params;
  w.assign(PHYS_PARAM_WORDS, 0);
  auto setf = [&](uint32_t k, float v) { w[k] = f32_bits(v); };
  w[PHYS_N] = n;
  w[PHYS_GX] = d.grid[0];
  w[PHYS_GY] = d.grid[1];
  w[PHYS_GZ] = d.grid[2];
  w[PHYS_CELLS] = uint32_t(cells);
  w[PHYS_MODEL] = uint32_t(prm.model);
  w[PHYS_SCAN_BLOCKS] = blocks;
  w[PHYS_PARTIALS] = partials;
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
  w[PHYS_OFF_POS] = gw("pos");
  w[PHYS_OFF_VEL] = gw("vel");
  w[PHYS_OFF_ACC] = gw("acc");
  w[PHYS_OFF_CELL] = gw("cell");
  w[PHYS_OFF_RANK] = gw("rank");
  w[PHYS_OFF_COUNT] = gw("count");
  w[PHYS_OFF_START] = gw("start");
  w[PHYS_OFF_BLOCKS] = gw("blocks");
  w[PHYS_OFF_SORTED] = gw("sorted");
  w[PHYS_OFF_FLAGS] = gw("flags");
  w[PHYS_OFF_PARTIAL] = gw("partial");
  w[PHYS_OFF_SIM] = gw("sim");
  w[PHYS_OFF_DENSITY] = gw("density");
  w[PHYS_OFF_MASS] = uint32_t(p.heap().at("mass").word_offset());

  // A composition's stages that must run before the prologue (e.g. setting the state up) see
  // the physics segments here.
  if (before_stages) before_stages(p, pp);

  pp.init = p.add_instance("init", PHYS_MSG_WORDS);
  for (uint32_t k = 0; k < cfg.steps_per_submit; ++k) {
    pp.steps.push_back(p.add_instance("step" + std::to_string(k), PHYS_MSG_WORDS));
    if (k) p.connect(pp.steps[k - 1], pp.steps[k]);  // R31 of a step = the previous step's summary
  }
  pp.dt_word = p.add_control_words("dt", {f32_bits(prm.dt)});

  const uint32_t params_word = uint32_t(p.heap().at("params").word_offset());
  const std::array<std::array<uint32_t, 3>, kShapes> shapes{{{groups_for(n, 64), 1, 1},
                                                              {groups_for(cells, 64), 1, 1},
                                                              {blocks, 1, 1},
                                                              {1, 1, 1},
                                                              {partials, 1, 1}}};
  const char* shape_names[kShapes] = {"init.particles", "init.cells", "init.blocks", "init.single", "init.partials"};
  for (uint32_t s = 0; s < kShapes; ++s) pp.prologue_slots.push_back(p.add_slot(shape_names[s], shapes[s]));

  const Range params = p.segment(Binding::Heap, "params"), mass = p.segment(Binding::Heap, "mass");
  const Range dt = p.control_words(pp.dt_word, 1);
  auto g = [&](const char* s) { return p.segment(Binding::Globals, s); };

  // One stage: in the prologue (iteration < 0) from the slot of its shape, else direct.
  auto add = [&](const std::string& name, InstanceId inst, int iteration, Shape shape, std::vector<Range> reads,
                 std::vector<Range> writes, std::vector<uint32_t> extra = {}, bool message = false) {
    StageSpec s;
    s.kernel = weft_physics_kernels.get(name);
    s.instance = inst;
    s.push = {params_word, pp.dt_word};
    s.push.insert(s.push.end(), extra.begin(), extra.end());
    reads.push_back(params);
    s.reads = std::move(reads);
    s.writes = std::move(writes);
    s.message = message;
    if (iteration < 0) {
      s.name = name + "[init]";
      s.indirect = pp.prologue_slots[shape];
    } else {
      s.name = name + "[" + std::to_string(iteration) + "]";
      s.iteration = uint32_t(iteration);
      s.groups = shapes[shape];
    }
    return p.add_stage(std::move(s));
  };

  // Grid rebuild -> forces -> (optionally the second kick) -> energy, shared by prologue and steps.
  auto grid_and_forces = [&](InstanceId inst, int it) {
    add("grid_clear", inst, it, kCells, {}, {g("count")});
    add("grid_count", inst, it, kParticles, {g("pos")}, {g("cell"), g("rank"), g("count")});
    add("scan_blocks", inst, it, kBlocks, {g("count")}, {g("start"), g("blocks")});
    add("scan_sums", inst, it, kSingle, {g("blocks")}, {g("blocks")});
    add("scan_add", inst, it, kCells, {g("start"), g("blocks")}, {g("start")});
    add("grid_scatter", inst, it, kParticles, {g("cell"), g("rank"), g("start")}, {g("sorted")});
    add("cell_sort", inst, it, kCells, {g("count"), g("start"), g("sorted")}, {g("sorted")});
    const std::vector<Range> grid = {g("pos"), g("sorted"), g("start"), g("count"), mass};
    if (sph) {
      add("density_sph", inst, it, kParticles, grid, {g("density")});
      std::vector<Range> r = grid;
      r.push_back(g("vel"));
      r.push_back(g("density"));
      add("forces_sph", inst, it, kParticles, r, {g("acc")});
    } else {
      add("forces_lj", inst, it, kParticles, grid, {g("acc")});
    }
  };
  auto measure = [&](InstanceId inst, int it) {
    add("reduce", inst, it, kPartials, {g("vel"), g("acc"), g("flags"), mass}, {g("partial")});
    add("energy", inst, it, kSingle, {g("partial"), g("sim"), dt}, {g("sim")}, {it < 0 ? 0u : 1u}, true);
  };

  grid_and_forces(pp.init, -1);
  measure(pp.init, -1);

  const Rules& rules = cfg.rules;
  for (uint32_t k = 0; k < cfg.steps_per_submit; ++k) {
    const InstanceId st = pp.steps[k];
    const int it = int(k);
    add("kick_drift", st, it, kParticles, {g("pos"), g("vel"), g("acc"), dt}, {g("pos"), g("vel")});
    add("collide", st, it, kParticles, {g("pos"), g("vel")}, {g("pos"), g("vel"), g("flags")});
    add("constrain", st, it, kParticles, {g("pos"), g("vel"), g("flags")}, {g("pos"), g("vel"), g("flags")});
    grid_and_forces(st, it);
    add("kick", st, it, kParticles, {g("vel"), g("acc"), dt}, {g("vel")});
    measure(st, it);
    // The regulator role, as data: drift halves the time step (clamped), a runaway speed marks
    // the step ANOMALY. Outside [0, bound] also catches a NaN drift or speed.
    std::vector<abi::WeftRule> rs;
    if (rules.drift_bound) {
      const Condition drifted = Condition::outside(st, WEFT_METRIC_NORM, 0.0f, *rules.drift_bound);
      pp.drift_rule = int(rs.size());
      rs.push_back(rule(drifted, Action::scale_word(pp.dt_word, rules.dt_factor)));
      rs.push_back(rule(drifted, Action::clamp_word(pp.dt_word, rules.dt_min, prm.dt)));
    }
    if (rules.runaway_speed) {
      pp.runaway_rule = int(rs.size());
      rs.push_back(rule(Condition::outside(st, WEFT_METRIC_MAX_ABS, 0.0f, *rules.runaway_speed),
                        Action::set_status(st, WEFT_STATUS_ANOMALY)));
    }
    if (!rs.empty()) pp.regulators.push_back(add_regulator(p, "regulator[" + std::to_string(k) + "]", rs));
  }
  return pp;
}

}  // namespace weft::physics
