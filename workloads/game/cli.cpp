// weft game demo|bench|solve|play: batched connect-four search (workloads/game) on one device.
//
//   weft game demo  [--board WxH] [--positions N] [--empty E] [--seed S] [--device SEL] [--validation]
//     N late-game positions with E empty cells, searched on the device to depth E (to the end of
//     the game) in one batch; per position the device's move and score next to the exhaustive
//     solver's value of every move, nodes searched and GPU time.
//   weft game bench [--board WxH] [--roots B] [--depth D] [--empty E] [--runs R] [--seed S]
//     JSON lines: positions evaluated per second and moves (roots) per second at fixed depth, and
//     the ratio to the CPU reference negamax and to a CPU alpha-beta search in the same run.
//   weft game solve MOVES [--board WxH] [--depth D]
//     one position (1-based column digits, e.g. 4453): device search and, when at most 16 cells
//     are empty, the exhaustive solver's value of every move.
//   weft game play [MOVES] [--board WxH] [--depth D]
//     the device plays both sides from MOVES to the end of the game.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>

#include <weft/weft.h>

#include "bench.h"
#include "cli.h"
#include "game.h"

namespace {

using namespace weft;
using namespace weft::game;

using cli::u32;

// `weft help` lines of this command.
const char* const kHelpLines =
    "  game demo|bench|solve|play [--board WxH --depth D --roots B]\n"
    "                                          batched connect-four search vs an exhaustive solver\n";

const char* kGameUsage =
    "usage: weft game demo  [--board WxH] [--positions N] [--empty E] [--seed S] [--device SEL] [--validation]\n"
    "       weft game bench [--board WxH] [--roots B] [--depth D] [--empty E] [--runs R] [--seed S]\n"
    "       weft game solve MOVES [--board WxH] [--depth D]\n"
    "       weft game play [MOVES] [--board WxH] [--depth D]\n"
    "  MOVES: 1-based column digits from the empty board, e.g. 4453\n"
    "  demo:  late-game positions searched to the end on the device vs the exhaustive solver\n"
    "  bench: JSON lines, positions/s and moves/s at fixed depth vs CPU negamax and alpha-beta\n"
    "  solve: device best move (and the solver's value of every move when <= 16 cells are empty)\n"
    "  play:  the device plays both sides to the end of the game\n";

Board parse_board(const cli::Args& a) {
  const std::string s = a.get("board", "7x6");
  const size_t x = s.find('x');
  Board b;
  try {
    if (x == std::string::npos) throw std::invalid_argument(s);
    size_t u1 = 0, u2 = 0;
    b.width = uint32_t(std::stoul(s.substr(0, x), &u1));
    b.height = uint32_t(std::stoul(s.substr(x + 1), &u2));
    if (u1 != x || u2 != s.size() - x - 1) throw std::invalid_argument(s);
  } catch (const std::exception&) {
    fail(ErrorCode::BadInput, "--board expects WxH (e.g. 7x6), got '" + s + "'");
  }
  validate(b);
  return b;
}

const char* outcome(int v) { return v > 0 ? "win" : v < 0 ? "loss" : "draw"; }

std::string score_text(int32_t s) {
  if (s >= kWin - int32_t(kMaxDepth)) return "win in " + std::to_string(kWin - s) + " plies";
  if (s <= -kWin + int32_t(kMaxDepth)) return "loss in " + std::to_string(kWin + s) + " plies";
  return std::to_string(s);
}

bool wins_at_once(const Board& b, const Position& p) {
  for (uint32_t c = 0; c < b.width; ++c)
    if (can_play(b, p, c) && previous_mover_won(b, play(b, p, c))) return true;
  return false;
}

// Seeded random positions with `empty` cells left; `interesting`: none where the side to move
// wins at once.
std::vector<Position> late_positions(const Board& b, uint32_t count, uint32_t empty, uint64_t seed, bool interesting = false) {
  std::vector<Position> out;
  uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
  for (uint32_t tries = 0; out.size() < count && tries < count * 1000; ++tries)
    if (auto p = random_position(b, empty, rng); p && !is_over(b, *p) && !(interesting && wins_at_once(b, *p))) out.push_back(*p);
  if (out.size() < count) fail(ErrorCode::BadInput, "game: could not find " + std::to_string(count) + " positions with " + std::to_string(empty) + " empty cells");
  return out;
}

int run_demo(const cli::Args& a) {
  const Board b = parse_board(a);
  const uint32_t n = std::max<uint32_t>(1, u32(a, "positions", 4));
  const uint32_t empty = u32(a, "empty", 10);
  if (empty == 0 || empty > std::min<uint32_t>(b.cells(), kMaxDepth))
    fail(ErrorCode::BadInput, "--empty must be 1.." + std::to_string(std::min<uint32_t>(b.cells(), kMaxDepth)));
  auto dev = open_device(a);
  const std::vector<Position> roots = late_positions(b, n, empty, u32(a, "seed", 1), true);
  SearchConfig cfg;
  cfg.depth = empty;  // deep enough to reach the end of every line: the search is exact
  Search search(*dev, b, cfg, n);
  search.run(roots);  // warm-up: the timings below are of a replay
  const SearchResult r = search.run(roots);
  std::printf("device: %s\nboard %ux%u, %u positions with %u empty cells, searched to depth %u (the end of the game) in one batch\n\n",
              dev->info().name.c_str(), b.width, b.height, n, empty, r.depth_reached);
  std::printf("first position (x to move when the stone counts are equal):\n%s\n", render(b, roots[0]).c_str());
  Solver solver(b);
  bool all_optimal = true;
  std::printf("pos  device move  device score        solver value of each column (1..%u)         optimal\n", b.width);
  for (uint32_t i = 0; i < n; ++i) {
    const auto values = solver.move_values(roots[i]);
    int best = -2;
    for (const auto& v : values)
      if (v) best = std::max(best, *v);
    std::string cols;
    for (uint32_t c = 0; c < b.width; ++c) cols += values[c] ? std::string(outcome(*values[c])).substr(0, 4) + " " : "-    ";
    const bool optimal = r.roots[i].move >= 0 && values[r.roots[i].move] && *values[r.roots[i].move] == best;
    all_optimal = all_optimal && optimal;
    std::printf("%3u  %-11d  %-18s  %-42s  %s\n", i, r.roots[i].move + 1, score_text(r.roots[i].score).c_str(), cols.c_str(),
                optimal ? "yes" : "NO");
  }
  std::printf("\nnodes searched per depth:");
  for (const DepthSummary& s : r.depths) std::printf(" %llu", (unsigned long long)s.level_nodes);
  std::printf("  (total %llu; solver %llu nodes with its transposition table)\n", (unsigned long long)r.nodes(),
              (unsigned long long)solver.nodes());
  std::printf("\nGPU time per stage (timestamps, summed over depths):\n");
  for (const KindTime& t : search.stage_times()) std::printf("  %-10s %10.3f ms\n", t.kind.c_str(), t.ns * 1e-6);
  std::printf("  %-10s %10.3f ms\n", "total", search.gpu_ns() * 1e-6);
  std::printf("\n%s\n", all_optimal ? "every device move is game-theoretically optimal" : "FAIL: a device move is not optimal");

  // The regulator at work: a midgame batch with a node budget stops early with the best moves
  // found so far, the same as the CPU reference stopping at the same depth.
  const uint32_t batch = 64, budget = 20000;
  const std::vector<Position> mid = late_positions(b, batch, b.cells() - std::min<uint32_t>(b.cells() / 3, 14), 7, true);
  SearchConfig deep;
  deep.depth = 6;
  deep.node_budget = budget;
  Search budgeted(*dev, b, deep, batch);
  budgeted.run(mid);
  const SearchResult br = budgeted.run(mid);
  const SearchResult bref = reference_search(b, deep, mid);
  const bool same = br.depth_reached == bref.depth_reached && br.roots == bref.roots && br.depths == bref.depths;
  std::printf("\nnode budget rule: %u midgame positions, depth %u, budget %u nodes\n", batch, deep.depth, budget);
  for (const DepthSummary& s : br.depths)
    std::printf("  depth %u: %7llu nodes so far, root 0 R30 = [move %d, confidence %d, depth %d, novelty %d], %u roots changed move\n",
                s.depth, (unsigned long long)s.nodes_so_far, s.message[0] + 1, s.message[1], s.message[2], s.message[3], s.novel);
  std::printf("  stopped after depth %u of %u (%.3f ms GPU); moves and scores %s the CPU reference's\n", br.depth_reached, deep.depth,
              budgeted.gpu_ns() * 1e-6, same ? "identical to" : "DIFFER from");
  return all_optimal && same ? 0 : 1;
}

int run_bench(const cli::Args& a) {
  const Board b = parse_board(a);
  const uint32_t roots_n = std::max<uint32_t>(1, u32(a, "roots", 256));
  const uint32_t depth = std::max<uint32_t>(1, u32(a, "depth", 4));
  const uint32_t empty = u32(a, "empty", b.cells() - 8);
  const uint32_t runs = std::max<uint32_t>(1, u32(a, "runs", 3));
  auto dev = open_device(a);
  const std::vector<Position> roots = late_positions(b, roots_n, std::min(empty, b.cells() - 1), u32(a, "seed", 1));
  SearchConfig cfg;
  cfg.depth = depth;
  Search search(*dev, b, cfg, roots_n);
  SearchResult r = search.run(roots);  // warm-up
  std::vector<double> ns;
  for (uint32_t k = 0; k < runs; ++k) {
    r = search.run(roots);
    ns.push_back(search.gpu_ns());
  }
  std::sort(ns.begin(), ns.end());
  const double gpu = ns[ns.size() / 2];
  // CPU peers, one thread each: the reference negamax (same tree, same nodes) and alpha-beta.
  uint64_t cpu_nodes = 0, ab_nodes = 0;
  bool same = true;
  auto t0 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < roots.size(); ++i) {
    const RootResult c = negamax_root(b, cfg.evaluation, roots[i], depth, cpu_nodes);
    same = same && c.move == r.roots[i].move && c.score == r.roots[i].score;
  }
  auto t1 = std::chrono::steady_clock::now();
  for (size_t i = 0; i < roots.size(); ++i) {
    const RootResult c = alphabeta_root(b, cfg.evaluation, roots[i], depth, ab_nodes);
    same = same && c.move == r.roots[i].move && c.score == r.roots[i].score;
  }
  auto t2 = std::chrono::steady_clock::now();
  const double cpu_ns = std::chrono::duration<double, std::nano>(t1 - t0).count();
  const double ab_ns = std::chrono::duration<double, std::nano>(t2 - t1).count();
  const double evaluated = double(r.nodes());
  bench::Line("game.search", *dev)
      .str("board", std::to_string(b.width) + "x" + std::to_string(b.height))
      .num("roots", roots_n)
      .num("depth", depth)
      .num("empty_cells", std::min(empty, b.cells() - 1))
      .num("runs", runs)
      .num("nodes_evaluated", evaluated)
      .num("gpu_ms", gpu * 1e-6)
      .num("gpu_positions_per_s", evaluated / (gpu * 1e-9))
      .num("gpu_moves_per_s", roots_n / (gpu * 1e-9))
      .str("peer", "cpu_negamax_1thread")
      .num("cpu_ms", cpu_ns * 1e-6)
      .num("cpu_positions_per_s", double(cpu_nodes) / (cpu_ns * 1e-9))
      .num("cpu_moves_per_s", roots_n / (cpu_ns * 1e-9))
      .num("speedup_vs_cpu_negamax", cpu_ns / gpu)
      .str("peer2", "cpu_alphabeta_1thread")
      .num("alphabeta_nodes", double(ab_nodes))
      .num("alphabeta_ms", ab_ns * 1e-6)
      .num("alphabeta_moves_per_s", roots_n / (ab_ns * 1e-9))
      .num("speedup_vs_cpu_alphabeta", ab_ns / gpu)
      .boolean("moves_and_scores_match_cpu", same)
      .print();
  return same ? 0 : 1;
}

int run_solve(const cli::Args& a) {
  const Board b = parse_board(a);
  const std::string moves = a.positional.size() > 1 ? a.positional[1] : "";
  const Position p = parse_moves(b, moves, "MOVES");
  if (is_over(b, p)) fail(ErrorCode::BadInput, "MOVES: the game is over");
  const uint32_t empty = b.cells() - p.moves();
  SearchConfig cfg;
  cfg.depth = std::min(u32(a, "depth", std::min<uint32_t>(empty, 7)), empty);
  auto dev = open_device(a);
  Search search(*dev, b, cfg, 1);
  const SearchResult r = search.run({p});
  std::printf("%s\n", render(b, p).c_str());
  std::printf("device: %s; depth %u%s, %llu nodes, %.3f ms GPU\n", dev->info().name.c_str(), r.depth_reached,
              cfg.depth == empty ? " (to the end of the game: exact)" : "", (unsigned long long)r.nodes(), search.gpu_ns() * 1e-6);
  std::printf("best move: column %d, score %s, confidence %d\ncolumn scores:", r.roots[0].move + 1, score_text(r.roots[0].score).c_str(),
              r.roots[0].confidence);
  for (uint32_t c = 0; c < b.width; ++c)
    std::printf(" %u:%s", c + 1, r.roots[0].move_scores[c] == kNoMove ? "-" : score_text(r.roots[0].move_scores[c]).c_str());
  std::printf("\n");
  if (empty <= 16) {
    Solver solver(b);
    const auto values = solver.move_values(p);
    std::printf("solver (exhaustive): position is a %s for the side to move; columns:", outcome(solver.solve(p)));
    for (uint32_t c = 0; c < b.width; ++c) std::printf(" %u:%s", c + 1, values[c] ? outcome(*values[c]) : "-");
    std::printf("\n");
  } else {
    std::printf("solver: skipped (%u empty cells; it runs up to 16)\n", empty);
  }
  return 0;
}

int run_play(const cli::Args& a) {
  const Board b = parse_board(a);
  Position p = parse_moves(b, a.positional.size() > 1 ? a.positional[1] : "", "MOVES");
  SearchConfig cfg;
  cfg.depth = std::max<uint32_t>(1, u32(a, "depth", 6));
  auto dev = open_device(a);
  Search search(*dev, b, cfg, 1);
  std::string line;
  double gpu = 0;
  while (!is_over(b, p)) {
    const SearchResult r = search.run({p});
    gpu += search.gpu_ns();
    line += char('1' + r.roots[0].move);
    p = play(b, p, uint32_t(r.roots[0].move));
  }
  std::printf("%s\ndevice moves: %s (%.3f ms GPU in all)\nresult: %s\n", render(b, p).c_str(), line.c_str(), gpu * 1e-6,
              previous_mover_won(b, p) ? (p.moves() % 2 ? "x (first player) wins" : "o (second player) wins") : "draw");
  return 0;
}

}  // namespace

WEFT_CLI_COMMAND(game) {
  return {.name = "game", .options = {"board", "positions", "empty", "seed", "device", "roots", "depth", "runs"},
          .flags = {"validation"}, .verbs = {{"demo", run_demo}, {"bench", run_bench}, {"solve", run_solve}, {"play", run_play}},
          .usage = kHelpLines, .help = kGameUsage};
}
