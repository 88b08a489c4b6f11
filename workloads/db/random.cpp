// Seeded table pair (no downloads): orders and customers, with dangling foreign keys, repeated
// keys and optional NULLs, so joins, groups and NULL rules all have work to do.
#include <random>

#include "db.h"

namespace weft::db {

namespace {

Column make(const std::string& name, Type t, size_t rows) {
  Column c;
  c.name = name;
  c.type = t;
  c.nulls.assign(rows, 0);
  if (t == Type::Float) c.floats.assign(rows, 0);
  else c.ints.assign(rows, 0);
  if (t == Type::Text) c.strings.assign(rows, "");
  return c;
}

}  // namespace

Database random_database(uint64_t orders, uint64_t customers, uint32_t seed, uint32_t null_every) {
  std::mt19937_64 rng(seed);
  static const char* regions[] = {"north", "south", "east", "west", "central"};
  static const char* tiers[] = {"gold", "silver", "bronze"};
  Table o;
  o.name = "orders";
  o.rows = orders;
  o.columns = {make("id", Type::Int, orders), make("customer", Type::Int, orders), make("amount", Type::Float, orders),
               make("qty", Type::Int, orders), make("region", Type::Text, orders)};
  const uint64_t key_range = customers + customers / 8 + 1;  // about 1 in 9 orders has no customer
  for (uint64_t r = 0; r < orders; ++r) {
    o.columns[0].ints[r] = int64_t(r + 1);
    o.columns[1].ints[r] = int64_t(rng() % key_range) + 1;
    o.columns[2].floats[r] = double(int64_t(rng() % 200001) - 50000) / 100.0;
    o.columns[3].ints[r] = int64_t(rng() % 50);
    o.columns[4].strings[r] = regions[rng() % 5];
    if (null_every && r % null_every == null_every - 1) {
      o.columns[2].nulls[r] = 1;
      o.columns[4].nulls[r] = 1;
    }
  }
  Table c;
  c.name = "customers";
  c.rows = customers;
  c.columns = {make("id", Type::Int, customers), make("name", Type::Text, customers), make("tier", Type::Text, customers)};
  for (uint64_t r = 0; r < customers; ++r) {
    c.columns[0].ints[r] = int64_t(r + 1);
    c.columns[1].strings[r] = "cust" + std::to_string(r + 1);
    c.columns[2].strings[r] = tiers[rng() % 3];
  }
  Database db;
  db.add(std::move(o));
  db.add(std::move(c));
  return db;
}

}  // namespace weft::db
