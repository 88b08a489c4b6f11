// Session: one database on one device for many statements, its base tables resident and its
// queries' programs cached by text.
#include <chrono>

#include "db.h"

namespace weft::db {

namespace {

// Programs kept for replay. Each holds its own buffers (its intermediate rows: up to the whole
// storage-buffer window), so the cache is bounded in bytes as well as in entries.
constexpr size_t kCachedQueries = 32;
constexpr uint64_t kCachedBytes = uint64_t(1) << 30;

uint64_t program_bytes(DeviceQuery& q) {
  const Program& p = q.executable().program();
  return p.globals().size() + p.heap().size() + p.registers_bytes() + p.metrics_bytes() + p.control_bytes();
}

double ms_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

// A query's program, valid while the dictionary and the tables are those it was built on.
struct Session::Cached {
  std::string sql;
  uint64_t encoding_generation = 0, tables_version = 0;
  uint64_t bytes = 0;  // of the program's buffers (far segments not counted: the resident ones are shared)
  std::unique_ptr<DeviceQuery> query;
};

Session::Session(Device& device, Database db, QueryOptions options) : device_(device), db_(std::move(db)), options_(options) {
  require_features(device);
  options_.resident = nullptr;
  if (device.info().buffer_device_address) {
    resident_ = std::make_unique<ResidentTables>(device);
    for (const Table& t : db_.tables()) resident_->hold(t.name);
    options_.resident = resident_.get();
  }
}

Session::~Session() = default;

void Session::add_table(Table table) {
  const std::string name = table.name;
  db_.add(std::move(table));
  if (resident_) resident_->hold(name);
  ++tables_version_;
  cache_.clear();
}

size_t Session::cached_queries() const { return cache_.size(); }

// The cached program of `sql` when it is still valid (moved to the back: most recently used);
// stale entries go.
DeviceQuery* Session::find_cached(const std::string& sql) {
  std::erase_if(cache_, [&](const std::unique_ptr<Cached>& c) {
    return c->encoding_generation != db_.encoding_generation() || c->tables_version != tables_version_;
  });
  for (size_t i = 0; i < cache_.size(); ++i)
    if (cache_[i]->sql == sql) {
      std::unique_ptr<Cached> hit = std::move(cache_[i]);
      cache_.erase(cache_.begin() + std::ptrdiff_t(i));
      cache_.push_back(std::move(hit));
      return cache_.back()->query.get();
    }
  return nullptr;
}

ResultSet Session::query(const std::string& sql) {
  last_ = {};
  if (is_modification(sql)) return modify_table(sql);
  const uint64_t resident_before = resident_ ? resident_->uploaded_bytes() : 0;
  const size_t base_tables = db_.tables().size();
  std::unique_ptr<DeviceQuery> fresh;
  DeviceQuery* q = find_cached(sql);
  last_.cached = q != nullptr;
  if (!q) {
    auto t = std::chrono::steady_clock::now();
    Plan plan = prepare(sql, base_tables);
    last_.plan_ms = ms_since(t);
    t = std::chrono::steady_clock::now();
    fresh = std::make_unique<DeviceQuery>(device_, db_, std::move(plan), options_);
    last_.build_ms = ms_since(t);
    q = fresh.get();
  }
  const auto t = std::chrono::steady_clock::now();
  ResultSet rs = q->run();
  last_.run_ms = ms_since(t);
  const QueryStats stats = q->stats();
  last_.gpu_ms = stats.gpu_ns / 1e6;
  last_.uploaded_bytes = (resident_ ? resident_->uploaded_bytes() - resident_before : 0) + (fresh ? stats.uploaded_bytes : 0);
  if (fresh && db_.tables().size() == base_tables) {
    const uint64_t bytes = program_bytes(*fresh);
    cache_.push_back(std::make_unique<Cached>(Cached{sql, db_.encoding_generation(), tables_version_, bytes, std::move(fresh)}));
    uint64_t total = 0;
    for (const auto& c : cache_) total += c->bytes;
    while (cache_.size() > 1 && (cache_.size() > kCachedQueries || total > kCachedBytes)) {
      total -= cache_.front()->bytes;
      cache_.erase(cache_.begin());
    }
  } else if (fresh) {
    fresh.reset();  // it reads the derived tables, which go now
    db_.remove_tables_from(base_tables);
  }
  return rs;
}

// INSERT / UPDATE / DELETE (modify.cpp): the table's resident copy is uploaded again before the
// next query (and every Text column when the dictionary moved), and the cached programs go.
ResultSet Session::modify_table(const std::string& sql) {
  const uint64_t resident_before = resident_ ? resident_->uploaded_bytes() : 0;
  const auto t = std::chrono::steady_clock::now();
  const Modification m = modify(sql, db_, device_);
  last_.run_ms = ms_since(t);
  last_.rows_affected = m.rows_affected;
  if (resident_) resident_->invalidate(db_.table(m.table).name);
  ++tables_version_;
  cache_.clear();
  last_.uploaded_bytes = resident_ ? resident_->uploaded_bytes() - resident_before : 0;
  return {};
}

// Plans `sql`: the derived tables planning adds stay for the caller to drop, unless it fails.
Plan Session::prepare(const std::string& sql, size_t base_tables) {
  try {
    return prepare_sql(sql, db_, device_, options_);
  } catch (...) {
    db_.remove_tables_from(base_tables);
    throw;
  }
}

Plan Session::explain(const std::string& sql) {
  const size_t base_tables = db_.tables().size();
  Plan plan = prepare(sql, base_tables);
  db_.remove_tables_from(base_tables);
  return plan;
}

}  // namespace weft::db
