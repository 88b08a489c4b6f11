// CPU reference: the device's search step for step (iterative deepening over a full negamax tree,
// the same evaluation, tie-break and rules), plus a plain negamax and an alpha-beta peer.
#include <algorithm>
#include <cstdlib>

#include "game.h"

namespace weft::game {

namespace {

// A full fixed-depth negamax that counts the nodes of every level, as the device expands them.
struct Walker {
  const Board& b;
  const Evaluation& e;
  const std::vector<uint64_t>& ws;
  std::vector<uint64_t>* levels = nullptr;  // nodes per ply (index 0 = root)
  uint64_t nodes = 0;

  int32_t negamax(const Position& p, uint32_t left, uint32_t ply) {
    ++nodes;
    if (levels) ++(*levels)[ply];
    if (previous_mover_won(b, p)) return -(kWin - int32_t(ply));
    if (is_full(b, p)) return 0;
    if (left == 0) return evaluate(b, e, ws, p);
    int32_t best = INT32_MIN;
    for (uint32_t c = 0; c < b.width; ++c)
      if (can_play(b, p, c)) best = std::max(best, -negamax(play(b, p, c), left - 1, ply + 1));
    return best;
  }
};

// Best move = lowest column among the best scores; confidence = best - best of the other moves.
RootResult summarize(std::vector<int32_t> scores, uint32_t depth) {
  RootResult r;
  r.depth = depth;
  uint32_t legal = 0, at_best = 0;
  for (size_t c = 0; c < scores.size(); ++c) {
    if (scores[c] == kNoMove) continue;
    ++legal;
    if (r.move < 0 || scores[c] > r.score) {
      r.move = int32_t(c);
      r.score = scores[c];
    }
  }
  int32_t second = kNoMove;
  for (size_t c = 0; c < scores.size(); ++c)
    if (scores[c] != kNoMove) {
      at_best += scores[c] == r.score;
      if (int32_t(c) != r.move) second = std::max(second, scores[c]);
    }
  r.confidence = legal > 1 ? r.score - second : kWin;
  r.degenerate = legal > 1 && at_best == legal;
  r.move_scores = std::move(scores);
  return r;
}

RootResult search_root(Walker& w, const Position& root, uint32_t depth) {
  std::vector<int32_t> scores(w.b.width, kNoMove);
  for (uint32_t c = 0; c < w.b.width; ++c)
    if (can_play(w.b, root, c)) scores[c] = -w.negamax(play(w.b, root, c), depth - 1, 1);
  return summarize(std::move(scores), depth);
}

void check_roots(const Board& b, const std::vector<Position>& roots) {
  for (size_t i = 0; i < roots.size(); ++i) {
    validate(b, roots[i], "root " + std::to_string(i));
    if (is_over(b, roots[i])) fail(ErrorCode::BadInput, "root " + std::to_string(i) + ": the game is over, there is no move to search");
  }
}

}  // namespace

SearchResult reference_search(const Board& b, const SearchConfig& c, const std::vector<Position>& roots) {
  validate(b);
  validate(c);
  validate(b, c.evaluation);
  check_roots(b, roots);
  const std::vector<uint64_t> ws = windows(b);
  SearchResult out;
  std::vector<RootResult> previous;
  for (uint32_t d = 1; d <= c.levels(); ++d) {
    std::vector<uint64_t> levels(d + 1, 0);
    Walker w{b, c.evaluation, ws, &levels};
    std::vector<RootResult> now;
    DepthSummary s;
    s.depth = d;
    for (size_t i = 0; i < roots.size(); ++i) {
      RootResult r = search_root(w, roots[i], d);
      r.novelty = d > 1 && r.move != previous[i].move;
      s.degenerate += r.degenerate;
      s.novel += r.novelty;
      now.push_back(std::move(r));
    }
    s.level_nodes = levels[d];
    for (uint32_t k = 1; k <= d; ++k) s.nodes_so_far += levels[k];
    if (!now.empty()) s.message = {now[0].move, now[0].confidence, int32_t(d), now[0].novelty ? 1 : 0};
    out.depths.push_back(s);
    out.depth_reached = d;
    out.roots = now;
    previous = std::move(now);
    // The rules, in the device's order, after every depth but the last.
    if (d == c.levels()) break;
    if (s.nodes_so_far > c.node_budget) break;
    if (d >= c.depth && s.degenerate < c.boost_min_degenerate) break;
  }
  return out;
}

RootResult negamax_root(const Board& b, const Evaluation& e, const Position& root, uint32_t depth, uint64_t& nodes) {
  const std::vector<uint64_t> ws = windows(b);
  Walker w{b, e, ws};
  RootResult r = search_root(w, root, depth);
  nodes += w.nodes;
  return r;
}

namespace {

struct AlphaBeta {
  const Board& b;
  const Evaluation& e;
  std::vector<uint64_t> ws;
  std::vector<uint32_t> order;  // centre first
  uint64_t nodes = 0;

  int32_t search(const Position& p, uint32_t left, uint32_t ply, int32_t alpha, int32_t beta) {
    ++nodes;
    if (previous_mover_won(b, p)) return -(kWin - int32_t(ply));
    if (is_full(b, p)) return 0;
    if (left == 0) return evaluate(b, e, ws, p);
    int32_t best = INT32_MIN;
    for (uint32_t c : order) {
      if (!can_play(b, p, c)) continue;
      const int32_t v = -search(play(b, p, c), left - 1, ply + 1, -beta, -alpha);
      best = std::max(best, v);
      alpha = std::max(alpha, v);
      if (alpha >= beta) break;
    }
    return best;
  }
};

}  // namespace

RootResult alphabeta_root(const Board& b, const Evaluation& e, const Position& root, uint32_t depth, uint64_t& nodes) {
  AlphaBeta ab{b, e, windows(b), {}};
  for (uint32_t c = 0; c < b.width; ++c) ab.order.push_back(c);
  std::stable_sort(ab.order.begin(), ab.order.end(), [&](uint32_t x, uint32_t y) {  // centre first
    return std::abs(2 * int32_t(x) + 1 - int32_t(b.width)) < std::abs(2 * int32_t(y) + 1 - int32_t(b.width));
  });
  constexpr int32_t kInf = kWin + 1;
  RootResult r;
  r.depth = depth;
  // Root moves in column order with the window (best, +inf): a move is taken only when it is
  // strictly better, so the lowest column among equal scores wins, as in the full search.
  for (uint32_t c = 0; c < b.width; ++c) {
    if (!can_play(b, root, c)) continue;
    const int32_t v = -ab.search(play(b, root, c), depth - 1, 1, -kInf, r.move < 0 ? kInf : -r.score);
    if (r.move < 0 || v > r.score) {
      r.move = int32_t(c);
      r.score = v;
    }
  }
  nodes += ab.nodes;
  return r;
}

void validate(const SearchConfig& c) {
  if (c.depth == 0 || c.levels() > kMaxDepth)
    fail(ErrorCode::BadInput, "game: search depth " + std::to_string(c.depth) + " (max depth " + std::to_string(c.levels()) +
                                  ") outside 1.." + std::to_string(kMaxDepth));
  if (c.boost_min_degenerate == 0) fail(ErrorCode::BadInput, "game: boost_min_degenerate must be at least 1");
}

}  // namespace weft::game
