#include "harness.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include <weft/input_file.h>

namespace weft::db::tpch {

std::vector<QueryFile> load_queries(const std::string& dir) {
  std::vector<QueryFile> out;
  for (int i = 1; i <= 22; ++i) {
    char name[8];
    std::snprintf(name, sizeof(name), "q%02d", i);
    out.push_back({name, read_text_file(dir + "/" + name + ".sql", "cannot read the TPC-H query")});
  }
  return out;
}

const char* status_name(Status s) {
  switch (s) {
    case Status::Match: return "match";
    case Status::Refused: return "refused";
    case Status::Wrong: return "WRONG";
    case Status::PeerFailed: return "SQLITE FAILED";
  }
  return "?";
}

Outcome run_query(Device& device, Database& db, Sqlite& peer, const QueryFile& q) {
  Outcome o;
  o.name = q.name;
  ResultSet ref;
  try {
    ref = peer.query(q.sql);
  } catch (const Error& e) {
    o.status = Status::PeerFailed, o.message = e.what();
    return o;
  }
  o.rows = ref.rows.size();
  try {
    const Plan plan = prepare_sql(q.sql, db, device);
    DeviceQuery dq(device, db, plan);
    const std::string diff = compare_results(dq.run(), ref, !plan.order.empty(), kFloatRel);
    o.status = diff.empty() ? Status::Match : Status::Wrong;
    o.message = diff;
  } catch (const Error& e) {
    o.status = Status::Refused;
    o.message = std::string(code_name(e.code())) + ": " + e.message();
  }
  return o;
}

std::map<std::string, std::string> load_expected_refusals(const std::string& path) {
  std::map<std::string, std::string> out;
  std::istringstream in(read_text_file(path, "cannot read the expected-refusal list"));
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    const size_t space = line.find(' ');
    if (space == std::string::npos || space + 1 == line.size())
      fail(ErrorCode::BadInput, path + ":" + std::to_string(number) + ": expected 'qNN message-part'");
    if (!out.emplace(line.substr(0, space), line.substr(space + 1)).second)
      fail(ErrorCode::BadInput, path + ":" + std::to_string(number) + ": " + line.substr(0, space) + " is listed twice");
  }
  return out;
}

std::string judge(const Outcome& o, const std::map<std::string, std::string>& expected) {
  const auto it = expected.find(o.name);
  switch (o.status) {
    case Status::Match:
      return it == expected.end() ? "" : o.name + " now matches SQLite: take it off the expected-refusal list";
    case Status::Refused:
      if (it == expected.end()) return o.name + " is refused and not on the expected-refusal list: " + o.message;
      if (o.message.find(it->second) == std::string::npos)
        return o.name + " is refused with another message than listed ('" + it->second + "'): " + o.message;
      return "";
    case Status::Wrong: return o.name + " gives a wrong answer: " + o.message;
    case Status::PeerFailed: return o.name + ": SQLite rejects the query: " + o.message;
  }
  return "?";
}

std::string summary_table(const std::vector<Outcome>& outcomes) {
  size_t status_width = 6;
  for (const Outcome& o : outcomes) status_width = std::max(status_width, std::string(status_name(o.status)).size());
  std::ostringstream s;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%-5s | %7s | %-*s | ", "query", "rows", int(status_width), "status");
  s << buf << "message\n";
  for (const Outcome& o : outcomes) {
    std::snprintf(buf, sizeof(buf), "%-5s | %7zu | %-*s | ", o.name.c_str(), o.rows, int(status_width), status_name(o.status));
    s << buf << o.message << "\n";
  }
  return s.str();
}

}  // namespace weft::db::tpch
