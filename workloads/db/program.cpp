// The query plan as a Weft program: segments in Globals, instances, stages, indirect slots and
// the two rules. Every count a stage needs is a Globals word written by an earlier stage, so the
// whole query runs in one submission with no host round trip.
#include <algorithm>
#include <array>
#include <bit>

#include "db.h"
#include "db_ops.h"
#include "program_internal.h"
#include "weft_db_kernels.h"

namespace weft::db {

namespace {


uint32_t grid(uint64_t n) { return uint32_t(std::clamp<uint64_t>((n + 63) / 64, 1, 65535)); }
uint64_t pow2_at_least(uint64_t n) {
  uint64_t p = 1;
  while (p < n) p <<= 1;
  return p;
}
uint32_t key_type(Type t) { return t == Type::Float ? DB_KEY_FLOAT : DB_KEY_INT; }


class Builder {
 public:
  Builder(BuiltQuery& q, const Database& db, const Plan& plan, const QueryOptions& o)
      : q_(q), p_(q.program), db_(db), plan_(plan), opt_(o) {}

  void build() {
    const size_t sides = plan_.tables.size();
    for (size_t s = 0; s < sides; ++s) rows_[s] = db_.table(size_t(plan_.tables[s])).rows;
    reserve_host_tables();
    add_tables();
    counters_ = word(seg("counters", kCounters * 4));
    q_.counters_word = counters_;

    q_.scans.push_back(p_.add_instance("scan0", 1));
    if (sides > 1) q_.scans.push_back(p_.add_instance("scan1", 1));
    if (plan_.join) q_.join = p_.add_instance("join", 1);
    q_.filter = p_.add_instance("filter", 1);
    if (plan_.aggregate) q_.aggregate = p_.add_instance("aggregate", 1);
    q_.output = p_.add_instance("output", 4);

    fill("reset.counters", counters_, kCounters, 0, range("counters"));
    RowSet r = scan(0);
    if (sides > 1) {
      RowSet build = scan(1);
      r = join(r, build);
    }
    if (plan_.residual) r = filter(r, *plan_.residual, q_.filter, "filter", kFiltered, cap_of(r));
    q_.input_rows = r;
    RowSet out = plan_.aggregate ? aggregate(r) : r;
    project_outputs(out);
    sort(out);
    finish(out);
  }

 private:
  // ---- layout helpers ----
  const Segment& seg(const std::string& name, uint64_t bytes) { return p_.globals().add(name, std::max<uint64_t>(bytes, 8)); }
  static uint32_t word(const Segment& s) { return s.word_offset(); }
  Range range(const std::string& name) const { return p_.segment(Binding::Globals, name); }
  Range counter(Counter c) const { return {Binding::Globals, uint64_t(counters_ + c) * 4, 4}; }
  uint64_t cap_of(const RowSet& r) const { return r.cap; }

  // The bytecode and descriptor tables are written by the host once; their sizes are known
  // from the plan before any stage is added (the stages push their word offsets).
  void reserve_host_tables() {
    auto dummy = [](uint32_t, uint32_t) { return 0u; };
    uint64_t words = 0;
    auto add = [&](const BExprPtr& e) {
      if (e) words += compile_expr(*e, dummy).size();
    };
    for (const BExprPtr& f : plan_.scan_filters) add(f);
    add(plan_.residual);
    for (const BExprPtr& k : plan_.keys) add(k);
    for (const AggPlan& a : plan_.aggs) add(a.arg);
    for (const BExprPtr& o : plan_.outputs) add(o);
    uint64_t descs = plan_.keys.size() + plan_.aggs.size();
    for (int t : plan_.tables) descs += db_.table(size_t(t)).columns.size();
    q_.code_word = word(seg("code", words * 4));
    q_.desc_word = word(seg("desc", descs * DB_DESC_WORDS * 4));
    code_range_ = range("code");
    desc_range_ = range("desc");
    descs_.assign(descs * DB_DESC_WORDS, 0);
  }

  void add_tables() {
    // Descriptors: side 0 columns, side 1 columns, then the group table (keys, aggregates).
    for (size_t s = 0; s < plan_.tables.size(); ++s) {
      const Table& t = db_.table(size_t(plan_.tables[s]));
      desc_base_[s] = next_desc_;
      for (size_t c = 0; c < t.columns.size(); ++c) {
        const Column& col = t.columns[c];
        const std::string v = "t" + std::to_string(s) + ".c" + std::to_string(c);
        const uint32_t vw = word(seg(v, uint64_t(t.rows) * 8));
        q_.uploads.push_back({v, s, c, false});
        table_ranges_.push_back(range(v));
        uint32_t nw = DB_NONE;
        if (std::find(col.nulls.begin(), col.nulls.end(), 1) != col.nulls.end()) {
          const std::string n = "t" + std::to_string(s) + ".n" + std::to_string(c);
          nw = word(seg(n, (uint64_t(t.rows) + 31) / 32 * 4));
          q_.uploads.push_back({n, s, c, true});
          table_ranges_.push_back(range(n));
        }
        set_desc(next_desc_++, {vw, nw, uint32_t(s), 0});
      }
    }
    for (size_t c = 0; c < plan_.keys.size() + plan_.aggs.size(); ++c) group_desc_.push_back(next_desc_++);
  }
  void set_desc(uint32_t d, std::array<uint32_t, 4> v) { std::copy(v.begin(), v.end(), descs_.begin() + d * DB_DESC_WORDS); }

  // Adds the bytecode of an expression; returns {word, instruction count}.
  std::pair<uint32_t, uint32_t> code(const BExpr& e) {
    const std::vector<uint32_t> w = compile_expr(e, [&](uint32_t side, uint32_t column) {
      return side == kSideDirect ? direct_desc(column) : desc_base_[side] + column;
    });
    const uint32_t at = q_.code_word + uint32_t(code_.size());
    code_.insert(code_.end(), w.begin(), w.end());
    return {at, uint32_t(w.size() / DB_INSTR_WORDS)};
  }
  uint32_t direct_desc(uint32_t column) {
    if (column >= group_desc_.size()) fail(ErrorCode::InvalidProgram, "db: grouped column used before the aggregate");
    return group_desc_[column];
  }

  // Appends the terms of a scan predicate that is a conjunction of `column <cmp> constant` and
  // `column IS [NOT] NULL` (columns of `side`) to `out`; false when it has any other shape.
  bool add_terms(const BExpr& e, uint32_t side, std::vector<uint32_t>& out) const {
    if (e.kind == BExpr::And) return add_terms(*e.args[0], side, out) && add_terms(*e.args[1], side, out);
    auto column = [&](const BExpr& c) { return c.kind == BExpr::Col && c.side == side; };
    auto push = [&](const BExpr& col, uint32_t kind, uint32_t op, uint64_t bits) {
      const uint32_t d = desc_base_[side] + col.column;
      out.insert(out.end(), {descs_[d * DB_DESC_WORDS], descs_[d * DB_DESC_WORDS + 1], kind, op, uint32_t(bits),
                             uint32_t(bits >> 32), 0, 0});
    };
    if (e.kind == BExpr::IsNull) {
      if (!column(*e.args[0])) return false;
      push(*e.args[0], e.negated ? DB_TERM_IS_NOT_NULL : DB_TERM_IS_NULL, 0, 0);
      return true;
    }
    if (e.kind != BExpr::Compare) return false;
    const BExpr *l = e.args[0].get(), *r = e.args[1].get();
    std::string op = e.op;
    if (l->kind == BExpr::Const || (l->kind == BExpr::ToFloat && l->args[0]->kind == BExpr::Const)) {
      std::swap(l, r);  // constant <op> column: column <flipped op> constant
      op = op == "<" ? ">" : op == ">" ? "<" : op == "<=" ? ">=" : op == ">=" ? "<=" : op;
    }
    const BExpr* col = nullptr;
    uint32_t kind = DB_TERM_INT;
    if (column(*l)) {
      col = l;
      kind = l->type == Type::Float ? DB_TERM_FLOAT : DB_TERM_INT;
    } else if (l->kind == BExpr::ToFloat && column(*l->args[0])) {
      col = l->args[0].get();
      kind = DB_TERM_INT_AS_FLOAT;
    } else {
      return false;
    }
    // The constant, in the column's comparison type (the planner made both sides agree).
    uint64_t bits = 0;
    const bool want_float = kind != DB_TERM_INT;
    if (r->kind == BExpr::Const && !r->null && (r->type == Type::Float) == want_float) {
      bits = r->bits;
    } else if (want_float && r->kind == BExpr::ToFloat && r->args[0]->kind == BExpr::Const && !r->args[0]->null &&
               r->args[0]->type == Type::Int) {
      bits = std::bit_cast<uint64_t>(double(int64_t(r->args[0]->bits)));
    } else {
      return false;
    }
    const uint32_t cmp = op == "=" ? DB_CMP_EQ : op == "!=" ? DB_CMP_NE : op == "<" ? DB_CMP_LT : op == "<=" ? DB_CMP_LE
                       : op == ">" ? DB_CMP_GT : DB_CMP_GE;
    push(*col, kind, cmp, bits);
    return true;
  }

  void fill(const std::string& name, uint32_t first, uint64_t count, uint32_t value, Range r) {
    StageSpec s;
    s.name = "fill." + name;
    s.kernel = engine_kernel("fill");
    s.instance = q_.scans[0];
    s.groups = {uint32_t(std::clamp<uint64_t>((count + 255) / 256, 1, 65535)), 1, 1};
    s.args = FillArgs{.dst = {r, first}, .count = uint32_t(count), .value = value}.bind();
    p_.add_stage(s);
  }

  // Stages that read tables, code and descriptors (written by the host only) declare them.
  std::vector<Range> static_reads() const {
    std::vector<Range> r = table_ranges_;
    r.push_back(code_range_);
    r.push_back(desc_range_);
    return r;
  }

  RowSet scan(size_t s) {
    const uint64_t n = rows_[s];
    const std::string ids = "scan" + std::to_string(s) + ".ids", mask = "scan" + std::to_string(s) + ".mask";
    RowSet out;
    out.cap = n;
    out.count_word = counters_ + (s == 0 ? kScan0 : kScan1);
    out.ids0 = word(seg(ids, n * 4));
    out.ranges = {range(ids), counter(s == 0 ? kScan0 : kScan1)};
    const uint32_t mask_word = word(seg(mask, n * 4));
    StageSpec st;
    st.name = "scan_filter." + std::to_string(s);
    st.instance = q_.scans[s];
    st.groups = {grid(n), 1, 1};
    st.reads = static_reads();
    std::vector<uint32_t> terms;
    if (plan_.scan_filters[s] && !opt_.interpret_filters && add_terms(*plan_.scan_filters[s], uint32_t(s), terms)) {
      // The common shape runs without the interpreter (filter_terms.comp).
      const std::string name = "scan" + std::to_string(s) + ".terms";
      const uint32_t tw = word(seg(name, terms.size() * 4));
      st.kernel = weft_db_kernels.get("filter_terms");
      st.push = {tw, uint32_t(terms.size() / DB_TERM_WORDS), 0, 0, 0, 0, out.count_word, out.ids0, 0, mask_word, 0, uint32_t(n)};
      st.reads.push_back(range(name));
      q_.host_tables.push_back({name, terms});
      ++q_.term_filters;
    } else {
      auto [cw, ni] = plan_.scan_filters[s] ? code(*plan_.scan_filters[s]) : std::pair<uint32_t, uint32_t>{0, 0};
      st.kernel = weft_db_kernels.get("filter");
      st.push = {cw, ni, q_.desc_word, DB_NONE, DB_NONE, DB_NONE, out.count_word, out.ids0, DB_NONE, mask_word, counters_ + kError, uint32_t(n)};
    }
    st.writes = {range(ids), range(mask), counter(s == 0 ? kScan0 : kScan1), counter(kError)};
    p_.add_stage(st);
    report(q_.scans[s], "scan_report." + std::to_string(s), DB_NONE, uint32_t(n), out.count_word, {}, DB_NONE);
    q_.rows_scanned += n;
    return out;
  }

  void report(InstanceId inst, const std::string& name, uint32_t in_word, uint32_t in_static, uint32_t out_word,
              std::vector<Range> reads, uint32_t slot_word) {
    StageSpec st;
    st.name = name;
    st.kernel = weft_db_kernels.get("report");
    st.instance = inst;
    st.push = {in_word, in_static, out_word, counters_ + kError, slot_word};
    st.reads = std::move(reads);
    st.reads.push_back(p_.whole(Binding::Globals));
    st.reads.push_back(p_.metrics(inst));
    st.writes = {p_.metrics(inst)};
    // The kernel reads the join's nested-loop slot; other reports declare the header instead.
    st.reads.push_back(slot_word != DB_NONE ? p_.control_words(slot_word, 1) : p_.control_header());
    p_.add_stage(st);
  }

  RowSet join(const RowSet& probe, const RowSet& build) {
    const JoinPlan& j = *plan_.join;
    const uint64_t cap = opt_.join_capacity ? opt_.join_capacity : std::max<uint64_t>(probe.cap + build.cap, 1024);
    q_.join_capacity = cap;
    const uint64_t heads = pow2_at_least(std::max<uint64_t>(2 * build.cap, 64));
    const uint32_t hw = word(seg("join.heads", heads * 4)), nw = word(seg("join.next", build.cap * 4));
    RowSet out;
    out.cap = cap;
    out.count_word = counters_ + kJoined;
    out.ids0 = word(seg("join.ids0", cap * 4));
    out.ids1 = word(seg("join.ids1", cap * 4));
    out.ranges = {range("join.ids0"), range("join.ids1"), counter(kJoined)};
    fill("join.heads", hw, heads, DB_NONE, range("join.heads"));

    // The cardinality rule: build side above the expected size -> hash join instead of the
    // nested loop, by rewriting the indirect slots before the join stages dispatch.
    const SlotId nested = p_.add_slot("join.nested", {grid(probe.cap), 1, 1});
    const SlotId hbuild = p_.add_slot("join.hash_build", {0, 1, 1});
    const SlotId hprobe = p_.add_slot("join.hash_probe", {0, 1, 1});
    q_.nested_slot_word = p_.slot_word(nested);
    add_regulator(p_, "join.cardinality_rule",
                  {rule(Condition::greater(q_.scans[1], WEFT_METRIC_COUNTER0 + DB_COUNTER_ROWS_OUT, opt_.join_threshold),
                        Action::set_slot(p_, nested, 0)),
                   rule(Condition::greater(q_.scans[1], WEFT_METRIC_COUNTER0 + DB_COUNTER_ROWS_OUT, opt_.join_threshold),
                        Action::set_slot(p_, hbuild, grid(build.cap))),
                   rule(Condition::greater(q_.scans[1], WEFT_METRIC_COUNTER0 + DB_COUNTER_ROWS_OUT, opt_.join_threshold),
                        Action::set_slot(p_, hprobe, grid(probe.cap)))});

    const uint32_t pd = desc_base_[0] + j.probe_column, bd = desc_base_[1] + j.build_column;
    std::vector<uint32_t> push = {probe.count_word, probe.ids0, build.count_word, build.ids0,
                                  descs_[pd * DB_DESC_WORDS], descs_[pd * DB_DESC_WORDS + 1],
                                  descs_[bd * DB_DESC_WORDS], descs_[bd * DB_DESC_WORDS + 1],
                                  out.count_word, out.ids0, out.ids1, uint32_t(cap), counters_ + kError,
                                  hw, uint32_t(heads - 1), nw};
    std::vector<Range> reads = static_reads();
    for (const Range& r : probe.ranges) reads.push_back(r);
    for (const Range& r : build.ranges) reads.push_back(r);
    auto stage = [&](const char* name, const char* k, SlotId slot, std::vector<Range> rd, std::vector<Range> wr) {
      StageSpec st;
      st.name = name;
      st.kernel = weft_db_kernels.get(k);
      st.instance = *q_.join;
      st.indirect = slot;
      st.push = push;
      st.reads = std::move(rd);
      st.writes = std::move(wr);
      p_.add_stage(st);
    };
    std::vector<Range> out_w = {range("join.ids0"), range("join.ids1"), counter(kJoined), counter(kError)};
    stage("join.nested_loop", "join_nested", nested, reads, out_w);
    std::vector<Range> build_reads = reads;
    stage("join.hash_build", "join_build", hbuild, build_reads, {range("join.heads"), range("join.next")});
    reads.push_back(range("join.heads"));
    reads.push_back(range("join.next"));
    stage("join.hash_probe", "join_probe", hprobe, reads, out_w);
    report(*q_.join, "join.report", build.count_word, 0, out.count_word, {}, q_.nested_slot_word);
    q_.join_count_word = out.count_word;
    return out;
  }

  RowSet filter(const RowSet& in, const BExpr& pred, InstanceId inst, const std::string& name, Counter cnt, uint64_t cap) {
    RowSet out;
    out.cap = cap;
    out.count_word = counters_ + cnt;
    out.ids0 = word(seg(name + ".ids0", cap * 4));
    out.ids1 = in.ids1 == DB_NONE ? DB_NONE : word(seg(name + ".ids1", cap * 4));
    const uint32_t mask = word(seg(name + ".mask", cap * 4));
    out.ranges = {range(name + ".ids0"), counter(cnt)};
    if (in.ids1 != DB_NONE) out.ranges.push_back(range(name + ".ids1"));
    auto [cw, ni] = code(pred);
    StageSpec st;
    st.name = name;
    st.kernel = weft_db_kernels.get("filter");
    st.instance = inst;
    st.groups = {grid(cap), 1, 1};
    st.push = {cw, ni, q_.desc_word, in.count_word, in.ids0, in.ids1, out.count_word, out.ids0, out.ids1, mask, counters_ + kError, 0};
    st.reads = static_reads();
    for (const Range& r : in.ranges) st.reads.push_back(r);
    st.writes = out.ranges;
    st.writes.push_back(range(name + ".mask"));
    st.writes.push_back(counter(kError));
    p_.add_stage(st);
    report(inst, name + ".report", in.count_word, 0, out.count_word, {}, DB_NONE);
    return out;
  }

  // A computed column (values + NULL bitmap) of `cap` rows.
  struct Computed {
    uint32_t values, nulls;
    std::vector<Range> ranges;
  };
  Computed computed(const std::string& name, uint64_t cap) {
    Computed c;
    c.values = word(seg(name + ".v", cap * 8));
    c.nulls = word(seg(name + ".n", (cap + 31) / 32 * 4));
    c.ranges = {range(name + ".v"), range(name + ".n")};
    return c;
  }

  void project(const BExpr& e, const RowSet& in, const Computed& out, InstanceId inst, const std::string& name,
               const std::vector<Range>& extra_reads) {
    auto [cw, ni] = code(e);
    StageSpec st;
    st.name = name;
    st.kernel = weft_db_kernels.get("project");
    st.instance = inst;
    st.groups = {grid(in.cap), 1, 1};
    st.push = {cw, ni, q_.desc_word, in.count_word, in.ids0, in.ids1, out.values, out.nulls, counters_ + kError, 0};
    st.reads = static_reads();
    for (const Range& r : in.ranges) st.reads.push_back(r);
    for (const Range& r : extra_reads) st.reads.push_back(r);
    st.writes = out.ranges;
    st.writes.push_back(counter(kError));
    p_.add_stage(st);
  }

  // A key or aggregate argument: a base-table column read through the input's row-id lists, or
  // a computed column (side 2) that a project stage fills first.
  struct ColRef {
    uint32_t values = DB_NONE, nulls = DB_NONE, side = kSideDirect;
    std::vector<Range> ranges;
  };
  ColRef column_ref(const BExpr& e, const RowSet& in, InstanceId inst, const std::string& name, uint64_t cap) {
    if (e.kind == BExpr::Col && e.side != kSideDirect) {
      const uint32_t d = desc_base_[e.side] + e.column;
      return {descs_[d * DB_DESC_WORDS], descs_[d * DB_DESC_WORDS + 1], e.side, table_ranges_};
    }
    const Computed c = computed(name, cap);
    project(e, in, c, inst, "project." + name, {});
    return {c.values, c.nulls, kSideDirect, c.ranges};
  }

  RowSet aggregate(const RowSet& in) {
    const InstanceId inst = *q_.aggregate;
    const uint64_t cap = std::max<uint64_t>(in.cap, 1);
    // The group table is sized for min(rows, 65536) groups unless told; more groups set an
    // error bit after counting them all, and the host rebuilds with the exact count.
    const uint64_t gcap = std::max<uint64_t>(opt_.group_capacity ? opt_.group_capacity : std::min<uint64_t>(cap, 65536), 1);
    q_.group_capacity = gcap;
    const size_t K = plan_.keys.size(), A = plan_.aggs.size();
    std::vector<ColRef> keys, args;
    std::vector<Computed> gkeys, gaggs;
    for (size_t k = 0; k < K; ++k) keys.push_back(column_ref(*plan_.keys[k], in, inst, "agg.key" + std::to_string(k), cap));
    for (size_t a = 0; a < A; ++a)
      args.push_back(plan_.aggs[a].arg ? column_ref(*plan_.aggs[a].arg, in, inst, "agg.arg" + std::to_string(a), cap) : ColRef{});
    for (size_t k = 0; k < K; ++k) gkeys.push_back(computed("group.key" + std::to_string(k), gcap));
    for (size_t a = 0; a < A; ++a) gaggs.push_back(computed("group.agg" + std::to_string(a), gcap));
    // Descriptors of the group table (side 2), in the planner's column order: keys, aggregates.
    for (size_t k = 0; k < K; ++k) set_desc(group_desc_[k], {gkeys[k].values, gkeys[k].nulls, kSideDirect, 0});
    for (size_t a = 0; a < A; ++a) set_desc(group_desc_[K + a], {gaggs[a].values, gaggs[a].nulls, kSideDirect, 0});

    // Tables the kernels read: keys (hashing), aggregates, key copies.
    std::vector<uint32_t> key_table, agg_table, keycopy_table;
    for (size_t k = 0; k < K; ++k) {
      key_table.insert(key_table.end(), {keys[k].values, keys[k].nulls, key_type(plan_.keys[k]->type), keys[k].side});
      keycopy_table.insert(keycopy_table.end(),
                           {keys[k].values, keys[k].nulls, gkeys[k].values, gkeys[k].nulls, keys[k].side, 0, 0, 0});
    }
    for (size_t a = 0; a < A; ++a) {
      const AggPlan& ag = plan_.aggs[a];
      uint32_t fn = DB_AGG_COUNT_STAR;
      const bool f = ag.arg && ag.arg->type == Type::Float;
      switch (ag.fn) {
        case AggFn::Count: fn = ag.star ? DB_AGG_COUNT_STAR : DB_AGG_COUNT; break;
        case AggFn::Sum: fn = f ? DB_AGG_SUM_F : DB_AGG_SUM_I; break;
        case AggFn::Min: fn = f ? DB_AGG_MIN_F : DB_AGG_MIN_I; break;
        case AggFn::Max: fn = f ? DB_AGG_MAX_F : DB_AGG_MAX_I; break;
        case AggFn::Avg: fn = f ? DB_AGG_AVG_F : DB_AGG_AVG_I; break;
      }
      agg_table.insert(agg_table.end(),
                       {fn, args[a].values, args[a].nulls, gaggs[a].values, gaggs[a].nulls, args[a].side, 0, 0});
    }
    const uint32_t ktw = word(seg("group.key_table", key_table.size() * 4));
    const uint32_t atw = word(seg("group.agg_table", agg_table.size() * 4));
    const uint32_t kcw = word(seg("group.keycopy_table", keycopy_table.size() * 4));
    q_.host_tables.push_back({"group.key_table", key_table});
    q_.host_tables.push_back({"group.agg_table", agg_table});
    q_.host_tables.push_back({"group.keycopy_table", keycopy_table});

    const uint64_t heads = pow2_at_least(std::max<uint64_t>(2 * cap, 64));
    const uint32_t hw = word(seg("group.heads", heads * 4));
    const uint32_t slot_of_row = word(seg("group.slot_of_row", cap * 4));
    const uint32_t gid_of_slot = word(seg("group.gid_of_slot", heads * 4));
    const uint32_t rep = word(seg("group.rep", gcap * 4));
    const uint32_t group_of_row = word(seg("group.group_of_row", cap * 4));
    const uint32_t sizes = word(seg("group.sizes", gcap * 4));
    const uint32_t offsets = word(seg("group.offsets", gcap * 4));
    const uint32_t cursor = word(seg("group.cursor", gcap * 4));
    const uint32_t members = word(seg("group.members", cap * 4));
    const SlotId reduce_slot = p_.add_slot("group.reduce", {0, 1, 1});
    const uint32_t reduce_slot_word = p_.slot_word(reduce_slot);

    const std::vector<uint32_t> gpush = {in.count_word, uint32_t(K), ktw, hw, uint32_t(heads - 1), slot_of_row, gid_of_slot,
                                         counters_ + kGroups, rep, group_of_row, sizes, offsets, cursor, members,
                                         reduce_slot_word, in.ids0, in.ids1, uint32_t(gcap), counters_ + kGroupsKept,
                                         counters_ + kError};
    std::vector<Range> key_reads = in.ranges;
    for (const ColRef& c : keys) key_reads.insert(key_reads.end(), c.ranges.begin(), c.ranges.end());
    key_reads.push_back(range("group.key_table"));
    auto gstage = [&](const std::string& name, const char* k, std::vector<Range> rd, std::vector<Range> wr, uint32_t groups) {
      StageSpec st;
      st.name = "group." + name;
      st.kernel = weft_db_kernels.get(k);
      st.instance = inst;
      st.groups = {groups, 1, 1};
      st.push = gpush;
      st.reads = std::move(rd);
      st.writes = std::move(wr);
      p_.add_stage(st);
    };
    fill("group.sizes", sizes, gcap, 0, range("group.sizes"));
    if (K > 0) {
      fill("group.heads", hw, heads, DB_NONE, range("group.heads"));
      gstage("claim", "group_claim", key_reads, {range("group.heads"), range("group.slot_of_row")}, grid(cap));
      std::vector<Range> r2 = key_reads;
      r2.push_back(range("group.heads"));
      r2.push_back(range("group.slot_of_row"));
      gstage("number", "group_number", r2,
             {range("group.gid_of_slot"), range("group.rep"), counter(kGroups), counter(kError)}, grid(cap));
      r2.push_back(range("group.gid_of_slot"));
      gstage("count", "group_count", r2, {range("group.group_of_row"), range("group.sizes")}, grid(cap));
      gstage("scan", "group_scan", {counter(kGroups), range("group.sizes")},
             {range("group.offsets"), range("group.cursor"), counter(kGroupsKept), p_.slot(reduce_slot)}, 1);
      std::vector<Range> r3 = in.ranges;
      r3.push_back(range("group.group_of_row"));
      r3.push_back(range("group.cursor"));
      gstage("fill", "group_fill", r3, {range("group.cursor"), range("group.members")}, grid(cap));
    } else {
      gstage("single", "group_single", in.ranges,
             {counter(kGroups), counter(kGroupsKept), range("group.rep"), range("group.sizes"), range("group.offsets"),
              p_.slot(reduce_slot)},
             1);
    }
    StageSpec red;
    red.name = "group.reduce";
    red.kernel = weft_db_kernels.get("group_reduce");
    red.instance = inst;
    red.indirect = reduce_slot;
    red.push = {counters_ + kGroupsKept, offsets, sizes, K > 0 ? members : DB_NONE, uint32_t(A), atw, uint32_t(K), kcw, rep,
                counters_ + kError, in.ids0, in.ids1};
    red.reads = {counter(kGroupsKept), range("group.offsets"), range("group.sizes"), range("group.members"),
                 range("group.rep"), range("group.agg_table"), range("group.keycopy_table")};
    red.reads.insert(red.reads.end(), in.ranges.begin(), in.ranges.end());
    for (const ColRef& c : keys) red.reads.insert(red.reads.end(), c.ranges.begin(), c.ranges.end());
    for (const ColRef& c : args) red.reads.insert(red.reads.end(), c.ranges.begin(), c.ranges.end());
    for (const Computed& c : gkeys) red.writes.insert(red.writes.end(), c.ranges.begin(), c.ranges.end());
    for (const Computed& c : gaggs) red.writes.insert(red.writes.end(), c.ranges.begin(), c.ranges.end());
    red.writes.push_back(counter(kError));
    p_.add_stage(red);
    report(inst, "group.report", in.count_word, 0, counters_ + kGroups, {}, DB_NONE);
    q_.groups_word = counters_ + kGroups;

    RowSet out;
    out.cap = gcap;
    out.count_word = counters_ + kGroupsKept;
    out.ids0 = DB_NONE;
    out.ids1 = DB_NONE;
    out.ranges = {counter(kGroupsKept)};
    for (const Computed& c : gkeys) out.ranges.insert(out.ranges.end(), c.ranges.begin(), c.ranges.end());
    for (const Computed& c : gaggs) out.ranges.insert(out.ranges.end(), c.ranges.begin(), c.ranges.end());
    return out;
  }

  void project_outputs(const RowSet& in) {
    for (size_t k = 0; k < plan_.outputs.size(); ++k) {
      const Computed c = computed("out" + std::to_string(k), std::max<uint64_t>(in.cap, 1));
      q_.outputs.push_back({c.values, c.nulls, "out" + std::to_string(k)});
      project(*plan_.outputs[k], in, c, q_.output, "project.out" + std::to_string(k), {});
      out_ranges_.insert(out_ranges_.end(), c.ranges.begin(), c.ranges.end());
    }
    q_.output_count_word = in.count_word;
    q_.output_cap = std::max<uint64_t>(in.cap, 1);
    out_in_ranges_ = in.ranges;
  }

  void sort(const RowSet& in) {
    if (plan_.order.empty()) return;
    const uint64_t P = pow2_at_least(std::max<uint64_t>(in.cap, 2));
    q_.perm_word = word(seg("sort.perm", P * 4));
    std::vector<uint32_t> table;
    for (const SortKey& k : plan_.order) {
      const auto& o = q_.outputs[k.output];
      table.insert(table.end(), {o.values, o.nulls, key_type(plan_.outputs[k.output]->type), k.desc ? 1u : 0u, 0, 0, 0, 0});
    }
    const uint32_t tw = word(seg("sort.keys", table.size() * 4));
    q_.host_tables.push_back({"sort.keys", table});
    StageSpec init;
    init.name = "sort.init";
    init.kernel = weft_db_kernels.get("sort_init");
    init.instance = q_.output;
    init.groups = {grid(P), 1, 1};
    init.push = {q_.perm_word, uint32_t(P)};
    init.writes = {range("sort.perm")};
    p_.add_stage(init);
    std::vector<Range> reads = out_ranges_;
    reads.insert(reads.end(), out_in_ranges_.begin(), out_in_ranges_.end());
    reads.push_back(range("sort.keys"));
    for (uint64_t k = 2; k <= P; k <<= 1)
      for (uint64_t j = k / 2; j > 0; j >>= 1) {
        StageSpec st;
        st.name = "sort.step";
        st.kernel = weft_db_kernels.get("sort_step");
        st.instance = q_.output;
        st.groups = {grid(P / 2), 1, 1};
        st.push = {in.count_word, q_.perm_word, uint32_t(plan_.order.size()), tw, uint32_t(k), uint32_t(j)};
        st.reads = reads;
        st.writes = {range("sort.perm")};
        p_.add_stage(st);
      }
  }

  void finish(const RowSet& in) {
    StageSpec st;
    st.name = "finish";
    st.kernel = weft_db_kernels.get("finish");
    st.instance = q_.output;
    const uint32_t limit = plan_.limit ? uint32_t(std::min<int64_t>(*plan_.limit, int64_t(DB_NONE))) : DB_NONE;
    const uint32_t offset = uint32_t(std::min<int64_t>(plan_.offset, int64_t(DB_NONE)));
    st.push = {in.count_word, offset, limit, counters_ + kFirst, counters_ + kCount, q_.perm_word, counters_ + kError};
    st.message = true;
    st.reads = in.ranges;
    st.reads.push_back(counter(kError));
    st.writes = {counter(kFirst), counter(kCount)};
    p_.add_stage(st);
    // COUNT = 0 rules: an empty result, or an aggregate over no rows, raise the anomaly status.
    std::vector<abi::WeftRule> rules = {rule(Condition::eq_zero(q_.output, WEFT_METRIC_COUNTER0 + DB_COUNTER_ROWS_OUT),
                                             Action::set_status(q_.output, WEFT_STATUS_ANOMALY))};
    if (q_.aggregate)
      rules.push_back(rule(Condition::eq_zero(*q_.aggregate, WEFT_METRIC_COUNTER0 + DB_COUNTER_ROWS_IN),
                           Action::set_status(*q_.aggregate, WEFT_STATUS_ANOMALY)));
    add_regulator(p_, "count_zero_rule", rules);

    // The host-written tables are complete now.
    q_.host_tables.push_back({"code", code_});
    q_.host_tables.push_back({"desc", descs_});
  }

  BuiltQuery& q_;
  Program& p_;
  const Database& db_;
  const Plan& plan_;
  const QueryOptions& opt_;
  uint64_t rows_[2] = {0, 0};
  uint32_t counters_ = 0;
  uint32_t desc_base_[2] = {0, 0};
  std::vector<uint32_t> descs_, code_;
  std::vector<uint32_t> group_desc_;
  std::vector<Range> table_ranges_, out_ranges_, out_in_ranges_;
  Range code_range_, desc_range_;
  uint32_t next_desc_ = 0;
};

}  // namespace

void build_query(BuiltQuery& q, const Database& db, const Plan& plan, const QueryOptions& options) {
  Builder(q, db, plan, options).build();
}

}  // namespace weft::db
