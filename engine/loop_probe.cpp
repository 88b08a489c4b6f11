// Device::loop_iteration_limit: one invocation asked for 2^20 iterations counts how many ran;
// Device::require_loop_steps checks a kernel's loop steps against it.
#include "device.h"
#include "engine_kernels.h"
#include "executable.h"
#include "weft_engine_args.h"

namespace weft {

uint32_t loop_iterations_run(Device& device, uint32_t asked) {
  Program p("loop_probe");
  p.globals().add("ran", 4);
  StageSpec s;
  s.name = "loop_probe";
  s.kernel = engine_kernel("loop_probe");
  s.instance = p.add_instance("probe", 1);
  s.args = LoopProbeArgs{.iterations = asked, .ran = p.segment(Binding::Globals, "ran")}.bind();
  p.add_stage(s);
  Executable exe(device, std::move(p));
  exe.run();
  return exe.read_segment<uint32_t>(Binding::Globals, "ran")[0];
}

uint32_t Device::loop_iteration_limit() {
  std::lock_guard lock(probe_mutex_);
  if (loop_iteration_limit_) return *loop_iteration_limit_;
  constexpr uint32_t kAsked = 1u << 20;
  const uint32_t ran = loop_iterations_run(*this, kAsked);
  loop_iteration_limit_ = ran < kAsked ? ran : UINT32_MAX;
  return *loop_iteration_limit_;
}

void Device::require_loop_steps(uint64_t steps, const std::string& what, const std::string& hint) {
  const uint32_t limit = loop_iteration_limit();
  if (steps <= limit) return;
  fail(ErrorCode::MissingFeature, what + " needs " + std::to_string(steps) + " loop steps in one invocation; device '" + info_.name +
                                      "' stops a kernel's loops after " + std::to_string(limit) + " iterations" +
                                      (hint.empty() ? std::string() : " (" + hint + ")"));
}

}  // namespace weft
