// game-physics: search -> launch adapter -> physics steps -> outcome adapter -> search, as one
// program (one submit) and as three host-driven submits, plus the CPU references chained alike.
#include <algorithm>
#include <cmath>

#include "compose.h"
#include "shaders/compose_args.h"
#include "weft_compose_kernels.h"

namespace weft::compose {

namespace {

// Plays `landed` on `root`, or `intended` when that column is full.
game::Position play_outcome(const game::Board& b, const game::Position& root, uint32_t intended, uint32_t landed, bool& fell_back) {
  fell_back = !game::can_play(b, root, landed);
  return game::play(b, root, fell_back ? intended : landed);
}

std::vector<uint64_t> capacity(const GamePhysicsConfig& c) { return game::level_capacity(c.board, c.search, 1, c.node_capacity); }

}  // namespace

const std::vector<std::string>& names() {
  static const std::vector<std::string> n = {"game-physics", "gnn-db", "dsp-llm", "agent-retrieval", "model-token-vm"};
  return n;
}
bool built(const std::string& name) {
  for (const std::string& n : names())
    if (n == name) return true;  // all five are built
  return false;
}

GamePhysicsConfig game_physics_default() {
  GamePhysicsConfig c;
  c.search.depth = 3;
  return c;
}

GamePhysicsSetup::GamePhysicsSetup(const GamePhysicsConfig& c) : cfg(c) {
  game::validate(c.board);
  game::validate(c.search);
  if (c.steps == 0 || c.particles < 2) fail(ErrorCode::BadInput, "compose game-physics: need at least 1 step and 2 particles");
  root = game::parse_moves(c.board, c.root_moves, "root");
  if (game::is_over(c.board, root)) fail(ErrorCode::BadInput, "compose game-physics: the root position's game is over");
  scenario = physics::lj_gas(c.particles, c.density, c.temperature, c.dt, c.seed);
  scenario.config.steps_per_submit = c.steps;
  const float L = scenario.config.params.box[0], W = float(c.board.width);
  columns_per_length = W / L;
  // Aim the disc at the centre of each column, arriving after the steps (collisions scatter it).
  const float flight = float(c.steps) * c.dt, x0 = scenario.state.pos[0];
  for (uint32_t col = 0; col < c.board.width; ++col) {
    const float target = (float(col) + 0.5f) * L / W;
    launch.insert(launch.end(), {(target - x0) / flight, 0.0f, 0.0f});
  }
}

uint32_t GamePhysicsSetup::landed_column(float x) const {
  // The same f32 operations as shaders/outcome.comp (one rounded multiply, floor, clamp).
  const float f = std::floor(x * columns_per_length);
  return uint32_t(std::clamp(f, 0.0f, float(cfg.board.width - 1)));
}

// ---- single submit ---------------------------------------------------------------------------
GamePhysicsComposed::GamePhysicsComposed(Device& device, const GamePhysicsConfig& cfg) : setup_(cfg) {
  const game::Board& b = cfg.board;
  act_ = game::append_program(Program("game-physics"), b, cfg.search, capacity(cfg), "act.");
  Program p = std::move(act_.program);
  p.heap().add("compose.launch", uint64_t(b.width) * 12);

  // Physics, with the launch adapter running before its prologue (it writes the disc's velocity).
  phys_ = physics::append_program(std::move(p), setup_.scenario.config, setup_.scenario.state.count(),
                                  [&](Program& q, const physics::PhysicsProgram& pp) {
                                    launch_ = q.add_instance("compose.launch", 4);
                                    StageSpec s;
                                    s.name = "launch";
                                    s.kernel = weft_compose_kernels.get("launch");
                                    s.instance = launch_;
                                    s.args = LaunchArgs{.results = act_.ports.segment("results"),
                                                        .launch_table = q.segment(Binding::Heap, "compose.launch"),
                                                        .columns = b.width,
                                                        .velocities = pp.ports.segment("velocities")}.bind();
                                    s.message = true;
                                    s.honour_halt = true;
                                    q.add_stage(s);
                                  });
  p = std::move(phys_.program);

  // The outcome adapter (its inbox is the last physics step's message) writes the second
  // search's root, before that search's stages.
  outcome_ = p.add_instance("compose.outcome", 4);
  p.connect(phys_.ports.instance("last_step"), outcome_);
  eval_ = game::append_program(std::move(p), b, cfg.search, capacity(cfg), "eval.", [&](Program& q, const game::GameProgram& eval) {
    StageSpec o;
    o.name = "outcome";
    o.kernel = weft_compose_kernels.get("outcome");
    o.instance = outcome_;
    o.message = true;
    o.honour_halt = true;
    o.args = OutcomeArgs{.positions = phys_.ports.segment("positions"),
                         .columns_per_length = setup_.columns_per_length,
                         .width = b.width,
                         .height = b.height,
                         .played_roots = act_.ports.segment("roots"),
                         .played_results = act_.ports.segment("results"),
                         .next_root = eval.ports.segment("roots").part(0, game::kNodeWords * 4)}.bind();
    q.add_stage(o);
  });
  Program& q = eval_.program;
  q.connect(outcome_, eval_.ports.instance("first_depth"));
  q.require_bound_window(device.info(), "compose game-physics");
  exe_ = std::make_unique<Executable>(device, q);
  exe_->write_segment(Binding::Heap, "compose.launch", setup_.launch.data(), setup_.launch.size() * 4);
  for (const game::GameProgram* g : {&act_, &eval_}) game::upload(*exe_, *g, b, cfg.search);
}

GamePhysicsResult GamePhysicsComposed::run() {
  const game::Board& b = setup_.cfg.board;
  game::set_roots(*exe_, act_, b, {setup_.root});
  game::set_root_count(*exe_, eval_, 1);  // the outcome adapter writes it
  physics::upload(*exe_, phys_, setup_.scenario.state);
  exe_->run();
  for (const game::GameProgram* g : {&act_, &eval_}) game::check_capacity(*exe_, *g);

  GamePhysicsResult r;
  r.submits = 1;
  r.gpu_ns = exe_->timings().total_ns;
  r.action = game::read_results(*exe_, act_, b, 1)[0];
  r.evaluation = game::read_results(*exe_, eval_, b, 1)[0];
  r.outcome_message.assign(4, 0);
  exe_->read_register(outcome_, WEFT_R_OUTBOX, r.outcome_message.data(), 16);
  r.played = r.outcome_message[0];
  r.intended = r.outcome_message[1];
  r.fell_back = r.outcome_message[2] != 0;
  r.after = game::read_root(*exe_, eval_, 0);
  const physics::State state = physics::read_state(*exe_, phys_);
  r.pos = state.pos;
  r.vel = state.vel;
  return r;
}

// ---- host-orchestrated: three executables, the host carrying the data between them ---------
GamePhysicsOrchestrated::GamePhysicsOrchestrated(Device& device, const GamePhysicsConfig& cfg)
    : device_(device),
      setup_(cfg),
      act_(device, cfg.board, cfg.search, 1, cfg.node_capacity),
      eval_(device, cfg.board, cfg.search, 1, cfg.node_capacity),
      phys_(physics::build_program(setup_.scenario.config, setup_.scenario.state.count())),
      phys_exe_(std::make_unique<Executable>(device, phys_.program)) {}

GamePhysicsResult GamePhysicsOrchestrated::run() {
  GamePhysicsResult r;
  const game::Board& b = setup_.cfg.board;
  game::SearchResult a = act_.run({setup_.root});  // submit 1
  r.action = a.roots[0];
  r.gpu_ns += act_.gpu_ns();
  r.intended = uint32_t(std::clamp<int32_t>(r.action.move, 0, int32_t(b.width) - 1));
  physics::State s = setup_.scenario.state;
  for (int k = 0; k < 3; ++k) s.vel[k] = setup_.launch[r.intended * 3 + k];
  physics::upload(*phys_exe_, phys_, s);
  phys_exe_->run();  // submit 2
  r.gpu_ns += phys_exe_->timings().total_ns;
  const physics::State after = physics::read_state(*phys_exe_, phys_);
  r.pos = after.pos;
  r.vel = after.vel;
  r.played = setup_.landed_column(r.pos[0]);
  r.after = play_outcome(b, setup_.root, r.intended, r.played, r.fell_back);
  if (r.fell_back) r.played = r.intended;
  game::SearchResult e = eval_.run({r.after});  // submit 3
  r.evaluation = e.roots[0];
  r.gpu_ns += eval_.gpu_ns();
  r.submits = 3;
  return r;
}

GamePhysicsResult game_physics_reference(const GamePhysicsConfig& cfg) {
  GamePhysicsSetup setup(cfg);
  GamePhysicsResult r;
  const game::Board& b = cfg.board;
  r.action = game::reference_search(b, cfg.search, {setup.root}).roots[0];
  r.intended = uint32_t(std::clamp<int32_t>(r.action.move, 0, int32_t(b.width) - 1));
  physics::State s = setup.scenario.state;
  for (int k = 0; k < 3; ++k) s.vel[k] = setup.launch[r.intended * 3 + k];
  physics::Reference ref(setup.scenario.config, s);
  for (uint32_t k = 0; k < cfg.steps; ++k) ref.step();
  r.pos = ref.state().pos;
  r.vel = ref.state().vel;
  r.played = setup.landed_column(r.pos[0]);
  r.after = play_outcome(b, setup.root, r.intended, r.played, r.fell_back);
  if (r.fell_back) r.played = r.intended;
  r.evaluation = game::reference_search(b, cfg.search, {r.after}).roots[0];
  return r;
}

}  // namespace weft::compose
