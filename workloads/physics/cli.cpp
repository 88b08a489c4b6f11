// weft physics demo|bench: the physics workload (workloads/physics) on one device against its
// CPU reference.
//
//   weft physics demo [--model lj|sph|both] [--particles N] [--steps S] [--steps-per-submit K]
//                     [--dt X] [--drift-bound X] [--seed S] [--device SEL] [--validation]
//     an LJ gas and an SPH dam break: energy, drift, momentum per submission, rule firings, GPU
//     time per stage, and the error against the CPU reference over the first submission's steps.
//   weft physics bench [--sizes N1,N2,...] [--model lj|sph|both] [--steps-per-submit K] [--runs R]
//                      [--device SEL]
//     JSON lines: particle-steps per second (GPU timestamps) and the ratio against the CPU
//     reference timed in the same run. Default sizes: 1e4 and 1e5 (1e6 too on a GPU).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <string>

#include <weft/weft.h>

#include "bench.h"
#include "cli.h"
#include "conformance.h"
#include "physics.h"

namespace {

using weft::conformance::compare;

using namespace weft;
using namespace weft::physics;

using cli::u32;
using cli::f32;

// `weft help` lines of this command.
const char* const kHelpLines =
    "  physics demo|bench [--model lj|sph|both --particles N --steps S --sizes N1,N2]\n"
    "                                          particles (LJ gas, SPH dam break) vs their CPU reference\n";

const char* kPhysicsUsage =
    "usage: weft physics demo  [--model lj|sph|both] [--particles N] [--steps S] [--steps-per-submit K] [--dt X]\n"
    "                          [--drift-bound X] [--seed S] [--device SEL] [--validation]\n"
    "       weft physics bench [--sizes N1,N2,...] [--model lj|sph|both] [--steps-per-submit K] [--runs R] [--device SEL]\n"
    "  demo: an LJ gas (density 0.3, T 2, velocity Verlet, reflecting walls) and an SPH dam break; prints\n"
    "        energy, drift, momentum, rule firings, GPU time per stage and the error against the CPU reference;\n"
    "        with --model both (the default) a third run sets the gas to trip both rules (dt halved, ANOMALY)\n"
    "  bench: JSON lines, particle-steps per second and the ratio to the CPU reference in the same run\n"
    "        (default sizes 10000,100000, plus 1000000 on a non-CPU device; --sizes for larger)\n";

std::vector<Model> models(const cli::Args& a) {
  const std::string m = a.get("model", "both");
  if (m == "lj") return {Model::LennardJones};
  if (m == "sph") return {Model::Sph};
  if (m == "both") return {Model::LennardJones, Model::Sph};
  fail(ErrorCode::BadInput, "--model must be lj, sph or both, got '" + m + "'");
}

// The demo's third run: the LJ gas made to trip both rules, so the output shows them acting on
// the device inside a submission — a time step 5x the stable one (the drift rule halves it) and
// a speed limit below the gas's fastest particles (those steps are marked ANOMALY).
struct RuleDemo {
  float dt = 0.02f, runaway_speed = 4.0f;
};

Scenario scenario(Model m, uint32_t n, float dt, uint32_t seed) {
  if (m == Model::Sph) return dam_break(n, dt > 0 ? dt : 0.004f, seed);
  return lj_gas(n, 0.3f, 2.0f, dt > 0 ? dt : 0.004f, seed);
}

// max |a - b| / max |b| over xyz-interleaved arrays.
int demo_one(Device& dev, const cli::Args& a, Model model, const RuleDemo* rules = nullptr) {
  const uint32_t n = u32(a, "particles", model == Model::Sph ? 2000 : 1000);
  const uint32_t steps = u32(a, "steps", 400), per = u32(a, "steps-per-submit", 20), seed = u32(a, "seed", 1);
  Scenario sc = scenario(model, n, rules ? rules->dt : f32(a, "dt", 0), seed);
  sc.config.steps_per_submit = per;
  // LJ is conservative: hold it to a drift bound. SPH dissipates by design (viscosity, inelastic
  // walls): no drift rule; a runaway-speed rule only.
  if (model == Model::LennardJones) sc.config.rules.drift_bound = f32(a, "drift-bound", 0.01f);
  sc.config.rules.dt_min = sc.config.params.dt / 64;
  sc.config.rules.runaway_speed = rules ? rules->runaway_speed : model == Model::Sph ? 50.0f : 20.0f;
  const Params& p = sc.config.params;
  const auto g = grid_shape(p);
  if (rules) std::printf("== the rules acting: the LJ gas with dt %g (5x the stable step) and a speed limit of %g\n",
                         double(rules->dt), double(rules->runaway_speed));
  std::printf("== %s: %u particles, box %.3g x %.3g x %.3g, grid %u x %u x %u, dt %g, %u steps (%u per submit)\n",
              model == Model::Sph ? "SPH dam break" : "Lennard-Jones gas", n, double(p.box[0]), double(p.box[1]),
              double(p.box[2]), g[0], g[1], g[2], double(p.dt), steps, per);
  std::printf("rules: %s; speed outside [0, %g] -> status ANOMALY\n",
              sc.config.rules.drift_bound
                  ? ("drift outside [0, " + std::to_string(*sc.config.rules.drift_bound) + "] -> dt *= 0.5").c_str()
                  : "no drift rule (dissipative)",
              double(*sc.config.rules.runaway_speed));

  Simulation sim(dev, sc.config, sc.state);
  Reference ref(sc.config, sc.state);
  double pos_err = 0, vel_err = 0, e_err = 0;
  uint32_t compared = 0;
  uint32_t dt_fired = 0, anomalies = 0, violations = 0;
  std::vector<StageTime> totals;
  double gpu_total = 0;
  std::printf("\n  step   energy        drift(E0)   |momentum|  max speed  dt         wall hits  status\n");
  for (uint32_t done = 0; done < steps; done += per) {
    const std::vector<StepRecord> recs = sim.advance();
    if (done == 0) {
      const StepRecord i = sim.initial();
      std::printf("  %4u   %-12.6g  %-10.3e  %-10.3e  %-9.4g  %-9.3g  %-9u  %u\n", 0u, i.energy, 0.0,
                  std::hypot(i.momentum[0], i.momentum[1], i.momentum[2]), i.max_speed, i.dt, i.wall_hits, i.status);
    }
    gpu_total += sim.gpu_ns();
    const auto st = sim.stage_times();
    for (const StageTime& t : st) {
      auto it = std::find_if(totals.begin(), totals.end(), [&](const StageTime& x) { return x.kind == t.kind; });
      if (it == totals.end()) totals.push_back(t);
      else it->ns += t.ns;
    }
    for (const StepRecord& r : recs) {
      dt_fired += r.dt_rule_fired;
      anomalies += r.status == WEFT_STATUS_ANOMALY;
      violations += r.violations;
      if (done == 0) {  // the reference follows the first submission step by step
        const StepRecord c = ref.step();
        e_err = std::max(e_err, std::fabs(r.energy - c.energy) / std::max(std::fabs(c.energy), 1e-3 * (c.kinetic + std::fabs(c.potential))));
        ++compared;
      }
    }
    if (done == 0) {
      const State s = sim.state();
      pos_err = compare(s.pos, ref.state().pos).normalized_max();
      vel_err = compare(s.vel, ref.state().vel).normalized_max();
    }
    const StepRecord& r = recs.back();
    std::printf("  %4u   %-12.6g  %-10.3e  %-10.3e  %-9.4g  %-9.3g  %-9u  %u\n", r.step, r.energy, r.drift0,
                std::hypot(r.momentum[0], r.momentum[1], r.momentum[2]), r.max_speed, r.dt, r.wall_hits, r.status);
  }
  std::printf("\nrule firings: time-step halvings %u (dt now %g), ANOMALY steps %u; constraint violations %u\n", dt_fired,
              double(sim.dt()), anomalies, violations);
  std::printf("\nGPU time per stage (timestamps, all submissions):\n");
  for (const StageTime& t : totals) std::printf("  %-13s %10.3f ms\n", t.kind.c_str(), t.ns * 1e-6);
  std::printf("  %-13s %10.3f ms  (%.3g particle-steps/s)\n", "total", gpu_total * 1e-6, double(n) * steps / (gpu_total * 1e-9));
  std::printf("\nvs CPU reference over the first submission, %u steps (trajectories are chaotic: only a few):\n", compared);
  std::printf("  positions %.3e, velocities %.3e (max error / max magnitude), energy %.3e (relative)\n\n", pos_err, vel_err, e_err);
  const bool ok = pos_err < 1e-4 && vel_err < 1e-3 && e_err < 1e-4;
  if (!ok) std::printf("  FAIL: error over the demo's bounds (1e-4, 1e-3, 1e-4)\n\n");
  const bool fired = !rules || (dt_fired > 0 && anomalies > 0);
  if (!fired) std::printf("  FAIL: the rules were set to fire and did not (halvings %u, ANOMALY steps %u)\n\n", dt_fired, anomalies);
  return ok && fired ? 0 : 1;
}

int run_demo(const cli::Args& a) {
  auto dev = open_device(a);
  std::printf("device: %s\n\n", dev->info().name.c_str());
  int rc = 0;
  for (Model m : models(a)) rc |= demo_one(*dev, a, m);
  if (a.get("model", "both") == "both" && !a.options.count("dt")) {
    const RuleDemo rules;
    rc |= demo_one(*dev, a, Model::LennardJones, &rules);
  }
  return rc;
}

std::vector<uint32_t> sizes(const cli::Args& a, const Device& dev) {
  const std::string s = a.get("sizes");
  if (s.empty()) {
    if (dev.info().type == "cpu") return {10000, 100000};
    return {10000, 100000, 1000000};
  }
  std::vector<uint32_t> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos || item.size() > 9)
      fail(ErrorCode::BadInput, "--sizes expects comma-separated particle counts, got '" + s + "'");
    out.push_back(uint32_t(std::stoul(item)));
  }
  return out;
}

int run_bench(const cli::Args& a) {
  auto dev = open_device(a);
  const uint32_t per = std::max<uint32_t>(1, u32(a, "steps-per-submit", 10)), runs = std::max<uint32_t>(1, u32(a, "runs", 3));
  const double copy_bound = bench::copy_bound_gb_per_s(*dev, bench::default_copy_bytes(*dev), runs);
  for (Model m : models(a))
    for (uint32_t n : sizes(a, *dev)) {
      Scenario sc = scenario(m, n, 0, 1);
      sc.config.steps_per_submit = per;
      Simulation sim(*dev, sc.config, sc.state);
      sim.advance();  // the prologue, pipeline creation, first touch of memory
      std::vector<double> ns;
      for (uint32_t r = 0; r < runs; ++r) {
        sim.advance();
        ns.push_back(sim.gpu_ns() / per);
      }
      std::sort(ns.begin(), ns.end());
      const double gpu_step = ns[ns.size() / 2];
      // The CPU reference in the same run: its prologue excluded, a few steps timed.
      Reference ref(sc.config, sc.state);
      const uint32_t cpu_steps = n >= 500000 ? 1 : n >= 50000 ? 2 : 5;
      const auto t0 = std::chrono::steady_clock::now();
      for (uint32_t k = 0; k < cpu_steps; ++k) ref.step();
      const double cpu_step = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / cpu_steps;
      const auto g = grid_shape(sc.config.params);
      bench::Line("physics.step", *dev)
          .str("model", model_name(m))
          .num("particles", n)
          .num("cells", double(g[0]) * g[1] * g[2])
          .num("steps_per_submit", per)
          .num("runs", runs)
          .num("gpu_ms_per_step", gpu_step * 1e-6)
          .num("particle_steps_per_s", n / (gpu_step * 1e-9))
          .str("peer", "cpu_reference_f32_1thread")
          .num("cpu_ms_per_step", cpu_step * 1e-6)
          .num("cpu_particle_steps_per_s", n / (cpu_step * 1e-9))
          .num("speedup_vs_cpu", cpu_step / gpu_step)
          .print();
      bench::print_stage_bandwidth("physics", *dev, sim.stage_times(), copy_bound,
                                   [&](bench::Line& l) { l.str("model", model_name(m)).num("particles", n).num("steps", per); });
    }
  return 0;
}

}  // namespace

WEFT_CLI_COMMAND(physics) {
  return {.name = "physics", .options = {"model", "particles", "steps", "steps-per-submit", "dt", "drift-bound", "seed", "device",
              "sizes", "runs"},
          .flags = {"validation"}, .verbs = {{"demo", run_demo}, {"bench", run_bench}},
          .usage = kHelpLines, .help = kPhysicsUsage};
}
