// Game workload: batched connect-four search as a chain on Weft's fixed bindings.
//
// Board. W columns x H rows (connect-four is 7 x 6; 5 x 4 and 6 x 5 are small enough to solve
// exhaustively in tests), four in a line wins. A position is two bitboards of W x (H + 1) bits,
// column-major with one sentinel bit on top of each column (so shifts never wrap a line from one
// column into the next): `cur` = the stones of the side to move, `mask` = all stones. W x (H+1)
// <= 64, and on the device each bitboard is a uvec2 (two 32-bit words): no shaderInt64 needed.
//
// Search. A fixed-depth negamax over the full tree (no pruning, so every level is one wide
// parallel pass over thousands of positions), many root positions at once, iterative deepening
// with one loop iteration (and one Weft instance) per depth level d = 1 .. max_depth:
//   size      -> slots sized by the node counts so far (indirect dispatch),
//   expand    -> move generation: every node of level d-1 that is not terminal writes its
//                children into level d (a contiguous block reserved with one atomic add),
//   evaluate  -> terminal detection (four in a line, full board) and the static evaluation of
//                every node of level d (features: the board's four-cell windows, weighted),
//   backup    -> negamax level by level, d-1 .. 0, from the node values of the level below,
//   select    -> per root: best move (lowest column among ties), score, confidence, degenerate,
//                novelty (best move changed since depth d-1), into Globals `results`,
//   message   -> R30 = [action, confidence, depth reached, novelty] of root 0 and the level's
//                Metrics; R31 is the previous depth's message,
//   regulator -> the rules below, which end the loop by zeroing the slots of the depths left.
// Scores are from the side to move's point of view, integers: a position whose previous mover
// made four scores -(kWin - ply), a full board 0, a depth-limit leaf its evaluation
//   sum over windows w: weights[n_own(w)] if the opponent has no stone in w,
//                       -weights[n_opp(w)] if the side to move has none.
// The CPU reference runs the same search and must agree exactly (moves, scores, node counts).
//
// Metrics of depth d's instance: counters[0] = nodes of level d, [1] = nodes evaluated so far
// (levels 1..d), [2] = d, [3] = degenerate roots (more than one legal move, all scoring the
// same), [4] = roots whose best move changed from depth d-1, [5] = node-capacity overflows,
// [6] = largest |root score|, [7] = compute ticks so far (sum over the workgroups of the search
// kernels, in units of 1024 device ticks; 0 without a shader clock); ticks = this depth's; norm = degenerate roots / roots (a ratio), max_abs = counters[6];
// status = ANOMALY on overflow, kStatusDegenerate when some root is degenerate, else OK.
//
// Rules (data, evaluated by the engine's regulator after every depth but the last):
//   budget: nodes evaluated so far > node budget            -> stop: the best move so far stands;
//   time:   compute ticks so far > tick budget               -> stop, likewise;
//   boost:  d >= depth and degenerate roots < boost_min_degenerate -> stop (so while scores are
//           degenerate the search explores deeper, up to max_depth).
// The node budget counts positions evaluated, so it is deterministic and the CPU reference can
// follow it; the tick budget is the time budget proper (device clock ticks the search kernels'
// workgroups spent, summed). Both thresholds are words in Control the host changes per run.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <weft/weft.h>

namespace weft::game {

inline constexpr int32_t kWin = 1000000;       // |score| of a won/lost position at ply 0
inline constexpr int32_t kNoMove = INT32_MIN;  // score of an illegal root move
inline constexpr uint32_t kMaxWidth = 12;      // W x (H+1) <= 64 with H >= 4
inline constexpr uint32_t kMaxDepth = 24;
inline constexpr uint32_t kStatusDegenerate = WEFT_STATUS_WORKLOAD_FIRST;

struct Board {
  uint32_t width = 7, height = 6;
  uint32_t cells() const { return width * height; }
  uint64_t bottom(uint32_t column) const { return uint64_t(1) << (column * (height + 1)); }
  uint64_t column_mask(uint32_t column) const { return ((uint64_t(1) << height) - 1) << (column * (height + 1)); }
  uint64_t top(uint32_t column) const { return uint64_t(1) << (column * (height + 1) + height - 1); }
};
// BadInput unless 4 <= W <= 12, 4 <= H and W x (H+1) <= 64.
void validate(const Board& board);

struct Position {
  uint64_t cur = 0;   // stones of the side to move
  uint64_t mask = 0;  // all stones
  uint32_t moves() const;
  bool operator==(const Position&) const = default;
};

bool has_four(const Board& b, uint64_t stones);
bool can_play(const Board& b, const Position& p, uint32_t column);
Position play(const Board& b, const Position& p, uint32_t column);
// The side that just moved made four.
bool previous_mover_won(const Board& b, const Position& p);
bool is_full(const Board& b, const Position& p);
bool is_over(const Board& b, const Position& p);
// Parses a move sequence of 1-based column digits ("4453"); BadInput naming `where`:1:column
// for a character that is not a column, a full column, or a move after the game ended.
Position parse_moves(const Board& b, const std::string& moves, const std::string& where = "position");
// Rows top to bottom: 'x' the first player, 'o' the second, '.' empty.
std::string render(const Board& b, const Position& p);
// A consistent position: stones only in cells, no floating stones, and the side to move has as
// many stones as the other (or one fewer). BadInput naming `what` otherwise.
void validate(const Board& b, const Position& p, const std::string& what);
// Random legal play from the empty board until `empty` cells remain, with neither side having
// made four; nullopt if a game ends first.
std::optional<Position> random_position(const Board& b, uint32_t empty, uint64_t& rng_state);

// ---- evaluation -----------------------------------------------------------------------------
struct Evaluation {
  std::array<int32_t, 4> weights{0, 1, 8, 64};  // by own stones in a window free of the other side's
};
// Every four-cell line of the board as a bitmask.
std::vector<uint64_t> windows(const Board& b);
// BadInput when |weights| x windows could reach the win scores.
void validate(const Board& b, const Evaluation& e);
int32_t evaluate(const Board& b, const Evaluation& e, const std::vector<uint64_t>& windows, const Position& p);

// ---- search configuration and results ----------------------------------------------------
struct SearchConfig {
  uint32_t depth = 4;      // nominal depth
  uint32_t max_depth = 0;  // > depth: the exploration boost may search this deep (0: = depth)
  uint32_t boost_min_degenerate = 1;  // continue past `depth` while this many roots are degenerate
  uint32_t node_budget = UINT32_MAX;  // stop after the first depth whose nodes so far exceed this
  // Stop after the first depth whose compute ticks so far (units of 1024 device ticks) exceed
  // this. Needs a shader clock (else nothing is counted); the CPU reference cannot model it.
  uint32_t tick_budget = UINT32_MAX;
  Evaluation evaluation;
  uint32_t levels() const { return max_depth > depth ? max_depth : depth; }
};
void validate(const SearchConfig& c);

struct RootResult {
  int32_t move = -1;  // 0-based column
  int32_t score = 0;
  int32_t confidence = 0;  // best score - second best (kWin with one legal move)
  uint32_t depth = 0;
  bool novelty = false;     // best move differs from the one at depth - 1
  bool degenerate = false;  // > 1 legal move, all scoring the same
  std::vector<int32_t> move_scores;  // per column, kNoMove where illegal
  bool operator==(const RootResult&) const = default;
};

struct DepthSummary {
  uint32_t depth = 0;
  uint64_t level_nodes = 0, nodes_so_far = 0;
  uint32_t degenerate = 0, novel = 0;
  // R30 of that depth's instance (root 0): action, confidence, depth, novelty.
  std::array<int32_t, 4> message{};
  bool operator==(const DepthSummary&) const = default;
};

struct SearchResult {
  uint32_t depth_reached = 0;
  std::vector<RootResult> roots;
  std::vector<DepthSummary> depths;  // one per depth searched
  std::vector<uint32_t> kiloticks;   // device: compute ticks so far after each depth (/ 1024)
  uint64_t nodes() const { return depths.empty() ? 0 : depths.back().nodes_so_far; }
};

// ---- CPU reference: the same search, the same rules, integer-exact ------------------------
SearchResult reference_search(const Board& b, const SearchConfig& c, const std::vector<Position>& roots);
// Plain fixed-depth negamax of one root (the CPU peer of the device's per-node work).
RootResult negamax_root(const Board& b, const Evaluation& e, const Position& root, uint32_t depth, uint64_t& nodes);
// Alpha-beta at fixed depth (centre-first move order): same best move and score as negamax,
// far fewer nodes. The practical CPU peer.
RootResult alphabeta_root(const Board& b, const Evaluation& e, const Position& root, uint32_t depth, uint64_t& nodes);

// ---- exhaustive solver: game-theoretic value (1 win, 0 draw, -1 loss for the side to move) -
class Solver {
 public:
  explicit Solver(const Board& b);
  int solve(const Position& p);
  // Value of each column for the side to move at p (after playing it); nullopt where illegal.
  std::vector<std::optional<int>> move_values(const Position& p);
  uint64_t nodes() const { return nodes_; }

 private:
  int search(const Position& p, int alpha, int beta);
  Board b_;
  std::vector<uint32_t> order_;
  uint64_t nodes_ = 0;
  struct Impl;
  std::shared_ptr<Impl> tt_;
};

// ---- device -----------------------------------------------------------------------------
struct GameProgram {
  Program program;
  std::string prefix;
  std::vector<InstanceId> depths;  // instance of depth d at [d - 1]
  Loop loop;
  std::vector<StageId> regulators;  // after depth d at [d - 1] (none after the last)
  uint32_t count_word = 0;          // Control: node counts of levels 0 .. levels
  uint32_t capacity_word = 0;       // Control: capacity of levels 0 .. levels
  uint32_t overflow_word = 0;       // Control: nodes that found no room
  uint32_t ticks_word = 0;          // Control: compute ticks so far (units of 1024)
  std::vector<uint64_t> capacity;   // nodes per level
  // Segments "roots" (level 0: kNodeWords u32 per root, written by set_roots() or by a stage
  // before the search) and "results" (kResultWords u32 per root); instances "first_depth" (its
  // inbox is the search's message in) and "last_depth".
  Ports ports;
};
inline constexpr uint32_t kNodeWords = 8;      // a node in Globals, see shaders/game.glsl
inline constexpr uint32_t kResultWords = 24;   // a root's result record, see shaders/select.comp

// `capacity`: nodes per level 0 .. levels (level 0 = max roots).
GameProgram build_program(const Board& b, const SearchConfig& c, const std::vector<uint64_t>& capacity);
// Appends the search to a caller's program (a composition). Every name it adds (segments,
// instances, control words and the loop) starts with `prefix`, so two searches fit in one
// program. `before_search` runs after the search's layout is added and before its stages: a
// composition's stage there may write the roots (ports.segment("roots")).
using BeforeSearch = std::function<void(Program&, const GameProgram&)>;
GameProgram append_program(Program program, const Board& b, const SearchConfig& c, const std::vector<uint64_t>& capacity,
                           const std::string& prefix, const BeforeSearch& before_search = {});

// The host side of a search in an Executable (Search uses these; so does a composition).
// upload(): the evaluation tables, once. set_roots(): validated root positions and their count;
// set_root_count() when a stage writes the roots. check_capacity(): OutOfMemory naming the
// levels that overflowed. read_results() / read_root(): what the search wrote.
void upload(Executable& exe, const GameProgram& gp, const Board& b, const SearchConfig& c);
void set_roots(Executable& exe, const GameProgram& gp, const Board& b, const std::vector<Position>& roots);
void set_root_count(Executable& exe, const GameProgram& gp, uint32_t roots);
void check_capacity(Executable& exe, const GameProgram& gp);
std::vector<RootResult> read_results(Executable& exe, const GameProgram& gp, const Board& b, uint32_t roots);
Position read_root(Executable& exe, const GameProgram& gp, uint32_t root);

// Node capacity of levels 0..L: roots, then `total_nodes` spread over levels 1..L, each level at
// most its worst case roots x W^level, the deepest levels sharing what the shallow ones leave.
std::vector<uint64_t> level_capacity(const Board& b, const SearchConfig& c, uint32_t max_roots, uint64_t total_nodes);

class Search {
 public:
  // `node_capacity`: nodes of levels 1..L in all; 0: as many as fit in the device's
  // storage-buffer window and one allocation, at most 1 GiB of Globals.
  Search(Device& device, const Board& board, const SearchConfig& config, uint32_t max_roots, uint64_t node_capacity = 0);
  // One batched search (replays the recorded command buffer). BadInput for an invalid or
  // finished position; OutOfMemory when a level needs more nodes than its capacity.
  SearchResult run(const std::vector<Position>& roots);
  // Changes the budget rule's threshold in Control; no re-recording.
  void set_node_budget(uint32_t nodes);
  void set_tick_budget(uint32_t kiloticks);
  double gpu_ns();
  std::vector<KindTime> stage_times();
  Executable& executable() { return *exe_; }
  const GameProgram& program_info() const { return info_; }
  const Board& board() const { return board_; }

 private:
  Board board_;
  SearchConfig config_;
  uint32_t max_roots_;
  GameProgram info_;
  std::unique_ptr<Executable> exe_;
};

}  // namespace weft::game
