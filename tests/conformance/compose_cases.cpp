// Compositions: one program / one submit against the same parts run host-orchestrated (several
// submits, the host carrying each part's result to the next) and against the parts' CPU
// references chained the same way.
#include <cmath>
#include <sstream>

#include "compose.h"
#include "conformance.h"

namespace weft::conformance {

namespace {

using namespace weft::compose;

double worst_diff(const std::vector<float>& a, const std::vector<float>& b) {
  if (a.size() != b.size()) return INFINITY;
  double w = 0;
  for (size_t i = 0; i < a.size(); ++i) w = std::max(w, double(std::fabs(a[i] - b[i])));
  return w;
}

std::string describe(const GamePhysicsResult& r) {
  std::ostringstream s;
  s << "move " << r.action.move << " (score " << r.action.score << "), landed/played " << r.played << " (intended " << r.intended
    << (r.fell_back ? ", fell back" : "") << "), reply " << r.evaluation.move << " (score " << r.evaluation.score << ")";
  return s.str();
}

Result game_physics_case(Device& dev, const std::string& root) {
  GamePhysicsConfig cfg = game_physics_default();
  cfg.root_moves = root;
  GamePhysicsComposed one(dev, cfg);
  GamePhysicsOrchestrated host(dev, cfg);
  const GamePhysicsResult a = one.run(), h = host.run(), ref = game_physics_reference(cfg);
  // Same kernels, same data, same order on the same device: the physics state is bit-identical.
  if (!(a.action == h.action)) return Result::fail("first search differs: one submit " + describe(a) + " / host " + describe(h));
  if (a.intended != h.intended || a.played != h.played || a.fell_back != h.fell_back || !(a.after == h.after))
    return Result::fail("outcome differs: one submit " + describe(a) + " / host " + describe(h));
  if (!(a.evaluation == h.evaluation)) return Result::fail("second search differs: one submit " + describe(a) + " / host " + describe(h));
  const double dev_diff = std::max(worst_diff(a.pos, h.pos), worst_diff(a.vel, h.vel));
  if (dev_diff != 0) return Result::fail("physics state differs between one submit and host-orchestrated", dev_diff);
  const GamePhysicsSetup setup(cfg);
  if (a.pos.size() != 3 * size_t(cfg.particles) || a.pos[0] == setup.scenario.state.pos[0] || a.vel[0] == setup.scenario.state.vel[0])
    return Result::fail("the disc did not fly: its position or velocity is unchanged");
  if (a.played != setup.landed_column(a.pos[0]) && !a.fell_back) return Result::fail("played column is not where the disc landed");
  if (a.outcome_message[3] != cfg.steps) return Result::fail("outcome adapter's inbox (last physics step) says step " + std::to_string(a.outcome_message[3]));
  // Against the CPU references: searches exact; physics to f32 rounding (device FMA).
  if (!(a.action == ref.action)) return Result::fail("first search differs from the CPU reference: " + describe(ref));
  const double ref_diff = worst_diff(a.pos, ref.pos);
  if (ref_diff > 1e-3) return Result::fail("physics positions differ from the CPU reference", ref_diff);
  if (a.played != ref.played || !(a.evaluation == ref.evaluation))
    return Result::fail("outcome / second search differ from the CPU reference: " + describe(ref));
  return Result::pass(describe(a) + "; positions vs reference " + std::to_string(ref_diff), ref_diff);
}

}  // namespace

std::vector<Case> compose_cases() {
  return {
      {"compose.game_physics.empty_board", "searches exact; physics bit-identical across paths, 1e-3 vs CPU reference",
       [](Device& d) { return game_physics_case(d, ""); }},
      {"compose.game_physics.midgame", "searches exact; physics bit-identical across paths, 1e-3 vs CPU reference",
       [](Device& d) { return game_physics_case(d, "3324"); }},
  };
}

}  // namespace weft::conformance
