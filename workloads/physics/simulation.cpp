// Simulation: a physics program on one device, recorded once; the state stays on the device
// and every advance() replays the command buffer for steps_per_submit more steps.
#include <cstring>

#include "physics.h"

namespace weft::physics {

namespace {

StepRecord decode(const abi::WeftMetrics& m, const std::vector<uint32_t>& msg) {
  StepRecord r;
  auto f = [&](uint32_t k) { return double(bits_f32(msg[k])); };
  r.step = msg[PHYS_MSG_STEP];
  r.energy = f(PHYS_MSG_ENERGY);
  r.kinetic = f(PHYS_MSG_KINETIC);
  r.potential = f(PHYS_MSG_POTENTIAL);
  r.drift = double(m.norm);
  r.drift0 = f(PHYS_MSG_DRIFT0);
  r.max_speed = double(m.max_abs);
  r.momentum = {f(PHYS_MSG_PX), f(PHYS_MSG_PY), f(PHYS_MSG_PZ)};
  r.dt = f(PHYS_MSG_DT);
  r.violations = msg[PHYS_MSG_VIOLATIONS];
  r.wall_hits = msg[PHYS_MSG_WALL_HITS];
  r.status = m.status;
  return r;
}

}  // namespace

void upload(Executable& exe, const PhysicsProgram& pp, const State& state) {
  const uint32_t n = state.count();
  exe.write_segment(Binding::Heap, "params", pp.params.data(), pp.params.size() * 4);
  exe.write_segment(Binding::Heap, "mass", state.mass.data(), state.mass.size() * 4);
  std::vector<float> v4(size_t(n) * 4, 0.0f);
  for (const auto& [port, src] : {std::pair{"positions", &state.pos}, std::pair{"velocities", &state.vel}}) {
    for (uint32_t i = 0; i < n; ++i)
      for (int a = 0; a < 3; ++a) v4[4 * i + a] = (*src)[3 * i + a];
    exe.write_range(pp.ports.segment(port), v4.data(), v4.size() * 4);
  }
}

State read_state(Executable& exe, const PhysicsProgram& pp) {
  State s;
  s.mass = exe.read_segment<float>(Binding::Heap, "mass");
  const size_t n = s.mass.size();
  for (const auto& [port, dst] : {std::pair{"positions", &s.pos}, std::pair{"velocities", &s.vel}}) {
    const std::vector<float> v4 = exe.read_range<float>(pp.ports.segment(port));
    dst->resize(n * 3);
    for (size_t i = 0; i < n; ++i)
      for (int a = 0; a < 3; ++a) (*dst)[3 * i + a] = v4[4 * i + a];
  }
  return s;
}

Simulation::Simulation(Device& device, const Config& config, const State& state)
    : cfg_(config), n_(state.count()) {
  validate(config, state);
  info_ = build_program(config, n_);
  // The kernels address Heap and Globals through the bound window only (no far access).
  info_.program.require_bound_window(device.info(), "physics: " + std::to_string(n_) + " particles");
  RecordOptions o;
  o.reset_control = false;  // the time step a rule set carries into the next submission
  exe_ = std::make_unique<Executable>(device, info_.program, o);
  upload(*exe_, info_, state);
  fired_drift_.assign(info_.regulators.size(), 0);
  fired_runaway_.assign(info_.regulators.size(), 0);
}

std::vector<StepRecord> Simulation::advance() {
  exe_->run();
  prologue_in_last_run_ = !primed_;
  if (!primed_) {
    // The prologue has computed a(t0) and E0; later submissions start from the last step's.
    for (SlotId s : info_.prologue_slots) exe_->set_control_word(exe_->program().slot_word(s), 0);
    primed_ = true;
  }
  std::vector<StepRecord> out;
  for (size_t k = 0; k < info_.steps.size(); ++k) {
    StepRecord r = decode(exe_->metrics(info_.steps[k]), exe_->read_register<uint32_t>(info_.steps[k], WEFT_R_OUTBOX));
    if (k < info_.regulators.size()) {
      const Program& p = exe_->program();
      if (info_.drift_rule >= 0) {
        const uint32_t f = exe_->control_word(regulator_fired_word(p, info_.regulators[k], uint32_t(info_.drift_rule)));
        r.dt_rule_fired = f != fired_drift_[k];
        fired_drift_[k] = f;
      }
      if (info_.runaway_rule >= 0) {
        const uint32_t f = exe_->control_word(regulator_fired_word(p, info_.regulators[k], uint32_t(info_.runaway_rule)));
        r.runaway_rule_fired = f != fired_runaway_[k];
        fired_runaway_[k] = f;
      }
    }
    out.push_back(r);
  }
  return out;
}

StepRecord Simulation::initial() {
  // Metrics are reset every run; the prologue's R30 stays in Registers.
  const std::vector<uint32_t> msg = exe_->read_register<uint32_t>(info_.init, WEFT_R_OUTBOX);
  abi::WeftMetrics m{};
  m.norm = bits_f32(msg[PHYS_MSG_DRIFT]);
  m.max_abs = bits_f32(msg[PHYS_MSG_MAX_SPEED]);
  return decode(m, msg);
}

State Simulation::state() { return read_state(*exe_, info_); }

std::vector<float> Simulation::accelerations() { return exe_->read_segment<float>(Binding::Globals, "acc"); }
float Simulation::dt() { return bits_f32(exe_->control_word(info_.dt_word)); }
uint32_t Simulation::steps_taken() {
  return exe_->read_segment<uint32_t>(Binding::Globals, "sim")[PHYS_SIM_STEP];
}
std::vector<uint32_t> Simulation::cell_start() { return exe_->read_segment<uint32_t>(Binding::Globals, "start"); }
std::vector<uint32_t> Simulation::cell_count() { return exe_->read_segment<uint32_t>(Binding::Globals, "count"); }
std::vector<uint32_t> Simulation::sorted() { return exe_->read_segment<uint32_t>(Binding::Globals, "sorted"); }
double Simulation::gpu_ns() { return exe_->timings().total_ns; }
std::vector<StageTime> Simulation::stage_times() {
  // After the first submission the prologue's slots are zero: its stages run no group.
  return stage_times_by_kind(exe_->program(), exe_->timings(),
                             [&](const Stage& s) { return prologue_in_last_run_ || !s.name.ends_with("[init]"); });
}

}  // namespace weft::physics
