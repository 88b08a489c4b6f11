// Search: the game program on one device, recorded once; roots uploaded and replayed per run.
#include <algorithm>
#include <cstring>

#include "game.h"

namespace weft::game {

namespace {

// Nodes of levels 1..L that fit beside the roots and results: Globals is addressed through the
// bound window only, so every level must fit in it together, and Globals is one allocation. On a
// GPU whose window is several GiB the default stops at kDefaultGlobalsBudget: a search that needs
// more asks for it with `node_capacity`.
constexpr uint64_t kDefaultGlobalsBudget = uint64_t(1) << 30;

uint64_t default_node_capacity(const Device& device, uint32_t max_roots) {
  const DeviceInfo& info = device.info();
  const uint64_t budget = std::min({info.max_storage_buffer_range, info.max_memory_allocation_size, kDefaultGlobalsBudget});
  const uint64_t fixed = uint64_t(max_roots) * (32 + kResultWords * 4);
  return budget > fixed + 4096 ? (budget - fixed - 4096) / 32 : 1;
}

// A tick budget on a device without a shader clock would never stop anything: the kernels count
// no ticks there. Refused by name rather than ignored.
void require_clock_for(const Device& device, uint32_t kiloticks) {
  if (kiloticks != UINT32_MAX && !device.info().shader_clock)
    fail(ErrorCode::MissingFeature, "game: a tick budget (" + std::to_string(kiloticks) + " x 1024 ticks) needs the shader clock "
                                    "(shaderSubgroupClock), which " + device.info().name + " lacks; use a node budget");
}

}  // namespace

void upload(Executable& exe, const GameProgram& gp, const Board& b, const SearchConfig& c) {
  std::vector<uint32_t> ws;
  for (uint64_t w : windows(b)) {
    ws.push_back(uint32_t(w));
    ws.push_back(uint32_t(w >> 32));
  }
  exe.write_segment(Binding::Heap, gp.prefix + "windows", ws.data(), ws.size() * 4);
  std::vector<uint32_t> weights;
  for (int32_t w : c.evaluation.weights) weights.push_back(uint32_t(w));
  exe.write_segment(Binding::Heap, gp.prefix + "weights", weights.data(), weights.size() * 4);
}

void set_root_count(Executable& exe, const GameProgram& gp, uint32_t roots) {
  if (roots == 0 || roots > gp.capacity[0])
    fail(ErrorCode::BadInput, "game: " + std::to_string(roots) + " roots, this search takes 1.." + std::to_string(gp.capacity[0]));
  exe.set_control_word(gp.count_word, roots);
  exe.set_control_word(exe.program().slot_word(gp.loop.slot(0, 2)), weft::grid_stride_groups(roots, 64));
}

void set_roots(Executable& exe, const GameProgram& gp, const Board& b, const std::vector<Position>& roots) {
  if (roots.empty() || roots.size() > gp.capacity[0])
    fail(ErrorCode::BadInput, "game: " + std::to_string(roots.size()) + " roots, this search takes 1.." + std::to_string(gp.capacity[0]));
  std::vector<uint32_t> nodes(roots.size() * kNodeWords, 0);
  for (size_t i = 0; i < roots.size(); ++i) {
    const Position& p = roots[i];
    validate(b, p, "root " + std::to_string(i));
    if (is_over(b, p)) fail(ErrorCode::BadInput, "root " + std::to_string(i) + ": the game is over, there is no move to search");
    uint32_t* n = &nodes[i * kNodeWords];
    n[0] = uint32_t(p.cur);
    n[1] = uint32_t(p.cur >> 32);
    n[2] = uint32_t(p.mask);
    n[3] = uint32_t(p.mask >> 32);
    n[5] = 0xFFu << 8;  // no move led here
  }
  exe.write_range(gp.ports.segment("roots"), nodes.data(), nodes.size() * 4);
  set_root_count(exe, gp, uint32_t(roots.size()));
}

void check_capacity(Executable& exe, const GameProgram& gp) {
  const uint32_t lost = exe.control_word(gp.overflow_word);
  if (!lost) return;
  std::string where;
  for (uint32_t k = 1; k < gp.capacity.size(); ++k) {
    const uint32_t n = exe.control_word(gp.count_word + k);
    if (n > gp.capacity[k])
      where += " level " + std::to_string(k) + " wanted " + std::to_string(n) + " nodes (capacity " + std::to_string(gp.capacity[k]) + ");";
  }
  fail(ErrorCode::OutOfMemory, "game" + (gp.prefix.empty() ? "" : " " + gp.prefix) + ": " + std::to_string(lost) +
                                   " nodes found no room:" + where + " search fewer roots, less deep, or with a larger level capacity");
}

std::vector<RootResult> read_results(Executable& exe, const GameProgram& gp, const Board& b, uint32_t roots) {
  std::vector<uint32_t> res(size_t(roots) * kResultWords);
  exe.read_range(gp.ports.segment("results"), res.data(), res.size() * 4);
  std::vector<RootResult> out;
  for (uint32_t i = 0; i < roots; ++i) {
    const uint32_t* r = &res[size_t(i) * kResultWords];
    RootResult rr;
    rr.move = int32_t(r[0]);
    rr.score = int32_t(r[1]);
    rr.confidence = int32_t(r[2]);
    rr.depth = r[3];
    rr.novelty = r[4] != 0;
    rr.degenerate = r[5] != 0;
    for (uint32_t c = 0; c < b.width; ++c) rr.move_scores.push_back(int32_t(r[8 + c]));
    out.push_back(std::move(rr));
  }
  return out;
}

Position read_root(Executable& exe, const GameProgram& gp, uint32_t root) {
  uint32_t n[kNodeWords];
  exe.read_range(gp.ports.segment("roots"), n, sizeof n, uint64_t(root) * sizeof n);
  return Position{uint64_t(n[0]) | uint64_t(n[1]) << 32, uint64_t(n[2]) | uint64_t(n[3]) << 32};
}

Search::Search(Device& device, const Board& board, const SearchConfig& config, uint32_t max_roots, uint64_t node_capacity)
    : board_(board), config_(config), max_roots_(max_roots) {
  validate(board);
  validate(config);
  validate(board, config.evaluation);
  if (max_roots == 0) fail(ErrorCode::BadInput, "game: at least one root position");
  require_clock_for(device, config.tick_budget);
  const uint64_t nodes = node_capacity ? node_capacity : default_node_capacity(device, max_roots);
  info_ = build_program(board, config, level_capacity(board, config, max_roots, nodes));
  info_.program.require_bound_window(device.info(), "game: " + std::to_string(max_roots) + " roots and " +
                                                         std::to_string(config.levels()) + " levels");
  exe_ = std::make_unique<Executable>(device, info_.program);
  upload(*exe_, info_, board, config);
}

void Search::set_node_budget(uint32_t nodes) {
  config_.node_budget = nodes;
  for (StageId reg : info_.regulators)
    exe_->set_control_word(regulator_rule_word(info_.program, reg) + uint32_t(offsetof(abi::WeftRule, lo) / 4), nodes);
}

void Search::set_tick_budget(uint32_t kiloticks) {
  require_clock_for(exe_->device(), kiloticks);
  config_.tick_budget = kiloticks;
  for (StageId reg : info_.regulators)
    exe_->set_control_word(regulator_rule_word(info_.program, reg) + WEFT_RULE_WORDS + uint32_t(offsetof(abi::WeftRule, lo) / 4),
                           kiloticks);
}

SearchResult Search::run(const std::vector<Position>& roots) {
  set_roots(*exe_, info_, board_, roots);
  exe_->run();
  check_capacity(*exe_, info_);

  SearchResult out;
  for (uint32_t d = 1; d <= info_.depths.size(); ++d) {
    const abi::WeftMetrics m = exe_->metrics(info_.depths[d - 1]);
    if (m.sequence == 0) break;
    DepthSummary s;
    s.depth = m.counters[2];
    s.level_nodes = m.counters[0];
    s.nodes_so_far = m.counters[1];
    s.degenerate = m.counters[3];
    s.novel = m.counters[4];
    std::vector<int32_t> r30(4);
    exe_->read_register(info_.depths[d - 1], WEFT_R_OUTBOX, r30.data(), 16);
    std::copy(r30.begin(), r30.end(), s.message.begin());
    out.depths.push_back(s);
    out.kiloticks.push_back(m.counters[7]);
    out.depth_reached = d;
  }
  out.roots = read_results(*exe_, info_, board_, uint32_t(roots.size()));
  return out;
}

double Search::gpu_ns() { return exe_->timings().total_ns; }

std::vector<KindTime> Search::stage_times() { return stage_times_by_kind(exe_->program(), exe_->timings()); }

}  // namespace weft::game
