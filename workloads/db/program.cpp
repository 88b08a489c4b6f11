// The query plan as a Weft program: segments in Globals, instances, stages, indirect slots and
// the two rules. Every count a stage needs is a Globals word written by an earlier stage, so the
// whole query runs in one submission with no host round trip.
#include <algorithm>
#include <array>

#include "db.h"
#include "db_ops.h"
#include "program_internal.h"
#include "shaders/db_args.h"
#include "weft_db_kernels.h"

namespace weft::db {

namespace {

using GlobalsIn = In<Binding::Globals>;
using GlobalsOut = Out<Binding::Globals>;
using GlobalsRefIn = RefIn<Binding::Globals>;  // in the window or a whole far segment (base columns)

// A segment argument of an optional segment (absent: the kernel receives DB_NONE).
template <class Arg>
Arg or_absent(const std::optional<Range>& r) {
  return r ? Arg(*r) : Arg(absent);
}
bool same_range(const Range& a, const Range& b) {
  return a.binding == b.binding && a.offset == b.offset && a.size == b.size;
}
// `ranges` less those equal to one of `bound` (ranges a stage's arguments declare already).
std::vector<Range> except(std::vector<Range> ranges, const std::vector<Range>& bound) {
  std::erase_if(ranges, [&](const Range& r) {
    return std::any_of(bound.begin(), bound.end(), [&](const Range& b) { return same_range(r, b); });
  });
  return ranges;
}
template <class T>
void append(std::vector<T>& to, const std::vector<T>& more) {
  to.insert(to.end(), more.begin(), more.end());
}
template <class T>
std::vector<T> concat(std::vector<T> a, const std::vector<T>& b) {
  append(a, b);
  return a;
}

// Invocations per workgroup of the db kernels that loop over rows (all grid-stride).
constexpr uint32_t kGroupSize = 64;
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

    static_assert(kSideDirect == DB_SIDE_DIRECT && kMaxTables == DB_MAX_SIDES);
    if (sides > DB_MAX_SIDES || plan_.joins.size() + 1 != sides)
      fail(ErrorCode::InvalidProgram, "db: a plan of " + std::to_string(sides) + " tables and " +
                                          std::to_string(plan_.joins.size()) + " joins");
    for (size_t s = 0; s < sides; ++s) q_.scans.push_back(p_.add_instance("scan" + std::to_string(s), 1));
    for (size_t s = 1; s < sides; ++s) q_.joins.push_back(p_.add_instance(join_name(s), 1));
    if (!q_.joins.empty()) q_.join = q_.joins[0];
    q_.filter = p_.add_instance("filter", 1);
    if (plan_.aggregate) q_.aggregate = p_.add_instance("aggregate", 1);
    if (plan_.having) q_.having = p_.add_instance("having", 1);
    q_.output = p_.add_instance("output", 4);

    fill("reset.counters", counters_, kCounters, 0, range("counters"));
    // Every side's scan, then one join step per side after the first: the tuples of sides
    // 0..s-1 joined so far probe side s's scanned rows.
    std::vector<RowSet> scanned;
    for (size_t s = 0; s < sides; ++s) scanned.push_back(scan(s));
    RowSet r = scanned[0];
    for (size_t s = 1; s < sides; ++s) r = join(r, scanned[s], plan_.joins[s - 1]);
    if (plan_.residual) r = filter(r, *plan_.residual, q_.filter, "filter", kFiltered, cap_of(r));
    q_.input_rows = r;
    RowSet out = plan_.aggregate ? aggregate(r) : r;
    if (plan_.having) out = filter(out, *plan_.having, *q_.having, "having", kHaving, out.cap);
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
  // The join step that joins side s: "join" (the first, as before multi-way joins), "join2", ...
  static std::string join_name(size_t s) { return s == 1 ? "join" : "join" + std::to_string(s); }

  // Gives `r` (its cap set) a row-id list of cap ids for each of `sides` and the row-id table
  // that names them (written by the host).
  void add_row_lists(RowSet& r, const std::string& name, const std::vector<uint32_t>& sides) {
    std::vector<uint32_t> words(DB_MAX_SIDES, DB_NONE);
    for (uint32_t s : sides) {
      const std::string l = name + ".ids" + std::to_string(s);
      words[s] = word(seg(l, r.cap * 4));
      r.lists.push_back(range(l));
    }
    r.sides = sides;
    seg(name + ".table", DB_MAX_SIDES * 4);
    q_.host_tables.push_back({name + ".table", std::move(words)});
    r.table = range(name + ".table");
  }

  // The bytecode and descriptor tables are written by the host once; their sizes are known
  // from the plan before any stage is added (the stages push their word offsets).
  void reserve_host_tables() {
    auto dummy = [](uint32_t, uint32_t) { return 0u; };
    uint64_t words = 0;
    auto add = [&](const BExprPtr& e) {
      if (e) words += compile_expr(*e, dummy).words.size();
    };
    for (const BExprPtr& f : plan_.scan_filters) add(f);
    add(plan_.residual);
    for (const BExprPtr& k : plan_.keys) add(k);
    for (const AggPlan& a : plan_.aggs) add(a.arg);
    add(plan_.having);
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
    // Descriptors: side 0 columns, side 1 columns, ..., then the group table (keys, aggregates).
    for (size_t s = 0; s < plan_.tables.size(); ++s) {
      const Table& t = db_.table(size_t(plan_.tables[s]));
      desc_base_[s] = next_desc_;
      for (size_t c = 0; c < t.columns.size(); ++c) {
        const ResidentTables::ColumnMemory* resident = opt_.resident ? opt_.resident->find(t.name, c) : nullptr;
        const std::string v = "t" + std::to_string(s) + ".c" + std::to_string(c);
        const uint32_t vw = base_segment(v, t.rows * 8, 8, resident ? resident->values : nullptr, {v, s, c, false});
        BaseColumn base{range(v), std::nullopt};
        uint32_t nw = DB_NONE;
        const Column& col = t.columns[c];
        if (std::find(col.nulls.begin(), col.nulls.end(), 1) != col.nulls.end()) {
          const std::string n = "t" + std::to_string(s) + ".n" + std::to_string(c);
          nw = base_segment(n, (uint64_t(t.rows) + 31) / 32 * 4, 4, resident ? resident->nulls : nullptr, {n, s, c, true});
          base.nulls = range(n);
        }
        base_columns_.push_back(base);
        set_desc(next_desc_++, {vw, nw, uint32_t(s), 0});
      }
    }
    for (size_t c = 0; c < plan_.keys.size() + plan_.aggs.size(); ++c) group_desc_.push_back(next_desc_++);
  }
  // A base column's values (records of 8 bytes) or NULL bitmap (of 4): a segment in the window
  // (its word) or a far segment (WEFT_REF_FAR | its index), as the options place them; the far
  // segment imports the resident memory when there is one, else the host uploads it per query.
  uint32_t base_segment(const std::string& name, uint64_t bytes, uint64_t record_bytes,
                        const std::shared_ptr<FarSegmentMemory>& resident, Upload upload) {
    if (resident) p_.globals().add_far(name, resident);
    else if (opt_.columns == QueryOptions::Columns::Far) p_.globals().add_far(name, std::max(bytes, record_bytes), record_bytes);
    else seg(name, bytes);
    if (!resident) q_.uploads.push_back(std::move(upload));
    const Range r = range(name);
    table_ranges_.push_back(r);
    return r.far ? WEFT_REF_FAR | (r.far - 1) : uint32_t(r.offset / 4);
  }
  void set_desc(uint32_t d, std::array<uint32_t, 4> v) { std::copy(v.begin(), v.end(), descs_.begin() + d * DB_DESC_WORDS); }

  // Adds the bytecode of an expression; returns {word, instruction count}.
  std::pair<uint32_t, uint32_t> code(const BExpr& e) {
    const Bytecode b = compile_expr(e, [&](uint32_t side, uint32_t column) {
      return side == kSideDirect ? direct_desc(column) : desc_base_[side] + column;
    });
    const uint32_t at = q_.code_word + uint32_t(code_.size());
    code_.insert(code_.end(), b.words.begin(), b.words.end());
    return {at, b.instructions};
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
    if (l->kind == BExpr::Const) {
      std::swap(l, r);  // constant <op> column: column <flipped op> constant
      op = op == "<" ? ">" : op == ">" ? "<" : op == "<=" ? ">=" : op == ">=" ? "<=" : op;
    }
    if (!column(*l) || r->kind != BExpr::Const || r->null) return false;
    // Int against Float is compared exactly on the device, whichever side is the column.
    const bool float_column = l->type == Type::Float, float_constant = r->type == Type::Float;
    const uint32_t kind = float_column == float_constant ? (float_column ? DB_TERM_FLOAT : DB_TERM_INT)
                        : float_column                   ? DB_TERM_FLOAT_VS_INT
                                                         : DB_TERM_INT_VS_FLOAT;
    const uint32_t cmp = op == "=" ? DB_CMP_EQ : op == "!=" ? DB_CMP_NE : op == "<" ? DB_CMP_LT : op == "<=" ? DB_CMP_LE
                       : op == ">" ? DB_CMP_GT : DB_CMP_GE;
    push(*l, kind, cmp, r->bits);
    return true;
  }

  void fill(const std::string& name, uint32_t first, uint64_t count, uint32_t value, Range r) {
    StageSpec s;
    s.name = "fill." + name;
    s.kernel = engine_kernel("fill");
    s.instance = q_.scans[0];
    s.streaming_units = count;
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
  // The bytecode argument of an expression compiled at `word` (code()).
  GlobalsIn code_at(uint32_t word) const { return {code_range_, word}; }

  RowSet scan(size_t s) {
    const uint64_t n = rows_[s];
    const std::string name = "scan" + std::to_string(s);
    const uint32_t cnt = scan_counter(s);
    RowSet out;
    out.cap = n;
    out.count_word = counters_ + cnt;
    out.count = counter(Counter(cnt));
    add_row_lists(out, name, {uint32_t(s)});
    const Range ids = out.lists[0];
    StageSpec st;
    st.name = "scan_filter." + std::to_string(s);
    st.instance = q_.scans[s];
    st.groups = {grid_stride_groups(n, kGroupSize), 1, 1};
    std::vector<uint32_t> terms;
    if (plan_.scan_filters[s] && !opt_.interpret_filters && add_terms(*plan_.scan_filters[s], uint32_t(s), terms)) {
      // The common shape runs without the interpreter (filter_terms.comp).
      const std::string name = "scan" + std::to_string(s) + ".terms";
      seg(name, terms.size() * 4);
      st.kernel = weft_db_kernels.get("filter_terms");
      st.args = FilterTermsArgs{.terms = range(name), .nterms = uint32_t(terms.size() / DB_TERM_WORDS),
                                .out_count = out.count, .out_ids = ids, .rows = uint32_t(n)}
                    .bind();
      // The columns through the term table; the code, descriptors and error word as the
      // interpreted filter declares them.
      st.reads = static_reads();
      st.writes = {counter(kError)};
      q_.host_tables.push_back({name, terms});
      ++q_.term_filters;
    } else {
      // No predicate: every row passes (no code; its segment stays declared).
      const BExprPtr& pred = plan_.scan_filters[s];
      auto [cw, ni] = pred ? code(*pred) : std::pair<uint32_t, uint32_t>{DB_NONE, 0};
      st.kernel = weft_db_kernels.get("filter");
      st.args = FilterArgs{.code = pred ? code_at(cw) : GlobalsIn(absent), .ninstr = ni, .desc = desc_range_,
                           .in_count = absent, .in_ids = absent, .out_count = out.count, .out_ids = *out.table,
                           .err = counter(kError), .rows = uint32_t(n)}
                    .bind();
      st.reads = table_ranges_;  // the columns, through the descriptors
      if (!pred) st.reads.push_back(code_range_);
      st.writes = {ids};  // through the output's row-id table
    }
    p_.add_stage(st);
    report(q_.scans[s], "scan_report." + std::to_string(s), DB_NONE, uint32_t(n), out.count_word, DB_NONE);
    q_.rows_scanned += n;
    return out;
  }

  // The Metrics record of `inst`: rows in (the Globals word `in_word`, DB_NONE: `in_static`),
  // rows out (the word `out_word`) and, for the join, the strategy its nested-loop slot
  // (Control word `slot_word`) tells. The counters are declared as all of Globals.
  void report(InstanceId inst, const std::string& name, uint32_t in_word, uint32_t in_static, uint32_t out_word,
              uint32_t slot_word) {
    const Range globals = p_.whole(Binding::Globals);
    StageSpec st;
    st.name = name;
    st.kernel = weft_db_kernels.get("report");
    st.instance = inst;
    st.args = ReportArgs{.rows_in = in_word != DB_NONE ? GlobalsIn(globals, in_word) : GlobalsIn(absent),
                         .rows_in_static = in_static,
                         .rows_out = {globals, out_word},
                         .err = {globals, counters_ + kError},
                         .nested_slot = slot_word != DB_NONE ? In<Binding::Control>(p_.control_words(slot_word, 1))
                                                             : In<Binding::Control>(absent)}
                  .bind();
    st.reads = {p_.metrics(inst)};
    st.writes = {p_.metrics(inst)};
    // Reports that are not the join's declare the Control header instead of a slot.
    if (slot_word == DB_NONE) st.reads.push_back(p_.control_header());
    p_.add_stage(st);
  }

  // One join step: side j.build_side's scanned rows (`build`, one list) joined to the tuples of
  // the sides before it (`probe`), under the step's own cardinality rule, slots, hash table,
  // output capacity and Metrics instance.
  RowSet join(const RowSet& probe, const RowSet& build, const JoinPlan& j) {
    const size_t k = j.build_side;
    const std::string name = join_name(k);
    const InstanceId inst = q_.joins[k - 1];
    const uint64_t cap = opt_.join_capacity ? opt_.join_capacity : std::max<uint64_t>(probe.cap + build.cap, 1024);
    q_.join_capacity = std::max(q_.join_capacity, cap);
    const uint64_t heads = pow2_at_least(std::max<uint64_t>(2 * build.cap, 64));
    const uint32_t hw = word(seg(name + ".heads", heads * 4));
    seg(name + ".next", build.cap * 4);
    RowSet out;
    out.cap = cap;
    out.count_word = counters_ + join_counter(k);
    out.count = counter(Counter(join_counter(k)));
    std::vector<uint32_t> sides = probe.sides;
    sides.push_back(uint32_t(k));
    add_row_lists(out, name, sides);
    fill(name + ".heads", hw, heads, DB_NONE, range(name + ".heads"));

    // The cardinality rule: build side above the expected size -> hash join instead of the
    // nested loop, by rewriting the indirect slots before the join stages dispatch.
    const SlotId nested = p_.add_slot(name + ".nested", {grid_stride_groups(probe.cap, kGroupSize), 1, 1});
    const SlotId hbuild = p_.add_slot(name + ".hash_build", {0, 1, 1});
    const SlotId hprobe = p_.add_slot(name + ".hash_probe", {0, 1, 1});
    const uint32_t nested_word = p_.slot_word(nested);
    if (k == 1) q_.nested_slot_word = nested_word;
    const InstanceId scan = q_.scans[k];
    add_regulator(p_, name + ".cardinality_rule",
                  {rule(Condition::greater(scan, WEFT_METRIC_COUNTER0 + DB_COUNTER_ROWS_OUT, opt_.join_threshold),
                        Action::set_slot(p_, nested, 0)),
                   rule(Condition::greater(scan, WEFT_METRIC_COUNTER0 + DB_COUNTER_ROWS_OUT, opt_.join_threshold),
                        Action::set_slot(p_, hbuild, grid_stride_groups(build.cap, kGroupSize))),
                   rule(Condition::greater(scan, WEFT_METRIC_COUNTER0 + DB_COUNTER_ROWS_OUT, opt_.join_threshold),
                        Action::set_slot(p_, hprobe, grid_stride_groups(probe.cap, kGroupSize)))});

    const BaseColumn& pk = base_columns_[desc_base_[j.probe_side] + j.probe_column];
    const BaseColumn& bk = base_columns_[desc_base_[k] + j.build_column];
    const std::vector<Range> other_columns = except(table_ranges_, concat(pk.ranges(), bk.ranges()));
    const Range build_ids = build.lists[0];
    auto stage = [&](const std::string& sname, const char* kernel, SlotId slot, std::vector<StageArg> args,
                     std::vector<Range> rd, std::vector<Range> wr) {
      StageSpec st;
      st.name = sname;
      st.kernel = weft_db_kernels.get(kernel);
      st.instance = inst;
      st.indirect = slot;
      st.args = std::move(args);
      // The code and descriptors (not read here) and the other columns, as every join stage declared them.
      st.reads = std::move(rd);
      append(st.reads, other_columns);
      st.reads.push_back(code_range_);
      st.reads.push_back(desc_range_);
      st.writes = std::move(wr);
      p_.add_stage(st);
    };
    // The emitting stages read the probe tuples' lists and write the output's, through their
    // row-id tables.
    stage(name + ".nested_loop", "join_nested", nested,
          JoinNestedArgs{.probe_count = probe.count, .probe_limit = uint32_t(probe.cap), .probe_ids = *probe.table,
                         .probe_side = j.probe_side, .build_count = build.count, .build_ids = build_ids,
                         .probe_values = pk.values, .probe_nulls = or_absent<GlobalsRefIn>(pk.nulls),
                         .build_values = bk.values, .build_nulls = or_absent<GlobalsRefIn>(bk.nulls),
                         .out_count = out.count, .out_ids = *out.table, .build_side = uint32_t(k),
                         .capacity = uint32_t(cap), .err = counter(kError), .loop_budget = q_.loop_budget,
                         .left = j.left ? 1u : 0u}
              .bind(),
          probe.lists, out.lists);
    // The hash stages declare the other side's rows and key as the nested loop does.
    stage(name + ".hash_build", "join_build", hbuild,
          JoinBuildArgs{.build_count = build.count, .build_ids = build_ids, .build_values = bk.values,
                        .build_nulls = or_absent<GlobalsRefIn>(bk.nulls), .heads = range(name + ".heads"),
                        .hash_mask = uint32_t(heads - 1), .next = range(name + ".next")}
              .bind(),
          concat(probe.ranges(), pk.ranges()), {});
    stage(name + ".hash_probe", "join_probe", hprobe,
          JoinProbeArgs{.probe_count = probe.count, .probe_limit = uint32_t(probe.cap), .probe_ids = *probe.table,
                        .probe_side = j.probe_side, .build_ids = build_ids, .probe_values = pk.values,
                        .probe_nulls = or_absent<GlobalsRefIn>(pk.nulls), .build_values = bk.values,
                        .build_nulls = or_absent<GlobalsRefIn>(bk.nulls), .heads = range(name + ".heads"),
                        .hash_mask = uint32_t(heads - 1), .next = range(name + ".next"), .out_count = out.count,
                        .out_ids = *out.table, .build_side = uint32_t(k), .capacity = uint32_t(cap),
                        .err = counter(kError), .loop_budget = q_.loop_budget, .left = j.left ? 1u : 0u}
              .bind(),
          concat({build.count}, probe.lists), out.lists);
    report(inst, name + ".report", build.count_word, 0, out.count_word, nested_word);
    if (k == 1) q_.join_count_word = out.count_word;
    // Later stages read the rows the lists hold: the count clamped to the capacity (an
    // overflowed step is rebuilt by the host; until then nothing reads past its lists).
    const uint32_t kept = join_kept_counter(k);
    StageSpec clamp;
    clamp.name = name + ".clamp";
    clamp.kernel = weft_db_kernels.get("count_clamp");
    clamp.instance = inst;
    clamp.args = CountClampArgs{.count = out.count, .kept = counter(Counter(kept)), .capacity = uint32_t(cap)}.bind();
    p_.add_stage(clamp);
    out.count_word = counters_ + kept;
    out.count = counter(Counter(kept));
    return out;
  }

  RowSet filter(const RowSet& in, const BExpr& pred, InstanceId inst, const std::string& name, Counter cnt, uint64_t cap) {
    RowSet out;
    out.cap = cap;
    out.count_word = counters_ + cnt;
    out.count = counter(cnt);
    // The passing tuples keep every side of the input's; groups (the identity) pass as side 0.
    add_row_lists(out, name, in.table ? in.sides : std::vector<uint32_t>{0});
    out.columns = in.columns;  // the groups' columns, when HAVING filters them
    auto [cw, ni] = code(pred);
    StageSpec st;
    st.name = name;
    st.kernel = weft_db_kernels.get("filter");
    st.instance = inst;
    st.groups = {grid_stride_groups(cap, kGroupSize), 1, 1};
    st.args = FilterArgs{.code = code_at(cw), .ninstr = ni, .desc = desc_range_, .in_count = in.count,
                         .in_ids = or_absent<GlobalsIn>(in.table), .out_count = out.count, .out_ids = *out.table,
                         .err = counter(kError), .rows = 0}
                  .bind();
    st.reads = table_ranges_;  // the columns, through the descriptors
    append(st.reads, in.columns);
    append(st.reads, in.lists);  // the rows, through the row-id tables
    st.writes = out.lists;
    p_.add_stage(st);
    report(inst, name + ".report", in.count_word, 0, out.count_word, DB_NONE);
    return out;
  }

  // A computed column (values + NULL bitmap) of `cap` rows.
  struct Computed {
    uint32_t values, nulls;
    Range values_segment, nulls_segment;
    std::vector<Range> ranges() const { return {values_segment, nulls_segment}; }
  };
  Computed computed(const std::string& name, uint64_t cap) {
    Computed c;
    c.values = word(seg(name + ".v", cap * 8));
    c.nulls = word(seg(name + ".n", (cap + 31) / 32 * 4));
    c.values_segment = range(name + ".v");
    c.nulls_segment = range(name + ".n");
    return c;
  }

  void project(const BExpr& e, const RowSet& in, const Computed& out, InstanceId inst, const std::string& name) {
    auto [cw, ni] = code(e);
    StageSpec st;
    st.name = name;
    st.kernel = weft_db_kernels.get("project");
    st.instance = inst;
    st.groups = {grid_stride_groups(in.cap, kGroupSize), 1, 1};
    st.args = ProjectArgs{.code = code_at(cw), .ninstr = ni, .desc = desc_range_, .in_count = in.count,
                          .in_ids = or_absent<GlobalsIn>(in.table), .out_values = out.values_segment, .out_nulls = out.nulls_segment, .err = counter(kError),
                          .rows = 0}
                  .bind();
    st.reads = table_ranges_;  // the columns (and computed ones the rows index), through the descriptors
    append(st.reads, in.columns);
    append(st.reads, in.lists);  // the rows, through the row-id table
    p_.add_stage(st);
  }

  // A key or aggregate argument: a base-table column read through the input's row-id lists, or
  // a computed column (kSideDirect) that a project stage fills first.
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
    project(e, in, c, inst, "project." + name);
    return {c.values, c.nulls, kSideDirect, c.ranges()};
  }

  // What the group-by stages share: the input's key and argument columns, the group table's
  // columns, the tables the kernels read and the working segments.
  struct Grouping {
    uint64_t cap = 0, gcap = 0, heads = 0;  // input rows, group capacity, hash slots
    std::vector<ColRef> keys, args;
    std::vector<Computed> gkeys, gaggs;
    Range key_table, agg_table, keycopy_table;
    Range hash_heads, slot_of_row, gid_of_slot, rep, group_of_row, sizes, offsets, cursor, members;
    SlotId reduce_slot;
  };

  RowSet aggregate(const RowSet& in) {
    const InstanceId inst = *q_.aggregate;
    Grouping g;
    g.cap = std::max<uint64_t>(in.cap, 1);
    // The group table is sized for min(rows, 65536) groups unless told; more groups set an
    // error bit after counting them all, and the host rebuilds with the exact count.
    g.gcap = std::max<uint64_t>(opt_.group_capacity ? opt_.group_capacity : std::min<uint64_t>(g.cap, 65536), 1);
    q_.group_capacity = g.gcap;
    add_group_columns(g, in, inst);
    add_group_segments(g);
    add_distinct_marks(g, in, inst);
    add_group_tables(g);
    fill("group.sizes", word_of(g.sizes), g.gcap, 0, g.sizes);
    if (!plan_.keys.empty()) {
      fill("group.heads", word_of(g.hash_heads), g.heads, DB_NONE, g.hash_heads);
      add_hash_grouping(g, in, inst);
    } else {
      add_single_group(g, in, inst);
    }
    add_group_reduce(g, in, inst);
    report(inst, "group.report", in.count_word, 0, counters_ + kGroups, DB_NONE);
    q_.groups_word = counters_ + kGroups;

    RowSet out;
    out.cap = g.gcap;
    out.count_word = counters_ + kGroupsKept;
    out.count = counter(kGroupsKept);
    for (const Computed& c : g.gkeys) append(out.columns, c.ranges());
    for (const Computed& c : g.gaggs) append(out.columns, c.ranges());
    return out;
  }
  static uint32_t word_of(const Range& r) { return uint32_t(r.offset / 4); }

  // The key and aggregate-argument columns of the input (computed ones by project stages) and
  // the group table's columns with their descriptors (kSideDirect in the plan, in the planner's
  // column order: keys, aggregates).
  void add_group_columns(Grouping& g, const RowSet& in, InstanceId inst) {
    const size_t K = plan_.keys.size(), A = plan_.aggs.size();
    for (size_t k = 0; k < K; ++k)
      g.keys.push_back(column_ref(*plan_.keys[k], in, inst, "agg.key" + std::to_string(k), g.cap));
    for (size_t a = 0; a < A; ++a)
      g.args.push_back(plan_.aggs[a].arg ? column_ref(*plan_.aggs[a].arg, in, inst, "agg.arg" + std::to_string(a), g.cap)
                                         : ColRef{});
    for (size_t k = 0; k < K; ++k) g.gkeys.push_back(computed("group.key" + std::to_string(k), g.gcap));
    for (size_t a = 0; a < A; ++a) g.gaggs.push_back(computed("group.agg" + std::to_string(a), g.gcap));
    // The groups are the rows of every later stage, read like base rows of side 0 through the
    // row-id table: the identity (no table) after the reduction, the passing group ids (list 0)
    // after a HAVING filter.
    for (size_t k = 0; k < K; ++k) set_desc(group_desc_[k], {g.gkeys[k].values, g.gkeys[k].nulls, 0, 0});
    for (size_t a = 0; a < A; ++a) set_desc(group_desc_[K + a], {g.gaggs[a].values, g.gaggs[a].nulls, 0, 0});
  }

  static uint32_t agg_function(const AggPlan& ag) {
    const bool f = ag.arg && ag.arg->type == Type::Float;
    switch (ag.fn) {
      case AggFn::Count: return ag.star ? DB_AGG_COUNT_STAR : DB_AGG_COUNT;
      case AggFn::Sum: return f ? DB_AGG_SUM_F : DB_AGG_SUM_I;
      case AggFn::Min: return f ? DB_AGG_MIN_F : DB_AGG_MIN_I;
      case AggFn::Max: return f ? DB_AGG_MAX_F : DB_AGG_MAX_I;
      case AggFn::Avg: return f ? DB_AGG_AVG_F : DB_AGG_AVG_I;
    }
    return DB_AGG_COUNT_STAR;
  }

  // The tables the kernels read, written by the host: keys (hashing), aggregates, key copies.
  void add_group_tables(Grouping& g) {
    std::vector<uint32_t> key_table, agg_table, keycopy_table;
    for (size_t k = 0; k < g.keys.size(); ++k) {
      const ColRef& c = g.keys[k];
      key_table.insert(key_table.end(), {c.values, c.nulls, key_type(plan_.keys[k]->type), c.side});
      keycopy_table.insert(keycopy_table.end(), {c.values, c.nulls, g.gkeys[k].values, g.gkeys[k].nulls, c.side, 0, 0, 0});
    }
    for (size_t a = 0; a < g.args.size(); ++a) {
      const ColRef& c = g.args[a];
      agg_table.insert(agg_table.end(), {agg_function(plan_.aggs[a]), c.values, c.nulls, g.gaggs[a].values,
                                         g.gaggs[a].nulls, c.side, 0, 0});
    }
    auto host_table = [&](const char* name, std::vector<uint32_t> words) {
      seg(name, words.size() * 4);
      q_.host_tables.push_back({name, std::move(words)});
      return range(name);
    };
    g.key_table = host_table("group.key_table", std::move(key_table));
    g.agg_table = host_table("group.agg_table", std::move(agg_table));
    g.keycopy_table = host_table("group.keycopy_table", std::move(keycopy_table));
  }

  // The hash table, the per-row and per-group working lists and the reduce stage's slot.
  void add_group_segments(Grouping& g) {
    // Twice the slots of the groups it may hold: every row's own group while that takes at most
    // 2^21 slots (8 MiB), else the group capacity; claims stop when half are taken (group_claim).
    g.heads = pow2_at_least(std::max<uint64_t>(2 * std::min(g.cap, std::max<uint64_t>(g.gcap, 1u << 20)), 64));
    q_.group_slots = g.heads;
    auto add = [&](const char* name, uint64_t words) {
      seg(name, words * 4);
      return range(name);
    };
    g.hash_heads = add("group.heads", g.heads);
    g.slot_of_row = add("group.slot_of_row", g.cap);
    // Also the COUNT(DISTINCT) passes' hash table (add_distinct_marks).
    const bool distinct = std::any_of(plan_.aggs.begin(), plan_.aggs.end(), [](const AggPlan& a) { return a.distinct; });
    q_.distinct_slots = distinct ? distinct_slots(g) : 0;
    g.gid_of_slot = add("group.gid_of_slot", std::max(g.heads, q_.distinct_slots));
    g.rep = add("group.rep", g.gcap);
    g.group_of_row = add("group.group_of_row", g.cap);
    g.sizes = add("group.sizes", g.gcap);
    g.offsets = add("group.offsets", g.gcap);
    g.cursor = add("group.cursor", g.gcap);
    g.members = add("group.members", g.cap);
    g.reduce_slot = p_.add_slot("group.reduce", {0, 1, 1});
  }

  // COUNT(DISTINCT x): each such aggregate counts the mark column of a claim pass over (keys, x)
  // instead of x (distinct_mark.comp). The pass borrows two lists of the group-by that it writes
  // later (gid_of_slot as its hash table, group_of_row for its slot per row), so the aggregate
  // costs a bitmap. Its claims are counted apart; a table over half full is rebuilt with
  // QueryOptions::distinct_capacity.
  void add_distinct_marks(Grouping& g, const RowSet& in, InstanceId inst) {
    std::vector<size_t> distinct;
    for (size_t a = 0; a < plan_.aggs.size(); ++a)
      if (plan_.aggs[a].distinct) distinct.push_back(a);
    if (distinct.empty()) return;
    const Segment& claimed = seg("distinct.claimed", distinct.size() * 4);
    q_.distinct_claimed_word = word(claimed);
    q_.distinct_tables = uint32_t(distinct.size());
    fill("distinct.claimed", q_.distinct_claimed_word, distinct.size(), 0, range("distinct.claimed"));
    for (size_t d = 0; d < distinct.size(); ++d) {
      const Range counter{Binding::Globals, uint64_t(q_.distinct_claimed_word + d) * 4, 4};
      g.args[distinct[d]] = distinct_mark(g, in, inst, distinct[d], distinct_claim(g, in, inst, distinct[d], counter));
    }
  }
  // The COUNT(DISTINCT) hash tables' slots: as the group table's unless a rebuild asked for
  // more, never more than twice the input rows (every row's own value).
  uint64_t distinct_slots(const Grouping& g) const {
    if (!opt_.distinct_capacity) return g.heads;
    return pow2_at_least(std::max<uint64_t>(2 * std::min(opt_.distinct_capacity, g.cap), g.heads));
  }
  struct DistinctSlots {
    Range heads, slot_of_row;
  };
  // Every row claims the hash slot of its (keys, x), as group_claim does for the keys alone.
  // Claim passes of several aggregates reuse the same lists one after the other.
  DistinctSlots distinct_claim(const Grouping& g, const RowSet& in, InstanceId inst, size_t a, const Range& claimed) {
    const std::string name = "distinct" + std::to_string(a);
    const ColRef& x = g.args[a];
    std::vector<uint32_t> key_table;
    for (size_t k = 0; k < g.keys.size(); ++k)
      key_table.insert(key_table.end(), {g.keys[k].values, g.keys[k].nulls, key_type(plan_.keys[k]->type), g.keys[k].side});
    key_table.insert(key_table.end(), {x.values, x.nulls, key_type(plan_.aggs[a].arg->type), x.side});
    seg(name + ".key_table", key_table.size() * 4);
    q_.host_tables.push_back({name + ".key_table", std::move(key_table)});
    const DistinctSlots t{g.gid_of_slot, g.group_of_row};
    fill(name + ".heads", word_of(t.heads), q_.distinct_slots, DB_NONE, t.heads);
    // Besides the arguments: the input's columns and the key and x columns the key table points to.
    std::vector<Range> reads = in.columns;
    append(reads, in.lists);
    for (const ColRef& c : g.keys) append(reads, c.ranges);
    append(reads, x.ranges);
    add_group_stage(inst, name + ".claim", "group_claim",
                    GroupClaimArgs{.count = in.count, .nkeys = uint32_t(g.keys.size() + 1),
                                   .key_table = range(name + ".key_table"), .heads = t.heads,
                                   .hash_mask = uint32_t(q_.distinct_slots - 1), .slot_of_row = t.slot_of_row,
                                   .ids = or_absent<GlobalsIn>(in.table), .claimed = claimed, .max_claims = uint32_t(q_.distinct_slots / 2), .err = counter(kError)}
                        .bind(),
                    reads, grid_stride_groups(g.cap, kGroupSize));
    return t;
  }
  // The mark column of x: a NULL bitmap alone (COUNT reads no value), written from x's NULL
  // bitmap, which stays in the window when the base tables' values go far.
  ColRef distinct_mark(const Grouping& g, const RowSet& in, InstanceId inst, size_t a, const DistinctSlots& t) {
    const std::string name = "distinct" + std::to_string(a) + ".mark";
    const ColRef& x = g.args[a];
    std::vector<Range> x_nulls = x.ranges;
    if (x.side != kSideDirect) {
      const BExpr& col = *plan_.aggs[a].arg;
      const std::optional<Range>& n = base_columns_[desc_base_[col.side] + col.column].nulls;
      x_nulls = n ? std::vector<Range>{*n} : std::vector<Range>{};
    }
    seg(name, (g.cap + 31) / 32 * 4);
    const Range mark = range(name);
    add_group_stage(inst, name, "distinct_mark",
                    DistinctMarkArgs{.count = in.count, .heads = t.heads, .slot_of_row = t.slot_of_row,
                                     .arg_nulls = x.nulls, .arg_side = x.side, .ids = or_absent<GlobalsIn>(in.table),
                                     .out_nulls = mark}
                        .bind(),
                    concat(x_nulls, in.lists), grid_stride_groups(g.cap, kGroupSize));
    return {DB_NONE, word_of(mark), kSideDirect, {mark}};
  }

  void add_group_stage(InstanceId inst, const std::string& name, const char* kernel, std::vector<StageArg> args,
                       std::vector<Range> reads, uint32_t groups) {
    StageSpec st;
    st.name = "group." + name;
    st.kernel = weft_db_kernels.get(kernel);
    st.instance = inst;
    st.groups = {groups, 1, 1};
    st.args = std::move(args);
    st.reads = std::move(reads);
    p_.add_stage(st);
  }

  // GROUP BY: claim hash slots, number the groups, count their sizes, scan them into offsets
  // (sizing the reduce dispatch) and fill the member lists.
  void add_hash_grouping(const Grouping& g, const RowSet& in, InstanceId inst) {
    // What the key passes declare besides their arguments: the input's row-id lists and
    // columns, the key columns and the key table.
    std::vector<Range> key_reads = in.id_lists();
    append(key_reads, in.columns);
    for (const ColRef& c : g.keys) append(key_reads, c.ranges);
    key_reads.push_back(g.key_table);
    std::vector<Range> row_reads = in.id_lists();  // the input's rows, beside their count
    append(row_reads, in.columns);
    const uint32_t rows = grid_stride_groups(g.cap, kGroupSize), gcap = uint32_t(g.gcap);
    add_group_stage(inst, "claim", "group_claim",
                    GroupClaimArgs{.count = in.count, .nkeys = uint32_t(g.keys.size()), .key_table = g.key_table,
                                   .heads = g.hash_heads, .hash_mask = uint32_t(g.heads - 1),
                                   .slot_of_row = g.slot_of_row, .ids = or_absent<GlobalsIn>(in.table),
                                   .claimed = counter(kGroupsClaimed),
                                   .max_claims = uint32_t(g.heads / 2), .err = counter(kError)}
                        .bind(),
                    except(key_reads, concat(in.table ? std::vector<Range>{*in.table} : std::vector<Range>{}, {g.key_table})),
                    rows);
    add_group_stage(inst, "number", "group_number",
                    GroupNumberArgs{.count = in.count, .heads = g.hash_heads, .slot_of_row = g.slot_of_row,
                                    .gid_of_slot = g.gid_of_slot, .groups = counter(kGroups), .rep = g.rep,
                                    .capacity = gcap, .err = counter(kError)}
                        .bind(),
                    key_reads, rows);
    add_group_stage(inst, "count", "group_count",
                    GroupCountArgs{.count = in.count, .slot_of_row = g.slot_of_row, .gid_of_slot = g.gid_of_slot,
                                   .group_of_row = g.group_of_row, .sizes = g.sizes, .capacity = gcap}
                        .bind(),
                    {}, rows);  // its arguments are all it reads
    add_group_stage(inst, "scan", "group_scan",
                    GroupScanArgs{.groups = counter(kGroups), .sizes = g.sizes, .offsets = g.offsets,
                                  .cursor = g.cursor, .groups_kept = counter(kGroupsKept),
                                  .reduce_slot = p_.slot(g.reduce_slot), .capacity = gcap}
                        .bind(),
                    {}, 1);
    add_group_stage(inst, "fill", "group_fill",
                    GroupFillArgs{.count = in.count, .group_of_row = g.group_of_row, .cursor = g.cursor,
                                  .members = g.members, .capacity = gcap}
                        .bind(),
                    row_reads, rows);
  }

  // Aggregates without GROUP BY: one group of every row.
  void add_single_group(const Grouping& g, const RowSet& in, InstanceId inst) {
    std::vector<Range> row_reads = in.id_lists();  // the input's rows, beside their count
    append(row_reads, in.columns);
    add_group_stage(inst, "single", "group_single",
                    GroupSingleArgs{.count = in.count, .groups = counter(kGroups), .groups_kept = counter(kGroupsKept),
                                    .rep = g.rep, .sizes = g.sizes, .offsets = g.offsets,
                                    .reduce_slot = p_.slot(g.reduce_slot)}
                        .bind(),
                    row_reads, 1);
  }

  // One workgroup per group: the aggregates over its members and its key values.
  void add_group_reduce(const Grouping& g, const RowSet& in, InstanceId inst) {
    const bool keyed = !g.keys.empty();
    StageSpec red;
    red.name = "group.reduce";
    red.kernel = weft_db_kernels.get("group_reduce");
    red.instance = inst;
    red.indirect = g.reduce_slot;
    red.args = GroupReduceArgs{.groups_kept = counter(kGroupsKept), .offsets = g.offsets, .sizes = g.sizes,
                               .members = keyed ? GlobalsIn(g.members) : GlobalsIn(absent),
                               .naggs = uint32_t(g.args.size()), .agg_table = g.agg_table,
                               .nkeys = uint32_t(g.keys.size()), .keycopy_table = g.keycopy_table, .rep = g.rep,
                               .err = counter(kError), .ids = or_absent<GlobalsIn>(in.table),
                               .loop_budget = q_.loop_budget}
                   .bind();
    // Besides the arguments: the input's count and columns, the key and argument columns (and
    // the member list, declared even when the members are the identity).
    if (!keyed) red.reads.push_back(g.members);
    red.reads.push_back(in.count);
    append(red.reads, in.columns);
    append(red.reads, in.lists);  // the rows, through the row-id table
    for (const ColRef& c : g.keys) append(red.reads, c.ranges);
    for (const ColRef& c : g.args) append(red.reads, c.ranges);
    for (const Computed& c : g.gkeys) append(red.writes, c.ranges());
    for (const Computed& c : g.gaggs) append(red.writes, c.ranges());
    p_.add_stage(red);
  }

  void project_outputs(const RowSet& in) {
    for (size_t k = 0; k < plan_.outputs.size(); ++k) {
      const Computed c = computed("out" + std::to_string(k), std::max<uint64_t>(in.cap, 1));
      q_.outputs.push_back({c.values, c.nulls, "out" + std::to_string(k)});
      project(*plan_.outputs[k], in, c, q_.output, "project.out" + std::to_string(k));
      append(out_ranges_, c.ranges());
    }
    q_.output_count_word = in.count_word;
    q_.output_cap = std::max<uint64_t>(in.cap, 1);
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
    seg("sort.keys", table.size() * 4);
    q_.host_tables.push_back({"sort.keys", table});
    StageSpec init;
    init.name = "sort.init";
    init.kernel = weft_db_kernels.get("sort_init");
    init.instance = q_.output;
    init.streaming_units = P;
    init.args = SortInitArgs{.perm = range("sort.perm"), .padded = uint32_t(P)}.bind();
    p_.add_stage(init);
    // Besides the arguments: the output columns the key table points to, the rows they index.
    std::vector<Range> reads = out_ranges_;
    append(reads, in.id_lists());
    append(reads, in.columns);
    for (uint64_t k = 2; k <= P; k <<= 1)
      for (uint64_t j = k / 2; j > 0; j >>= 1) {
        StageSpec st;
        st.name = "sort.step";
        st.kernel = weft_db_kernels.get("sort_step");
        st.instance = q_.output;
        st.streaming_units = P / 2;
        st.args = SortStepArgs{.count = in.count, .perm = range("sort.perm"), .nkeys = uint32_t(plan_.order.size()),
                               .key_table = range("sort.keys"), .k = uint32_t(k), .j = uint32_t(j)}
                      .bind();
        st.reads = reads;
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
    st.args = FinishArgs{.count = in.count, .row_offset = offset, .row_limit = limit, .first = counter(kFirst),
                         .result_count = counter(kCount), .perm_word = q_.perm_word, .err = counter(kError)}
                  .bind();
    st.message = true;
    st.reads = in.id_lists();  // the rows, beside their count
    append(st.reads, in.columns);
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
  std::array<uint64_t, DB_MAX_SIDES> rows_{};  // base rows, by side
  uint32_t counters_ = 0;
  std::array<uint32_t, DB_MAX_SIDES> desc_base_{};  // first column descriptor, by side
  std::vector<uint32_t> descs_, code_;
  std::vector<uint32_t> group_desc_;
  // The segments of the base-table columns, by descriptor (side 0's, then side 1's, ...).
  struct BaseColumn {
    Range values;
    std::optional<Range> nulls;
    std::vector<Range> ranges() const {
      return nulls ? std::vector<Range>{values, *nulls} : std::vector<Range>{values};
    }
  };
  std::vector<BaseColumn> base_columns_;
  std::vector<Range> table_ranges_, out_ranges_;
  Range code_range_, desc_range_;
  uint32_t next_desc_ = 0;
};

}  // namespace

void build_query(BuiltQuery& q, const Database& db, const Plan& plan, const QueryOptions& options) {
  Builder(q, db, plan, options).build();
}

}  // namespace weft::db
