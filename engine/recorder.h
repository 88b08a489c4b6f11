// The recorder: orders a program's stages and plans the barriers between them.
//
// Stage j depends on an earlier stage i when their declared ranges overlap and at least one
// writes (RAW, WAR, WAW; an indirect dispatch reads its slot). Stages are grouped in levels
// (level = 1 + the deepest level they depend on) and recorded level by level, so independent
// stages sit side by side with no barrier and the GPU may overlap them. One pipeline barrier
// precedes each level after the first, carrying exactly the stage and access masks its
// hazards need; its first scope covers every earlier command, so one barrier suffices even
// for a dependency that skips levels.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "program.h"
#include "vk.h"

namespace weft {

enum class BarrierMode {
  Planned,     // a barrier only where a hazard needs one (the default)
  EveryStage,  // a full barrier after every stage (the baseline benchmarks compare against)
  None,        // no barrier between stages: only for tests proving the planned ones matter
};

enum class HazardKind { ReadAfterWrite, WriteAfterRead, WriteAfterWrite };
const char* hazard_name(HazardKind k);

struct Hazard {
  uint32_t earlier = 0;  // stage indices
  uint32_t later = 0;
  HazardKind kind = HazardKind::ReadAfterWrite;
  Binding binding = Binding::Globals;
  bool indirect = false;  // the later stage reads the range as its indirect dispatch
};

struct Barrier {
  uint32_t before = 0;  // position in Plan::order this barrier precedes
  VkPipelineStageFlags src_stages = 0, dst_stages = 0;
  VkAccessFlags src_access = 0, dst_access = 0;
  std::vector<Hazard> hazards;
};

struct Plan {
  std::vector<uint32_t> order;  // stage indices in recording order
  std::vector<uint32_t> level;  // level of each stage (by stage index)
  std::vector<Barrier> barriers;
  std::vector<Hazard> hazards;  // every dependency found
  // Human-readable listing of stages and barriers (weft run --dry-run).
  std::string describe(const Program& program) const;
};

Plan plan_program(const Program& program, BarrierMode mode);

// The pipeline stages a stage's commands run in and the accesses they make: a kernel's are the
// compute shader's reads and writes; a foreign stage's follow its pipeline_stages. For a whole
// program: the union over its stages (what the barriers around a run must cover).
struct StageMasks {
  VkPipelineStageFlags stages = 0;
  VkAccessFlags read = 0, write = 0;
};
StageMasks masks_of(const Stage& stage);
StageMasks masks_of(const Program& program);

// What record_stages records with, made by the Executable.
struct StageRecording {
  std::vector<VkPipeline> pipelines;       // by stage index; VK_NULL_HANDLE for foreign stages
  std::vector<ForeignCommands*> foreign;   // by stage index; null for kernel stages
  VkPipelineLayout layout = VK_NULL_HANDLE;
  VkDescriptorSet set = VK_NULL_HANDLE;    // bound again after foreign stages
  VkBuffer control = VK_NULL_HANDLE;
  VkBuffer dispatch_table = VK_NULL_HANDLE;
  VkQueryPool queries = VK_NULL_HANDLE;    // null: no per-stage timestamps
};

// Records the stages in plan order with their barriers, pushes and dispatches. The caller has
// bound the descriptor set. Writes a timestamp after each stage when `queries` is non-null
// (query i + 1 after the stage at position i; query 0 is the caller's). Stages with fixed group
// counts dispatch indirectly from `dispatch_table` (VkDispatchIndirectCommand at stage index x 12
// bytes: dispatch_table_image), so that the host can cancel stages of a run in flight by zeroing
// them; stages on an indirect slot dispatch from Control. A foreign stage records its commands;
// the next kernel stage binds the descriptor set again, then its pipeline.
void record_stages(VkCommandBuffer cmd, const Program& program, const Plan& plan, const StageRecording& recording);

// The dispatch table record_stages reads: every stage's fixed group counts, by stage index.
std::vector<VkDispatchIndirectCommand> dispatch_table_image(const Program& program);

}  // namespace weft
