#include "generator.h"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <weft/weft.h>

#include "date.h"
#include "words.h"

namespace weft::db::tpch {

namespace {

// ---- random values ---------------------------------------------------------------------------

// splitmix64: a counter-based generator, so every row has a stream of its own.
uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

enum Stream : uint64_t { kRegion = 1, kNation, kSupplier, kCustomer, kPart, kPartsupp, kOrders, kSupplierComplaints };

class Rng {
 public:
  Rng(uint64_t seed, Stream stream, uint64_t row) : state_(mix(mix(seed ^ (uint64_t(stream) << 56)) + row)) {}
  int64_t uniform(int64_t lo, int64_t hi) {  // inclusive; the modulo bias is below 2^-40 here
    state_ += 0x9e3779b97f4a7c15ull;
    return lo + int64_t(mix(state_) % uint64_t(hi - lo + 1));
  }
  template <size_t N>
  const char* pick(const char* const (&list)[N]) {
    return list[uniform(0, int64_t(N) - 1)];
  }

 private:
  uint64_t state_;
};

// ---- dates -----------------------------------------------------------------------------------

// Day 0 is 1992-01-01 (STARTDATE); ENDDATE is 1998-12-31 and CURRENTDATE 1995-06-17.
constexpr int64_t kEndDay = 2556;
constexpr int64_t kCurrentDay = 1263;
constexpr int64_t kLastOrderDay = kEndDay - 151;
constexpr int64_t kLastDay = kLastOrderDay + 121 + 30;  // the latest receipt date

// The date strings of days 0..kLastDay, folded once by the query dialect's own date().
const std::vector<std::string>& date_strings() {
  static const std::vector<std::string> dates = [] {
    std::vector<std::string> d;
    for (int64_t day = 0; day <= kLastDay; ++day) {
      std::string days = std::to_string(day);
      d.push_back(fold_date({"1992-01-01", days.insert(0, 1, '+').append(" days")}).date);
    }
    return d;
  }();
  return dates;
}

// ---- CSV output ------------------------------------------------------------------------------

class CsvFile {
 public:
  CsvFile(const std::string& path, const std::vector<SchemaColumn>& columns) : path_(path), file_(std::fopen(path.c_str(), "wb")) {
    if (!file_) fail(ErrorCode::BadInput, "tpch: cannot write '" + path + "'");
    for (const SchemaColumn& c : columns) text(c.name);
    end_row();
    rows_ = 0;
  }
  ~CsvFile() {
    if (file_) std::fclose(file_);
  }
  void integer(int64_t v) { field(std::to_string(v)); }
  // Hundredths written exactly: -12345 -> -123.45.
  void cents(int64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%s%lld.%02lld", v < 0 ? "-" : "", (long long)(std::llabs(v) / 100), (long long)(std::llabs(v) % 100));
    field(buf);
  }
  // Quoted when the field holds a comma, a quote, a line break or an edge space (RFC 4180).
  void text(const std::string& v) {
    const bool quote = v.empty() || v.find_first_of(",\"\r\n") != std::string::npos || v.front() == ' ' || v.back() == ' ';
    if (!quote) return field(v);
    std::string q = "\"";
    for (char c : v) q += c == '"' ? std::string("\"\"") : std::string(1, c);
    field(q + "\"");
  }
  void end_row() {
    buffer_ += '\n';
    first_ = true;
    ++rows_;
    if (buffer_.size() > (1u << 20)) flush();
  }
  uint64_t close() {
    flush();
    const bool ok = std::fclose(file_) == 0;
    file_ = nullptr;
    if (!ok) fail(ErrorCode::BadInput, "tpch: cannot write '" + path_ + "'");
    return rows_;
  }

 private:
  void field(const std::string& v) {
    if (!first_) buffer_ += ',';
    buffer_ += v;
    first_ = false;
  }
  void flush() {
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) fail(ErrorCode::BadInput, "tpch: cannot write '" + path_ + "'");
    buffer_.clear();
  }
  std::string path_;
  FILE* file_;
  std::string buffer_;
  bool first_ = true;
  uint64_t rows_ = 0;
};

// ---- text ------------------------------------------------------------------------------------

std::string noun_phrase(Rng& r) {
  switch (r.uniform(0, 3)) {
    case 0: return r.pick(words::kNouns);
    case 1: return std::string(r.pick(words::kAdjectives)) + " " + r.pick(words::kNouns);
    case 2: return std::string(r.pick(words::kAdjectives)) + ", " + r.pick(words::kAdjectives) + " " + r.pick(words::kNouns);
    default: return std::string(r.pick(words::kAdverbs)) + " " + r.pick(words::kAdjectives) + " " + r.pick(words::kNouns);
  }
}

std::string verb_phrase(Rng& r) {
  switch (r.uniform(0, 3)) {
    case 0: return r.pick(words::kVerbs);
    case 1: return std::string(r.pick(words::kAuxiliaries)) + " " + r.pick(words::kVerbs);
    case 2: return std::string(r.pick(words::kVerbs)) + " " + r.pick(words::kAdverbs);
    default: return std::string(r.pick(words::kAuxiliaries)) + " " + r.pick(words::kVerbs) + " " + r.pick(words::kAdverbs);
  }
}

std::string sentence(Rng& r) {
  std::string s = noun_phrase(r) + " " + verb_phrase(r);
  if (r.uniform(0, 1)) s += std::string(" ") + r.pick(words::kPrepositions) + " the " + noun_phrase(r);
  return s + r.pick(words::kTerminators);
}

// Sentences cut to a length drawn from [lo, hi]; a cut that ends on a space ends on a period instead
// (an edge space would need quoting and reads as a different length).
std::string text(Rng& r, int64_t lo, int64_t hi) {
  const size_t n = size_t(r.uniform(lo, hi));
  std::string s;
  while (s.size() < n) {
    if (!s.empty()) s += ' ';
    s += sentence(r);
  }
  s.resize(n);
  if (s.back() == ' ') s.back() = '.';
  return s;
}

// The specification's v-string: random characters, length from [lo, hi].
std::string vstring(Rng& r, int64_t lo, int64_t hi) {
  static const char kChars[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ,. ";
  std::string s(size_t(r.uniform(lo, hi)), ' ');
  for (char& c : s) c = kChars[r.uniform(0, int64_t(sizeof(kChars)) - 2)];
  if (s.front() == ' ') s.front() = 'a';
  if (s.back() == ' ') s.back() = 'z';
  return s;
}

std::string numbered(const char* prefix, int64_t n) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%s%09lld", prefix, (long long)n);
  return buf;
}

// Country code nationkey + 10, then three local parts: "CC-LLL-LLL-LLLL".
std::string phone(Rng& r, int64_t nationkey) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%02lld-%03lld-%03lld-%04lld", (long long)(nationkey + 10), (long long)r.uniform(100, 999),
                (long long)r.uniform(100, 999), (long long)r.uniform(1000, 9999));
  return buf;
}

// ---- scale -----------------------------------------------------------------------------------

int64_t scaled(double scale, double base) { return std::llround(scale * base); }

struct Counts {
  int64_t suppliers, customers, parts, orders, clerks;
  explicit Counts(double scale)
      : suppliers(scaled(scale, 10000)), customers(scaled(scale, 150000)), parts(scaled(scale, 200000)),
        orders(scaled(scale, 1500000)), clerks(std::max<int64_t>(1, scaled(scale, 1000))) {}
};

// Supplier i (0..3) of a part: the specification's formula.
int64_t part_supplier(int64_t partkey, int64_t i, int64_t suppliers) {
  return (partkey + i * (suppliers / 4 + (partkey - 1) / suppliers)) % suppliers + 1;
}

// Retail price in cents: (90000 + ((partkey / 10) mod 20001) + 100 (partkey mod 1000)) / 100.
int64_t retail_cents(int64_t partkey) { return 90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000); }

// ---- tables ----------------------------------------------------------------------------------

uint64_t write_region(const Options& o, const std::string& path) {
  CsvFile f(path, schema("region"));
  for (int64_t k = 0; k < 5; ++k) {
    Rng r(o.seed, kRegion, uint64_t(k));
    f.integer(k), f.text(words::kRegions[k]), f.text(text(r, 31, 115)), f.end_row();
  }
  return f.close();
}

uint64_t write_nation(const Options& o, const std::string& path) {
  CsvFile f(path, schema("nation"));
  for (int64_t k = 0; k < 25; ++k) {
    Rng r(o.seed, kNation, uint64_t(k));
    f.integer(k), f.text(words::kNations[k].name), f.integer(words::kNations[k].region), f.text(text(r, 31, 114)), f.end_row();
  }
  return f.close();
}

// The specification puts "Customer ... Complaints" into SF * 5 supplier comments and
// "Customer ... Recommends" into as many others; here at least one each (Q16 reads them), chosen
// by selection sampling in key order so the file streams.
class SupplierRemarks {
 public:
  SupplierRemarks(const Options& o, int64_t suppliers)
      : rng_(o.seed, kSupplierComplaints, 0), left_(suppliers), each_(std::max<int64_t>(1, scaled(o.scale, 5))) {
    need_[0] = need_[1] = std::min(each_, suppliers / 2);
  }
  // "" for most suppliers, else "Complaints" or "Recommends" (called once per supplier, in order).
  const char* next() {
    const int64_t need = need_[0] + need_[1];
    const bool chosen = rng_.uniform(0, left_ - 1) < need;
    --left_;
    if (!chosen) return "";
    const int kind = rng_.uniform(0, need - 1) < need_[0] ? 0 : 1;
    --need_[kind];
    return kind == 0 ? "Complaints" : "Recommends";
  }

 private:
  Rng rng_;
  int64_t left_, each_;
  int64_t need_[2];
};

std::string supplier_comment(Rng& r, const char* remark) {
  std::string s = text(r, 25, 100);
  if (!*remark) return s;
  // "Customer", some text, the remark, inside the comment's length.
  const std::string inner = "Customer " + text(r, 1, 20) + " " + remark;
  const size_t at = size_t(r.uniform(0, int64_t(s.size() > inner.size() ? s.size() - inner.size() : 0)));
  s = s.substr(0, at) + inner + (at + inner.size() < s.size() ? s.substr(at + inner.size()) : "");
  return s;
}

uint64_t write_supplier(const Options& o, const std::string& path) {
  const Counts n(o.scale);
  CsvFile f(path, schema("supplier"));
  SupplierRemarks remarks(o, n.suppliers);
  for (int64_t k = 1; k <= n.suppliers; ++k) {
    Rng r(o.seed, kSupplier, uint64_t(k));
    const int64_t nation = r.uniform(0, 24);
    f.integer(k), f.text(numbered("Supplier#", k)), f.text(vstring(r, 10, 40)), f.integer(nation), f.text(phone(r, nation));
    f.cents(r.uniform(-99999, 999999)), f.text(supplier_comment(r, remarks.next())), f.end_row();
  }
  return f.close();
}

uint64_t write_customer(const Options& o, const std::string& path) {
  const Counts n(o.scale);
  CsvFile f(path, schema("customer"));
  for (int64_t k = 1; k <= n.customers; ++k) {
    Rng r(o.seed, kCustomer, uint64_t(k));
    const int64_t nation = r.uniform(0, 24);
    f.integer(k), f.text(numbered("Customer#", k)), f.text(vstring(r, 10, 40)), f.integer(nation), f.text(phone(r, nation));
    f.cents(r.uniform(-99999, 999999)), f.text(r.pick(words::kSegments)), f.text(text(r, 29, 116)), f.end_row();
  }
  return f.close();
}

// Five distinct colour words.
std::string part_name(Rng& r) {
  int picked[5];
  std::string s;
  for (int i = 0; i < 5; ++i) {
    bool again = true;
    while (again) {
      picked[i] = int(r.uniform(0, int64_t(std::size(words::kColors)) - 1));
      again = false;
      for (int j = 0; j < i; ++j) again |= picked[j] == picked[i];
    }
    if (i) s += ' ';
    s += words::kColors[picked[i]];
  }
  return s;
}

void write_part_row(CsvFile& f, Rng& r, int64_t k) {
  const int64_t mfgr = r.uniform(1, 5);
  f.integer(k), f.text(part_name(r)), f.text("Manufacturer#" + std::to_string(mfgr));
  f.text("Brand#" + std::to_string(mfgr) + std::to_string(r.uniform(1, 5)));
  f.text(std::string(r.pick(words::kTypeSizes)) + " " + r.pick(words::kTypeFinishes) + " " + r.pick(words::kTypeMetals));
  f.integer(r.uniform(1, 50));
  f.text(std::string(r.pick(words::kContainerSizes)) + " " + r.pick(words::kContainerKinds));
  f.cents(retail_cents(k)), f.text(text(r, 5, 22)), f.end_row();
}

uint64_t write_part(const Options& o, const std::string& path) {
  const Counts n(o.scale);
  CsvFile f(path, schema("part"));
  for (int64_t k = 1; k <= n.parts; ++k) {
    Rng r(o.seed, kPart, uint64_t(k));
    write_part_row(f, r, k);
  }
  return f.close();
}

uint64_t write_partsupp(const Options& o, const std::string& path) {
  const Counts n(o.scale);
  CsvFile f(path, schema("partsupp"));
  for (int64_t k = 1; k <= n.parts; ++k) {
    Rng r(o.seed, kPartsupp, uint64_t(k));
    for (int64_t i = 0; i < 4; ++i) {
      f.integer(k), f.integer(part_supplier(k, i, n.suppliers)), f.integer(r.uniform(1, 9999));
      f.cents(r.uniform(100, 100000)), f.text(text(r, 49, 198)), f.end_row();
    }
  }
  return f.close();
}

// Orders use the first 8 keys of every 32 (sparse keys).
int64_t order_key(int64_t index) { return index / 8 * 32 + index % 8 + 1; }

// Customers whose key is a multiple of 3 place no orders: the j-th key that is not.
int64_t order_customer(Rng& r, int64_t customers) {
  const int64_t j = r.uniform(0, customers - customers / 3 - 1);
  return j / 2 * 3 + j % 2 + 1;
}

struct Line {
  int64_t ship, commit, receipt, extended_cents, discount, tax;
  bool open;
};

// One line item of an order placed on day `ordered`; returns what the order's row needs.
Line write_line(CsvFile& f, Rng& r, int64_t orderkey, int64_t number, int64_t ordered, const Counts& n) {
  const auto& dates = date_strings();
  const int64_t part = r.uniform(1, n.parts), supplier = part_supplier(part, r.uniform(0, 3), n.suppliers);
  const int64_t quantity = r.uniform(1, 50);
  Line l{};
  l.extended_cents = quantity * retail_cents(part);
  l.discount = r.uniform(0, 10), l.tax = r.uniform(0, 8);
  l.ship = ordered + r.uniform(1, 121), l.commit = ordered + r.uniform(30, 90), l.receipt = l.ship + r.uniform(1, 30);
  l.open = l.ship > kCurrentDay;
  const char* flag = l.receipt <= kCurrentDay ? (r.uniform(0, 1) ? "R" : "A") : "N";
  f.integer(orderkey), f.integer(part), f.integer(supplier), f.integer(number), f.cents(quantity * 100);
  f.cents(l.extended_cents), f.cents(l.discount), f.cents(l.tax), f.text(flag), f.text(l.open ? "O" : "F");
  f.text(dates[size_t(l.ship)]), f.text(dates[size_t(l.commit)]), f.text(dates[size_t(l.receipt)]);
  f.text(r.pick(words::kInstructions)), f.text(r.pick(words::kShipModes)), f.text(text(r, 10, 43)), f.end_row();
  return l;
}

// extendedprice * (1 + tax) * (1 - discount) in cents, rounded half up.
int64_t charge_cents(const Line& l) { return (l.extended_cents * (100 + l.tax) * (100 - l.discount) + 5000) / 10000; }

void write_order(CsvFile& orders, CsvFile& lines, const Options& o, const Counts& n, int64_t index) {
  Rng r(o.seed, kOrders, uint64_t(index));
  const int64_t key = order_key(index), customer = order_customer(r, n.customers), ordered = r.uniform(0, kLastOrderDay);
  const int64_t count = r.uniform(1, 7);
  int64_t total = 0, open = 0;
  for (int64_t i = 1; i <= count; ++i) {
    const Line l = write_line(lines, r, key, i, ordered, n);
    total += charge_cents(l);
    open += l.open;
  }
  const char* status = open == count ? "O" : open == 0 ? "F" : "P";
  orders.integer(key), orders.integer(customer), orders.text(status), orders.cents(total), orders.text(date_strings()[size_t(ordered)]);
  orders.text(r.pick(words::kPriorities)), orders.text(numbered("Clerk#", r.uniform(1, n.clerks))), orders.integer(0);
  orders.text(text(r, 19, 78)), orders.end_row();
}

std::pair<uint64_t, uint64_t> write_orders(const Options& o, const std::string& orders_path, const std::string& lines_path) {
  const Counts n(o.scale);
  CsvFile orders(orders_path, schema("orders")), lines(lines_path, schema("lineitem"));
  for (int64_t i = 0; i < n.orders; ++i) write_order(orders, lines, o, n, i);
  const uint64_t order_rows = orders.close();
  return {order_rows, lines.close()};
}

SchemaColumn col(const char* name, Type t) { return {name, t}; }

}  // namespace

const std::vector<std::string>& table_names() {
  static const std::vector<std::string> names = {"region", "nation", "supplier", "customer", "part", "partsupp", "orders", "lineitem"};
  return names;
}

std::vector<SchemaColumn> schema(const std::string& table) {
  const Type I = Type::Int, F = Type::Float, T = Type::Text;
  if (table == "region") return {col("r_regionkey", I), col("r_name", T), col("r_comment", T)};
  if (table == "nation") return {col("n_nationkey", I), col("n_name", T), col("n_regionkey", I), col("n_comment", T)};
  if (table == "supplier")
    return {col("s_suppkey", I), col("s_name", T), col("s_address", T), col("s_nationkey", I), col("s_phone", T), col("s_acctbal", F), col("s_comment", T)};
  if (table == "customer")
    return {col("c_custkey", I), col("c_name", T),      col("c_address", T),    col("c_nationkey", I),
            col("c_phone", T),   col("c_acctbal", F),   col("c_mktsegment", T), col("c_comment", T)};
  if (table == "part")
    return {col("p_partkey", I), col("p_name", T),      col("p_mfgr", T),          col("p_brand", T),  col("p_type", T),
            col("p_size", I),    col("p_container", T), col("p_retailprice", F), col("p_comment", T)};
  if (table == "partsupp")
    return {col("ps_partkey", I), col("ps_suppkey", I), col("ps_availqty", I), col("ps_supplycost", F), col("ps_comment", T)};
  if (table == "orders")
    return {col("o_orderkey", I),      col("o_custkey", I), col("o_orderstatus", T),  col("o_totalprice", F), col("o_orderdate", T),
            col("o_orderpriority", T), col("o_clerk", T),   col("o_shippriority", I), col("o_comment", T)};
  if (table == "lineitem")
    return {col("l_orderkey", I),   col("l_partkey", I),     col("l_suppkey", I),      col("l_linenumber", I),
            col("l_quantity", F),   col("l_extendedprice", F), col("l_discount", F),   col("l_tax", F),
            col("l_returnflag", T), col("l_linestatus", T),  col("l_shipdate", T),     col("l_commitdate", T),
            col("l_receiptdate", T), col("l_shipinstruct", T), col("l_shipmode", T),  col("l_comment", T)};
  fail(ErrorCode::BadInput, "tpch: no table '" + table + "' (region, nation, supplier, customer, part, partsupp, orders, lineitem)");
}

uint64_t rows(const std::string& table, double scale) {
  check_scale(scale);
  const Counts n(scale);
  if (table == "region") return 5;
  if (table == "nation") return 25;
  if (table == "supplier") return uint64_t(n.suppliers);
  if (table == "customer") return uint64_t(n.customers);
  if (table == "part") return uint64_t(n.parts);
  if (table == "partsupp") return uint64_t(4 * n.parts);
  if (table == "orders") return uint64_t(n.orders);
  if (table == "lineitem") fail(ErrorCode::BadInput, "tpch: lineitem has 1 to 7 rows per order, no fixed count");
  schema(table);  // refuses the name
  return 0;
}

void check_scale(double scale) {
  char shown[32];
  std::snprintf(shown, sizeof(shown), "%g", scale);
  if (!(scale >= kMinScale && scale <= kMaxScale)) fail(ErrorCode::BadInput, std::string("tpch: scale factor ") + shown + " is outside 0.01 .. 10");
  const Counts n(scale);
  const int64_t top_step = n.suppliers / 4 + (n.parts - 1) / n.suppliers;
  for (int64_t step = n.suppliers / 4; step <= top_step; ++step)
    for (int64_t apart = 1; apart <= 3; ++apart)
      if (apart * step % n.suppliers == 0)
        fail(ErrorCode::BadInput, std::string("tpch: scale factor ") + shown + " gives " + std::to_string(n.suppliers) +
                                      " suppliers, for which the partsupp formula repeats a supplier of a part (use a multiple of 0.01)");
}

std::vector<Written> generate(const Options& o, const std::string& dir) {
  check_scale(o.scale);
  // The folder is made as `mkdir -p` would, so a fresh clone's first command works.
  std::error_code made;
  std::filesystem::create_directories(dir, made);
  if (made) fail(ErrorCode::BadInput, "tpch: cannot make the folder '" + dir + "': " + made.message());
  auto path = [&](const std::string& t) { return dir + "/" + t + ".csv"; };
  std::vector<Written> out;
  out.push_back({"region", path("region"), write_region(o, path("region"))});
  out.push_back({"nation", path("nation"), write_nation(o, path("nation"))});
  out.push_back({"supplier", path("supplier"), write_supplier(o, path("supplier"))});
  out.push_back({"customer", path("customer"), write_customer(o, path("customer"))});
  out.push_back({"part", path("part"), write_part(o, path("part"))});
  out.push_back({"partsupp", path("partsupp"), write_partsupp(o, path("partsupp"))});
  const auto [orders, lines] = write_orders(o, path("orders"), path("lineitem"));
  out.push_back({"orders", path("orders"), orders});
  out.push_back({"lineitem", path("lineitem"), lines});
  return out;
}

Database load(const std::string& dir) {
  Database db;
  for (const std::string& t : table_names()) db.add(load_csv_file(dir + "/" + t + ".csv", t, schema(t)));
  return db;
}

}  // namespace weft::db::tpch
