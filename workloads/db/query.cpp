// DeviceQuery: builds the query program, uploads the tables and tables of the plan, runs it and
// reads the result back through the result reference the output stage left.
#include <algorithm>
#include <cstring>
#include <vector>

#include "db.h"
#include "db_ops.h"
#include "derived.h"
#include "program_internal.h"

namespace weft::db {

namespace {

void collect_literals(const Query& q, std::vector<std::string>& out);

// The string literals that become Text values, subqueries' included; a LIKE pattern and escape,
// and a text function's constant arguments, are read on the host only (plan.cpp), so they stay
// out of the dictionary.
void collect_literals(const Expr& e, std::vector<std::string>& out) {
  if (e.kind == ExprKind::String) out.push_back(e.s);
  if (e.subquery) collect_literals(*e.subquery, out);
  if (const std::optional<TextCall> c = text_call(e)) return collect_literals(*c->operand, out);
  const size_t n = e.kind == ExprKind::Like ? 1 : e.args.size();
  for (size_t k = 0; k < n; ++k) collect_literals(*e.args[k], out);
}
void collect_literals(const Query& q, std::vector<std::string>& out) {
  for (const SelectItem& it : q.select)
    if (it.expr) collect_literals(*it.expr, out);
  for (const JoinClause& j : q.joins)
    if (j.on) collect_literals(*j.on, out);
  for (const ExprPtr& e : {q.where, q.having})
    if (e) collect_literals(*e, out);
  for (const ExprPtr& e : q.group_by) collect_literals(*e, out);
  for (const OrderItem& o : q.order_by) collect_literals(*o.expr, out);
}

// Interns the query's literals and the strings its text functions derive: every one then has a
// code the output can decode and that compares in dictionary order, and the codes do not move
// once a subquery has run. Derived tables have run before (their tables hold strings, which
// re-encode with the dictionary).
void intern(const Query& q, Database& db) {
  std::vector<std::string> lits;
  collect_literals(q, lits);
  db.intern(lits);
  db.intern(derived_strings(q, db));
}

// A result as a table of the database: the plan's output types, Text as its strings.
Table result_table(const ResultSet& rs, const Plan& plan) {
  Table t;
  t.rows = rs.rows.size();
  for (size_t c = 0; c < rs.names.size(); ++c) {
    Column col;
    col.name = rs.names[c];
    col.type = plan.outputs[c]->type;
    for (const Row& row : rs.rows) {
      const Value& v = row[c];
      col.nulls.push_back(v.null);
      if (col.type == Type::Float) col.floats.push_back(v.null ? 0 : v.f);
      else if (col.type == Type::Text) col.strings.push_back(v.null ? std::string() : v.s);
      else col.ints.push_back(v.null ? 0 : v.i);
    }
    t.columns.push_back(std::move(col));
  }
  return t;
}

// A derived table: its query planned and run on `device` (its own derived tables and subqueries
// first), its rows read back as a table.
Table run_derived(Device& device, Database& db, const Query& inner, const QueryOptions& options) {
  const Plan plan = prepare_query(inner, db, device, options);
  DeviceQuery q(device, db, plan, options);
  return result_table(q.run(), plan);
}

// A subquery's first column, as the planner takes it: one run of its own program on `device`.
std::vector<std::optional<uint64_t>> run_subquery(Device& device, const Database& db, const Plan& plan,
                                                  const QueryOptions& options) {
  DeviceQuery q(device, db, plan, options);
  const ResultSet rs = q.run();
  std::vector<std::optional<uint64_t>> column;
  for (const Row& row : rs.rows) {
    const Value& v = row[0];
    uint64_t bits = uint64_t(v.i);
    if (v.type == Type::Float) std::memcpy(&bits, &v.f, 8);
    column.push_back(v.null ? std::nullopt : std::optional<uint64_t>(bits));
  }
  return column;
}

// Returns the bytes of table columns written (the plan's host tables, its code, not counted).
uint64_t upload_query(Executable& exe, const Database& db, const Plan& plan, const BuiltQuery& built) {
  uint64_t bytes = 0;
  for (const Upload& u : built.uploads) {
    const Table& t = db.table(size_t(plan.tables[u.side]));
    const Column& c = t.columns[u.column];
    if (u.nulls) {
      std::vector<uint32_t> bits((t.rows + 31) / 32, 0);
      for (size_t r = 0; r < t.rows; ++r)
        if (c.nulls[r]) bits[r / 32] |= 1u << (r % 32);
      if (!bits.empty()) exe.write_segment(Binding::Globals, u.segment, bits.data(), bits.size() * 4);
      bytes += bits.size() * 4;
    } else {
      std::vector<uint64_t> v(t.rows);
      for (size_t r = 0; r < t.rows; ++r) v[r] = c.nulls[r] ? 0 : c.bits(r);
      if (!v.empty()) exe.write_segment(Binding::Globals, u.segment, v.data(), v.size() * 8);
      bytes += v.size() * 8;
    }
  }
  for (const HostTable& h : built.host_tables)
    if (!h.words.empty()) exe.write_segment(Binding::Globals, h.segment, h.words.data(), h.words.size() * 4);
  return bytes;
}

// The most claims of the COUNT(DISTINCT) hash tables (0 without any).
uint64_t most_distinct_claims(Executable& exe, const BuiltQuery& built) {
  std::vector<uint32_t> claims(built.distinct_tables);
  if (!claims.empty()) exe.read(Binding::Globals, uint64_t(built.distinct_claimed_word) * 4, claims.data(), claims.size() * 4);
  uint64_t most = 0;
  for (uint32_t c : claims) most = std::max<uint64_t>(most, c);
  return most;
}

}  // namespace

Plan prepare_query(const Query& parsed, Database& db, Device& device, const QueryOptions& options) {
  const Query q =
      materialize_derived(parsed, db, [&](const Query& inner) { return run_derived(device, db, inner, options); });
  intern(q, db);
  return plan_query(q, db, [&](const Plan& sub) { return run_subquery(device, db, sub, options); });
}

Plan prepare_query(const Query& query, Database& db, Device& device) { return prepare_query(query, db, device, {}); }

Plan prepare_sql(const std::string& sql, Database& db) {
  const Query q = materialize_derived(parse_sql(sql), db, nullptr);
  intern(q, db);
  return plan_query(q, db);
}

Plan prepare_sql(const std::string& sql, Database& db, Device& device, const QueryOptions& options) {
  return prepare_query(parse_sql(sql), db, device, options);
}

Plan prepare_sql(const std::string& sql, Database& db, Device& device) { return prepare_sql(sql, db, device, {}); }

void require_features(const Device& device) {
  const DeviceInfo& d = device.info();
  if (!d.shader_int64 || !d.shader_float64)
    fail(ErrorCode::MissingFeature, "db: device '" + d.name + "' lacks " +
                                        std::string(!d.shader_int64 ? "shaderInt64" : "shaderFloat64") +
                                        "; the database kernels compute in int64 and double");
}

struct DeviceQueryParts {};

DeviceQuery::DeviceQuery(Device& device, const Database& db, Plan plan, QueryOptions options)
    : device_(device), db_(db), plan_(std::move(plan)), options_(options) {
  require_features(device);
  build();
}

DeviceQuery::~DeviceQuery() = default;

Executable& DeviceQuery::executable() { return *exe_; }

void DeviceQuery::build() {
  exe_.reset();
  QueryOptions o = options_;
  if (o.resident) {
    o.resident->refresh(db_);
    o.columns = QueryOptions::Columns::Far;  // the resident columns are far; the others join them
  }
  const bool automatic = o.columns == QueryOptions::Columns::Auto;
  if (automatic) o.columns = QueryOptions::Columns::InWindow;
  const uint32_t loop_limit = device_.loop_iteration_limit();
  const uint32_t budget = loop_limit == UINT32_MAX ? UINT32_MAX : loop_limit - std::min(loop_limit, 1024u);
  built_ = std::make_unique<BuiltQuery>();
  built_->loop_budget = budget;
  build_query(*built_, db_, plan_, o);
  const DeviceInfo& info = device_.info();
  if (automatic && built_->program.globals().size() > info.max_storage_buffer_range && info.buffer_device_address) {
    // The tables leave the window; the intermediate rows (row ids, groups, outputs) stay in it.
    o.columns = QueryOptions::Columns::Far;
    built_ = std::make_unique<BuiltQuery>();
    built_->loop_budget = budget;
    build_query(*built_, db_, plan_, o);
  }
  built_->program.require_bound_window(info, o.columns == QueryOptions::Columns::Far
                                                 ? "db: the query's intermediate rows, with its tables in far segments"
                                                 : "db: the query's tables and intermediate rows (a device with "
                                                   "bufferDeviceAddress holds the tables beyond the window)");
  exe_ = std::make_unique<Executable>(device_, built_->program);
  uploaded_bytes_ = upload_query(*exe_, db_, plan_, *built_);
}

void DeviceQuery::replay() { exe_->run(); }

ResultSet DeviceQuery::run() {
  submissions_ = 0;
  for (;;) {
    exe_->run();  // the whole query, join strategy switch included, is one submission
    ++submissions_;
    uint32_t counters[kCounters];
    exe_->read(Binding::Globals, uint64_t(built_->counters_word) * 4, counters, sizeof(counters));
    if (counters[kError] & DB_ERROR_JOIN_CAPACITY) {
      // More joined rows than the output holds: the device counted them all, rebuild to fit.
      // Every step's output gets the largest step's count.
      uint64_t joined = 0;
      for (size_t s = 1; s < plan_.tables.size(); ++s) joined = std::max<uint64_t>(joined, counters[join_counter(s)]);
      options_.join_capacity = joined;
      ++rebuilds_;
      build();
      continue;
    }
    if (counters[kError] & DB_ERROR_GROUP_CAPACITY) {
      // A COUNT(DISTINCT) table over half full stopped its claims: one twice as large.
      const uint64_t distinct = most_distinct_claims(*exe_, *built_);
      const bool distinct_full = distinct > built_->distinct_slots / 2;
      if (distinct_full) options_.distinct_capacity = 2 * distinct;
      // All groups were counted, unless claims stopped at half the hash table: then a table
      // twice as large.
      const bool table_full = counters[kGroupsClaimed] > built_->group_slots / 2;
      const bool too_many = counters[kGroups] > built_->group_capacity;
      if (table_full) options_.group_capacity = 2 * uint64_t(counters[kGroupsClaimed]);
      else if (too_many) options_.group_capacity = counters[kGroups];
      if (!distinct_full && !table_full && !too_many)  // a rebuild would change nothing
        fail(ErrorCode::InvalidProgram, "db: the device reported a full group table, but none is");
      ++rebuilds_;
      build();
      continue;
    }
    if (counters[kError] & DB_ERROR_OVERFLOW) fail(ErrorCode::BadInput, "db: integer overflow");
    if (counters[kError] & DB_ERROR_LOOP_LIMIT)
      fail(ErrorCode::MissingFeature, "db: a group (more than ~" +
                                          std::to_string(uint64_t(device_.loop_iteration_limit()) * 64 / 1000000) +
                                          " M row visits, all its aggregates together) or a join key's matches (more than ~" +
                                          std::to_string(device_.loop_iteration_limit()) + " build rows per probe row) exceed "
                                          "what one invocation may loop over on device '" + device_.info().name +
                                          "', which stops a kernel's loops after " + std::to_string(device_.loop_iteration_limit()) +
                                          " iterations");
    if (counters[kError] & DB_ERROR_STACK) fail(ErrorCode::BadInput, "db: expression stack overflow on the device");
    break;
  }
  uint32_t first_count[2];
  exe_->read(Binding::Globals, uint64_t(built_->counters_word + kFirst) * 4, first_count, 8);
  const uint32_t first = first_count[0], count = first_count[1];
  uint32_t n = 0;
  exe_->read(Binding::Globals, uint64_t(built_->output_count_word) * 4, &n, 4);

  std::vector<uint32_t> order(count);
  if (built_->perm_word != DB_NONE && count) {
    exe_->read(Binding::Globals, (uint64_t(built_->perm_word) + first) * 4, order.data(), uint64_t(count) * 4);
  } else {
    for (uint32_t k = 0; k < count; ++k) order[k] = first + k;
  }
  ResultSet rs;
  rs.names = plan_.names;
  rs.rows.assign(count, Row(plan_.visible));
  for (size_t c = 0; c < plan_.visible; ++c) {
    const OutputColumn& oc = built_->outputs[c];
    std::vector<uint64_t> vals(n);
    std::vector<uint32_t> nulls((n + 31) / 32);
    if (n) {
      exe_->read_segment(Binding::Globals, oc.segment + ".v", vals.data(), uint64_t(n) * 8);
      exe_->read_segment(Binding::Globals, oc.segment + ".n", nulls.data(), nulls.size() * 4);
    }
    const Type t = plan_.outputs[c]->type;
    for (uint32_t k = 0; k < count; ++k) {
      const uint32_t r = order[k];
      Value& v = rs.rows[k][c];
      v.type = t;
      v.null = (nulls[r / 32] >> (r % 32)) & 1u;
      if (v.null) continue;
      if (t == Type::Float) std::memcpy(&v.f, &vals[r], 8);
      else v.i = int64_t(vals[r]);
      if (t == Type::Text) v.s = db_.decode(v.i);
    }
  }
  return rs;
}

QueryStats DeviceQuery::stats() {
  QueryStats s;
  s.rows_scanned = built_->rows_scanned;
  s.rebuilds = rebuilds_;
  s.submissions = submissions_;
  s.term_filters = built_->term_filters;
  if (built_->join) {
    const abi::WeftMetrics m = exe_->metrics(*built_->join);
    s.join_build_rows = m.counters[DB_COUNTER_ROWS_IN];
    s.joined_rows = m.counters[DB_COUNTER_ROWS_OUT];
    s.join_strategy = m.counters[DB_COUNTER_STRATEGY];
  }
  for (InstanceId j : built_->joins) {
    const abi::WeftMetrics m = exe_->metrics(j);
    s.join_steps.push_back({m.counters[DB_COUNTER_ROWS_IN], m.counters[DB_COUNTER_ROWS_OUT], m.counters[DB_COUNTER_STRATEGY]});
  }
  if (built_->aggregate) {
    const abi::WeftMetrics m = exe_->metrics(*built_->aggregate);
    s.aggregate_rows_in = m.counters[DB_COUNTER_ROWS_IN];
    s.groups = m.counters[DB_COUNTER_ROWS_OUT];
    s.aggregate_status = m.status;
  }
  const abi::WeftMetrics o = exe_->metrics(built_->output);
  s.rows_out = o.counters[DB_COUNTER_ROWS_OUT];
  s.output_status = o.status;
  s.gpu_ns = exe_->timings().total_ns;
  s.uploaded_bytes = uploaded_bytes_;
  return s;
}

AppendedQuery::AppendedQuery(Program program, const Database& db, const Plan& plan, QueryOptions options)
    : db_(db), plan_(plan), built_(std::make_unique<BuiltQuery>()) {
  built_->program = std::move(program);
  build_query(*built_, db_, plan_, options);
  for (size_t c = 0; c < plan_.visible; ++c) {
    output_values.push_back(built_->outputs[c].values);
    output_ranges.push_back(built_->program.segment(Binding::Globals, built_->outputs[c].segment + ".v"));
  }
  error_word = built_->counters_word + kError;
}

AppendedQuery::~AppendedQuery() = default;

Program AppendedQuery::take_program() { return std::move(built_->program); }

void AppendedQuery::upload(Executable& exe) const { upload_query(exe, db_, plan_, *built_); }

InstanceId AppendedQuery::output() const { return built_->output; }

}  // namespace weft::db
