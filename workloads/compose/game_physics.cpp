// game-physics: search -> launch adapter -> physics steps -> outcome adapter -> search, as one
// program (one submit) and as three host-driven submits, plus the CPU references chained alike.
#include <algorithm>
#include <cmath>

#include "compose.h"
#include "weft_compose_kernels.h"

namespace weft::compose {

namespace {


constexpr uint32_t kResultWords = 24;  // game's results record per root (workloads/game/shaders/select.comp)

std::vector<uint32_t> node_words(const game::Position& p) {
  std::vector<uint32_t> n(8, 0);
  n[0] = uint32_t(p.cur);
  n[1] = uint32_t(p.cur >> 32);
  n[2] = uint32_t(p.mask);
  n[3] = uint32_t(p.mask >> 32);
  n[5] = 0xFFu << 8;  // no move led here
  return n;
}

std::vector<uint32_t> window_words(const game::Board& b) {
  std::vector<uint32_t> ws;
  for (uint64_t w : game::windows(b)) {
    ws.push_back(uint32_t(w));
    ws.push_back(uint32_t(w >> 32));
  }
  return ws;
}

std::vector<uint32_t> weight_words(const game::SearchConfig& c) {
  std::vector<uint32_t> w;
  for (int32_t x : c.evaluation.weights) w.push_back(uint32_t(x));
  return w;
}

game::RootResult decode_root(const std::vector<uint32_t>& r, uint32_t width) {
  game::RootResult rr;
  rr.move = int32_t(r[0]);
  rr.score = int32_t(r[1]);
  rr.confidence = int32_t(r[2]);
  rr.depth = r[3];
  rr.novelty = r[4] != 0;
  rr.degenerate = r[5] != 0;
  for (uint32_t c = 0; c < width; ++c) rr.move_scores.push_back(int32_t(r[8 + c]));
  return rr;
}

std::vector<float> xyz(const std::vector<float>& v4) {
  std::vector<float> out;
  for (size_t i = 0; i + 3 < v4.size(); i += 4) out.insert(out.end(), {v4[i], v4[i + 1], v4[i + 2]});
  return out;
}

void upload_physics(Executable& exe, const physics::PhysicsProgram& pp, const physics::State& s) {
  exe.write_segment(Binding::Heap, "params", pp.params.data(), pp.params.size() * 4);
  exe.write_segment(Binding::Heap, "mass", s.mass.data(), s.mass.size() * 4);
  std::vector<float> v4(size_t(s.count()) * 4, 0.0f);
  for (const auto& [seg, src] : {std::pair{"pos", &s.pos}, std::pair{"vel", &s.vel}}) {
    for (uint32_t i = 0; i < s.count(); ++i)
      for (int a = 0; a < 3; ++a) v4[4 * i + a] = (*src)[3 * i + a];
    exe.write_segment(Binding::Globals, seg, v4.data(), v4.size() * 4);
  }
}

// Plays `landed` on `root`, or `intended` when that column is full.
game::Position play_outcome(const game::Board& b, const game::Position& root, uint32_t intended, uint32_t landed, bool& fell_back) {
  fell_back = !game::can_play(b, root, landed);
  return game::play(b, root, fell_back ? intended : landed);
}

std::vector<uint64_t> capacity(const GamePhysicsConfig& c) { return game::level_capacity(c.board, c.search, 1, c.node_capacity); }

}  // namespace

const std::vector<std::string>& names() {
  static const std::vector<std::string> n = {"game-physics", "gnn-db", "dsp-llm", "agent-retrieval", "model-tokenvm"};
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
  const uint32_t results_word = p.globals().at("act.results").word_offset();
  const uint32_t act_root_word = p.globals().at("act.level0").word_offset();

  // Physics, with the launch adapter running before its prologue (it writes the disc's velocity).
  phys_ = physics::append_program(std::move(p), setup_.scenario.config, setup_.scenario.state.count(),
                                  [&](Program& q, const physics::PhysicsProgram&) {
                                    launch_ = q.add_instance("compose.launch", 4);
                                    StageSpec s;
                                    s.name = "launch";
                                    s.kernel = weft_compose_kernels.get("launch");
                                    s.instance = launch_;
                                    s.push = {results_word, q.heap().at("compose.launch").word_offset(), b.width,
                                              q.globals().at("vel").word_offset()};
                                    s.reads = {q.segment(Binding::Globals, "act.results"), q.segment(Binding::Heap, "compose.launch")};
                                    s.writes = {q.segment(Binding::Globals, "vel")};
                                    s.message = true;
                                    s.honour_halt = true;
                                    q.add_stage(s);
                                  });
  p = std::move(phys_.program);

  // The outcome adapter: its inbox is the last physics step's message.
  outcome_ = p.add_instance("compose.outcome", 4);
  p.connect(phys_.steps.back(), outcome_);
  // The second search's root level is the first Globals segment it appends (256-aligned after
  // what is there now): its offset is known before the search is appended, and checked after.
  const uint64_t eval_root_offset = (p.globals().size() + 255) / 256 * 256;
  StageSpec o;
  o.name = "outcome";
  o.kernel = weft_compose_kernels.get("outcome");
  o.instance = outcome_;
  o.message = true;
  o.honour_halt = true;
  const Range pos = p.segment(Binding::Globals, "pos"), act_results = p.segment(Binding::Globals, "act.results"),
              act_root = p.segment(Binding::Globals, "act.level0");
  o.push = {p.globals().at("pos").word_offset(), f32_bits(setup_.columns_per_length), b.width, b.height, act_root_word, results_word,
            uint32_t(eval_root_offset / 4)};
  o.reads = {pos, act_results, act_root};
  o.writes = {Range{Binding::Globals, eval_root_offset, 32}};
  p.add_stage(o);
  eval_ = game::append_program(std::move(p), b, cfg.search, capacity(cfg), "eval.");
  Program& q = eval_.program;
  if (q.globals().at("eval.level0").offset != eval_root_offset)
    fail(ErrorCode::InvalidProgram, "compose game-physics: the second search's root level is not where the outcome adapter writes");
  q.connect(outcome_, eval_.depths[0]);
  const uint64_t window = device.info().max_storage_buffer_range;
  for (const SegmentLayout* s : {&q.heap(), &q.globals()})
    if (s->size() > window) fail(ErrorCode::BadInput, "compose game-physics: " + s->buffer_name() + " exceeds the storage-buffer window");
  exe_ = std::make_unique<Executable>(device, q);
  exe_->write_segment(Binding::Heap, "compose.launch", setup_.launch.data(), setup_.launch.size() * 4);
  for (const char* pre : {"act.", "eval."}) {
    const auto ws = window_words(b), wt = weight_words(cfg.search);
    exe_->write_segment(Binding::Heap, std::string(pre) + "windows", ws.data(), ws.size() * 4);
    exe_->write_segment(Binding::Heap, std::string(pre) + "weights", wt.data(), wt.size() * 4);
  }
}

GamePhysicsResult GamePhysicsComposed::run() {
  const Program& prog = exe_->program();
  const auto root = node_words(setup_.root);
  exe_->write_segment(Binding::Globals, "act.level0", root.data(), root.size() * 4);
  for (const game::GameProgram* g : {&act_, &eval_}) {
    exe_->set_control_word(g->count_word, 1);
    exe_->set_control_word(prog.slot_word(g->loop.slot(0, 2)), 1);
  }
  upload_physics(*exe_, phys_, setup_.scenario.state);
  exe_->run();
  for (const game::GameProgram* g : {&act_, &eval_})
    if (exe_->control_word(g->overflow_word)) fail(ErrorCode::OutOfMemory, "compose game-physics: a search ran out of node capacity");

  GamePhysicsResult r;
  r.submits = 1;
  r.gpu_ns = exe_->timings().total_ns;
  std::vector<uint32_t> res(kResultWords);
  exe_->read_segment(Binding::Globals, "act.results", res.data(), res.size() * 4);
  r.action = decode_root(res, setup_.cfg.board.width);
  exe_->read_segment(Binding::Globals, "eval.results", res.data(), res.size() * 4);
  r.evaluation = decode_root(res, setup_.cfg.board.width);
  r.outcome_message.assign(4, 0);
  exe_->read_register(outcome_, WEFT_R_OUTBOX, r.outcome_message.data(), 16);
  r.played = r.outcome_message[0];
  r.intended = r.outcome_message[1];
  r.fell_back = r.outcome_message[2] != 0;
  std::vector<uint32_t> node(8);
  exe_->read_segment(Binding::Globals, "eval.level0", node.data(), 32);
  r.after.cur = uint64_t(node[0]) | uint64_t(node[1]) << 32;
  r.after.mask = uint64_t(node[2]) | uint64_t(node[3]) << 32;
  r.pos = xyz(exe_->read_segment<float>(Binding::Globals, "pos"));
  r.vel = xyz(exe_->read_segment<float>(Binding::Globals, "vel"));
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
  upload_physics(*phys_exe_, phys_, s);
  phys_exe_->run();  // submit 2
  r.gpu_ns += phys_exe_->timings().total_ns;
  r.pos = xyz(phys_exe_->read_segment<float>(Binding::Globals, "pos"));
  r.vel = xyz(phys_exe_->read_segment<float>(Binding::Globals, "vel"));
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
