// Connect-four rules on bitboards: moves, four-in-a-line, parsing, rendering, validation.
#include <algorithm>
#include <bit>
#include <cstdlib>

#include "game.h"

namespace weft::game {

namespace {

std::string num(uint64_t v) { return std::to_string(v); }

uint64_t board_mask(const Board& b) {
  uint64_t m = 0;
  for (uint32_t c = 0; c < b.width; ++c) m |= b.column_mask(c);
  return m;
}

}  // namespace

void validate(const Board& b) {
  if (b.width < 4 || b.width > kMaxWidth || b.height < 4 || b.width * (b.height + 1) > 64)
    fail(ErrorCode::BadInput, "game: board " + num(b.width) + "x" + num(b.height) +
                                  " unsupported (need 4 <= width <= 12, height >= 4, width x (height+1) <= 64)");
}

uint32_t Position::moves() const { return uint32_t(std::popcount(mask)); }

bool has_four(const Board& b, uint64_t s) {
  // Vertical, horizontal and both diagonals: a shift of 1, H+1, H and H+2 bits moves one cell
  // along the line; the sentinel row keeps a line from wrapping into the next column.
  const uint32_t shifts[4] = {1, b.height + 1, b.height, b.height + 2};
  for (uint32_t d : shifts) {
    const uint64_t m = s & (s >> d);
    if (m & (m >> (2 * d))) return true;
  }
  return false;
}

bool can_play(const Board& b, const Position& p, uint32_t column) {
  return column < b.width && (p.mask & b.top(column)) == 0;
}

Position play(const Board& b, const Position& p, uint32_t column) {
  const uint32_t height = uint32_t(std::popcount(p.mask & b.column_mask(column)));
  const uint64_t bit = uint64_t(1) << (column * (b.height + 1) + height);
  return {p.cur ^ p.mask, p.mask | bit};  // the other side moves next
}

bool previous_mover_won(const Board& b, const Position& p) { return has_four(b, p.cur ^ p.mask); }
bool is_full(const Board& b, const Position& p) { return p.moves() == b.cells(); }
bool is_over(const Board& b, const Position& p) { return previous_mover_won(b, p) || is_full(b, p); }

Position parse_moves(const Board& b, const std::string& moves, const std::string& where) {
  validate(b);
  Position p;
  for (size_t i = 0; i < moves.size(); ++i) {
    const std::string at = where + ":1:" + num(i + 1) + ": ";
    const char ch = moves[i];
    if (ch < '1' || ch > '9' || uint32_t(ch - '0') > b.width)
      fail(ErrorCode::BadInput, at + "'" + std::string(1, ch) + "' is not a column (1.." + num(b.width) + ")");
    const uint32_t c = uint32_t(ch - '1');
    if (is_over(b, p)) fail(ErrorCode::BadInput, at + "the game is already over after move " + num(i));
    if (!can_play(b, p, c)) fail(ErrorCode::BadInput, at + "column " + num(c + 1) + " is full");
    p = play(b, p, c);
  }
  return p;
}

std::string render(const Board& b, const Position& p) {
  // The first player has moved as often as the second or once more; the side to move is the
  // first player when the number of stones is even.
  const uint64_t first = p.moves() % 2 == 0 ? p.cur : p.cur ^ p.mask;
  std::string out;
  for (uint32_t r = b.height; r-- > 0;) {
    for (uint32_t c = 0; c < b.width; ++c) {
      const uint64_t bit = uint64_t(1) << (c * (b.height + 1) + r);
      out += (p.mask & bit) ? ((first & bit) ? 'x' : 'o') : '.';
    }
    out += '\n';
  }
  for (uint32_t c = 0; c < b.width; ++c) out += char('1' + c);
  out += '\n';
  return out;
}

void validate(const Board& b, const Position& p, const std::string& what) {
  validate(b);
  if (p.cur & ~p.mask) fail(ErrorCode::BadInput, what + ": stones of the side to move outside the stone mask");
  if (p.mask & ~board_mask(b)) fail(ErrorCode::BadInput, what + ": stones outside the " + num(b.width) + "x" + num(b.height) + " board");
  for (uint32_t c = 0; c < b.width; ++c) {
    const uint64_t col = (p.mask & b.column_mask(c)) >> (c * (b.height + 1));
    if (col & (col + 1)) fail(ErrorCode::BadInput, what + ": column " + num(c + 1) + " has a floating stone");
  }
  if (has_four(b, p.cur)) fail(ErrorCode::BadInput, what + ": the side to move already has four in a line");
  const int own = std::popcount(p.cur), other = std::popcount(p.cur ^ p.mask);
  if (own != other && own + 1 != other)
    fail(ErrorCode::BadInput, what + ": the side to move has " + num(own) + " stones, the other " + num(other));
}

std::optional<Position> random_position(const Board& b, uint32_t empty, uint64_t& rng) {
  Position p;
  while (b.cells() - p.moves() > empty) {
    uint32_t legal[kMaxWidth], n = 0;
    for (uint32_t c = 0; c < b.width; ++c)
      if (can_play(b, p, c)) legal[n++] = c;
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;  // 64-bit LCG: fixed seeds, fixed positions
    p = play(b, p, legal[(rng >> 33) % n]);
    if (previous_mover_won(b, p)) return std::nullopt;
  }
  return p;
}

std::vector<uint64_t> windows(const Board& b) {
  std::vector<uint64_t> out;
  const int W = int(b.width), H = int(b.height);
  const int dirs[4][2] = {{0, 1}, {1, 0}, {1, 1}, {1, -1}};  // (dc, dr)
  for (const auto& d : dirs)
    for (int c = 0; c < W; ++c)
      for (int r = 0; r < H; ++r) {
        const int c3 = c + 3 * d[0], r3 = r + 3 * d[1];
        if (c3 < 0 || c3 >= W || r3 < 0 || r3 >= H) continue;
        uint64_t m = 0;
        for (int k = 0; k < 4; ++k) m |= uint64_t(1) << ((c + k * d[0]) * (H + 1) + (r + k * d[1]));
        out.push_back(m);
      }
  return out;
}

void validate(const Board& b, const Evaluation& e) {
  const uint64_t n = windows(b).size();
  int64_t worst = 0;
  for (int32_t w : e.weights) worst = std::max<int64_t>(worst, std::llabs(int64_t(w)));
  // |evaluation| <= windows x max |weight| must stay below the smallest win score, kWin - depth.
  if (worst * int64_t(n) >= kWin - int64_t(kMaxDepth) - 1)
    fail(ErrorCode::BadInput, "game: evaluation weights up to " + num(uint64_t(worst)) + " over " + num(n) +
                                  " windows could reach the win score " + num(kWin));
}

int32_t evaluate(const Board&, const Evaluation& e, const std::vector<uint64_t>& ws, const Position& p) {
  const uint64_t own = p.cur, opp = p.cur ^ p.mask;
  int32_t s = 0;
  for (uint64_t w : ws) {
    const int a = std::popcount(w & own), o = std::popcount(w & opp);
    if (o == 0) s += e.weights[a];
    if (a == 0) s -= e.weights[o];
  }
  return s;
}

}  // namespace weft::game
