// The stage of an adapter kernel (shaders/): it passes a message from its instance's inbox (R31)
// to its outbox (R30) and honours a halted run, as every adapter between two workloads does.
// Internal to the compose workload.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <weft/weft.h>

#include "weft_compose_kernels.h"

namespace weft::compose {

inline StageSpec adapter_stage(std::string name, const char* kernel, InstanceId instance, std::vector<StageArg> args) {
  StageSpec s;
  s.name = std::move(name);
  s.kernel = weft_compose_kernels.get(kernel);
  s.instance = instance;
  s.args = std::move(args);
  s.message = true;
  s.honour_halt = true;
  return s;
}

}  // namespace weft::compose
