// Foreign stages: a stage that records another library's commands (an FFT library's dispatches,
// a copy, a fill) into Weft's command buffer instead of dispatching a Weft kernel.
//
// The stage declares what it reads and writes as ordinary Ranges, so the barrier planner orders
// it against kernel stages like any other stage. When an Executable is built, `prepare` is called
// once with the VkBuffer, byte offset and size of each declared range; the ForeignCommands it
// returns live as long as the Executable (destroyed before it, and so before the Device) and
// record their commands each time the program is recorded. The next kernel stage after them
// binds Weft's descriptor set and pipeline again, so the library may bind whatever it likes
// (push constants are pushed for every kernel stage anyway).
//
// Limits, each refused when the stage is added (InvalidProgram naming the stage):
//  - No far segments: a far segment may be split over several allocations, so it has no single
//    VkBuffer + offset to hand out.
//  - No kernel arguments, `message`, `honour_halt` or indirect slot: those are Weft kernel
//    conventions a foreign library cannot follow.
// Cancel (Executable::cancel) zeroes the dispatch table that kernel stages dispatch from; a
// foreign stage records its own commands, so it runs whole in a cancelled run, and the
// cancellation takes effect at the next kernel stage. The run is still reported Cancelled.
// Timestamps: a foreign stage gets its timestamp after its commands like any stage, so
// Timings::stage_ns times it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "vk.h"

namespace weft {

class Device;

// Where one declared range lives: bytes [offset, offset + size) of `buffer`, whose whole size is
// `buffer_size` (what a library that binds the buffer itself needs to know).
struct BufferSpan {
  VkBuffer buffer = VK_NULL_HANDLE;
  uint64_t offset = 0;
  uint64_t size = 0;
  uint64_t buffer_size = 0;
};

// The stage's declared ranges resolved on one Executable, in declaration order.
struct ForeignBuffers {
  std::vector<BufferSpan> reads;
  std::vector<BufferSpan> writes;
};

// What a foreign stage left on one Executable: records its commands into `cmd`.
class ForeignCommands {
 public:
  virtual ~ForeignCommands() = default;
  virtual void record(VkCommandBuffer cmd) = 0;
};

struct ForeignStage {
  // Named by `weft run --dry-run` and Plan::describe ("vkfft c2c forward 1024 x 8", say).
  std::string what;
  // The pipeline stages its commands run in: the planner's barriers wait on and for these
  // (compute shader: shader reads/writes; transfer: transfer reads/writes).
  VkPipelineStageFlags pipeline_stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  // Called once per Executable, before its command buffer is recorded; may use the device's
  // queue (holding Device::queue_lock) to set itself up. Errors it throws fail the Executable.
  std::function<std::unique_ptr<ForeignCommands>(Device&, const ForeignBuffers&)> prepare;
};

}  // namespace weft
