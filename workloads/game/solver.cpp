// Exhaustive solver: negamax with alpha-beta on the outcome (-1, 0, 1) and a transposition table
// of bounds. Independent of the fixed-depth search: no evaluation, no depth limit, its own move
// order, so the tests can hold the device's search against the game-theoretic truth.
#include <algorithm>
#include <cstdlib>
#include <unordered_map>

#include "game.h"

namespace weft::game {

struct Solver::Impl {
  struct Bounds {
    int8_t lo = -1, hi = 1;
  };
  // cur + mask identifies a position uniquely: per column mask is 2^h - 1 and cur < 2^h, so
  // the sum stays inside the column's h + 1 bits and h and cur can be read back from it.
  std::unordered_map<uint64_t, Bounds> table;
};

Solver::Solver(const Board& b) : b_(b), tt_(std::make_shared<Impl>()) {
  validate(b);
  for (uint32_t c = 0; c < b.width; ++c) order_.push_back(c);
  std::stable_sort(order_.begin(), order_.end(), [&](uint32_t x, uint32_t y) {
    return std::abs(2 * int32_t(x) + 1 - int32_t(b.width)) < std::abs(2 * int32_t(y) + 1 - int32_t(b.width));
  });
}

int Solver::search(const Position& p, int alpha, int beta) {
  ++nodes_;
  if (previous_mover_won(b_, p)) return -1;
  if (is_full(b_, p)) return 0;
  for (uint32_t c : order_)
    if (can_play(b_, p, c) && has_four(b_, p.cur | (play(b_, p, c).mask ^ p.mask))) return 1;
  const uint64_t key = p.cur + p.mask;
  auto it = tt_->table.find(key);
  if (it != tt_->table.end()) {
    const Impl::Bounds e = it->second;
    if (e.lo >= beta) return e.lo;
    if (e.hi <= alpha) return e.hi;
    alpha = std::max<int>(alpha, e.lo);
    beta = std::min<int>(beta, e.hi);
    if (alpha >= beta) return alpha;
  }
  const int alpha0 = alpha;
  int best = -2;
  for (uint32_t c : order_) {
    if (!can_play(b_, p, c)) continue;
    const int v = -search(play(b_, p, c), -beta, -alpha);
    best = std::max(best, v);
    alpha = std::max(alpha, v);
    if (alpha >= beta) break;
  }
  Impl::Bounds& e = tt_->table[key];
  if (best <= alpha0)
    e.hi = int8_t(std::min<int>(e.hi, best));  // failed low: the value is at most best
  else if (best >= beta)
    e.lo = int8_t(std::max<int>(e.lo, best));  // failed high: at least best
  else
    e.lo = e.hi = int8_t(best);
  return best;
}

int Solver::solve(const Position& p) { return search(p, -1, 1); }

std::vector<std::optional<int>> Solver::move_values(const Position& p) {
  std::vector<std::optional<int>> out(b_.width);
  for (uint32_t c = 0; c < b_.width; ++c)
    if (can_play(b_, p, c)) {
      const Position q = play(b_, p, c);
      out[c] = previous_mover_won(b_, q) ? 1 : -solve(q);
    }
  return out;
}

}  // namespace weft::game
