// The game search as a Weft program: one unrolled loop iteration (and one instance) per depth
// level, every dispatch sized from indirect slots that the kernels fill from the node counts,
// and the budget / exploration rules ending the loop by zeroing the slots of the depths left.
#include <algorithm>
#include <string>

#include "game.h"
#include "shaders/game_args.h"
#include "weft_game_kernels.h"

namespace weft::game {

namespace {


std::string level_name(const std::string& prefix, uint32_t k) { return prefix + "level" + std::to_string(k); }

constexpr uint32_t kNodeBytes = kNodeWords * 4;
// Slots of one iteration: single invocation, the evaluation of the new level, then one per
// level 0 .. levels-1 (expansion of the deepest and backups of all).
enum Shape : uint32_t { kSingle = 0, kEvaluate = 1, kLevel0 = 2 };

}  // namespace

std::vector<uint64_t> level_capacity(const Board& b, const SearchConfig& c, uint32_t max_roots, uint64_t total_nodes) {
  // Worst case per level: every node has W children (saturated: W^24 overflows 64 bits).
  std::vector<uint64_t> full{max_roots};
  for (uint32_t k = 1; k <= c.levels(); ++k) full.push_back(std::min<uint64_t>(full.back() * b.width, uint64_t(1) << 40));
  // Water-filling over levels 1..L: the shallow levels get their worst case in full, the deep
  // ones share what is left equally (a level cap C with sum_k min(full_k, C) = total_nodes).
  std::vector<uint64_t> cap(full);
  std::vector<uint32_t> order;
  for (uint32_t k = 1; k <= c.levels(); ++k) order.push_back(k);
  std::sort(order.begin(), order.end(), [&](uint32_t x, uint32_t y) { return full[x] < full[y]; });
  uint64_t left = total_nodes;
  for (size_t i = 0; i < order.size(); ++i) {
    const uint64_t share = left / (order.size() - i);
    cap[order[i]] = std::min(full[order[i]], share);
    left -= cap[order[i]];
  }
  return cap;
}

GameProgram build_program(const Board& b, const SearchConfig& c, const std::vector<uint64_t>& capacity) {
  return append_program(Program("game"), b, c, capacity, "");
}

GameProgram append_program(Program program, const Board& b, const SearchConfig& c, const std::vector<uint64_t>& capacity,
                           const std::string& prefix, const BeforeSearch& before_search) {
  validate(b);
  validate(c);
  validate(b, c.evaluation);
  const uint32_t L = c.levels();
  if (capacity.size() != L + 1 || capacity[0] == 0)
    fail(ErrorCode::BadInput, "game: need a node capacity for levels 0.." + std::to_string(L) + ", roots first");
  for (uint64_t n : capacity)
    if (n > 0xFFFFFFFFull / 2) fail(ErrorCode::BadInput, "game: a level capacity of " + std::to_string(n) + " nodes does not fit the 32-bit counters");

  GameProgram gp{std::move(program), prefix, {}, {}, {}, 0, 0, 0, 0, capacity, Ports(prefix.empty() ? "game" : "game " + prefix)};
  Program& p = gp.program;
  const uint32_t n_windows = uint32_t(windows(b).size());
  p.heap().add(prefix + "windows", uint64_t(n_windows) * 8);
  p.heap().add(prefix + "weights", 16);
  for (uint32_t k = 0; k <= L; ++k) p.globals().add(level_name(prefix, k), std::max<uint64_t>(capacity[k], 1) * kNodeBytes);
  p.globals().add(prefix + "results", capacity[0] * kResultWords * 4);

  for (uint32_t d = 1; d <= L; ++d) {
    gp.depths.push_back(p.add_instance(prefix + "depth" + std::to_string(d), 4));
    if (d > 1) p.connect(gp.depths[d - 2], gp.depths[d - 1]);  // R31 of depth d = message of depth d-1
  }
  gp.count_word = p.add_control_words(prefix + "game.counts", std::vector<uint32_t>(L + 1, 0));
  std::vector<uint32_t> caps;
  for (uint64_t n : capacity) caps.push_back(uint32_t(n));
  gp.capacity_word = p.add_control_words(prefix + "game.capacity", caps);
  gp.overflow_word = p.add_control_words(prefix + "game.overflow", {0});
  gp.ticks_word = p.add_control_words(prefix + "game.ticks", {0});

  const Range counts = p.control_words(gp.count_word, L + 1), caps_range = p.control_words(gp.capacity_word, L + 1);
  const Range overflow = p.control_words(gp.overflow_word, 1), ticks = p.control_words(gp.ticks_word, 1);
  const Range results = p.segment(Binding::Globals, prefix + "results");
  gp.ports.add_segment("roots", p.segment(Binding::Globals, level_name(prefix, 0)), "u32[max roots][kNodeWords]: the root positions")
      .add_segment("results", results, "u32[max roots][kResultWords]: best move, score, confidence, depth, ... per root")
      .add_instance("first_depth", gp.depths.front(), "its inbox (R31) is the message into the search")
      .add_instance("last_depth", gp.depths.back(), "its outbox (R30): [action, confidence, depth reached, novelty] of root 0");
  if (before_search) before_search(p, gp);

  std::vector<std::array<uint32_t, 3>> shapes = {{1, 1, 1}, {0, 1, 1}};
  for (uint32_t k = 0; k < L; ++k) shapes.push_back({0, 1, 1});
  gp.loop = add_loop(p, prefix + "game", L, shapes, [&](Program& prog, const LoopIteration& it) {
    const uint32_t i = it.index, d = i + 1;
    const InstanceId inst = gp.depths[i];
    const Range parents = prog.segment(Binding::Globals, level_name(prefix, i)), children = prog.segment(Binding::Globals, level_name(prefix, d));

    StageSpec ex;
    ex.name = "expand";
    ex.kernel = weft_game_kernels.get("expand");
    ex.instance = inst;
    ex.args = ExpandArgs{.width = b.width, .height = b.height, .parents = parents, .children = children, .counts = counts,
                         .capacity = caps_range, .overflow = overflow, .level = i, .ticks = ticks}.bind();
    ex.writes = {prog.control_words(gp.count_word + d, 1)};  // its level's node count (atomic)
    it.add_stage(prog, ex, kLevel0 + i);

    StageSpec sz;
    sz.name = "size";
    sz.kernel = weft_game_kernels.get("size");
    sz.instance = inst;
    const bool last = d == L;
    // The next iteration's level slots are consecutive (levels 0..d from its level-0 slot on): the kernel gets
    // the first and writes the count words of all d+1; each slot is declared on its own, not the gaps between.
    const Out<Binding::Control> next_slots =
        last ? Out<Binding::Control>(absent) : Out<Binding::Control>(prog.slot(it.loop.slot(i + 1, kLevel0)));
    sz.args = SizeArgs{.counts = counts, .capacity = caps_range, .depth = d, .evaluate_slot = prog.slot(it.slot(kEvaluate)),
                       .next_slots = next_slots}.bind();
    if (!last)
      for (uint32_t k = 1; k <= d; ++k) sz.writes.push_back(prog.slot(it.loop.slot(i + 1, kLevel0 + k)));
    it.add_stage(prog, sz, kSingle);

    StageSpec ev;
    ev.name = "evaluate";
    ev.kernel = weft_game_kernels.get("evaluate");
    ev.instance = inst;
    ev.args = EvaluateArgs{.width = b.width, .height = b.height, .nodes = children, .counts = counts, .capacity = caps_range,
                           .depth = d, .windows = prog.segment(Binding::Heap, prefix + "windows"), .window_count = n_windows,
                           .weights = prog.segment(Binding::Heap, prefix + "weights"), .ticks = ticks}.bind();
    it.add_stage(prog, ev, kEvaluate);

    for (uint32_t k = d; k-- > 0;) {
      StageSpec bu;
      bu.name = "backup.level" + std::to_string(k);
      bu.kernel = weft_game_kernels.get("backup");
      bu.instance = inst;
      bu.args = BackupArgs{.nodes = prog.segment(Binding::Globals, level_name(prefix, k)),
                           .children = prog.segment(Binding::Globals, level_name(prefix, k + 1)), .counts = counts,
                           .capacity = caps_range, .level = k, .ticks = ticks}.bind();
      it.add_stage(prog, bu, kLevel0 + k);
    }

    StageSpec se;
    se.name = "select";
    se.kernel = weft_game_kernels.get("select");
    se.instance = inst;
    se.args = SelectArgs{.width = b.width, .roots = prog.segment(Binding::Globals, level_name(prefix, 0)),
                         .level1 = prog.segment(Binding::Globals, level_name(prefix, 1)), .counts = counts, .capacity = caps_range,
                         .results = results, .depth = d, .ticks = ticks}.bind();
    se.reads = {prog.metrics(inst)};
    se.writes = {prog.metrics(inst)};
    it.add_stage(prog, se, kLevel0);

    StageSpec me;
    me.name = "message";
    me.kernel = weft_game_kernels.get("message");
    me.instance = inst;
    me.message = true;
    me.args = MessageArgs{.counts = counts, .overflow = overflow, .depth = d, .results = results, .ticks = ticks}.bind();
    me.reads = {prog.metrics(inst)};
    me.writes = {prog.metrics(inst)};
    it.add_stage(prog, me, kSingle);

    // The regulator role, as data. Rules 0 and 1 (node and tick budgets) are always present so
    // the host can move their thresholds per run; the boost rule stops the search at the nominal
    // depth unless enough roots are degenerate. Nothing follows the last depth: no rules there.
    if (!last) {
      std::vector<abi::WeftRule> rs;
      rs.push_back(rule(Condition::greater(inst, WEFT_METRIC_COUNTER0 + 1, c.node_budget), it.loop.exit_after(prog, i)));
      rs.push_back(rule(Condition::greater(inst, WEFT_METRIC_COUNTER0 + 7, c.tick_budget), it.loop.exit_after(prog, i)));
      if (d >= c.depth)
        rs.push_back(rule(Condition::less(inst, WEFT_METRIC_COUNTER0 + 3, c.boost_min_degenerate), it.loop.exit_after(prog, i)));
      gp.regulators.push_back(it.add_regulator(prog, "regulator", rs, kSingle));
    }
  });
  return gp;
}

}  // namespace weft::game
