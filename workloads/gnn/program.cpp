// The GNN chain as a Weft program: an embedding lookup, then one unrolled loop iteration per
// layer (aggregate per edge type -> transform -> activate -> readout -> metric -> regulator).
// Every iteration dispatches from its own indirect slots, so the over-smoothing rule ends the
// network early by zeroing the slots of the layers left.
#include <algorithm>
#include <string>

#include "gnn.h"
#include "shaders/gnn_args.h"
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
  GnnProgram gp{std::move(program), {}, {}, {}, {}, {}, Ports("gnn")};
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
  gp.ports.add_segment("embeddings", p.segment(Binding::Globals, n("h", L)), "f32[nodes][features]: the last layer's node embeddings");

  for (uint32_t l = 0; l < L; ++l) {
    gp.layers.push_back(p.add_instance(n("layer", l), F));
    if (l) p.connect(gp.layers[l - 1], gp.layers[l]);  // R31 of layer l = readout of layer l-1
    std::vector<InstanceId> types;
    for (uint32_t t = 0; t < T; ++t) types.push_back(p.add_instance(n("layer", l) + n(".type", t), 1));
    gp.types.push_back(types);
    gp.residual_words.push_back(p.add_control_words(n("residual", l), {f32_bits(model.residual)}));
  }

  auto heap = [&](const std::string& s) { return p.segment(Binding::Heap, s); };
  auto globals = [&](const std::string& s) { return p.segment(Binding::Globals, s); };
  const uint32_t ew_groups = grid_stride_groups(nf, 64);
  const std::string agg_kernel = std::string("aggregate_") + aggregation_name(model.aggregation);

  StageSpec embed;
  embed.name = "embed";
  embed.kernel = weft_gnn_kernels.get("embed");
  embed.instance = gp.layers[0];
  embed.streaming_units = nf;
  embed.args = EmbedArgs{.x = heap("x"), .h = globals("h0"), .count = uint32_t(nf)}.bind();
  p.add_stage(embed);

  const Range agg_all = p.segment(Binding::Globals, "agg");
  const bool masked = !options.node_mask.empty();
  if (masked && p.globals().at(options.node_mask).size < uint64_t(N) * 4)
    fail(ErrorCode::InvalidProgram, "gnn: node mask segment '" + options.node_mask + "' holds fewer than " + std::to_string(N) + " words");
  const In<Binding::Globals> mask = masked ? In<Binding::Globals>(globals(options.node_mask)) : In<Binding::Globals>(absent);
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
      s.args = AggregateArgs{.rows = heap(n("rows", t)), .cols = heap(n("cols", t)), .weights = heap(n("w", t)),
                             .h = globals(hin), .sums = Range{Binding::Globals, agg_all.offset + t * nf * 4, nf * 4},
                             .nodes = N, .features = F, .mask = mask}.bind();
      it.add_stage(prog, s, kNodeFeature);
    }
    StageSpec tr;
    tr.name = "transform";
    tr.kernel = weft_gnn_kernels.get("transform");
    tr.instance = layer;
    tr.args = TransformArgs{.h = globals(hin), .agg = agg_all, .types = T, .stride = uint32_t(nf), .w = heap(n("W", l)),
                            .b = heap(n("b", l)), .z = globals("z"), .nodes = N, .features = F}.bind();
    it.add_stage(prog, tr, kNodeFeature);

    StageSpec act;
    act.name = "activate";
    act.kernel = weft_gnn_kernels.get("activate");
    act.instance = layer;
    act.args = ActivateArgs{.z = globals("z"), .h_in = globals(hin), .h_out = globals(hout), .count = uint32_t(nf),
                            .residual = prog.control_words(gp.residual_words[l], 1)}.bind();
    it.add_stage(prog, act, kNodeFeature);

    StageSpec ro;
    ro.name = "readout";
    ro.kernel = weft_gnn_kernels.get("readout");
    ro.instance = layer;
    ro.args = ReadoutArgs{.h = globals(hout), .nodes = N, .features = F}.bind();
    ro.writes = {prog.outbox(layer)};
    it.add_stage(prog, ro, kPerFeature);

    StageSpec me;
    me.name = "metric";
    me.kernel = weft_gnn_kernels.get("metric");
    me.instance = layer;
    me.args = MetricArgs{.h_new = globals(hout), .h_old = globals(hin), .nodes = N, .features = F, .layer = l}.bind();
    me.reads = {prog.outbox(layer), prog.metrics(layer)};
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
