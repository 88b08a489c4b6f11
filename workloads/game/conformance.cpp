// The game workload on the device against the CPU: the fixed-depth search against the CPU
// reference (integer-exact: moves, scores, node counts, messages), searches to the end of the
// game against the exhaustive solver (the device's move must be game-theoretically optimal),
// the node-budget rule stopping with the best move so far, the exploration boost deepening a
// degenerate search, and bad input refused with the place named.
#include <algorithm>
#include <cstdlib>
#include <sstream>

#include "conformance.h"
#include "game.h"

namespace weft::conformance {

namespace {

using namespace weft::game;

std::string str(const std::vector<int32_t>& v) {
  std::ostringstream s;
  for (size_t i = 0; i < v.size(); ++i) s << (i ? "," : "") << (v[i] == kNoMove ? std::string("-") : std::to_string(v[i]));
  return s.str();
}

// Random positions with `empty` cells left, none finished; `no_immediate_win` skips those where
// the side to move wins at once (they say little about a search).
std::vector<Position> positions(const Board& b, uint32_t count, uint32_t empty, uint64_t seed, bool no_immediate_win = false) {
  std::vector<Position> out;
  uint64_t rng = seed;
  for (int tries = 0; out.size() < count && tries < 100000; ++tries) {
    const auto p = random_position(b, empty, rng);
    if (!p || is_over(b, *p)) continue;
    bool wins_now = false;
    for (uint32_t c = 0; c < b.width; ++c) wins_now = wins_now || (can_play(b, *p, c) && previous_mover_won(b, play(b, *p, c)));
    if (no_immediate_win && wins_now) continue;
    out.push_back(*p);
  }
  return out;
}

// Device and reference agree on everything: depth reached, per-depth summaries and messages,
// every root's move, score, confidence, flags and column scores.
Result compare(const SearchResult& dev, const SearchResult& ref, const std::string& what) {
  if (dev.depth_reached != ref.depth_reached)
    return Result::fail(what + ": device reached depth " + std::to_string(dev.depth_reached) + ", reference " + std::to_string(ref.depth_reached));
  for (size_t d = 0; d < ref.depths.size(); ++d) {
    const DepthSummary &x = dev.depths[d], &y = ref.depths[d];
    if (!(x == y))
      return Result::fail(what + ": depth " + std::to_string(d + 1) + " summary differs: level nodes " + std::to_string(x.level_nodes) +
                          " vs " + std::to_string(y.level_nodes) + ", so far " + std::to_string(x.nodes_so_far) + " vs " +
                          std::to_string(y.nodes_so_far) + ", degenerate " + std::to_string(x.degenerate) + " vs " +
                          std::to_string(y.degenerate) + ", novel " + std::to_string(x.novel) + " vs " + std::to_string(y.novel) +
                          ", R30 " + str({x.message.begin(), x.message.end()}) + " vs " + str({y.message.begin(), y.message.end()}));
  }
  if (dev.roots.size() != ref.roots.size()) return Result::fail(what + ": root count differs");
  for (size_t i = 0; i < ref.roots.size(); ++i) {
    const RootResult &x = dev.roots[i], &y = ref.roots[i];
    if (!(x == y))
      return Result::fail(what + ": root " + std::to_string(i) + ": device move " + std::to_string(x.move) + " score " +
                          std::to_string(x.score) + " conf " + std::to_string(x.confidence) + " depth " + std::to_string(x.depth) +
                          " nov " + std::to_string(x.novelty) + " deg " + std::to_string(x.degenerate) + " [" + str(x.move_scores) +
                          "], reference move " + std::to_string(y.move) + " score " + std::to_string(y.score) + " conf " +
                          std::to_string(y.confidence) + " depth " + std::to_string(y.depth) + " nov " + std::to_string(y.novelty) +
                          " deg " + std::to_string(y.degenerate) + " [" + str(y.move_scores) + "]");
  }
  return Result::pass();
}

// Midgame positions at fixed depth: the whole result against the CPU reference, twice (the
// recorded program replays), and the alpha-beta peer's move and score against the device's.
Result fixed_depth(Device& dev) {
  std::string detail;
  struct Setup {
    Board board;
    uint32_t roots, empty, depth;
  };
  for (const Setup& s : {Setup{{7, 6}, 24, 30, 4}, Setup{{6, 5}, 16, 20, 4}, Setup{{5, 4}, 8, 12, 6}}) {
    const std::string name = std::to_string(s.board.width) + "x" + std::to_string(s.board.height);
    const std::vector<Position> roots = positions(s.board, s.roots, s.empty, 100 + s.board.width);
    if (roots.size() != s.roots) return Result::fail(name + ": fixture found " + std::to_string(roots.size()) + " positions");
    SearchConfig cfg;
    cfg.depth = s.depth;
    const SearchResult ref = reference_search(s.board, cfg, roots);
    Search search(dev, s.board, cfg, s.roots);
    for (int run = 0; run < 2; ++run)
      if (Result r = compare(search.run(roots), ref, name + " run " + std::to_string(run)); r.outcome != Outcome::Pass) return r;
    // The search must be more than a tie-break: some roots' best moves differ, scores spread.
    std::vector<bool> moves_seen(s.board.width, false);
    for (const RootResult& r : ref.roots) moves_seen[r.move] = true;
    if (std::count(moves_seen.begin(), moves_seen.end(), true) < 3)
      return Result::fail(name + ": fixture: fewer than 3 different best moves over the roots");
    uint64_t ab_nodes = 0, nm_nodes = 0;
    for (size_t i = 0; i < roots.size(); ++i) {
      const RootResult ab = alphabeta_root(s.board, cfg.evaluation, roots[i], s.depth, ab_nodes);
      negamax_root(s.board, cfg.evaluation, roots[i], s.depth, nm_nodes);
      if (ab.move != ref.roots[i].move || ab.score != ref.roots[i].score)
        return Result::fail(name + ": alpha-beta root " + std::to_string(i) + " move " + std::to_string(ab.move) + " score " +
                            std::to_string(ab.score) + " vs " + std::to_string(ref.roots[i].move) + " " + std::to_string(ref.roots[i].score));
    }
    if (nm_nodes != ref.nodes()) return Result::fail(name + ": negamax node count differs from the level counts");
    detail += name + ": " + std::to_string(s.roots) + " roots, depth " + std::to_string(s.depth) + ", " + std::to_string(ref.nodes()) +
              " nodes; ";
  }
  return Result::pass(detail + "moves, scores, node counts and R30 messages identical");
}

// Late-game positions searched to the end of the game: the device's value has the solver's
// sign and its move is one of the solver's optimal moves.
Result optimal_vs_solver(Device& dev) {
  struct Setup {
    Board board;
    uint32_t roots, empty;
  };
  uint32_t outcomes[3] = {0, 0, 0}, checked = 0;
  for (const Setup& s : {Setup{{5, 4}, 12, 10}, Setup{{6, 5}, 12, 9}, Setup{{7, 6}, 12, 9}}) {
    const std::string name = std::to_string(s.board.width) + "x" + std::to_string(s.board.height);
    const std::vector<Position> roots = positions(s.board, s.roots, s.empty, 7 * s.board.width, true);
    if (roots.size() != s.roots) return Result::fail(name + ": fixture found " + std::to_string(roots.size()) + " positions");
    SearchConfig cfg;
    cfg.depth = s.empty;  // every line reaches a four or a full board: the search is exact
    Search search(dev, s.board, cfg, s.roots);
    const SearchResult r = search.run(roots);
    if (r.depth_reached != s.empty) return Result::fail(name + ": reached depth " + std::to_string(r.depth_reached));
    Solver solver(s.board);
    for (size_t i = 0; i < roots.size(); ++i) {
      const int value = solver.solve(roots[i]);
      const auto moves = solver.move_values(roots[i]);
      const RootResult& d = r.roots[i];
      const int sign = d.score > 0 ? 1 : d.score < 0 ? -1 : 0;
      if (sign != value)
        return Result::fail(name + " position " + std::to_string(i) + ": device score " + std::to_string(d.score) + ", solver value " +
                            std::to_string(value) + "\n" + render(s.board, roots[i]));
      if (d.move < 0 || !moves[d.move] || *moves[d.move] != value)
        return Result::fail(name + " position " + std::to_string(i) + ": device move " + std::to_string(d.move + 1) + " is not optimal\n" +
                            render(s.board, roots[i]));
      // Every column's device score must also carry the solver's verdict for that move.
      for (uint32_t c = 0; c < s.board.width; ++c) {
        const int32_t ms = d.move_scores[c];
        if (!moves[c] != (ms == kNoMove) || (moves[c] && (ms > 0 ? 1 : ms < 0 ? -1 : 0) != *moves[c]))
          return Result::fail(name + " position " + std::to_string(i) + " column " + std::to_string(c + 1) + ": device score " +
                              std::to_string(ms) + " vs solver " + (moves[c] ? std::to_string(*moves[c]) : std::string("illegal")));
      }
      ++outcomes[value + 1];
      ++checked;
    }
  }
  if (!outcomes[0] || !outcomes[2]) return Result::fail("fixture: the positions need both won and lost values");
  return Result::pass(std::to_string(checked) + " late-game positions on 5x4, 6x5, 7x6 (" + std::to_string(outcomes[2]) + " won, " +
                      std::to_string(outcomes[1]) + " drawn, " + std::to_string(outcomes[0]) +
                      " lost): device moves optimal, every column's sign matches the solver");
}

// Budget rule: the threshold sits between the nodes after depth 2 and after depth 3, so the
// search stops after depth 3 with depth 3's moves (the best so far), the slots of depths 4 and
// 5 zeroed; lifting the budget on the same recorded program runs all 5 depths.
Result node_budget(Device& dev) {
  const Board b{7, 6};
  const std::vector<Position> roots = positions(b, 16, 30, 301);
  SearchConfig cfg;
  cfg.depth = 5;
  const SearchResult full = reference_search(b, cfg, roots);
  const uint64_t n2 = full.depths[1].nodes_so_far, n3 = full.depths[2].nodes_so_far;
  SearchConfig budgeted = cfg;
  budgeted.node_budget = uint32_t((n2 + n3) / 2);
  const SearchResult ref = reference_search(b, budgeted, roots);
  if (ref.depth_reached != 3) return Result::fail("fixture: the reference stopped at depth " + std::to_string(ref.depth_reached));
  SearchConfig depth3 = cfg;
  depth3.depth = 3;
  const SearchResult at3 = reference_search(b, depth3, roots);
  if (!(ref.roots == at3.roots)) return Result::fail("reference: the budgeted result is not the depth-3 result");

  Search search(dev, b, cfg, uint32_t(roots.size()));
  search.set_node_budget(budgeted.node_budget);
  if (Result r = compare(search.run(roots), ref, "budget " + std::to_string(budgeted.node_budget)); r.outcome != Outcome::Pass) return r;
  const GameProgram& info = search.program_info();
  Executable& exe = search.executable();
  for (uint32_t i = 0; i < 5; ++i)
    for (uint32_t shape = 0; shape < info.loop.shapes; ++shape) {
      const uint32_t x = exe.control_word(exe.program().slot_word(info.loop.slot(i, shape)));
      if (i >= 3 && x != 0) return Result::fail("slot " + std::to_string(shape) + " of depth " + std::to_string(i + 1) + " not zeroed");
    }
  if (exe.metrics(info.depths[3]).sequence != 0) return Result::fail("depth 4's message ran after the budget stop");
  const uint32_t fired = exe.control_word(regulator_fired_word(exe.program(), info.regulators[2], 0));
  if (fired != 1) return Result::fail("the budget rule after depth 3 fired " + std::to_string(fired) + " times");
  search.set_node_budget(UINT32_MAX);
  if (Result r = compare(search.run(roots), full, "no budget"); r.outcome != Outcome::Pass) return r;
  return Result::pass("budget " + std::to_string(budgeted.node_budget) + " nodes (" + std::to_string(n2) + " after depth 2, " +
                      std::to_string(n3) + " after 3): stopped after depth 3 with depth 3's moves; unlimited: all 5 depths");
}

// Time budget: the search kernels' workgroups add their clock ticks to a Control word; a budget
// of 0 stops the search after depth 1 (the first regulator pass) with depth 1's moves, and the
// same recorded program runs all depths once the budget is lifted. The tick totals grow with
// every depth. Needs a shader clock: without one the kernels count nothing, so a budget is refused
// (MissingFeature) rather than left never to fire; checked on this device, or on it opened
// without its clock.
Result tick_budget_refused_without_clock(Device& dev) {
  std::unique_ptr<Device> without;
  if (dev.info().shader_clock) {
    DeviceOptions o;
    o.select = std::to_string(dev.info().index);
    o.validation = dev.validation_enabled();
    o.without_features = uint32_t(Feature::ShaderClock);
    without = Device::open(o);
  }
  Device& clockless = without ? *without : dev;
  SearchConfig cfg;
  cfg.tick_budget = 10;
  try {
    Search search(clockless, Board{7, 6}, cfg, 4);
    return Result::fail("a tick budget was accepted on a device without a shader clock");
  } catch (const Error& e) {
    if (e.code() != ErrorCode::MissingFeature || std::string(e.what()).find("shaderSubgroupClock") == std::string::npos)
      return Result::fail(std::string("wrong refusal: ") + e.what());
  }
  Search search(clockless, Board{7, 6}, SearchConfig{}, 4);
  try {
    search.set_tick_budget(0);
    return Result::fail("set_tick_budget was accepted on a device without a shader clock");
  } catch (const Error& e) {
    if (e.code() != ErrorCode::MissingFeature) return Result::fail(std::string("wrong refusal: ") + e.what());
  }
  return Result::pass();
}

Result tick_budget(Device& dev) {
  if (Result r = tick_budget_refused_without_clock(dev); r.outcome != Outcome::Pass) return r;
  if (!dev.info().shader_clock) return Result::pass("refused by name: the device has no shader clock, nothing counts ticks");
  const Board b{7, 6};
  const std::vector<Position> roots = positions(b, 16, 30, 401);
  SearchConfig cfg;
  cfg.depth = 4;
  Search search(dev, b, cfg, uint32_t(roots.size()));
  const SearchResult free_run = search.run(roots);
  if (Result r = compare(free_run, reference_search(b, cfg, roots), "no tick budget"); r.outcome != Outcome::Pass) return r;
  for (size_t d = 0; d < free_run.kiloticks.size(); ++d)
    if (free_run.kiloticks[d] == 0 || (d && free_run.kiloticks[d] <= free_run.kiloticks[d - 1]))
      return Result::fail("compute ticks do not grow with depth: depth " + std::to_string(d + 1) + " has " +
                          std::to_string(free_run.kiloticks[d]) + " x 1024");
  search.set_tick_budget(0);
  SearchConfig depth1 = cfg;
  depth1.depth = 1;
  if (Result r = compare(search.run(roots), reference_search(b, depth1, roots), "tick budget 0"); r.outcome != Outcome::Pass) return r;
  search.set_tick_budget(UINT32_MAX);
  if (search.run(roots).depth_reached != 4) return Result::fail("lifting the tick budget did not restore depth 4");
  return Result::pass("ticks x1024 per depth " + std::to_string(free_run.kiloticks[0]) + ".." + std::to_string(free_run.kiloticks.back()) +
                      "; budget 0 stops after depth 1 with depth 1's moves");
}

// Exploration boost: with an evaluation that scores every open position 0, the nominal depth 1
// cannot tell the moves apart (degenerate); the boost rule keeps deepening while some root is
// degenerate, up to max_depth, and stops as soon as none is. Without boost the search stays at
// depth 1 and takes the lowest column.
Result exploration_boost(Device& dev) {
  const Board b{7, 6};
  SearchConfig cfg;
  cfg.depth = 1;
  cfg.max_depth = 6;
  cfg.evaluation.weights = {0, 0, 0, 0};
  // A position (fixed by the seeds) where the reference deepens past 1 and stops before 6.
  std::vector<Position> roots;
  SearchResult ref;
  for (uint64_t seed = 1; seed < 400 && roots.empty(); ++seed)
    for (const Position& p : positions(b, 1, 24, seed * 977, true)) {
      ref = reference_search(b, cfg, {p});
      if (ref.depth_reached > 2 && ref.depth_reached < cfg.max_depth) roots = {p};
    }
  if (roots.empty()) return Result::fail("fixture: no position where the boost deepens and then stops");
  Search search(dev, b, cfg, 1);
  const SearchResult r = search.run(roots);
  if (Result c = compare(r, ref, "boost"); c.outcome != Outcome::Pass) return c;
  Executable& exe = search.executable();
  const abi::WeftMetrics m1 = exe.metrics(search.program_info().depths[0]);
  if (m1.status != kStatusDegenerate || m1.norm != 1.0f)
    return Result::fail("depth 1 Metrics: status " + std::to_string(m1.status) + ", norm " + std::to_string(m1.norm));
  SearchConfig plain = cfg;
  plain.max_depth = 0;
  Search flat(dev, b, plain, 1);
  const SearchResult f = flat.run(roots);
  int32_t lowest = -1;
  for (uint32_t c = 0; c < b.width && lowest < 0; ++c)
    if (can_play(b, roots[0], c)) lowest = int32_t(c);
  if (f.depth_reached != 1 || !f.roots[0].degenerate || f.roots[0].move != lowest)
    return Result::fail("without boost: depth " + std::to_string(f.depth_reached) + ", move " + std::to_string(f.roots[0].move));
  if (Result c = compare(f, reference_search(b, plain, roots), "no boost"); c.outcome != Outcome::Pass) return c;
  return Result::pass("degenerate at depth 1; boosted to depth " + std::to_string(r.depth_reached) + " (score " +
                      std::to_string(r.roots[0].score) + ", move " + std::to_string(r.roots[0].move + 1) + ") as the reference");
}

Result bad_input(Device& dev) {
  const Board b{7, 6};
  struct Bad {
    const char* what;
    std::function<void()> run;
    ErrorCode code;
    const char* expect;
  };
  const SearchConfig cfg;
  const std::vector<Bad> bads = {
      {"not a column", [&] { parse_moves(b, "4458"); }, ErrorCode::BadInput, "position:1:4: '8' is not a column"},
      {"full column", [&] { parse_moves(b, "1111111"); }, ErrorCode::BadInput, "position:1:7: column 1 is full"},
      {"move after a four", [&] { parse_moves(b, "11223344"); }, ErrorCode::BadInput, "position:1:8: the game is already over"},
      {"board too large", [&] { Search(dev, Board{9, 7}, cfg, 1); }, ErrorCode::BadInput, "board 9x7 unsupported"},
      {"depth 0",
       [&] {
         SearchConfig c;
         c.depth = 0;
         Search(dev, b, c, 1);
       },
       ErrorCode::BadInput, "search depth 0"},
      {"weights too large",
       [&] {
         SearchConfig c;
         c.evaluation.weights = {0, 1, 2, 100000};
         Search(dev, b, c, 1);
       },
       ErrorCode::BadInput, "could reach the win score"},
      {"floating stone",
       [&] {
         Search s(dev, b, cfg, 2);
         s.run({Position{}, Position{0, uint64_t(1) << 1}});
       },
       ErrorCode::BadInput, "root 1: column 1 has a floating stone"},
      {"finished game",
       [&] {
         Search s(dev, b, cfg, 1);
         s.run({parse_moves(b, "1122334")});
       },
       ErrorCode::BadInput, "root 0: the game is over"},
      {"too many roots",
       [&] {
         Search s(dev, b, cfg, 1);
         s.run({Position{}, Position{}});
       },
       ErrorCode::BadInput, "2 roots, this search takes 1..1"},
      {"level capacity", [&] {
         Search s(dev, b, cfg, 1, 100);
         s.run({Position{}});
       },
       ErrorCode::OutOfMemory, "level 2 wanted 49 nodes (capacity 31)"},
  };
  for (const Bad& x : bads) {
    try {
      x.run();
      return Result::fail(std::string(x.what) + ": accepted");
    } catch (const Error& e) {
      if (e.code() != x.code) return Result::fail(std::string(x.what) + ": error code " + to_string(e.code()) + ": " + e.what());
      if (std::string(e.what()).find(x.expect) == std::string::npos)
        return Result::fail(std::string(x.what) + ": message '" + e.what() + "' does not say '" + x.expect + "'");
    }
  }
  // A good search still runs after the refusals.
  Search ok(dev, b, cfg, 1);
  const std::vector<Position> roots = {parse_moves(b, "4453")};
  if (Result r = compare(ok.run(roots), reference_search(b, cfg, roots), "after refusals"); r.outcome != Outcome::Pass) return r;
  return Result::pass(std::to_string(bads.size()) + " bad inputs refused with the place named");
}

}  // namespace

std::vector<Case> game_cases() {
  return {
      {"game.fixed_depth_vs_cpu_reference", "exact (integer scores, moves, node counts, R30 messages)", fixed_depth},
      {"game.optimal_moves_vs_exhaustive_solver", "exact (win/draw/loss of the device's move = the solver's best)", optimal_vs_solver},
      {"game.node_budget_best_so_far", "exact (depth reached, moves, zeroed slots)", node_budget},
      {"game.tick_budget_best_so_far", "exact moves at the depth reached (tick counts themselves vary)", tick_budget},
      {"game.degenerate_exploration_boost", "exact (depth reached, moves, status)", exploration_boost},
      {"game.bad_input", "exact (typed error with the place named)", bad_input},
  };
}

}  // namespace weft::conformance
