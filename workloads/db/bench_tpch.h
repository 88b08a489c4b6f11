// weft bench db --tpch DIR: the 22 TPC-H queries on tables loaded once, timed on the device
// (Weft), in SQLite (the in-memory peer over the same typed tables) and in DuckDB (a node peer,
// peers/duckdb_tpch.mjs, when `@duckdb/node-api` is installed), one JSON line per query.
#pragma once

#include <string>

#include <weft/weft.h>

#include "db.h"

namespace weft::cli {
struct Args;
}

namespace weft::db {

// The `n` most expensive kinds of stage of the query's last run, "kind 1.23 ms, ...": where its
// GPU time went.
std::string top_stage_kinds(DeviceQuery& query, size_t n);

// The TPC-H mode of `weft bench db` (options: tpch, queries, query-dir, runs, max-query-s,
// device, validation). Returns the exit code.
int bench_tpch(const cli::Args& args);

}  // namespace weft::db
