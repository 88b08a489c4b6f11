#include "recorder.h"

#include <algorithm>
#include <cstring>
#include <sstream>

#include "error.h"

namespace weft {

const char* hazard_name(HazardKind k) {
  switch (k) {
    case HazardKind::ReadAfterWrite: return "RAW";
    case HazardKind::WriteAfterRead: return "WAR";
    case HazardKind::WriteAfterWrite: return "WAW";
  }
  return "?";
}

namespace {

struct Access {
  Range range;
  bool write = false;
  bool indirect = false;
};

std::vector<Access> accesses(const Program& p, const Stage& s) {
  std::vector<Access> out;
  for (const Range& r : p.stage_reads(s)) out.push_back({r, false, false});
  for (const Range& r : p.stage_writes(s)) out.push_back({r, true, false});
  if (s.indirect) out.push_back({p.slot(*s.indirect), false, true});
  return out;
}

void add_masks(Barrier& b, const Hazard& h, bool earlier_indirect) {
  const VkPipelineStageFlags compute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
  const VkPipelineStageFlags indirect = VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
  switch (h.kind) {
    case HazardKind::ReadAfterWrite:
      b.src_stages |= compute;
      b.src_access |= VK_ACCESS_SHADER_WRITE_BIT;
      b.dst_stages |= h.indirect ? indirect : compute;
      b.dst_access |= h.indirect ? VK_ACCESS_INDIRECT_COMMAND_READ_BIT : VK_ACCESS_SHADER_READ_BIT;
      break;
    case HazardKind::WriteAfterWrite:
      b.src_stages |= compute;
      b.src_access |= VK_ACCESS_SHADER_WRITE_BIT;
      b.dst_stages |= compute;
      b.dst_access |= VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
      break;
    case HazardKind::WriteAfterRead:  // an execution dependency is enough
      b.src_stages |= earlier_indirect ? indirect : compute;
      b.dst_stages |= compute;
      break;
  }
}

}  // namespace

Plan plan_program(const Program& program, BarrierMode mode) {
  const auto& stages = program.stages();
  const size_t n = stages.size();
  Plan plan;
  plan.level.assign(n, 0);
  std::vector<std::vector<Access>> acc(n);
  for (size_t i = 0; i < n; ++i) acc[i] = accesses(program, stages[i]);
  std::vector<std::vector<std::pair<Hazard, bool>>> incoming(n);  // hazard, earlier access was indirect

  for (size_t j = 0; j < n; ++j) {
    for (size_t i = 0; i < j; ++i) {
      for (const Access& a : acc[i]) {
        for (const Access& b : acc[j]) {
          if (!(a.write || b.write) || !a.range.overlaps(b.range)) continue;
          HazardKind kind = a.write ? (b.write ? HazardKind::WriteAfterWrite : HazardKind::ReadAfterWrite)
                                    : HazardKind::WriteAfterRead;
          Hazard h{uint32_t(i), uint32_t(j), kind, a.range.binding, b.indirect && !b.write};
          // Several overlapping ranges of one pair make one hazard per kind and binding.
          bool seen = false;
          for (const auto& [prev, prev_indirect] : incoming[j])
            seen |= prev.earlier == h.earlier && prev.kind == h.kind && prev.binding == h.binding &&
                    prev.indirect == h.indirect && prev_indirect == a.indirect;
          if (seen) continue;
          plan.hazards.push_back(h);
          incoming[j].push_back({h, a.indirect});
          plan.level[j] = std::max(plan.level[j], plan.level[i] + 1);
        }
      }
    }
  }

  if (mode == BarrierMode::Planned) {
    // Stable order by level: within a level, program order.
    plan.order.resize(n);
    for (size_t i = 0; i < n; ++i) plan.order[i] = uint32_t(i);
    std::stable_sort(plan.order.begin(), plan.order.end(),
                     [&](uint32_t a, uint32_t b) { return plan.level[a] < plan.level[b]; });
    for (size_t pos = 0; pos < n; ++pos) {
      const uint32_t s = plan.order[pos];
      if (plan.level[s] == 0 || (pos > 0 && plan.level[plan.order[pos - 1]] == plan.level[s])) continue;
      Barrier b;
      b.before = uint32_t(pos);
      for (size_t q = pos; q < n && plan.level[plan.order[q]] == plan.level[s]; ++q)
        for (const auto& [h, earlier_indirect] : incoming[plan.order[q]]) {
          add_masks(b, h, earlier_indirect);
          b.hazards.push_back(h);
        }
      plan.barriers.push_back(std::move(b));
    }
  } else {
    // Program order; EveryStage puts a full barrier between every pair of stages.
    for (size_t i = 0; i < n; ++i) plan.order.push_back(uint32_t(i));
    if (mode == BarrierMode::EveryStage)
      for (size_t pos = 1; pos < n; ++pos) {
        Barrier b;
        b.before = uint32_t(pos);
        b.src_stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
        b.dst_stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
        b.src_access = VK_ACCESS_SHADER_WRITE_BIT;
        b.dst_access = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
        for (const auto& [h, ind] : incoming[pos]) b.hazards.push_back(h);
        plan.barriers.push_back(std::move(b));
      }
  }
  return plan;
}

std::string Plan::describe(const Program& program) const {
  std::ostringstream out;
  const auto& stages = program.stages();
  size_t next_barrier = 0;
  out << "program '" << program.name() << "': " << stages.size() << " stages, " << barriers.size() << " barriers\n";
  for (size_t pos = 0; pos < order.size(); ++pos) {
    if (next_barrier < barriers.size() && barriers[next_barrier].before == pos) {
      const Barrier& b = barriers[next_barrier++];
      out << "  barrier:";
      if (b.src_access & VK_ACCESS_SHADER_WRITE_BIT) out << " shader-write";
      if (b.src_access == 0) out << " execution-only";
      out << " ->";
      if (b.dst_access & VK_ACCESS_SHADER_READ_BIT) out << " shader-read";
      if (b.dst_access & VK_ACCESS_SHADER_WRITE_BIT) out << " shader-write";
      if (b.dst_access & VK_ACCESS_INDIRECT_COMMAND_READ_BIT) out << " indirect-read";
      out << "  (";
      for (size_t k = 0; k < b.hazards.size(); ++k) {
        const Hazard& h = b.hazards[k];
        out << (k ? ", " : "") << hazard_name(h.kind) << " " << binding_name(h.binding) << " " << stages[h.earlier].name
            << "->" << stages[h.later].name;
      }
      out << ")\n";
    }
    const Stage& s = stages[order[pos]];
    out << "  [" << level[s.index] << "] " << s.name << "  kernel=" << s.kernel->name()
        << " instance=" << program.instances()[s.instance.index].name;
    if (s.indirect)
      out << " dispatch=indirect(" << program.slots()[s.indirect->index].name << ")";
    else
      out << " dispatch=" << s.groups[0] << "x" << s.groups[1] << "x" << s.groups[2];
    out << "\n";
  }
  return out.str();
}

void record_stages(VkCommandBuffer cmd, const Program& program, const Plan& plan,
                   const std::vector<VkPipeline>& pipelines, VkPipelineLayout layout, VkBuffer control,
                   VkBuffer dispatch_table, VkQueryPool queries) {
  const auto& stages = program.stages();
  size_t next_barrier = 0;
  VkPipeline bound = VK_NULL_HANDLE;
  for (size_t pos = 0; pos < plan.order.size(); ++pos) {
    if (next_barrier < plan.barriers.size() && plan.barriers[next_barrier].before == pos) {
      const Barrier& b = plan.barriers[next_barrier++];
      VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      mb.srcAccessMask = b.src_access;
      mb.dstAccessMask = b.dst_access;
      const bool has_memory = b.src_access || b.dst_access;
      vkCmdPipelineBarrier(cmd, b.src_stages, b.dst_stages, 0, has_memory ? 1 : 0, has_memory ? &mb : nullptr, 0,
                           nullptr, 0, nullptr);
    }
    const Stage& s = stages[plan.order[pos]];
    const Instance& in = program.instances()[s.instance.index];
    abi::WeftPush push{};
    push.header.instance = s.instance.index;
    push.header.inbox_instance = in.inbox_from;
    push.header.window = in.window;
    push.header.width = in.width;
    push.header.outbox = in.window + WEFT_R_OUTBOX * in.width;
    push.header.inbox = in.inbox_from == WEFT_NONE
                            ? in.window + WEFT_R_INBOX * in.width
                            : program.instances()[in.inbox_from].window + WEFT_R_OUTBOX * program.instances()[in.inbox_from].width;
    push.header.stage = s.index;
    push.header.iteration = s.iteration;
    push.header.flags = s.honour_halt ? WEFT_PUSH_HONOUR_HALT : 0u;
    push.header.control = in.control;
    std::copy(s.push_words.begin(), s.push_words.end(), push.args);
    if (pipelines[s.index] != bound) {
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines[s.index]);
      bound = pipelines[s.index];
    }
    vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
    if (s.indirect)
      vkCmdDispatchIndirect(cmd, control, uint64_t(program.slot_word(*s.indirect)) * 4);
    else
      vkCmdDispatchIndirect(cmd, dispatch_table, uint64_t(s.index) * sizeof(VkDispatchIndirectCommand));
    if (queries) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries, uint32_t(pos + 1));
  }
}

std::vector<VkDispatchIndirectCommand> dispatch_table_image(const Program& program) {
  std::vector<VkDispatchIndirectCommand> table(std::max<size_t>(program.stages().size(), 1), {0, 0, 0});
  for (const Stage& s : program.stages())
    if (!s.indirect) table[s.index] = {s.groups[0], s.groups[1], s.groups[2]};
  return table;
}

}  // namespace weft
