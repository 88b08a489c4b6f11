#include "recorder.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

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

StageMasks masks_of(const Stage& s) {
  const VkPipelineStageFlags compute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, transfer = VK_PIPELINE_STAGE_TRANSFER_BIT;
  if (!s.foreign) return {compute, VK_ACCESS_SHADER_READ_BIT, VK_ACCESS_SHADER_WRITE_BIT};
  StageMasks m{s.foreign->pipeline_stages, 0, 0};
  if (m.stages & compute) m.read |= VK_ACCESS_SHADER_READ_BIT, m.write |= VK_ACCESS_SHADER_WRITE_BIT;
  if (m.stages & transfer) m.read |= VK_ACCESS_TRANSFER_READ_BIT, m.write |= VK_ACCESS_TRANSFER_WRITE_BIT;
  return m;
}

StageMasks masks_of(const Program& program) {
  StageMasks all{0, 0, 0};
  for (const Stage& s : program.stages()) {
    const StageMasks m = masks_of(s);
    all.stages |= m.stages, all.read |= m.read, all.write |= m.write;
  }
  return all;
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

// Two accesses of different stages that overlap with at least one of them a write.
struct AccessPair {
  uint32_t later, earlier, earlier_access, later_access;
  auto key() const { return std::tie(later, earlier, earlier_access, later_access); }
};

// All pairs of overlapping accesses (at least one a write) of different stages, ordered by later
// stage, earlier stage, then the accesses' positions. A sweep over each binding's ranges by start
// finds them in time proportional to the accesses and the pairs found, not to the square of the
// stage count (a 20,000-stage volumetric mesh took minutes to plan pair by pair).
std::vector<AccessPair> conflicting_pairs(const std::vector<std::vector<Access>>& acc) {
  struct Item {
    uint64_t start, end;  // closed, so that empty ranges are candidates too; overlaps() decides
    uint32_t stage, index;
  };
  std::map<std::pair<Binding, uint32_t>, std::vector<Item>> by_buffer;  // (binding, far segment)
  for (uint32_t s = 0; s < acc.size(); ++s)
    for (uint32_t k = 0; k < acc[s].size(); ++k) {
      const Range& r = acc[s][k].range;
      by_buffer[{r.binding, r.far}].push_back({r.offset, r.offset + r.size, s, k});
    }
  std::vector<AccessPair> pairs;
  for (auto& [buffer, items] : by_buffer) {
    std::sort(items.begin(), items.end(), [](const Item& x, const Item& y) { return x.start < y.start; });
    std::multimap<uint64_t, const Item*> writes, reads;  // active ranges by end
    for (const Item& x : items) {
      for (auto* active : {&writes, &reads})
        while (!active->empty() && active->begin()->first < x.start) active->erase(active->begin());
      const Access& ax = acc[x.stage][x.index];
      auto pair_with = [&](const std::multimap<uint64_t, const Item*>& active) {
        for (const auto& [end, y] : active) {
          if (y->stage == x.stage) continue;
          const Item &earlier = y->stage < x.stage ? *y : x, &later = y->stage < x.stage ? x : *y;
          if (acc[earlier.stage][earlier.index].range.overlaps(acc[later.stage][later.index].range))
            pairs.push_back({later.stage, earlier.stage, earlier.index, later.index});
        }
      };
      pair_with(writes);
      if (ax.write) pair_with(reads);
      (ax.write ? writes : reads).insert({x.end, &x});
    }
  }
  std::sort(pairs.begin(), pairs.end(), [](const AccessPair& x, const AccessPair& y) { return x.key() < y.key(); });
  return pairs;
}

void add_masks(Barrier& b, const Hazard& h, bool earlier_indirect, const StageMasks& earlier, const StageMasks& later) {
  const VkPipelineStageFlags indirect = VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
  switch (h.kind) {
    case HazardKind::ReadAfterWrite:
      b.src_stages |= earlier.stages;
      b.src_access |= earlier.write;
      b.dst_stages |= h.indirect ? indirect : later.stages;
      b.dst_access |= h.indirect ? VkAccessFlags(VK_ACCESS_INDIRECT_COMMAND_READ_BIT) : later.read;
      break;
    case HazardKind::WriteAfterWrite:
      b.src_stages |= earlier.stages;
      b.src_access |= earlier.write;
      b.dst_stages |= later.stages;
      b.dst_access |= later.read | later.write;
      break;
    case HazardKind::WriteAfterRead:  // an execution dependency is enough
      b.src_stages |= earlier_indirect ? indirect : earlier.stages;
      b.dst_stages |= later.stages;
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

  // Every conflicting pair of accesses, in the order a scan of all pairs would meet them (later
  // stage, earlier stage, their accesses): several overlapping ranges of one pair make one
  // hazard per kind and binding.
  std::set<std::tuple<uint32_t, HazardKind, Binding, bool, bool>> seen;  // of the current later stage
  uint32_t seen_for = UINT32_MAX;
  for (const AccessPair& p : conflicting_pairs(acc)) {
    const Access &a = acc[p.earlier][p.earlier_access], &b = acc[p.later][p.later_access];
    const HazardKind kind = a.write ? (b.write ? HazardKind::WriteAfterWrite : HazardKind::ReadAfterWrite)
                                    : HazardKind::WriteAfterRead;
    const Hazard h{p.earlier, p.later, kind, a.range.binding, b.indirect && !b.write};
    if (seen_for != p.later) seen.clear(), seen_for = p.later;
    if (!seen.insert({h.earlier, h.kind, h.binding, h.indirect, a.indirect}).second) continue;
    plan.hazards.push_back(h);
    incoming[p.later].push_back({h, a.indirect});
    plan.level[p.later] = std::max(plan.level[p.later], plan.level[p.earlier] + 1);
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
          add_masks(b, h, earlier_indirect, masks_of(stages[h.earlier]), masks_of(stages[h.later]));
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
        // Foreign stages on either side add their own pipeline stages (transfers, say).
        const StageMasks before = masks_of(stages[pos - 1]), after = masks_of(stages[pos]);
        b.src_stages |= before.stages;
        b.src_access |= before.write;
        b.dst_stages |= after.stages;
        b.dst_access |= after.read | after.write;
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
      if (b.src_access & VK_ACCESS_TRANSFER_WRITE_BIT) out << " transfer-write";
      if (b.src_access == 0) out << " execution-only";
      out << " ->";
      if (b.dst_access & VK_ACCESS_SHADER_READ_BIT) out << " shader-read";
      if (b.dst_access & VK_ACCESS_SHADER_WRITE_BIT) out << " shader-write";
      if (b.dst_access & VK_ACCESS_TRANSFER_READ_BIT) out << " transfer-read";
      if (b.dst_access & VK_ACCESS_TRANSFER_WRITE_BIT) out << " transfer-write";
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
    out << "  [" << level[s.index] << "] " << s.name;
    if (s.foreign) {
      out << "  foreign=\"" << s.foreign->what << "\"\n";
      continue;
    }
    out << "  kernel=" << s.kernel->name() << " instance=" << program.instances()[s.instance.index].name;
    if (s.indirect)
      out << " dispatch=indirect(" << program.slots()[s.indirect->index].name << ")";
    else if (s.streaming_units && s.shape.empty())
      out << " dispatch=streaming(" << s.streaming_units << " units, shaped per device)";
    else if (s.streaming_units)
      out << " dispatch=streaming(" << s.streaming_units << " units, shape " << s.shape.describe() << ", " << s.groups[0] << " groups)";
    else
      out << " dispatch=" << s.groups[0] << "x" << s.groups[1] << "x" << s.groups[2];
    out << "\n";
  }
  return out.str();
}

namespace {

void record_barrier(VkCommandBuffer cmd, const Barrier& b) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = b.src_access;
  mb.dstAccessMask = b.dst_access;
  const bool has_memory = b.src_access || b.dst_access;
  vkCmdPipelineBarrier(cmd, b.src_stages, b.dst_stages, 0, has_memory ? 1 : 0, has_memory ? &mb : nullptr, 0, nullptr, 0,
                       nullptr);
}

abi::WeftPush push_of(const Program& program, const Stage& s) {
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
  return push;
}

}  // namespace

void record_stages(VkCommandBuffer cmd, const Program& program, const Plan& plan, const StageRecording& r) {
  const auto& stages = program.stages();
  size_t next_barrier = 0;
  VkPipeline bound = VK_NULL_HANDLE;
  bool rebind = false;  // a foreign stage may have bound its own pipeline and descriptor sets
  for (size_t pos = 0; pos < plan.order.size(); ++pos) {
    if (next_barrier < plan.barriers.size() && plan.barriers[next_barrier].before == pos)
      record_barrier(cmd, plan.barriers[next_barrier++]);
    const Stage& s = stages[plan.order[pos]];
    if (s.foreign) {
      r.foreign.at(s.index)->record(cmd);
      rebind = true;
      bound = VK_NULL_HANDLE;
    } else {
      // Weft's state comes back before the kernel that needs it, so a foreign stage's timestamp
      // holds only its own commands.
      if (rebind) vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.layout, 0, 1, &r.set, 0, nullptr);
      rebind = false;
      if (r.pipelines[s.index] != bound) {
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, r.pipelines[s.index]);
        bound = r.pipelines[s.index];
      }
      const abi::WeftPush push = push_of(program, s);
      vkCmdPushConstants(cmd, r.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
      if (s.indirect)
        vkCmdDispatchIndirect(cmd, r.control, uint64_t(program.slot_word(*s.indirect)) * 4);
      else
        vkCmdDispatchIndirect(cmd, r.dispatch_table, uint64_t(s.index) * sizeof(VkDispatchIndirectCommand));
    }
    if (r.queries) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, r.queries, uint32_t(pos + 1));
  }
}

std::vector<VkDispatchIndirectCommand> dispatch_table_image(const Program& program) {
  std::vector<VkDispatchIndirectCommand> table(std::max<size_t>(program.stages().size(), 1), {0, 0, 0});
  for (const Stage& s : program.stages())
    if (!s.indirect) table[s.index] = {s.groups[0], s.groups[1], s.groups[2]};
  return table;
}

}  // namespace weft
