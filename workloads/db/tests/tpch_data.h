// The SF 0.01 TPC-H tables the TPC-H tests share, generated into the build tree when a test first
// asks (never committed).
#pragma once

#include <map>
#include <string>

#include "generator.h"

namespace weft::db::test {

// Generated once per seed into the build tree (never committed).
inline std::string tpch_data(uint64_t seed, const std::string& tag = "") {
  const std::string dir = std::string(WEFT_DB_TPCH_DIR) + "/sf0.01-seed" + std::to_string(seed) + tag;
  static std::map<std::string, bool> made;
  if (!made[dir]) {
    tpch::Options o;
    o.seed = seed;
    tpch::generate(o, dir);
    made[dir] = true;
  }
  return dir;
}

}  // namespace weft::db::test
