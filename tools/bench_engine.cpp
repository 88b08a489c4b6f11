// weft bench engine: the engine's own overheads, each against a peer measured in the same run.
// Every figure is a median over repetitions; GPU times come from timestamp queries.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>

#include <weft/weft.h>

#include "bench.h"
#include "cli.h"
#include "conformance.h"
#include "regulator_demo.h"

namespace weft::bench {

namespace {

using Clock = std::chrono::steady_clock;

struct RunTimes {
  double gpu_ns = 0;   // median GPU time of one run
  double wall_ns = 0;  // median submit-to-wait-returned time of one run
};

RunTimes time_runs(Executable& exe, int reps) {
  exe.run();  // warm-up: first-use costs stay out of the figures
  std::vector<double> gpu, wall;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    exe.run();
    wall.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
    gpu.push_back(exe.timings().total_ns);
  }
  return {median(gpu), median(wall)};
}

// N tiny stages; `chained`: each reads the previous one's outbox (a dependent chain).
Program tiny_program(uint32_t n, bool chained) {
  Program p(chained ? "tiny-chain" : "tiny-independent");
  KernelRef tiny = weft_test_kernels.get("tiny");
  std::vector<InstanceId> inst;
  for (uint32_t i = 0; i < n; ++i) {
    inst.push_back(p.add_instance("t" + std::to_string(i), 1));
    if (chained && i > 0) p.connect(inst[i - 1], inst[i]);
  }
  for (uint32_t i = 0; i < n; ++i) {
    StageSpec s;
    s.name = "tiny" + std::to_string(i);
    s.kernel = tiny;
    s.instance = inst[i];
    s.reads = {p.inbox(inst[i])};
    s.writes = {p.outbox(inst[i])};
    p.add_stage(s);
  }
  return p;
}

// What the raw-Vulkan peers share, written by hand without the engine: a descriptor set of
// `bindings` storage buffers, a pipeline layout with `push_bytes` of push constants, pipelines
// from embedded SPIR-V, and a pair of timestamps around what a run records.
class RawVulkan {
 public:
  RawVulkan(Device& dev, const std::vector<const Buffer*>& bindings, uint32_t push_bytes) : dev_(dev) {
    VkDevice d = dev.vk();
    const uint32_t n = uint32_t(bindings.size());
    std::vector<VkDescriptorSetLayoutBinding> b(n);
    for (uint32_t i = 0; i < n; ++i) b[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo li{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    li.bindingCount = n;
    li.pBindings = b.data();
    vk_check(vkCreateDescriptorSetLayout(d, &li, nullptr, &set_layout_), "raw set layout");
    VkPushConstantRange pr{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
    VkPipelineLayoutCreateInfo pli{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pli.setLayoutCount = 1;
    pli.pSetLayouts = &set_layout_;
    pli.pushConstantRangeCount = 1;
    pli.pPushConstantRanges = &pr;
    vk_check(vkCreatePipelineLayout(d, &pli, nullptr, &layout_), "raw pipeline layout");
    VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n};
    VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    pi.maxSets = 1;
    pi.poolSizeCount = 1;
    pi.pPoolSizes = &ps;
    vk_check(vkCreateDescriptorPool(d, &pi, nullptr, &pool_), "raw pool");
    VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    ai.descriptorPool = pool_;
    ai.descriptorSetCount = 1;
    ai.pSetLayouts = &set_layout_;
    vk_check(vkAllocateDescriptorSets(d, &ai, &set_), "raw set");
    std::vector<VkDescriptorBufferInfo> info(n);
    std::vector<VkWriteDescriptorSet> w(n, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET});
    for (uint32_t i = 0; i < n; ++i) {
      info[i] = {bindings[i]->vk(), 0, VK_WHOLE_SIZE};
      w[i].dstSet = set_;
      w[i].dstBinding = i;
      w[i].descriptorCount = 1;
      w[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      w[i].pBufferInfo = &info[i];
    }
    vkUpdateDescriptorSets(d, n, w.data(), 0, nullptr);
    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = 2;
    vk_check(vkCreateQueryPool(d, &qi, nullptr, &queries_), "raw query pool");
  }
  ~RawVulkan() {
    VkDevice d = dev_.vk();
    vkDestroyQueryPool(d, queries_, nullptr);
    vkDestroyDescriptorPool(d, pool_, nullptr);
    for (VkPipeline pipeline : pipelines_) vkDestroyPipeline(d, pipeline, nullptr);
    vkDestroyPipelineLayout(d, layout_, nullptr);
    vkDestroyDescriptorSetLayout(d, set_layout_, nullptr);
  }
  RawVulkan(const RawVulkan&) = delete;
  RawVulkan& operator=(const RawVulkan&) = delete;

  VkPipelineLayout layout() const { return layout_; }

  // A compute pipeline from an embedded kernel's SPIR-V, owned by this object; `shape` sets
  // specialization constants 0 and 1 (a shaped kernel's workgroup size and units per invocation).
  VkPipeline pipeline(const KernelRef& kernel, const KernelShape& shape = {}) {
    const auto& spirv = kernel->spirv(dev_.info().shader_clock);
    VkShaderModuleCreateInfo mi{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    mi.codeSize = spirv.size() * 4;
    mi.pCode = spirv.data();
    VkShaderModule module;
    vk_check(vkCreateShaderModule(dev_.vk(), &mi, nullptr, &module), "raw shader module");
    VkComputePipelineCreateInfo ci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    const uint32_t words[2] = {shape.workgroup_size, shape.units_per_invocation};
    const VkSpecializationMapEntry entries[2] = {{kShapeWorkgroupSizeId, 0, 4}, {kShapeUnitsPerInvocationId, 4, 4}};
    const VkSpecializationInfo specialization{2, entries, sizeof words, words};
    ci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO, nullptr, 0, VK_SHADER_STAGE_COMPUTE_BIT, module, "main",
                shape.empty() ? nullptr : &specialization};
    ci.layout = layout_;
    VkPipeline out;
    vk_check(vkCreateComputePipelines(dev_.vk(), VK_NULL_HANDLE, 1, &ci, nullptr, &out), "raw pipeline");
    vkDestroyShaderModule(dev_.vk(), module, nullptr);
    pipelines_.push_back(out);
    return out;
  }

  // Records `body` after binding `pipeline` and the set, between two timestamps, submits and
  // waits: the GPU ns between the timestamps (the wall ns of the whole through `wall`).
  double timed(VkPipeline pipeline, const std::function<void(VkCommandBuffer)>& body, double* wall = nullptr) {
    const auto t0 = Clock::now();
    dev_.run_once([&](VkCommandBuffer cmd) {
      vkCmdResetQueryPool(cmd, queries_, 0, 2);
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
      vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set_, 0, nullptr);
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
      body(cmd);
      vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
    });
    if (wall) *wall = std::chrono::duration<double, std::nano>(Clock::now() - t0).count();
    uint64_t ts[2];
    vk_check(vkGetQueryPoolResults(dev_.vk(), queries_, 0, 2, sizeof ts, ts, 8, VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
             "raw timestamps");
    return double(ts[1] - ts[0]) * dev_.info().timestamp_period_ns;
  }

 private:
  Device& dev_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout layout_ = VK_NULL_HANDLE;
  std::vector<VkPipeline> pipelines_;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
};

std::unique_ptr<Buffer> zeroed_buffer(Device& dev, uint64_t bytes, VkBufferUsageFlags usage, const char* name) {
  auto b = std::make_unique<Buffer>(dev, bytes, usage, MemoryUse::DeviceLocal, name);
  b->fill(0, bytes, 0);
  return b;
}

// The same chain written by hand against raw Vulkan: its own buffers, descriptor set, pipeline
// layout and pipeline from the same SPIR-V, one push + dispatch + barrier per stage.
class RawChain {
 public:
  RawChain(Device& dev, uint32_t n)
      : n_(n),
        regs_(zeroed_buffer(dev, uint64_t(n) * 32 * 4, VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, "raw.regs")),
        // Only Registers is used; the other four bindings alias it to stay valid.
        raw_(dev, std::vector<const Buffer*>(WEFT_BINDING_COUNT, regs_.get()), WEFT_PUSH_BYTES),
        pipeline_(raw_.pipeline(weft_test_kernels.get("tiny"))) {}

  // GPU ns of one run of the loop; wall ns through `wall`.
  double run(double* wall) {
    return raw_.timed(
        pipeline_,
        [&](VkCommandBuffer cmd) {
          VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_SHADER_WRITE_BIT, VK_ACCESS_SHADER_READ_BIT};
          for (uint32_t i = 0; i < n_; ++i) {
            abi::WeftPush push{};
            push.header.inbox = i == 0 ? 31 : (i - 1) * 32 + 30;
            push.header.outbox = i * 32 + 30;
            vkCmdPushConstants(cmd, raw_.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
            vkCmdDispatch(cmd, 1, 1, 1);
            if (i + 1 < n_)
              vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &mb,
                                   0, nullptr, 0, nullptr);
          }
        },
        wall);
  }

  uint32_t last_value() {
    uint32_t v = 0;
    regs_->read((uint64_t(n_ - 1) * 32 + 30) * 4, &v, 4);
    return v;
  }

 private:
  uint32_t n_;
  std::unique_ptr<Buffer> regs_;
  RawVulkan raw_;
  VkPipeline pipeline_;
};

// One repetition of each contender per round, alternating, so drift and neighbours' load hit
// both alike; the medians are compared.
void bench_chain(Device& dev, uint32_t n, int reps) {
  RecordOptions o;
  o.stage_timestamps = false;
  Executable weft(dev, tiny_program(n, true), o);
  RawChain raw(dev, n);
  double wall = 0;
  weft.run();
  raw.run(&wall);  // warm-up of both
  std::vector<double> wg, ww, rg, rw;
  for (int r = 0; r < reps; ++r) {
    const auto t0 = Clock::now();
    weft.run();
    ww.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
    wg.push_back(weft.timings().total_ns);
    rg.push_back(raw.run(&wall));
    rw.push_back(wall);
  }
  uint32_t out = 0;
  weft.read_register(InstanceId{n - 1}, WEFT_R_OUTBOX, &out, 4);
  const double weft_gpu = median(wg), raw_gpu = median(rg);
  Line("engine.chain", dev)
      .num("stages", n)
      .num("barriers", double(weft.plan().barriers.size()))
      .num("gpu_ns_per_stage", weft_gpu / n)
      .num("wall_ns_per_stage", median(ww) / n)
      .num("raw_gpu_ns_per_stage", raw_gpu / n)
      .num("raw_wall_ns_per_stage", median(rw) / n)
      .num("ratio_gpu_vs_raw", weft_gpu / raw_gpu)
      .boolean("correct", out == n && raw.last_value() == n)
      .print();
}

void bench_barriers(Device& dev, uint32_t n, int reps) {
  RecordOptions planned, every;
  planned.stage_timestamps = every.stage_timestamps = false;
  every.barriers = BarrierMode::EveryStage;
  Executable a(dev, tiny_program(n, false), planned);
  Executable b(dev, tiny_program(n, false), every);
  a.run();
  b.run();
  std::vector<double> ta, tb;
  for (int r = 0; r < reps; ++r) {
    a.run();
    ta.push_back(a.timings().total_ns);
    b.run();
    tb.push_back(b.timings().total_ns);
  }
  Line("engine.barriers_independent", dev)
      .num("stages", n)
      .num("planned_barriers", double(a.plan().barriers.size()))
      .num("every_stage_barriers", double(b.plan().barriers.size()))
      .num("planned_gpu_ns", median(ta))
      .num("every_stage_gpu_ns", median(tb))
      .num("ratio_every_stage_vs_planned", median(tb) / median(ta))
      .print();
}

void bench_submit(Device& dev, int submits) {
  RecordOptions o;
  o.stage_timestamps = false;
  Executable exe(dev, tiny_program(1, false), o);
  exe.run();
  std::vector<double> submit_ns, round_ns;
  for (int i = 0; i < submits; ++i) {
    const auto t0 = Clock::now();
    Ticket t = exe.submit();
    const auto t1 = Clock::now();
    exe.wait(t).throw_if_failed();
    const auto t2 = Clock::now();
    submit_ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count());
    round_ns.push_back(std::chrono::duration<double, std::nano>(t2 - t0).count());
  }
  // Peer: the same program recorded into a fresh command buffer for every run.
  std::vector<double> once_ns;
  for (int i = 0; i < submits; ++i) {
    const auto t0 = Clock::now();
    dev.run_once([&](VkCommandBuffer cmd) { exe.record_into(cmd); });
    once_ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - t0).count());
  }
  Line("engine.replay_submit", dev)
      .num("submits", submits)
      .num("submit_call_ns", median(submit_ns))
      .num("submit_wait_round_trip_ns", median(round_ns))
      .num("rerecord_submit_wait_round_trip_ns", median(once_ns))
      .num("ratio_replay_vs_rerecord", median(round_ns) / median(once_ns))
      .print();
}

// The driver's own figures for the two ways of reaching memory, without Weft: a minimal
// raw-Vulkan copy kernel through a descriptor and the same kernel through device addresses
// pushed as constants (raw_copy_ssbo.comp, raw_copy_address.comp). Their ratio bounds what the
// far path can reach on this device.
class RawCopy {
 public:
  static constexpr VkBufferUsageFlags kUsage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT |
                                               VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  RawCopy(Device& dev, uint64_t bytes)
      : bytes_(bytes),
        src_(zeroed_buffer(dev, bytes, kUsage, "raw.src")),
        dst_(zeroed_buffer(dev, bytes, kUsage, "raw.dst")),
        raw_(dev, {src_.get(), dst_.get()}, sizeof(Push)),
        descriptor_pipeline_(raw_.pipeline(weft_test_kernels.get("raw_copy_ssbo"))),
        address_pipeline_(raw_.pipeline(weft_test_kernels.get("raw_copy_address"))) {}

  Buffer& src() { return *src_; }
  Buffer& dst() { return *dst_; }

  // GPU ns of one copy by the shaped descriptor kernel (raw_copy_shaped.comp) at `shape`.
  double run_shaped(const KernelShape& shape) {
    auto [it, added] = shaped_pipelines_.try_emplace(shape.describe(), VK_NULL_HANDLE);
    if (added) it->second = raw_.pipeline(weft_test_kernels.get("raw_copy_shaped"), shape);
    const Push push{0, 0, uint32_t(bytes_ / 16)};
    return raw_.timed(it->second, [&](VkCommandBuffer cmd) {
      vkCmdPushConstants(cmd, raw_.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
      vkCmdDispatch(cmd, streaming_groups(push.count, shape)[0], 1, 1);
    });
  }

  // GPU ns of vkCmdCopyBuffer from src to dst: the driver's own copy.
  double run_copy_buffer() {
    return raw_.timed(descriptor_pipeline_, [&](VkCommandBuffer cmd) {
      const VkBufferCopy region{0, 0, bytes_};
      vkCmdCopyBuffer(cmd, src_->vk(), dst_->vk(), 1, &region);
    });
  }

  // GPU ns of one copy of all the bytes, through device addresses or the descriptors.
  double run(bool through_addresses, uint32_t groups) {
    const Push push{src_->device_address(), dst_->device_address(), uint32_t(bytes_ / 16)};
    return raw_.timed(through_addresses ? address_pipeline_ : descriptor_pipeline_, [&](VkCommandBuffer cmd) {
      vkCmdPushConstants(cmd, raw_.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, &push);
      vkCmdDispatch(cmd, groups, 1, 1);
    });
  }

 private:
  struct Push {
    uint64_t src_address, dst_address;
    uint32_t count;
  };
  uint64_t bytes_;
  std::unique_ptr<Buffer> src_, dst_;
  RawVulkan raw_;
  VkPipeline descriptor_pipeline_, address_pipeline_;
  std::map<std::string, VkPipeline> shaped_pipelines_;
};

// Median GPU ns of the raw copy each way, alternating; both must copy the pattern exactly.
struct RawCopyTimes {
  double descriptor_ns = 0, address_ns = 0;
  bool correct = false;
};
RawCopyTimes time_raw_copies(Device& dev, const std::vector<uint32_t>& pattern, uint32_t groups, int reps) {
  const uint64_t bytes = pattern.size() * 4;
  RawCopy raw(dev, bytes);
  raw.src().write(0, pattern.data(), bytes);
  bool correct = true;
  std::vector<double> by_descriptor, by_address;
  for (int r = -1; r < reps; ++r) {  // r = -1: warm-up, checked, not timed
    for (const bool address : {false, true}) {
      raw.dst().fill(0, bytes, 0);
      const double ns = raw.run(address, groups);
      if (r < 0) {
        std::vector<uint32_t> back(pattern.size());
        raw.dst().read(0, back.data(), bytes);
        correct = correct && back == pattern;
      } else {
        (address ? by_address : by_descriptor).push_back(ns);
      }
    }
  }
  return {median(by_descriptor), median(by_address), correct};
}

// The shapes the copy is timed at: the device's streaming shape first, then a sweep of the
// workgroup sizes and units per invocation the device allows.
std::vector<KernelShape> copy_shapes(const DeviceInfo& info) {
  std::vector<KernelShape> shapes{streaming_shape(info)};
  const uint32_t widest = std::min(info.max_workgroup_invocations, info.max_workgroup_size[0]);
  for (uint32_t size : {64u, 256u, 1024u})
    for (uint32_t units : {1u, 4u, 16u, 64u})
      if (size <= widest && KernelShape{size, units} != shapes[0]) shapes.push_back({size, units});
  return shapes;
}

// The engine's copy kernel over `bytes` of Globals at one shape, `pattern` in its source.
std::unique_ptr<Executable> copy_executable(Device& dev, const std::vector<uint32_t>& pattern, const KernelShape& shape) {
  const uint64_t bytes = pattern.size() * 4;
  RecordOptions o;
  o.stage_timestamps = false;
  auto exe = std::make_unique<Executable>(dev, copy_program(bytes, shape), o);
  exe->write_segment(Binding::Globals, "src", pattern.data(), bytes);
  return exe;
}

struct ShapeTimes {
  KernelShape shape;
  std::vector<double> weft_ns, raw_ns;
};

// Whether `dst` of the executable, or the raw copy's dst, holds the pattern.
bool copied(Executable& exe, const std::vector<uint32_t>& pattern) {
  std::vector<uint32_t> back(pattern.size());
  exe.read_segment(Binding::Globals, "dst", back.data(), pattern.size() * 4);
  return back == pattern;
}
bool copied(RawCopy& raw, const std::vector<uint32_t>& pattern) {
  std::vector<uint32_t> back(pattern.size());
  raw.dst().read(0, back.data(), pattern.size() * 4);
  return back == pattern;
}

// The engine's streaming copy at the device's shape and over a sweep of shapes, the minimal
// raw-Vulkan kernel at the same shapes (the driver's ceiling for a compute copy) and
// vkCmdCopyBuffer, one repetition of each per round so load hits all alike. One line per shape,
// then the summary: where the best raw kernel is far below vkCmdCopyBuffer, the limit is the
// driver's, not Weft's.
void bench_copy(Device& dev, uint64_t bytes, int reps) {
  bytes = bytes / 16 * 16;
  std::vector<uint32_t> pattern(bytes / 4);
  for (size_t k = 0; k < pattern.size(); ++k) pattern[k] = uint32_t(k * 2654435761u);
  std::vector<ShapeTimes> shapes;
  std::vector<std::unique_ptr<Executable>> exes;
  for (const KernelShape& shape : copy_shapes(dev.info())) {
    shapes.push_back({shape});
    exes.push_back(copy_executable(dev, pattern, shape));
  }
  // The executables created first measure up to 2x slower on lavapipe whatever their shape (an
  // allocation-order effect not understood, docs/benchmarks.md); the device's shape, the figure
  // that matters most, is made again last so that it is not one of them.
  exes[0] = copy_executable(dev, pattern, shapes[0].shape);
  RawCopy raw(dev, bytes);
  raw.src().write(0, pattern.data(), bytes);
  bool correct = true;
  std::vector<double> copy_buffer_ns;
  // Contender c < shapes.size() is that shape (the engine's kernel, then the raw one), the last
  // vkCmdCopyBuffer; each round starts one further along, so no contender always runs first.
  const size_t contenders = shapes.size() + 1;
  for (int r = -1; r < reps; ++r) {  // r = -1: warm-up, checked, not timed
    for (size_t n = 0; n < contenders; ++n) {
      const size_t k = (n + size_t(r + 1)) % contenders;
      if (k == shapes.size()) {
        const double ns = raw.run_copy_buffer();
        if (r >= 0) copy_buffer_ns.push_back(ns);
        continue;
      }
      exes[k]->run();
      if (r >= 0) shapes[k].weft_ns.push_back(exes[k]->timings().total_ns);
      if (r < 0) raw.dst().fill(0, bytes, 0);
      const double raw_ns = raw.run_shaped(shapes[k].shape);
      if (r >= 0) shapes[k].raw_ns.push_back(raw_ns);
      if (r < 0) correct = correct && copied(*exes[k], pattern) && copied(raw, pattern);
    }
  }
  const double copy_ns = median(copy_buffer_ns);
  const auto gbps = [&](double ns) { return 2.0 * bytes / ns; };  // bytes read plus bytes written
  const ShapeTimes* best_weft = &shapes[0];
  const ShapeTimes* best_raw = &shapes[0];
  for (const ShapeTimes& t : shapes) {
    Line("engine.copy_shape", dev)
        .num("bytes", double(bytes))
        .str("shape", t.shape.describe())
        .num("kernel_gb_per_s", gbps(median(t.weft_ns)))
        .num("raw_kernel_gb_per_s", gbps(median(t.raw_ns)))
        .num("ratio_kernel_vs_copy_buffer", copy_ns / median(t.weft_ns))
        .print();
    if (median(t.weft_ns) < median(best_weft->weft_ns)) best_weft = &t;
    if (median(t.raw_ns) < median(best_raw->raw_ns)) best_raw = &t;
  }
  const double kernel_ns = median(shapes[0].weft_ns), best_ns = median(best_weft->weft_ns), raw_ns = median(best_raw->raw_ns);
  Line("engine.copy_bandwidth", dev)
      .num("bytes", double(bytes))
      .str("device_shape", shapes[0].shape.describe())
      .num("kernel_gpu_ns", kernel_ns)
      .num("kernel_gb_per_s", gbps(kernel_ns))
      .str("best_kernel_shape", best_weft->shape.describe())
      .num("best_kernel_gb_per_s", gbps(best_ns))
      .str("raw_best_shape", best_raw->shape.describe())
      .num("raw_best_gb_per_s", gbps(raw_ns))
      .num("vkCmdCopyBuffer_gpu_ns", copy_ns)
      .num("vkCmdCopyBuffer_gb_per_s", gbps(copy_ns))
      .num("ratio_kernel_vs_copy_buffer", copy_ns / kernel_ns)
      .num("ratio_best_kernel_vs_copy_buffer", copy_ns / best_ns)
      .num("ratio_raw_best_vs_copy_buffer", copy_ns / raw_ns)
      .num("ratio_kernel_vs_raw_best", raw_ns / kernel_ns)
      .boolean("correct", correct)
      .print();
}

// The same streaming copy through far segments split over several allocations, against the
// in-window copy of the same bytes in the same run (the far path's overhead: table lookups and
// device addresses instead of a descriptor), and the driver's own ratio for the two kinds of
// access (RawCopy): where that is far below 1, so is the far path.
void bench_far_copy(Device& dev, uint64_t bytes, int reps) {
  bytes = bytes / 16 * 16;
  const uint32_t count = uint32_t(bytes / 16);
  const uint32_t groups = std::min<uint32_t>((count + 255) / 256, 4096);
  std::vector<uint32_t> pattern(count * 4);
  for (size_t k = 0; k < pattern.size(); ++k) pattern[k] = uint32_t(k * 2654435761u);
  auto timed = [&](bool far) {
    Program p(far ? "far_copy" : "copy");
    InstanceId i = p.add_instance("copy", 1);
    StageSpec s;
    s.name = "copy";
    s.instance = i;
    s.groups = {groups, 1, 1};
    if (far) {
      p.globals().add_far("src", bytes, 16);
      p.globals().add_far("dst", bytes, 16);
      s.kernel = engine_kernel("far_copy");
      s.args = FarCopyArgs{.src = p.segment(Binding::Globals, "src"), .dst = p.segment(Binding::Globals, "dst"), .count = count}.bind();
    } else {
      p.globals().add("src", bytes);
      p.globals().add("dst", bytes);
      s.kernel = engine_kernel("copy");
      s.streaming_units = count;
      s.shape = {256, 1};  // far_copy's own: 256 invocations, one unit each per grid step
      s.args = CopyArgs{.src = p.segment(Binding::Globals, "src"), .dst = p.segment(Binding::Globals, "dst"), .count = count}.bind();
    }
    p.add_stage(s);
    RecordOptions o;
    o.stage_timestamps = false;
    o.max_allocation_bytes = bytes / 4;  // the far segments take four allocations each
    Executable exe(dev, std::move(p), o);
    exe.write_segment(Binding::Globals, "src", pattern.data(), bytes);
    const RunTimes t = time_runs(exe, reps);
    std::vector<uint32_t> back(pattern.size());
    exe.read_segment(Binding::Globals, "dst", back.data(), bytes);
    return std::make_pair(t.gpu_ns, back == pattern);
  };
  const auto [near_ns, near_ok] = timed(false);
  const auto [far_ns, far_ok] = timed(true);
  const RawCopyTimes raw = time_raw_copies(dev, pattern, groups, reps);
  Line("engine.far_segment_streaming", dev)
      .num("bytes", double(bytes))
      .num("allocations_per_segment", 4)
      .num("in_window_gpu_ns", near_ns)
      .num("in_window_gb_per_s", 2.0 * bytes / near_ns)
      .num("far_gpu_ns", far_ns)
      .num("far_gb_per_s", 2.0 * bytes / far_ns)
      .num("ratio_far_vs_in_window", near_ns / far_ns)
      .num("raw_descriptor_gpu_ns", raw.descriptor_ns)
      .num("raw_device_address_gpu_ns", raw.address_ns)
      .num("raw_ratio_device_address_vs_descriptor", raw.descriptor_ns / raw.address_ns)
      .num("ratio_far_vs_raw_device_address", raw.address_ns / far_ns)
      .boolean("correct", near_ok && far_ok && raw.correct)
      .print();
}

// A regulator pass of `rules` rules (each fires and updates a word) against a tiny stage in the
// same program: the pass's own GPU time, from per-stage timestamps.
void bench_regulator(Device& dev, int reps) {
  for (uint32_t rules : {1u, 64u, 1024u}) {
    Program p("regulator");
    InstanceId a = p.add_instance("a", 1);
    const uint32_t word = p.add_control_words("target", {0});
    StageSpec s;
    s.name = "tiny";
    s.kernel = weft_test_kernels.get("tiny");
    s.instance = a;
    s.reads = {p.inbox(a)};
    s.writes = {p.outbox(a)};
    p.add_stage(s);
    std::vector<abi::WeftRule> list;
    for (uint32_t r = 0; r < rules; ++r) list.push_back(rule(Condition::always(), Action::set_word(word, r)));
    add_regulator(p, "regulate", list);
    Executable exe(dev, std::move(p));
    exe.run();
    std::vector<double> tiny_ns, reg_ns;
    for (int r = 0; r < reps; ++r) {
      exe.run();
      Timings t = exe.timings();
      tiny_ns.push_back(t.stage_ns[0]);
      reg_ns.push_back(t.stage_ns[1]);
    }
    Line("engine.regulator_pass", dev)
        .num("rules", rules)
        .num("regulator_gpu_ns", median(reg_ns))
        .num("tiny_stage_gpu_ns", median(tiny_ns))
        .num("ratio_regulator_vs_tiny_stage", median(reg_ns) / median(tiny_ns))
        .boolean("correct", exe.control_word(word) == rules - 1)
        .print();
  }
}

// The self-stopping Jacobi loop (N = 64 unrolled sweeps, a regulator after each) against the
// same program whose rule never fires: stopping at sweep k should cost about k/N of the time.
void bench_loop(Device& dev, int reps) {
  const uint32_t n = 48, iterations = 64;
  const conformance::JacobiSystem system = conformance::make_jacobi_system(n, 7);
  RecordOptions o;
  o.stage_timestamps = false;
  conformance::JacobiProgram early = conformance::jacobi_program(n, iterations, 1e-4f, true);
  conformance::JacobiProgram never = conformance::jacobi_program(n, iterations, 0.0f, true);
  Executable e(dev, std::move(early.program), o), f(dev, std::move(never.program), o);
  uint32_t k = 0, all = 0;
  std::vector<double> te, tf;
  for (int r = 0; r <= reps; ++r) {
    k = conformance::run_jacobi(e, system, early.solver).sweeps;
    const double early_ns = e.timings().total_ns;
    all = conformance::run_jacobi(f, system, never.solver).sweeps;
    if (r == 0) continue;  // warm-up
    te.push_back(early_ns);
    tf.push_back(f.timings().total_ns);
  }
  const double early_ns = median(te), full_ns = median(tf);
  Line("engine.loop_early_exit", dev)
      .num("unrolled", iterations)
      .num("stopped_after", k)
      .num("full_run_sweeps", all)
      .num("early_gpu_ns", early_ns)
      .num("full_gpu_ns", full_ns)
      .num("ratio_early_vs_full", early_ns / full_ns)
      .num("ratio_early_vs_k_sweeps", early_ns / (full_ns * k / all))
      .print();
}

}  // namespace

int bench_engine(Device& dev, const cli::Args& args) {
  const uint32_t stages = uint32_t(args.get_uint("stages", 1000));
  const int reps = int(args.get_uint("reps", 9));
  const uint64_t copy_mib = args.get_uint("copy-mib", default_copy_bytes(dev) >> 20);
  if (stages == 0 || reps == 0 || copy_mib == 0) fail(ErrorCode::BadInput, "--stages, --reps and --copy-mib must be positive");
  bench_chain(dev, stages, reps);
  bench_barriers(dev, stages, reps);
  bench_submit(dev, int(args.get_uint("submits", 200)));
  bench_copy(dev, copy_mib << 20, reps);
  if (dev.info().buffer_device_address) bench_far_copy(dev, copy_mib << 20, reps);
  else Line("engine.far_segment_streaming", dev).str("missing", "no bufferDeviceAddress: far segments are refused").print();
  bench_regulator(dev, reps);
  bench_loop(dev, reps);
  return 0;
}

}  // namespace weft::bench
