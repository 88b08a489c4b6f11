// gnn-db: a SQL scan selects nodes -> `select` adapter (query output rows -> node mask) -> the
// GNN over the induced subgraph (masked aggregation), as one program (one submit), as two
// host-driven submits, and as SQLite + the GNN's CPU reference on the induced subgraph.
#include <algorithm>
#include <random>

#include "compose.h"
#include "shaders/compose_args.h"
#include "weft_compose_kernels.h"

namespace weft::compose {

namespace {

const char* kMask = "compose.mask";

db::Database nodes_table(const GnnDbConfig& c) {
  db::Table t;
  t.name = "nodes";
  t.rows = c.nodes;
  auto column = [&](const char* name, db::Type type) {
    db::Column col;
    col.name = name;
    col.type = type;
    col.nulls.assign(c.nodes, 0);
    if (type == db::Type::Float) col.floats.assign(c.nodes, 0.0);
    else col.ints.assign(c.nodes, 0);
    return col;
  };
  t.columns = {column("id", db::Type::Int), column("score", db::Type::Float), column("community", db::Type::Int)};
  std::mt19937_64 rng(c.seed * 7919u + 1u);
  for (uint32_t i = 0; i < c.nodes; ++i) {
    t.columns[0].ints[i] = i;
    t.columns[1].floats[i] = double(rng() % 10000) / 10000.0;
    t.columns[2].ints[i] = int64_t(rng() % 4);
  }
  db::Database d;
  d.add(std::move(t));
  return d;
}

// The node ids of a result set (one Int column), ascending; BadInput for an id not a node.
std::vector<uint32_t> ids_of(const db::ResultSet& rs, uint32_t nodes) {
  std::vector<uint32_t> ids;
  for (const db::Row& r : rs.rows) {
    if (r.size() != 1 || r[0].null || r[0].i < 0 || r[0].i >= int64_t(nodes))
      fail(ErrorCode::BadInput, "compose gnn-db: the query returned a row that is not a node id in 0.." + std::to_string(nodes - 1));
    ids.push_back(uint32_t(r[0].i));
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::vector<float> selected_rows(const std::vector<float>& h, const std::vector<uint32_t>& ids, uint32_t F) {
  std::vector<float> out;
  for (uint32_t i : ids) out.insert(out.end(), h.begin() + size_t(i) * F, h.begin() + size_t(i + 1) * F);
  return out;
}

}  // namespace

GnnDbSetup::GnnDbSetup(const GnnDbConfig& c)
    : cfg(c),
      graph(gnn::random_graph(c.nodes, c.edges, c.features, c.edge_types, c.seed)),
      model(gnn::random_model(c.features, c.layers, c.aggregation, c.seed + 1)),
      database(nodes_table(c)),
      plan(db::prepare_sql(c.query, database)) {
  if (plan.tables.size() != 1 || !plan.joins.empty() || plan.aggregate || plan.visible != 1 || !plan.order.empty() || plan.limit ||
      plan.outputs[0]->type != db::Type::Int)
    fail(ErrorCode::BadInput, "compose gnn-db: the query must select one Int column (node ids) from one table, "
                              "without JOIN, GROUP BY, aggregates, ORDER BY or LIMIT: " + c.query);
}

// ---- single submit ---------------------------------------------------------------------------
GnnDbComposed::GnnDbComposed(Device& device, const GnnDbConfig& cfg) : setup_(cfg) {
  db::require_features(device);
  query_ = std::make_unique<db::AppendedQuery>(Program("gnn-db"), setup_.database, setup_.plan);
  Program p = query_->take_program();
  p.globals().add(kMask, uint64_t(cfg.nodes) * 4);
  select_ = p.add_instance("compose.select", 4);
  p.connect(query_->output(), select_);
  StageSpec s;
  s.name = "select";
  s.kernel = weft_compose_kernels.get("select");
  s.instance = select_;
  s.args = SelectArgs{.ids = {query_->output_ranges[0], query_->output_values[0]},
                      .mask = p.segment(Binding::Globals, kMask),
                      .nodes = cfg.nodes}.bind();
  s.message = true;
  s.honour_halt = true;
  p.add_stage(s);
  gnn_ = gnn::append_program(std::move(p), setup_.graph, setup_.model, {}, {kMask});
  gnn_.program.require_bound_window(device.info(), "compose gnn-db");
  exe_ = std::make_unique<Executable>(device, gnn_.program);
  query_->upload(*exe_);
  gnn::upload(*exe_, setup_.graph, setup_.model);
}

GnnDbResult GnnDbComposed::run() {
  exe_->run();
  GnnDbResult r;
  r.submits = 1;
  r.gpu_ns = exe_->timings().total_ns;
  uint32_t msg[4];
  exe_->read_register(select_, WEFT_R_OUTBOX, msg, 16);
  if (msg[2] != 0) fail(ErrorCode::BadInput, "compose gnn-db: the query reported error bits " + std::to_string(msg[2]));
  r.bad_ids = msg[1];
  const auto mask = exe_->read_segment<uint32_t>(Binding::Globals, kMask);
  for (uint32_t i = 0; i < setup_.cfg.nodes; ++i)
    if (mask[i]) r.selected.push_back(i);
  r.embeddings = selected_rows(exe_->read_range<float>(gnn_.ports.segment("embeddings")), r.selected, setup_.cfg.features);
  return r;
}

// ---- host-orchestrated: the query, the mask on the host, the GNN (two submits) --------------
GnnDbOrchestrated::GnnDbOrchestrated(Device& device, const GnnDbConfig& cfg) : setup_(cfg) {
  query_ = std::make_unique<db::DeviceQuery>(device, setup_.database, setup_.plan);
  Program p("gnn-db.gnn");
  p.globals().add(kMask, uint64_t(cfg.nodes) * 4);
  gnn_ = gnn::append_program(std::move(p), setup_.graph, setup_.model, {}, {kMask});
  gnn_exe_ = std::make_unique<Executable>(device, gnn_.program);
  gnn::upload(*gnn_exe_, setup_.graph, setup_.model);
}

GnnDbResult GnnDbOrchestrated::run() {
  GnnDbResult r;
  const db::ResultSet rs = query_->run();  // submit 1
  r.gpu_ns += query_->stats().gpu_ns;
  r.submits += query_->stats().submissions;
  r.selected = ids_of(rs, setup_.cfg.nodes);
  std::vector<uint32_t> mask(setup_.cfg.nodes, 0);
  for (uint32_t i : r.selected) mask[i] = 1;
  gnn_exe_->write_segment(Binding::Globals, kMask, mask.data(), mask.size() * 4);
  gnn_exe_->run();  // submit 2
  r.gpu_ns += gnn_exe_->timings().total_ns;
  r.submits += 1;
  r.embeddings = selected_rows(gnn_exe_->read_range<float>(gnn_.ports.segment("embeddings")), r.selected, setup_.cfg.features);
  return r;
}

// ---- references: SQLite, then the GNN reference on the induced subgraph (relabelled) --------
GnnDbResult gnn_db_reference(const GnnDbConfig& cfg) {
  const GnnDbSetup s(cfg);
  db::Sqlite sqlite(s.database);
  GnnDbResult r;
  r.selected = ids_of(sqlite.query(cfg.query), cfg.nodes);
  const uint32_t F = cfg.features, M = uint32_t(r.selected.size());
  std::vector<uint32_t> local(cfg.nodes, ~0u);
  for (uint32_t k = 0; k < M; ++k) local[r.selected[k]] = k;
  gnn::Graph sub;
  sub.nodes = M;
  sub.features = F;
  for (uint32_t k = 0; k < M; ++k) {
    const uint32_t i = r.selected[k];
    sub.x.insert(sub.x.end(), s.graph.x.begin() + size_t(i) * F, s.graph.x.begin() + size_t(i + 1) * F);
  }
  for (const gnn::Csr& c : s.graph.edge_types) {
    gnn::Csr sc;
    sc.row_offsets.push_back(0);
    for (uint32_t k = 0; k < M; ++k) {
      const uint32_t i = r.selected[k];
      for (uint32_t e = c.row_offsets[i]; e < c.row_offsets[i + 1]; ++e)
        if (local[c.cols[e]] != ~0u) {
          sc.cols.push_back(local[c.cols[e]]);
          sc.weights.push_back(c.weights[e]);
        }
      sc.row_offsets.push_back(sc.edges());
    }
    sub.edge_types.push_back(std::move(sc));
  }
  if (M == 0) return r;
  const gnn::ReferenceResult ref = gnn::reference_forward(sub, s.model, gnn::Rules{});
  r.embeddings.assign(ref.h.back().begin(), ref.h.back().end());
  return r;
}

}  // namespace weft::compose
