// libFuzzer target: the SQL front end (lexer, parser, binder/planner, bytecode) on arbitrary
// text against a small fixed database. Any input must either plan or throw weft::Error.
// Subqueries and derived tables get rows from stand-ins (the device runs them in the workload).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <weft/error.h>

#include "bytecode.h"
#include "csv.h"
#include "derived.h"
#include "plan.h"
#include "text_functions.h"

namespace {

const weft::db::Database& database() {
  static const weft::db::Database db = [] {
    weft::db::Database d;
    d.add(weft::db::load_csv("id,name,price,qty\n1,apple,1.5,3\n2,pear,,4\n3,,2.25,\n", "items", "items.csv"));
    d.add(weft::db::load_csv("item,region,amount\n1,north,10\n3,south,-2\n", "sales", "sales.csv"));
    return d;
  }();
  return db;
}

// Stands in for the device that runs subqueries: a NULL and a value of the subquery's type,
// twice (1, 1.0 or the first dictionary string), so that IN (SELECT ...) plans and compiles.
std::vector<std::optional<uint64_t>> fake_subquery(const weft::db::Plan& sub) {
  const weft::db::Type t = sub.outputs.empty() ? weft::db::Type::Int : sub.outputs[0]->type;
  const double one = 1.0;
  uint64_t v = 1;
  if (t == weft::db::Type::Float) std::memcpy(&v, &one, 8);
  if (t == weft::db::Type::Text) v = 0;
  return {std::nullopt, v, v};
}

// Stands in for the device that runs derived tables and WITH entries: the inner query is
// planned, and its result is a table of no rows with the planned names and types.
weft::db::Table fake_derived(weft::db::Database& db, const weft::db::Query& inner) {
  db.intern(weft::db::derived_strings(inner, db));
  const weft::db::Plan plan = weft::db::plan_query(inner, db, fake_subquery);
  weft::db::Table t;
  for (size_t c = 0; c < plan.visible; ++c) {
    weft::db::Column column;
    column.name = plan.names[c];
    column.type = plan.outputs[c]->type;
    t.columns.push_back(column);
  }
  return t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string sql(reinterpret_cast<const char*>(data), size);
  try {
    // The strings of the query's text functions enter a copy of the dictionary, as the executor
    // adds them (query.cpp), so that text functions plan rather than stop at a missing string.
    if (weft::db::is_modification(sql)) {  // INSERT / UPDATE / DELETE: the parser (modify.cpp runs them on a device)
      (void)weft::db::parse_modification(sql);
      return 0;
    }
    weft::db::Database db = database();
    const weft::db::Query query = weft::db::materialize_derived(
        weft::db::parse_sql(sql), db, [&](const weft::db::Query& inner) { return fake_derived(db, inner); });
    db.intern(weft::db::derived_strings(query, db));
    const weft::db::Plan plan = weft::db::plan_query(query, db, fake_subquery);
    auto desc = [](uint32_t side, uint32_t column) { return side * 64 + column; };
    for (const auto& f : plan.scan_filters)
      if (f) weft::db::compile_expr(*f, desc);
    for (const auto& o : plan.outputs) weft::db::compile_expr(*o, desc);
    (void)plan.explain(db);
  } catch (const weft::Error&) {
  }
  return 0;
}
