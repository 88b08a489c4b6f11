// agent-retrieval: a decoder prefills a prompt -> its last hidden row queries a DB table of
// document embeddings (top-k by dot product, the `retrieve` adapter) -> a second decoder with the
// first one's KV cache continues with the retrieved rows and samples. One program (one submit),
// three host-driven submits, and the CPU references (attention::Reference, SQLite) chained alike.
#include <algorithm>
#include <cstring>
#include <random>

#include "compose.h"
#include "shaders/compose_args.h"
#include "weft_compose_kernels.h"

namespace weft::compose {

namespace {

db::Database docs_table(const AgentRetrievalConfig& c, uint32_t dim) {
  db::Table t;
  t.name = "docs";
  t.rows = c.docs;
  auto column = [&](const std::string& name, db::Type type) {
    db::Column col;
    col.name = name;
    col.type = type;
    col.nulls.assign(c.docs, 0);
    if (type == db::Type::Float) col.floats.assign(c.docs, 0.0);
    else col.ints.assign(c.docs, 0);
    return col;
  };
  t.columns = {column("id", db::Type::Int), column("topic", db::Type::Int)};
  for (uint32_t j = 0; j < dim; ++j) t.columns.push_back(column("e" + std::to_string(j), db::Type::Float));
  std::mt19937_64 rng(c.seed);
  std::normal_distribution<double> n(0.0, 1.0);
  for (uint32_t r = 0; r < c.docs; ++r) {
    t.columns[0].ints[r] = 1000 + r;
    t.columns[1].ints[r] = int64_t(rng() % 4);
    for (uint32_t j = 0; j < dim; ++j) t.columns[2 + j].floats[r] = n(rng);
  }
  db::Database d;
  d.add(std::move(t));
  return d;
}

// Scores (sum_j q_j * e_j in j order, double) and the top k, ties to the earlier row: what the
// retrieve kernel computes.
template <class Q>
void top_k(const db::ResultSet& rs, const std::vector<Q>& q, uint32_t k, AgentRetrievalResult& r, std::vector<std::vector<double>>& rows) {
  std::vector<double> s(rs.rows.size());
  for (size_t n = 0; n < rs.rows.size(); ++n) {
    double acc = 0.0;
    for (size_t j = 0; j < q.size(); ++j) {
      const double term = double(q[j]) * rs.rows[n][1 + j].f;
      acc = acc + term;
    }
    s[n] = acc;
  }
  std::vector<bool> taken(s.size(), false);
  for (uint32_t i = 0; i < k && i < s.size(); ++i) {
    size_t best = s.size();
    for (size_t n = 0; n < s.size(); ++n)
      if (!taken[n] && (best == s.size() || s[n] > s[best])) best = n;
    taken[best] = true;
    r.picks.push_back(uint32_t(rs.rows[best][0].i));
    r.scores.push_back(s[best]);
    std::vector<double> row;
    for (size_t j = 0; j < q.size(); ++j) row.push_back(rs.rows[best][1 + j].f);
    rows.push_back(row);
  }
}

void set_batches(Executable& exe, const AgentRetrievalSetup& s, const attention::DecoderProgram* agent, const attention::DecoderProgram* cont) {
  if (agent) {
    attention::set_batch(exe, *agent, s.model, s.prompt, 0);
    attention::set_sampling(exe, *agent, attention::Sampling{});
  }
  if (cont) {
    const std::vector<uint32_t> unused(s.cfg.k, 0);
    attention::set_batch(exe, *cont, s.model, unused, s.cfg.prompt);
    attention::set_sampling(exe, *cont, attention::Sampling{});
  }
}

std::vector<float> last_row(Executable& exe, const attention::DecoderProgram& dp, uint32_t rows, uint32_t dim) {
  const auto x = exe.read_range<float>(dp.ports.segment("input_rows"));
  return std::vector<float>(x.begin() + size_t(rows - 1) * dim, x.begin() + size_t(rows) * dim);
}

void read_cont(Executable& exe, const attention::DecoderProgram& dp, AgentRetrievalResult& r) {
  r.logits = attention::read_logits(exe, dp);
  r.sampled = attention::read_sampled(exe, dp);
}

}  // namespace

AgentRetrievalSetup::AgentRetrievalSetup(const AgentRetrievalConfig& c)
    : cfg(c), model(attention::Model::from(gguf::File::parse(attention::seeded_model(c.model).bytes(), "<seeded model>"))) {
  if (c.prompt == 0 || c.k == 0 || c.k > 16 || c.docs == 0 || c.prompt + c.k > c.model.context)
    fail(ErrorCode::BadInput, "compose agent-retrieval: need prompt >= 1, 1 <= k <= 16, docs >= 1 and prompt + k <= context " +
                                  std::to_string(c.model.context));
  std::mt19937 rng(c.seed);
  for (uint32_t t = 0; t < c.prompt; ++t) prompt.push_back(rng() % model.config.vocab);
  database = docs_table(c, dim());
  sql = "SELECT id";
  for (uint32_t j = 0; j < dim(); ++j) sql += ", e" + std::to_string(j);
  sql += " FROM docs WHERE " + c.where;
  plan = db::prepare_sql(sql, database);
  if (plan.tables.size() != 1 || !plan.joins.empty() || plan.aggregate || !plan.order.empty() || plan.limit || plan.visible != dim() + 1)
    fail(ErrorCode::BadInput, "compose agent-retrieval: the filter must keep a plain scan of docs (no join, aggregate, ORDER BY, LIMIT): " + c.where);
}

attention::DecoderOptions AgentRetrievalSetup::options(const char* prefix, uint32_t batch) const {
  attention::DecoderOptions o;
  o.prefix = prefix;
  o.context = cfg.model.context;
  o.max_batch = batch;
  return o;
}

// ---- single submit ---------------------------------------------------------------------------
AgentRetrievalComposed::AgentRetrievalComposed(Device& device, const AgentRetrievalConfig& cfg) : setup_(cfg) {
  db::require_features(device);
  const uint32_t P = cfg.prompt, K = cfg.k, D = setup_.dim(), L = setup_.model.config.layers;
  const uint32_t kv = setup_.model.config.kv_dim();
  query_ = std::make_unique<db::AppendedQuery>(Program("agent-retrieval"), setup_.database, setup_.plan);
  Program p = query_->take_program();
  p.globals().add("compose.columns", uint64_t(D + 1) * 4);
  p.globals().add("compose.scores", uint64_t(cfg.docs) * 8);
  p.globals().add("compose.rows", uint64_t(K) * D * 4);
  p.globals().add("compose.picks", uint64_t(2 * K) * 4);
  agent_ = attention::add_decoder(p, setup_.model, setup_.options("agent", P));
  retrieve_ = p.add_instance("compose.retrieve", D);
  p.connect(agent_.ports.instance("last_layer"), retrieve_);
  attention::DecoderOptions o = setup_.options("cont", K);
  o.embed = [&](Program& q, const attention::DecoderProgram& dp) {
    // The continuing decoder attends to the prompt: the agent's KV cache rows 0..P-1 become its own.
    for (uint32_t l = 0; l < L; ++l)
      for (const char* c : {"k", "v"}) {
        const std::string cache = c + std::to_string(l);
        StageSpec s;
        s.name = "kv_copy";
        s.kernel = weft_compose_kernels.get("copy_words");
        s.instance = retrieve_;
        s.groups = {grid_stride_groups(uint64_t(P) * kv, 64), 1, 1};
        s.args = CopyWordsArgs{.source = agent_.ports.segment(cache), .destination = dp.ports.segment(cache), .count = P * kv}.bind();
        s.honour_halt = true;
        q.add_stage(s);
      }
    const Range agent_rows = agent_.ports.segment("input_rows");
    StageSpec s;
    s.name = "retrieve";
    s.kernel = weft_compose_kernels.get("retrieve");
    s.instance = retrieve_;
    s.args = RetrieveArgs{.query_result = q.outbox(query_->output()),
                          .columns = q.segment(Binding::Globals, "compose.columns"),
                          .dim = D,
                          .query_vector = {agent_rows, agent_rows.first_word() + (P - 1) * D},  // the prompt's last row
                          .k = K,
                          .scores = q.segment(Binding::Globals, "compose.scores"),
                          .rows = dp.ports.segment("input_rows"),
                          .rows_copy = q.segment(Binding::Globals, "compose.rows"),
                          .picks = q.segment(Binding::Globals, "compose.picks"),
                          .capacity = cfg.docs}.bind();
    for (const Range& r : query_->output_ranges) s.reads.push_back(r);
    s.message = true;
    s.honour_halt = true;
    q.add_stage(s);
  };
  cont_ = attention::add_decoder(p, setup_.model, o);
  p.connect(retrieve_, cont_.ports.instance("first_layer"));
  p.require_bound_window(device.info(), "compose agent-retrieval");
  exe_ = std::make_unique<Executable>(device, p);
  query_->upload(*exe_);
  attention::upload(*exe_, agent_, setup_.model);
  attention::upload(*exe_, cont_, setup_.model);
  exe_->write_segment(Binding::Globals, "compose.columns", query_->output_values.data(), query_->output_values.size() * 4);
}

AgentRetrievalResult AgentRetrievalComposed::run() {
  set_batches(*exe_, setup_, &agent_, &cont_);
  exe_->run();
  AgentRetrievalResult r;
  r.submits = 1;
  r.gpu_ns = exe_->timings().total_ns;
  const uint32_t K = setup_.cfg.k;
  r.query = last_row(*exe_, agent_, setup_.cfg.prompt, setup_.dim());
  const auto picks = exe_->read_segment<uint32_t>(Binding::Globals, "compose.picks");
  for (uint32_t i = 0; i < K; ++i) {
    if (picks[i] == 0xFFFFFFFFu) break;  // fewer candidates than k
    r.picks.push_back(picks[i]);
    float s;
    std::memcpy(&s, &picks[K + i], 4);
    r.scores.push_back(s);
  }
  r.rows = exe_->read_segment<float>(Binding::Globals, "compose.rows");
  read_cont(*exe_, cont_, r);
  return r;
}

// ---- host-orchestrated: agent, query, host top-k + KV carry, continuation (three submits) ---
AgentRetrievalOrchestrated::AgentRetrievalOrchestrated(Device& device, const AgentRetrievalConfig& cfg) : setup_(cfg) {
  Program a("agent-retrieval.agent");
  agent_ = attention::add_decoder(a, setup_.model, setup_.options("agent", cfg.prompt));
  agent_exe_ = std::make_unique<Executable>(device, a);
  attention::upload(*agent_exe_, agent_, setup_.model);
  attention::DecoderOptions o = setup_.options("cont", cfg.k);
  o.embed = [](Program&, const attention::DecoderProgram&) {};  // the host writes the rows
  Program c("agent-retrieval.cont");
  cont_ = attention::add_decoder(c, setup_.model, o);
  cont_exe_ = std::make_unique<Executable>(device, c);
  attention::upload(*cont_exe_, cont_, setup_.model);
  query_ = std::make_unique<db::DeviceQuery>(device, setup_.database, setup_.plan);
}

AgentRetrievalResult AgentRetrievalOrchestrated::run() {
  AgentRetrievalResult r;
  const uint32_t P = setup_.cfg.prompt, D = setup_.dim(), kv = setup_.model.config.kv_dim();
  set_batches(*agent_exe_, setup_, &agent_, nullptr);
  agent_exe_->run();  // submit 1
  r.gpu_ns += agent_exe_->timings().total_ns;
  r.query = last_row(*agent_exe_, agent_, P, D);
  for (uint32_t l = 0; l < setup_.model.config.layers; ++l)
    for (const char* c : {"k", "v"}) {
      const std::string port = c + std::to_string(l);
      const auto cache = agent_exe_->read_range<float>(agent_.ports.segment(port));
      cont_exe_->write_range(cont_.ports.segment(port), cache.data(), uint64_t(P) * kv * 4);
    }
  const db::ResultSet rs = query_->run();  // submit 2
  r.gpu_ns += query_->stats().gpu_ns;
  std::vector<std::vector<double>> rows;
  top_k(rs, r.query, setup_.cfg.k, r, rows);
  for (double& s : r.scores) s = double(float(s));  // the device path reports f32 scores
  for (const auto& row : rows)
    for (double v : row) r.rows.push_back(float(v));
  r.rows.resize(size_t(setup_.cfg.k) * D, 0.0f);
  cont_exe_->write_range(cont_.ports.segment("input_rows"), r.rows.data(), r.rows.size() * 4);
  set_batches(*cont_exe_, setup_, nullptr, &cont_);
  cont_exe_->run();  // submit 3
  r.gpu_ns += cont_exe_->timings().total_ns;
  read_cont(*cont_exe_, cont_, r);
  r.submits = 2 + query_->stats().submissions;
  return r;
}

AgentRetrievalResult agent_retrieval_reference(const AgentRetrievalConfig& cfg) {
  AgentRetrievalSetup s(cfg);
  attention::Reference ref(s.model, cfg.model.context, attention::Rules{}, 0);
  ref.forward(s.prompt);
  AgentRetrievalResult r;
  const std::vector<double> q = ref.hidden();
  r.query.assign(q.begin(), q.end());
  db::Sqlite sqlite(s.database);
  std::vector<std::vector<double>> rows;
  top_k(sqlite.query(s.sql), q, cfg.k, r, rows);
  for (const auto& row : rows)
    for (double v : row) r.rows.push_back(float(v));
  const std::vector<double> logits = ref.forward_rows(rows);
  r.logits.assign(logits.begin(), logits.end());
  r.sampled = uint32_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
  return r;
}

}  // namespace weft::compose
