#include "vulkan_program.h"

#include <algorithm>
#include <cmath>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include "device_grid.h"
#include "shaders/hypothesis_update_args.h"
#include "weft_hypothesis_update_kernels.h"

namespace weft::hypothesis_update {

namespace {


uint32_t f2u(float f) { return f32_bits(f); }

uint32_t threshold_mode_code(ThresholdMode m) {
  switch (m) {
    case ThresholdMode::Number: return 0;
    case ThresholdMode::Mean: return 1;
    case ThresholdMode::Median: return 2;
    case ThresholdMode::Percent: return 3;
    case ThresholdMode::XPercent: return 4;
    case ThresholdMode::All: return 5;
    case ThresholdMode::None: return 6;
  }
  return 6;
}

int max_frames(const UpdaterConfig& c) { return std::max(2, c.umbilical_num_poses); }

// Burst sampling's node count for J frames per node, exactly as the CPU backend computes it:
// n = round(N * min(multiplier, J)) (half to even, like Python), down to a multiple of J, / J.
uint32_t sampled_nodes(const UpdaterConfig& c, size_t nodes, int j) {
  const double multiplier = std::min(c.burst.sampling_multiplier, double(j));
  int64_t count = int64_t(std::nearbyint(double(nodes) * multiplier));
  count -= count % j;
  return uint32_t(std::min<int64_t>(count / j, int64_t(nodes)));
}

// Layout block words (L_* in hypothesis_update.glsl).
enum : uint32_t {
  kE, kL, kR, kNew, kFe, kInput, kStats, kLmState, kTrace, kHist, kAge, kSlope, kKeep, kRemoved, kOrder,
  kPos, kPose, kPdf, kFeat, kSpaces, kLms, kWgSpace, kRows, kMaxChannels, kHistStride, kGrid, kRowWgs,
  kNewBlockSlot, kRowGroupsX, kVotes, kVoteLoc, kVoteSrc, kVoteList, kLayoutWords
};

std::vector<uint32_t> lm_params(const UpdaterConfig& c) {
  std::vector<uint32_t> p(kHypParamWords, 0);
  const uint32_t fw = uint32_t(c.feature_width());
  p[0] = f2u(float(c.feature_evidence_increment));
  p[1] = f2u(float(c.sn_weight));
  p[2] = f2u(float(c.cd_weight));
  p[3] = f2u(float(c.max_match_distance));
  p[4] = f2u(float(c.past_weight));
  p[5] = f2u(float(c.present_weight));
  p[6] = threshold_mode_code(c.threshold.mode);
  p[7] = f2u(float(c.threshold.value));
  p[8] = f2u(float(c.x_percent_threshold));
  p[9] = uint32_t(c.max_nneighbors);
  p[10] = fw;
  p[11] = c.feature_evidence_increment > 0 && fw > 0 ? 1u : 0u;
  double weight_sum = 0;
  uint32_t col = 0;
  for (const FeatureSpec& f : c.features)
    for (size_t i = 0; i < f.width(); ++i, ++col) {
      p[16 + col] = f2u(float(f.tolerances[i]));
      p[48 + col] = f2u(float(f.weights[i]));
      p[80 + col] = f.first_column_circular && i == 0 ? 1u : 0u;
      weight_sum += f.weights[i];
    }
  p[12] = f2u(float(weight_sum));
  p[112] = c.kind == UpdaterKind::BurstSampling ? 1u : 0u;
  p[113] = f2u(float(c.burst.deletion_trigger_slope));
  p[114] = f2u(float(c.burst.burst_trigger_slope));
  p[115] = uint32_t(std::max(c.burst.sampling_burst_duration, 0));
  p[116] = uint32_t(c.burst.slope_window);
  p[117] = uint32_t(std::max(c.burst.slope_min_age, 0));
  return p;
}

// What the host builds before any segment is placed: the object models (each graph once), the
// space, LM and row-workgroup tables, the LMs' parameters and, without the kernel trace, a grid
// per space (device_grid.h) for the nearest nodes. Offsets into Globals segments and grid lists
// are relative here, made absolute by resolve_table_offsets once the segments are placed.
struct HostTables {
  std::vector<float> pos, pose, pdf, feat;  // float32: the fixtures' graphs are float32, so exact
  std::vector<uint32_t> spaces, lm_table, wg_space, params;
  std::vector<uint32_t> grid_hdr, grid_cells, grid_nodes;
  std::map<std::pair<const ObjectGraph*, double>, std::vector<uint32_t>> grids;  // (graph, radius) -> header
  std::vector<uint32_t> list_starts, list_records;  // the neighbour lists, shared by equal searches
  std::map<std::tuple<const ObjectGraph*, int, uint32_t>, std::array<uint32_t, kListHeaderWords>> listed;
  std::vector<uint32_t> vote_src, vote_list;  // per space (first, count) into the sender spaces
  std::map<const ObjectGraph*, std::pair<uint32_t, uint32_t>> placed;  // -> node offset, feature word offset
  uint32_t fe_words = 0, order_words = 0, max_nodes = 0;
  uint32_t space_count = 0, lm_count = 0;
  uint32_t rows = 0;    // H: the stacked rows, at least one workgroup
  uint32_t window = 1;  // slope history words per row (burst sampling)
};

// Sizes over every LM: channels, sensed frames, the step input's stride, whether any LM samples
// in bursts and the longest slope window.
void size_for_lms(BackendProgram& bp, HostTables& t, const std::vector<DeviceLm>& lms) {
  for (const DeviceLm& lm : lms) {
    bp.max_channels = std::max(bp.max_channels, uint32_t(lm.config->max_channels));
    bp.max_frames = std::max(bp.max_frames, uint32_t(max_frames(*lm.config)));
    if (lm.config->kind == UpdaterKind::BurstSampling) {
      bp.burst = true;
      t.window = std::max(t.window, uint32_t(lm.config->burst.slope_window));
    }
  }
  bp.input_stride = kHypInputHeader + bp.max_channels * kHypChannelWords + bp.max_frames * 9;
  t.lm_count = uint32_t(lms.size());
}

// A graph's object model, appended the first time an LM holds it: its node offset and feature
// word offset.
std::pair<uint32_t, uint32_t> place_graph(HostTables& t, const ObjectGraph* g) {
  auto it = t.placed.find(g);
  if (it == t.placed.end()) {
    it = t.placed.emplace(g, std::make_pair(uint32_t(t.pdf.size()), uint32_t(t.feat.size()))).first;
    t.pos.insert(t.pos.end(), g->pos.begin(), g->pos.end());
    t.pose.insert(t.pose.end(), g->pose_vectors.begin(), g->pose_vectors.end());
    t.pdf.insert(t.pdf.end(), g->pose_defined.begin(), g->pose_defined.end());
    t.feat.insert(t.feat.end(), g->features.begin(), g->features.end());
  }
  return it->second;
}

// The list header words of a (graph, K, radius) search (G_LIST_* in hypothesis_update.glsl),
// building its neighbour lists the first time a space asks for them; all zero (no lists: the
// kernel walks the grid) once the lists of the program would exceed kMaxListWords.
constexpr size_t kMaxListWords = size_t(8) << 20;  // 32 MiB of Heap
std::array<uint32_t, kListHeaderWords> list_header(HostTables& t, const ObjectGraph& g, int k, float radius) {
  const auto key = std::make_tuple(&g, k, f2u(radius));
  if (auto it = t.listed.find(key); it != t.listed.end()) return it->second;
  const size_t used = t.list_starts.size() + t.list_records.size();
  const DeviceLists lists = build_device_lists(g, k, radius, kMaxListWords - std::min(used, kMaxListWords));
  std::array<uint32_t, kListHeaderWords> h{};
  if (!lists.starts.empty()) {
    for (int i = 0; i < 3; ++i) h[size_t(i)] = f2u(lists.origin[i]), h[4 + size_t(i)] = lists.dims[i];
    h[3] = f2u(lists.inverse_cell);
    h[7] = uint32_t(t.list_starts.size());
    h[8] = uint32_t(t.list_records.size());
    h[9] = 1;
    t.list_starts.insert(t.list_starts.end(), lists.starts.begin(), lists.starts.end());
    t.list_records.insert(t.list_records.end(), lists.records.begin(), lists.records.end());
  }
  return t.listed.emplace(key, h).first->second;
}

// The next space's nearest-node grid: its header (cell starts and node list relative to the
// grid tables, then its neighbour lists' header). A graph's grid for one search radius is built
// once and shared by every space that searches it so (77 graphs x 16 LMs would otherwise hold
// 16 copies of each).
void add_grid(HostTables& t, const ObjectGraph& g, const UpdaterConfig& c, bool neighbour_lists) {
  const auto key = std::make_pair(&g, c.max_match_distance);
  auto placed = t.grids.find(key);
  if (placed == t.grids.end()) {
    const DeviceGrid grid = build_device_grid(g, c.max_match_distance);
    std::vector<uint32_t> h(kGridHeaderWords, 0);
    for (int i = 0; i < 3; ++i) h[size_t(i)] = f2u(grid.origin[i]), h[5 + size_t(i)] = grid.dims[i];
    h[3] = f2u(grid.cell);
    h[4] = f2u(grid.radius);
    h[8] = uint32_t(t.grid_cells.size());
    h[9] = uint32_t(t.grid_nodes.size());
    t.grid_cells.insert(t.grid_cells.end(), grid.cell_start.begin(), grid.cell_start.end());
    t.grid_nodes.insert(t.grid_nodes.end(), grid.nodes.begin(), grid.nodes.end());
    placed = t.grids.emplace(key, std::move(h)).first;
  }
  std::vector<uint32_t> h = placed->second;
  if (neighbour_lists) {
    const auto lists = list_header(t, g, std::min(c.max_nneighbors, int(g.num_nodes)), bits_f32(h[4]));
    std::copy(lists.begin(), lists.end(), h.begin() + kGridListWord);
  }
  t.grid_hdr.insert(t.grid_hdr.end(), h.begin(), h.end());
}

// The space of LM m's graph g: its block of rows, its space-table entry, its row workgroups and,
// without the kernel trace, its grid.
void add_space(BackendProgram& bp, HostTables& t, uint32_t m, const UpdaterConfig& c, const ObjectGraph* g,
               double capacity_per_node) {
  const auto [node_offset, feature_offset] = place_graph(t, g);
  const uint32_t n = uint32_t(g->num_nodes);
  const uint32_t cap = space_capacity(c, n, capacity_per_node);
  const uint32_t umb = uint32_t(std::max(c.umbilical_num_poses, 1));
  t.spaces.insert(t.spaces.end(), {node_offset, n, bp.rows, cap, m, feature_offset, sampled_nodes(c, n, 2),
                                   sampled_nodes(c, n, int(umb)), t.fe_words, t.order_words, 0, 0, 0, 0, 0, 0});
  if (!bp.trace) add_grid(t, *g, c, bp.neighbour_lists);
  bp.row_offset.push_back(bp.rows);
  bp.capacity.push_back(cap);
  t.wg_space.insert(t.wg_space.end(), cap / kHypWorkgroup, t.space_count);
  bp.rows += cap;
  t.fe_words += bp.max_channels * n;
  t.order_words += n;
  t.max_nodes = std::max(t.max_nodes, n);
  ++t.space_count;
}

// The vote parameters of LM m: whether it sends to an LM of this program, the threshold, the
// weight and whether votes average (past_weight + present_weight == 1, as Monty tests it).
void add_vote_params(std::vector<uint32_t>& p, const std::vector<DeviceLm>& lms, uint32_t m, const VoteOptions& o) {
  for (const DeviceLm& r : lms)
    for (uint32_t j : r.vote_senders) p[118] = p[118] || j == m ? 1u : 0u;
  p[119] = f2u(float(o.vote_evidence_threshold));
  p[120] = f2u(float(o.vote_weight));
  p[121] = lms[m].config->past_weight + lms[m].config->present_weight == 1 ? 1u : 0u;
}

// Per receiving space, its senders' spaces of the same graph, in vote-matrix order.
void add_vote_sources(BackendProgram& bp, HostTables& t, const std::vector<DeviceLm>& lms) {
  for (uint32_t m = 0; m < t.lm_count; ++m)
    for (size_t g = 0; g < lms[m].graphs.size(); ++g) {
      t.vote_src.push_back(uint32_t(t.vote_list.size()));
      uint32_t count = 0;
      for (uint32_t j : lms[m].vote_senders)
        for (size_t k = 0; k < lms[j].graphs.size(); ++k)
          if (lms[j].graphs[k] == lms[m].graphs[g]) t.vote_list.push_back(bp.space_of_lm[j] + uint32_t(k)), ++count;
      t.vote_src.push_back(count);
    }
}

// Every LM's table entry and parameters, and a space per (LM, graph) pair in LM order.
HostTables build_host_tables(BackendProgram& bp, const std::vector<DeviceLm>& lms, double capacity_per_node,
                             const VoteOptions* votes) {
  HostTables t;
  size_for_lms(bp, t, lms);
  for (uint32_t m = 0; m < t.lm_count; ++m) {
    const UpdaterConfig& c = *lms[m].config;
    bp.space_of_lm.push_back(t.space_count);
    std::vector<uint32_t> p = lm_params(c);
    if (bp.votes) add_vote_params(p, lms, m, *votes);
    t.lm_table.insert(t.lm_table.end(), {t.space_count, uint32_t(lms[m].graphs.size()), uint32_t(t.params.size()), 0, 0, 0, 0, 0});
    t.params.insert(t.params.end(), p.begin(), p.end());
    for (const ObjectGraph* g : lms[m].graphs) add_space(bp, t, m, c, g, capacity_per_node);
  }
  if (bp.votes) add_vote_sources(bp, t, lms);
  t.rows = std::max(bp.rows, kHypWorkgroup);
  if (t.wg_space.empty()) t.wg_space.push_back(0);
  return t;
}

// The per-row arrays' segment names (the trace and the slope tracker's exist only when used).
constexpr const char* kRowArrays[] = {"E", "L", "R", "new", "trace", "hist", "age", "slope", "keep", "removed"};

// A per-row array of `records` records of `width` words: a Globals segment, or with far rows a
// far segment of its own whose record is one row, so a row never straddles two allocations.
void add_row_array(SegmentLayout& glob, const char* name, uint64_t records, uint64_t width, bool far) {
  const uint64_t bytes = std::max<uint64_t>(records * width, 1) * 4;
  if (far)
    glob.add_far(name, bytes, width * 4);
  else
    glob.add(name, bytes);
}

// The segments: the tables in Heap; the hypothesis arrays (in the window or far, bp.far_rows),
// node feature evidence and order, the step inputs, statistics and LM state (and the kernel
// trace or the slope tracker's arrays when used) in Globals.
void add_segments(Program& p, const HostTables& t, const BackendProgram& bp) {
  auto& heap = p.heap();
  auto& glob = p.globals();
  auto bytes = [](size_t words) { return uint64_t(std::max<size_t>(words, 1)) * 4; };
  const uint32_t H = t.rows, C = bp.max_channels, S = t.space_count, M = t.lm_count;
  heap.add("layout", bytes(kLayoutWords));
  heap.add("pos", bytes(t.pos.size()));
  heap.add("pose", bytes(t.pose.size()));
  heap.add("pdf", bytes(t.pdf.size()));
  heap.add("feat", bytes(t.feat.size()));
  heap.add("spaces", bytes(t.spaces.size()));
  heap.add("lms", bytes(t.lm_table.size()));
  heap.add("wg_space", bytes(t.wg_space.size()));
  heap.add("params", bytes(t.params.size()));
  if (!bp.trace) {
    heap.add("grid_hdr", bytes(t.grid_hdr.size()));
    heap.add("grid_cells", bytes(t.grid_cells.size()));
    heap.add("grid_nodes", bytes(t.grid_nodes.size()));
    heap.add("list_starts", bytes(t.list_starts.size()));
    heap.add("list_records", bytes(t.list_records.size()));
  }
  auto rows = [&](const char* name, uint64_t records, uint64_t width) { add_row_array(glob, name, records, width, bp.far_rows); };
  rows("E", H, 1);
  rows("L", H, 3);
  rows("R", H, 9);
  rows("new", uint64_t(C) * H, 1);  // record c * H + h: channel-major, as in the window
  glob.add("fe", bytes(t.fe_words));
  glob.add("order", bytes(t.order_words));
  glob.add("input", bytes(size_t(M) * bp.input_stride));
  glob.add("stats", bytes(size_t(S) * kHypStatsWords));
  glob.add("lmstate", bytes(size_t(M) * kHypLmStateWords));
  if (bp.trace) rows("trace", H, kHypTraceWords);
  if (bp.votes) {  // the vote records sit at their sender's rows; the sensed locations per LM
    glob.add("votes", uint64_t(H) * kHypVoteWords * 4);
    glob.add("vote_loc", bytes(size_t(M) * 4));
    heap.add("vote_src", bytes(t.vote_src.size()));
    heap.add("vote_list", bytes(t.vote_list.size()));
  }
  if (bp.burst) {
    rows("hist", H, t.window);
    rows("age", H, 1);
    rows("slope", H, 1);
    rows("keep", H, 1);
    rows("removed", H, 1);
  }
}

uint32_t heap_word(const Program& p, const char* segment) { return p.heap().at(segment).word_offset(); }
uint32_t globals_word(const Program& p, const char* segment) { return p.globals().at(segment).word_offset(); }
// A per-row array's layout word: its Globals word, or WEFT_REF_FAR | its far index
// (hyp_row_* in hypothesis_update.glsl tell them apart).
uint32_t row_array_ref(const Program& p, const char* segment) {
  const Range r = p.segment(Binding::Globals, segment);
  return r.far ? WEFT_REF_FAR | (r.far - 1) : uint32_t(r.offset / 4);
}
// The far per-row arrays this program has (none with rows in the window).
std::vector<Range> far_row_arrays(const Program& p) {
  std::vector<Range> out;
  for (const char* name : kRowArrays) {
    if (!p.globals().contains(name)) continue;
    const Range r = p.segment(Binding::Globals, name);
    if (r.far) out.push_back(r);
  }
  return out;
}

// The layout block (L_* in hypothesis_update.glsl): the word offset of every segment, or for far
// per-row arrays their reference (WEFT_NONE for the ones this program has not), and a few sizes.
std::vector<uint32_t> layout_block(const Program& p, const HostTables& t, const BackendProgram& bp) {
  auto hw = [&](const char* s) { return heap_word(p, s); };
  auto gw = [&](const char* s) { return globals_word(p, s); };
  auto rw = [&](const char* s) { return row_array_ref(p, s); };
  auto rw_opt = [&](const char* s, bool present) { return present ? rw(s) : WEFT_NONE; };
  std::vector<uint32_t> layout(kLayoutWords, 0);
  layout[kE] = rw("E");
  layout[kL] = rw("L");
  layout[kR] = rw("R");
  layout[kNew] = rw("new");
  layout[kFe] = gw("fe");
  layout[kInput] = gw("input");
  layout[kStats] = gw("stats");
  layout[kLmState] = gw("lmstate");
  layout[kTrace] = rw_opt("trace", bp.trace);
  layout[kHist] = rw_opt("hist", bp.burst);
  layout[kAge] = rw_opt("age", bp.burst);
  layout[kSlope] = rw_opt("slope", bp.burst);
  layout[kKeep] = rw_opt("keep", bp.burst);
  layout[kRemoved] = rw_opt("removed", bp.burst);
  layout[kOrder] = gw("order");
  layout[kPos] = hw("pos");
  layout[kPose] = hw("pose");
  layout[kPdf] = hw("pdf");
  layout[kFeat] = hw("feat");
  layout[kSpaces] = hw("spaces");
  layout[kLms] = hw("lms");
  layout[kWgSpace] = hw("wg_space");
  layout[kRows] = t.rows;
  layout[kMaxChannels] = bp.max_channels;
  layout[kHistStride] = t.window;
  layout[kGrid] = bp.trace ? WEFT_NONE : hw("grid_hdr");
  layout[kRowWgs] = uint32_t(t.wg_space.size());
  layout[kVotes] = bp.votes ? gw("votes") : WEFT_NONE;
  layout[kVoteLoc] = bp.votes ? gw("vote_loc") : WEFT_NONE;
  layout[kVoteSrc] = bp.votes ? hw("vote_src") : WEFT_NONE;
  layout[kVoteList] = bp.votes ? hw("vote_list") : WEFT_NONE;
  return layout;
}

// Tables hold absolute word offsets, so kernels add nothing: the grids' cell and node lists, the
// spaces' feature evidence and order, the LMs' parameters, step input and state.
void resolve_table_offsets(HostTables& t, const Program& p, const BackendProgram& bp) {
  for (uint32_t s = 0; !bp.trace && s < t.space_count; ++s) {
    t.grid_hdr[s * kGridHeaderWords + 8] += heap_word(p, "grid_cells");
    t.grid_hdr[s * kGridHeaderWords + 9] += heap_word(p, "grid_nodes");
    t.grid_hdr[s * kGridHeaderWords + kGridListWord + 7] += heap_word(p, "list_starts");
    t.grid_hdr[s * kGridHeaderWords + kGridListWord + 8] += heap_word(p, "list_records");
  }
  for (uint32_t s = 0; s < t.space_count; ++s) {
    t.spaces[s * 16 + 8] += globals_word(p, "fe");
    t.spaces[s * 16 + 9] += globals_word(p, "order");
  }
  for (uint32_t m = 0; m < t.lm_count; ++m) {
    t.lm_table[m * 8 + 2] += heap_word(p, "params");
    t.lm_table[m * 8 + 3] = globals_word(p, "input") + m * bp.input_stride;
    t.lm_table[m * 8 + 4] = globals_word(p, "lmstate") + m * kHypLmStateWords;
  }
}

// The row stages' 2D grid of workgroups, at most `width` wide (within every device's
// workgroup-count limit, kGuaranteedGroupCount).
std::array<uint32_t, 3> row_grid(const HostTables& t, uint32_t width) {
  const uint32_t row_wgs = uint32_t(t.wg_space.size());
  width = std::clamp(width, 1u, kGuaranteedGroupCount);
  return {std::min(row_wgs, width), groups_for(row_wgs, width), 1};
}

// The location-evidence variant whose nearest-neighbour network (HYP_NET_K slots, the sizes
// CMakeLists.txt generates) is the smallest that holds every LM's K: each slot costs every
// candidate node a compare and four selects.
std::string location_evidence_kernel(const std::vector<DeviceLm>& lms) {
  int k = 1;
  for (const DeviceLm& lm : lms) k = std::max(k, lm.config->max_nneighbors);
  for (int slots : {3, 5, 10, 16})
    if (k <= slots) return "location_evidence_k" + std::to_string(slots);
  fail(ErrorCode::BadInput, "max_nneighbors " + std::to_string(k) + " exceeds the device kernels' 16");
}

// One step's stages, in order (the median and burst-sampling ones only when an LM uses them).
// Row stages run `row_groups` (row_grid: within every device's workgroup-count limit).
void add_stages(Program& p, const std::vector<DeviceLm>& lms, const BackendProgram& bp, const HostTables& t,
                const std::array<uint32_t, 3>& row_groups, SlotId new_rows) {
  const InstanceId inst = p.add_instance("hypotheses", 1);
  const Range all_heap = p.whole(Binding::Heap), all_globals = p.whole(Binding::Globals);
  const std::vector<Range> far_rows = far_row_arrays(p);
  // `rows`: the kernel reaches the per-row arrays (its far variant runs when they are far).
  // `indirect`: the stage's group count comes from that Control slot, which `also_writes` names
  // for the stage that sets it.
  auto stage = [&](const char* name, std::array<uint32_t, 3> groups, bool rows = true, const std::string& kernel = {},
                   std::optional<SlotId> indirect = {}, std::vector<Range> also_writes = {}) {
    StageSpec s;
    s.name = name;
    s.kernel = weft_hypothesis_update_kernels.get(kernel.empty() ? name : kernel);
    s.instance = inst;
    s.groups = {std::max(groups[0], 1u), std::max(groups[1], 1u), std::max(groups[2], 1u)};
    s.indirect = indirect;
    // The kernels reach every table through the layout block: all of Heap is read.
    s.args = StepArgs{.layout_block = {all_heap, heap_word(p, "layout")}}.bind();
    // Every stage reads what the previous one wrote: a full barrier between stages.
    s.reads = {all_globals};
    s.writes = {all_globals};
    if (rows) {
      s.reads.insert(s.reads.end(), far_rows.begin(), far_rows.end());
      s.writes.insert(s.writes.end(), far_rows.begin(), far_rows.end());
    }
    s.writes.insert(s.writes.end(), also_writes.begin(), also_writes.end());
    p.add_stage(std::move(s));
  };
  bool median = false;
  for (const DeviceLm& lm : lms) median = median || lm.config->threshold.mode == ThresholdMode::Median;
  const uint32_t S = t.space_count, M = t.lm_count;
  if (bp.burst) stage("slopes", row_groups);
  if (median) stage("median", {S, 1, 1});
  stage("threshold", {M, 1, 1});
  stage("feature_evidence", {groups_for(t.max_nodes, kHypWorkgroup), S, 1}, false);
  if (bp.burst) stage("compact", {S, 1, 1});
  stage("select", {S, 1, 1}, false, {}, {}, {p.slot(new_rows)});
  stage("location_evidence", row_groups, true, location_evidence_kernel(lms));
  stage("floor", {S, 1, 1});
  stage("apply", row_groups);
  stage("new_block", row_groups, true, {}, new_rows);
  if (bp.burst) stage("tracker", row_groups);
  if (bp.votes) {  // Monty's vote after the update; the most likely hypothesis is taken after it
    stage("vote_send", {M, 1, 1});
    stage("vote_receive", row_groups);
  }
  stage("argmax", {M, 1, 1});
}

// The layout block and the tables cross the bus here, once.
void upload_tables(Executable& exe, const std::vector<uint32_t>& layout, const HostTables& t) {
  auto upload = [&](const char* name, const auto& v) {
    if (!v.empty()) exe.write_segment(Binding::Heap, name, v.data(), v.size() * 4);
  };
  upload("layout", layout);
  upload("pos", t.pos);
  upload("pose", t.pose);
  upload("pdf", t.pdf);
  upload("feat", t.feat);
  upload("spaces", t.spaces);
  upload("lms", t.lm_table);
  upload("wg_space", t.wg_space);
  upload("params", t.params);
  upload("grid_hdr", t.grid_hdr);
  upload("grid_cells", t.grid_cells);
  upload("grid_nodes", t.grid_nodes);
  upload("list_starts", t.list_starts);
  upload("list_records", t.list_records);
  upload("vote_src", t.vote_src);
  upload("vote_list", t.vote_list);
}

// Whether the per-row arrays go far: as asked, or (Auto) when the program with its rows in the
// window exceeds the device's Globals window and the device can address far segments (without
// it, require_bound_window refuses the program naming its sizes).
bool place_rows_far(const DeviceInfo& info, const HostTables& t, const BackendProgram& bp, RowPlacement rows) {
  if (rows != RowPlacement::Auto) return rows == RowPlacement::Far;
  if (!info.buffer_device_address) return false;
  Program probe("hypothesis_update");
  add_segments(probe, t, bp);  // bp.far_rows is still false: the in-window layout
  return probe.globals().size() > info.max_storage_buffer_range;
}

}  // namespace

void check_device_config(const UpdaterConfig& c) {
  if (c.max_channels < 1 || uint32_t(c.max_channels) > kHypMaxChannels)
    fail(ErrorCode::BadInput, "vulkan backend: max_channels must be 1.." + std::to_string(kHypMaxChannels));
  if (c.feature_width() > kHypMaxFeatureWidth)
    fail(ErrorCode::BadInput, "vulkan backend: at most " + std::to_string(kHypMaxFeatureWidth) + " feature columns");
  if (c.kind == UpdaterKind::BurstSampling && (c.burst.slope_window < 2 || uint32_t(c.burst.slope_window) > kHypMaxWindow))
    fail(ErrorCode::BadInput, "vulkan backend: burst.slope_window must be 2.." + std::to_string(kHypMaxWindow));
}

uint32_t space_capacity(const UpdaterConfig& c, size_t nodes, double capacity_per_node) {
  double per_node = capacity_per_node;
  if (per_node <= 0) {
    per_node = max_frames(c);
    if (c.kind == UpdaterKind::BurstSampling)
      per_node += 2.0 * std::max(c.burst.sampling_burst_duration, 1) *
                  std::min(c.burst.sampling_multiplier, double(max_frames(c)));
  }
  const double rows = std::ceil(per_node * double(nodes));
  if (rows > double(1u << 30)) fail(ErrorCode::OutOfMemory, "vulkan backend: hypothesis capacity too large");
  return (uint32_t(rows) + kHypWorkgroup - 1) / kHypWorkgroup * kHypWorkgroup;
}

BackendProgram build_backend_program(Device& device, const std::vector<DeviceLm>& lms, bool trace,
                                     double capacity_per_node, uint32_t row_dispatch_width, RowPlacement rows,
                                     const VoteOptions* votes, bool neighbour_lists) {
  BackendProgram bp;
  bp.trace = trace;
  bp.neighbour_lists = neighbour_lists;
  for (const DeviceLm& lm : lms) bp.votes = bp.votes || (votes && !lm.vote_senders.empty());
  HostTables t = build_host_tables(bp, lms, capacity_per_node, votes);
  bp.far_rows = place_rows_far(device.info(), t, bp, rows);
  Program p("hypothesis_update");
  add_segments(p, t, bp);
  // new_block dispatches from a slot that starts every step at no groups: only a step whose
  // `select` adds hypotheses sets the row grid's width there (default updaters add only on
  // their first step, burst samplers during bursts). A CPU driver runs a kernel's every
  // instruction for every row, exits or not, so the skipped dispatch saves its whole time.
  const std::array<uint32_t, 3> rows_grid = row_grid(t, row_dispatch_width);
  const SlotId new_rows = p.add_slot("new_block", {0, rows_grid[1], 1});
  std::vector<uint32_t> layout = layout_block(p, t, bp);
  layout[kNewBlockSlot] = p.slot(new_rows).first_word();
  layout[kRowGroupsX] = rows_grid[0];
  resolve_table_offsets(t, p, bp);
  add_stages(p, lms, bp, t, rows_grid, new_rows);
  // The kernels index Heap and Globals through their bindings, which cover the first
  // maxStorageBufferRange bytes (the per-row arrays aside when they are far); a bigger program
  // is refused here instead of reading past them.
  p.require_bound_window(device.info(), "vulkan backend: " + std::to_string(t.lm_count) + " LMs, " +
                                            std::to_string(t.space_count) + " graph spaces, " + std::to_string(t.rows) +
                                            " hypothesis rows" +
                                            (bp.far_rows ? " in far segments"
                                                         : " in the window (on a device with bufferDeviceAddress, "
                                                           "RowPlacement Auto or Far puts them in far segments)") +
                                            " (fewer graphs, LMs or hypotheses per program, or set_capacity_per_node "
                                            "lower)");
  bp.exe = std::make_unique<Executable>(device, std::move(p));
  upload_tables(*bp.exe, layout, t);
  reset_program_state(bp);
  return bp;
}

void reset_program_state(BackendProgram& bp) {
  Executable& x = *bp.exe;
  const auto& glob = x.program().globals();
  std::vector<uint32_t> stats(glob.at("stats").size / 4, 0);
  x.write_segment(Binding::Globals, "stats", stats.data(), stats.size() * 4);
  std::vector<uint32_t> state(glob.at("lmstate").size / 4, 0);
  for (size_t m = 0; m * kHypLmStateWords < state.size(); ++m) state[m * kHypLmStateWords + kHypLmGraph] = ~0u;
  x.write_segment(Binding::Globals, "lmstate", state.data(), state.size() * 4);
  std::vector<uint32_t> input(glob.at("input").size / 4, 0);
  x.write_segment(Binding::Globals, "input", input.data(), input.size() * 4);
}

}  // namespace weft::hypothesis_update
