// The GNN chain as a Weft program: an embedding lookup, then one unrolled loop iteration per
// layer (aggregate per edge type -> transform -> activate -> readout -> metric -> regulator).
// Every iteration dispatches from its own indirect slots, so the over-smoothing rule ends the
// network early by zeroing the slots of the layers left.
#include <algorithm>
#include <string>

#include "gnn.h"
#include "weft_gnn_kernels.h"

namespace weft::gnn {

namespace {


std::string n(const char* base, uint32_t i) { return base + std::to_string(i); }

// Dispatch shapes of one iteration's slots.
enum Shape : uint32_t { kNodeFeature = 0, kPerFeature = 1, kSingle = 2 };

}  // namespace

GnnProgram build_program(const Graph& g, const Model& model, const Rules& rules) {
  return append_program(Program("gnn"), g, model, rules);
}

GnnProgram append_program(Program program, const Graph& g, const Model& model, const Rules& rules,
                          const AppendOptions& options) {
  validate(g, model);
  const uint32_t N = g.nodes, F = g.features, L = uint32_t(model.layers.size()), T = uint32_t(g.edge_types.size());
  const uint64_t nf = uint64_t(N) * F;
  GnnProgram gp{std::move(program), {}, {}, {}, {}, {}};
  Program& p = gp.program;

  for (uint32_t t = 0; t < T; ++t) {
    p.heap().add(n("rows", t), (uint64_t(N) + 1) * 4);
    p.heap().add(n("cols", t), std::max<uint64_t>(g.edge_types[t].edges(), 1) * 4);
    p.heap().add(n("w", t), std::max<uint64_t>(g.edge_types[t].edges(), 1) * 4);
  }
  p.heap().add("x", nf * 4);
  for (uint32_t l = 0; l < L; ++l) {
    p.heap().add(n("W", l), uint64_t(F) * F * 4);
    p.heap().add(n("b", l), uint64_t(F) * 4);
  }
  for (uint32_t l = 0; l <= L; ++l) p.globals().add(n("h", l), nf * 4);
  p.globals().add("agg", nf * 4 * T);
  p.globals().add("z", nf * 4);

  for (uint32_t l = 0; l < L; ++l) {
    gp.layers.push_back(p.add_instance(n("layer", l), F));
    if (l) p.connect(gp.layers[l - 1], gp.layers[l]);  // R31 of layer l = readout of layer l-1
    std::vector<InstanceId> types;
    for (uint32_t t = 0; t < T; ++t) types.push_back(p.add_instance(n("layer", l) + n(".type", t), 1));
    gp.types.push_back(types);
    gp.residual_words.push_back(p.add_control_words(n("residual", l), {f32_bits(model.residual)}));
  }

  auto word = [&](Binding b, const std::string& s) {
    return (b == Binding::Heap ? p.heap() : p.globals()).at(s).word_offset();
  };
  // Grid-stride kernels: at most 65535 groups (the guaranteed maxComputeWorkGroupCount[0]).
  const uint32_t ew_groups = uint32_t(std::min<uint64_t>((nf + 63) / 64, 65535));
  const std::string agg_kernel = std::string("aggregate_") + aggregation_name(model.aggregation);

  StageSpec embed;
  embed.name = "embed";
  embed.kernel = weft_gnn_kernels.get("embed");
  embed.instance = gp.layers[0];
  embed.groups = {ew_groups, 1, 1};
  embed.push = {word(Binding::Heap, "x"), word(Binding::Globals, "h0"), uint32_t(nf)};
  embed.reads = {p.segment(Binding::Heap, "x")};
  embed.writes = {p.segment(Binding::Globals, "h0")};
  p.add_stage(embed);

  const Range agg_all = p.segment(Binding::Globals, "agg");
  const bool masked = !options.node_mask.empty();
  if (masked && p.globals().at(options.node_mask).size < uint64_t(N) * 4)
    fail(ErrorCode::InvalidProgram, "gnn: node mask segment '" + options.node_mask + "' holds fewer than " + std::to_string(N) + " words");
  const uint32_t mask_word = masked ? word(Binding::Globals, options.node_mask) : 0xFFFFFFFFu;
  gp.loop = add_loop(p, "gnn", L, {{ew_groups, 1, 1}, {F, 1, 1}, {1, 1, 1}}, [&](Program& prog, const LoopIteration& it) {
    const uint32_t l = it.index;
    const InstanceId layer = gp.layers[l];
    const std::string hin = n("h", l), hout = n("h", l + 1);
    for (uint32_t t = 0; t < T; ++t) {
      // Each edge type writes its own slice of `agg`, so the planner sees the types as
      // independent and puts no barrier between them.
      StageSpec s;
      s.name = n("aggregate.t", t);
      s.kernel = weft_gnn_kernels.get(agg_kernel);
      s.instance = gp.types[l][t];
      s.push = {word(Binding::Heap, n("rows", t)), word(Binding::Heap, n("cols", t)), word(Binding::Heap, n("w", t)),
                word(Binding::Globals, hin), uint32_t(agg_all.offset / 4 + t * nf), N, F, mask_word};
      s.reads = {prog.segment(Binding::Heap, n("rows", t)), prog.segment(Binding::Heap, n("cols", t)),
                 prog.segment(Binding::Heap, n("w", t)), prog.segment(Binding::Globals, hin)};
      if (masked) s.reads.push_back(prog.segment(Binding::Globals, options.node_mask));
      s.writes = {Range{Binding::Globals, agg_all.offset + t * nf * 4, nf * 4}};
      it.add_stage(prog, s, kNodeFeature);
    }
    StageSpec tr;
    tr.name = "transform";
    tr.kernel = weft_gnn_kernels.get("transform");
    tr.instance = layer;
    tr.push = {word(Binding::Globals, hin), uint32_t(agg_all.offset / 4), T, uint32_t(nf), word(Binding::Heap, n("W", l)),
               word(Binding::Heap, n("b", l)), word(Binding::Globals, "z"), N, F};
    tr.reads = {prog.segment(Binding::Globals, hin), agg_all, prog.segment(Binding::Heap, n("W", l)),
                prog.segment(Binding::Heap, n("b", l))};
    tr.writes = {prog.segment(Binding::Globals, "z")};
    it.add_stage(prog, tr, kNodeFeature);

    StageSpec act;
    act.name = "activate";
    act.kernel = weft_gnn_kernels.get("activate");
    act.instance = layer;
    act.push = {word(Binding::Globals, "z"), word(Binding::Globals, hin), word(Binding::Globals, hout), uint32_t(nf),
                gp.residual_words[l]};
    act.reads = {prog.segment(Binding::Globals, "z"), prog.segment(Binding::Globals, hin),
                 prog.control_words(gp.residual_words[l], 1)};
    act.writes = {prog.segment(Binding::Globals, hout)};
    it.add_stage(prog, act, kNodeFeature);

    StageSpec ro;
    ro.name = "readout";
    ro.kernel = weft_gnn_kernels.get("readout");
    ro.instance = layer;
    ro.push = {word(Binding::Globals, hout), N, F};
    ro.reads = {prog.segment(Binding::Globals, hout)};
    ro.writes = {prog.outbox(layer)};
    it.add_stage(prog, ro, kPerFeature);

    StageSpec me;
    me.name = "metric";
    me.kernel = weft_gnn_kernels.get("metric");
    me.instance = layer;
    me.push = {word(Binding::Globals, hout), word(Binding::Globals, hin), N, F, l};
    me.reads = {prog.segment(Binding::Globals, hout), prog.segment(Binding::Globals, hin), prog.outbox(layer),
                prog.metrics(layer)};
    me.writes = {prog.metrics(layer)};
    it.add_stage(prog, me, kSingle);

    // The regulator role, as data: over-smoothing boosts the next layer's residual and/or ends
    // the network after this layer. Nothing follows the last layer, so it gets no rules.
    if (l + 1 < L && (rules.stop_above || rules.residual_above)) {
      std::vector<abi::WeftRule> rs;
      if (rules.residual_above)
        rs.push_back(rule(Condition::greater(layer, WEFT_METRIC_NORM, *rules.residual_above),
                          Action::set_word(gp.residual_words[l + 1], rules.residual_boost)));
      if (rules.stop_above)
        rs.push_back(rule(Condition::greater(layer, WEFT_METRIC_NORM, *rules.stop_above), it.loop.exit_after(prog, l)));
      gp.regulators.push_back(it.add_regulator(prog, "regulator", rs, kSingle));
    }
  });
  return gp;
}

}  // namespace weft::gnn
