// The workload registry: every workload that registers itself (weft_add_workload) brings a
// command users can run and conformance cases the suite runs, and names do not collide.
#include <set>

#include "registry.h"
#include "support.h"

using namespace weft;

TEST_CASE("every registered workload has a command with usage and at least one conformance case") {
  REQUIRE(!registry::workloads().empty());
  for (const registry::Workload& w : registry::workloads()) {
    INFO("workload " << w.name);
    const cli::Command c = w.command();
    CHECK((bool(c.run) || !c.verbs.empty()));
    for (const cli::Verb& v : c.verbs) CHECK(bool(v.run));
    if (!c.verbs.empty()) CHECK(!c.help.empty());
    CHECK(!c.name.empty());
    CHECK(!c.usage.empty());
    CHECK(registry::find_command(c.name) != nullptr);
    CHECK(!w.cases().empty());
  }
}

TEST_CASE("a workload's conformance cases are named after it") {
  for (const registry::Workload& w : registry::workloads())
    for (const conformance::Case& c : w.cases()) {
      INFO("case " << c.name);
      CHECK(c.name.rfind(std::string(w.name) + ".", 0) == 0);
    }
}

TEST_CASE("command names, aliases and case names are unique") {
  std::set<std::string> names;
  for (const cli::Command& c : registry::commands()) {
    CHECK(names.insert(c.name).second);
    for (const std::string& a : c.aliases) CHECK(names.insert(a).second);
  }
  std::set<std::string> cases;
  for (const conformance::Case& c : registry::all_cases()) CHECK_MESSAGE(cases.insert(c.name).second, c.name);
}
