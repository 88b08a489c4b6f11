// The workloads this build registered (weft_add_workload() in their CMakeLists.txt): their
// commands for the command line and their conformance cases for the runner and the Python
// package. The table is generated (cmake/WeftWorkload.cmake); nothing here names a workload.
#pragma once

#include <string>
#include <vector>

#include "cli.h"
#include "conformance.h"

namespace weft::registry {

struct Workload {
  const char* name;                                // its folder, namespace and conformance group
  cli::Command (*command)();                       // `weft NAME`
  std::vector<conformance::Case> (*cases)();       // its conformance cases
  const KernelTable* kernels;                      // its embedded kernels, or nullptr
};
const std::vector<Workload>& workloads();

// Every registered command, in registration order.
const std::vector<cli::Command>& commands();
// The command called or aliased `name`, or nullptr.
const cli::Command* find_command(const std::string& name);

// The conformance groups: "engine" (the engine's own cases), then each workload's name.
std::vector<std::string> groups();
// The cases of one group (a workload's skipped on a device lacking what its kernels need), ending
// with the case that builds every kernel of its table; BadInput naming the groups when there is
// no such group.
std::vector<conformance::Case> cases_of(const std::string& group);
// Every case: the engine's, then each workload's in registration order.
const std::vector<conformance::Case>& all_cases();

}  // namespace weft::registry
