#include "registry.h"

namespace weft::registry {

const std::vector<cli::Command>& commands() {
  static const std::vector<cli::Command> all = [] {
    std::vector<cli::Command> out;
    for (const Workload& w : workloads()) out.push_back(w.command());
    return out;
  }();
  return all;
}

const cli::Command* find_command(const std::string& name) {
  for (const cli::Command& c : commands()) {
    if (c.name == name) return &c;
    for (const std::string& alias : c.aliases)
      if (alias == name) return &c;
  }
  return nullptr;
}

std::vector<std::string> groups() {
  std::vector<std::string> out = {"engine"};
  for (const Workload& w : workloads()) out.push_back(w.name);
  return out;
}

std::vector<conformance::Case> cases_of(const std::string& group) {
  if (group == "engine") return conformance::engine_suite();
  for (const Workload& w : workloads()) {
    if (group != w.name) continue;
    return w.kernels ? conformance::workload_group(w.name, w.cases(), *w.kernels) : w.cases();
  }
  std::string known;
  for (const std::string& g : groups()) known += (known.empty() ? "" : ", ") + g;
  fail(ErrorCode::BadInput, "no conformance group '" + group + "' (groups: " + known + ")");
}

const std::vector<conformance::Case>& all_cases() {
  static const std::vector<conformance::Case> all = [] {
    std::vector<conformance::Case> out;
    for (const std::string& g : groups())
      for (conformance::Case& c : cases_of(g)) out.push_back(std::move(c));
    return out;
  }();
  return all;
}

}  // namespace weft::registry
