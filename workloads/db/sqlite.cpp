// The SQLite peer: the same typed tables in an in-memory SQLite database (INTEGER, REAL, TEXT
// columns; NULLs as NULL), queried with the same SQL text.
#include <sqlite3.h>

#include <chrono>
#include <cmath>
#include <map>
#include <sstream>

#include "db.h"

namespace weft::db {

struct Sqlite::Impl {
  sqlite3* db = nullptr;
  std::chrono::steady_clock::time_point deadline;  // of the running query, when it has a limit
  bool timed_out = false;
  void exec(const std::string& sql) {
    char* msg = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &msg) != SQLITE_OK) {
      std::string m = msg ? msg : "?";
      sqlite3_free(msg);
      fail(ErrorCode::BadInput, "sqlite: " + m + " in: " + sql);
    }
  }
};

namespace {
std::string quote_ident(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"') o += '"';
    o += c;
  }
  return o + "\"";
}
}  // namespace

Sqlite::Sqlite(const Database& db) : impl_(std::make_unique<Impl>()) {
  if (sqlite3_open(":memory:", &impl_->db) != SQLITE_OK) fail(ErrorCode::OutOfMemory, "sqlite: cannot open a database");
  impl_->exec("BEGIN");
  for (const Table& t : db.tables()) {
    std::string create = "CREATE TABLE " + quote_ident(t.name) + " (", insert = "INSERT INTO " + quote_ident(t.name) + " VALUES (";
    for (size_t c = 0; c < t.columns.size(); ++c) {
      const char* ty = t.columns[c].type == Type::Int ? "INTEGER" : t.columns[c].type == Type::Float ? "REAL" : "TEXT";
      create += (c ? ", " : "") + quote_ident(t.columns[c].name) + " " + ty;
      insert += c ? ",?" : "?";
    }
    impl_->exec(create + ")");
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(impl_->db, (insert + ")").c_str(), -1, &st, nullptr);
    for (size_t r = 0; r < t.rows; ++r) {
      sqlite3_reset(st);
      for (size_t c = 0; c < t.columns.size(); ++c) {
        const Column& col = t.columns[c];
        const int i = int(c) + 1;
        if (col.nulls[r]) sqlite3_bind_null(st, i);
        else if (col.type == Type::Int) sqlite3_bind_int64(st, i, col.ints[r]);
        else if (col.type == Type::Float) sqlite3_bind_double(st, i, col.floats[r]);
        else {
          const std::string& text = db.decode(col.ints[r]);  // a .wdb table holds codes alone
          sqlite3_bind_text(st, i, text.data(), int(text.size()), SQLITE_TRANSIENT);
        }
      }
      if (sqlite3_step(st) != SQLITE_DONE) {
        sqlite3_finalize(st);
        fail(ErrorCode::BadInput, std::string("sqlite: insert failed: ") + sqlite3_errmsg(impl_->db));
      }
    }
    sqlite3_finalize(st);
  }
  impl_->exec("COMMIT");
}

Sqlite::~Sqlite() {
  if (impl_->db) sqlite3_close(impl_->db);
}

ResultSet Sqlite::query(const std::string& sql) {
  const auto t0 = std::chrono::steady_clock::now();
  impl_->timed_out = false;
  if (time_limit_seconds_ > 0) {
    impl_->deadline = t0 + std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(time_limit_seconds_));
    // Called every 1e5 VM steps; a nonzero return interrupts the running statement.
    auto past_deadline = [](void* p) -> int {
      auto* impl = static_cast<Impl*>(p);
      impl->timed_out = std::chrono::steady_clock::now() > impl->deadline;
      return impl->timed_out ? 1 : 0;
    };
    sqlite3_progress_handler(impl_->db, 100000, past_deadline, impl_.get());
  } else {
    sqlite3_progress_handler(impl_->db, 0, nullptr, nullptr);
  }
  sqlite3_stmt* st = nullptr;
  if (sqlite3_prepare_v2(impl_->db, sql.c_str(), -1, &st, nullptr) != SQLITE_OK)
    fail(ErrorCode::BadInput, std::string("sqlite: ") + sqlite3_errmsg(impl_->db));
  ResultSet rs;
  const int n = sqlite3_column_count(st);
  for (int c = 0; c < n; ++c) rs.names.push_back(sqlite3_column_name(st, c));
  int rc;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    Row row(static_cast<size_t>(n));
    for (int c = 0; c < n; ++c) {
      Value& v = row[size_t(c)];
      switch (sqlite3_column_type(st, c)) {
        case SQLITE_NULL: v.null = true; break;
        case SQLITE_INTEGER: v.null = false, v.type = Type::Int, v.i = sqlite3_column_int64(st, c); break;
        case SQLITE_FLOAT: v.null = false, v.type = Type::Float, v.f = sqlite3_column_double(st, c); break;
        default:
          v.null = false;
          v.type = Type::Text;
          v.s.assign(reinterpret_cast<const char*>(sqlite3_column_text(st, c)), size_t(sqlite3_column_bytes(st, c)));
      }
    }
    rs.rows.push_back(std::move(row));
  }
  const std::string err = rc == SQLITE_DONE ? "" : sqlite3_errmsg(impl_->db);
  sqlite3_finalize(st);
  if (impl_->timed_out)
    fail(ErrorCode::Timeout, "sqlite: the query ran past its time limit of " + format_real(time_limit_seconds_) + " s");
  if (!err.empty()) fail(ErrorCode::BadInput, "sqlite: " + err);
  last_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return rs;
}

namespace {

std::string show(const Value& v) {
  if (v.null) return "NULL";
  if (v.type == Type::Int) return std::to_string(v.i);
  if (v.type == Type::Float) return format_real(v.f) + "(real)";
  return "'" + v.s + "'";
}

std::string show(const Row& r) {
  std::string s = "(";
  for (size_t c = 0; c < r.size(); ++c) s += (c ? ", " : "") + show(r[c]);
  return s + ")";
}

// Same type always; Int and Text exact; NULL only equals NULL; Float within the relative bound.
bool same(const Value& a, const Value& b, double rel) {
  if (a.null || b.null) return a.null == b.null;
  if (a.type != b.type) return false;
  if (a.type == Type::Text) return a.s == b.s;
  if (a.type == Type::Int) return a.i == b.i;
  return a.f == b.f || std::fabs(a.f - b.f) <= rel * std::max({std::fabs(a.f), std::fabs(b.f), 1e-300});
}

bool same_row(const Row& a, const Row& b, double rel) {
  if (a.size() != b.size()) return false;
  for (size_t c = 0; c < a.size(); ++c)
    if (!same(a[c], b[c], rel)) return false;
  return true;
}

// A sort order over rows that keeps nearly-equal floats next to each other is not possible in
// general, so unordered rows are matched greedily after an exact sort on Int/Text/NULL columns
// and rounded floats.
std::string key_of(const Row& r) {
  std::ostringstream o;
  for (const Value& v : r) {
    if (v.null) o << "N|";
    else if (v.type == Type::Text) o << "T" << v.s.size() << ":" << v.s << "|";
    else {
      const double x = v.type == Type::Float ? v.f : double(v.i);
      char buf[40];
      std::snprintf(buf, sizeof(buf), "%.6e", x);
      o << "R" << buf << "|";
    }
  }
  return o.str();
}

}  // namespace

std::string compare_results(const ResultSet& dev, const ResultSet& ref, bool ordered, double rel) {
  if (dev.names.size() != ref.names.size())
    return "column count " + std::to_string(dev.names.size()) + " vs " + std::to_string(ref.names.size());
  if (dev.rows.size() != ref.rows.size())
    return "row count " + std::to_string(dev.rows.size()) + " vs SQLite " + std::to_string(ref.rows.size());
  if (ordered) {
    for (size_t r = 0; r < dev.rows.size(); ++r)
      if (!same_row(dev.rows[r], ref.rows[r], rel))
        return "row " + std::to_string(r) + ": " + show(dev.rows[r]) + " vs SQLite " + show(ref.rows[r]);
    return "";
  }
  std::multimap<std::string, const Row*> pool;
  for (const Row& r : ref.rows) pool.emplace(key_of(r), &r);
  for (const Row& d : dev.rows) {
    auto range = pool.equal_range(key_of(d));
    bool found = false;
    for (auto it = range.first; it != range.second; ++it)
      if (same_row(d, *it->second, rel)) {
        pool.erase(it);
        found = true;
        break;
      }
    if (!found) {
      // Rounding may put a float on the other side of a 7-digit boundary: search everything.
      for (auto it = pool.begin(); it != pool.end(); ++it)
        if (same_row(d, *it->second, rel)) {
          pool.erase(it);
          found = true;
          break;
        }
    }
    if (!found) return "device row " + show(d) + " is not in SQLite's result";
  }
  return "";
}

}  // namespace weft::db
