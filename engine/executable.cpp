#include "executable.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "device.h"
#include "input_file.h"
#include "pipeline_cache.h"

namespace weft {

namespace {

uint64_t padded(uint64_t bytes) { return std::max<uint64_t>((bytes + 15) / 16 * 16, 16); }

void barrier(VkCommandBuffer cmd, VkPipelineStageFlags src, VkAccessFlags src_access, VkPipelineStageFlags dst,
             VkAccessFlags dst_access) {
  VkMemoryBarrier mb{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  mb.srcAccessMask = src_access;
  mb.dstAccessMask = dst_access;
  vkCmdPipelineBarrier(cmd, src, dst, 0, 1, &mb, 0, nullptr, 0, nullptr);
}

// SegmentOutOfRange unless [offset, offset + bytes) lies inside `size` bytes of `where`.
void check_inside(uint64_t size, uint64_t offset, uint64_t bytes, const char* verb, const std::string& where) {
  if (offset > size || bytes > size - offset)
    fail(ErrorCode::SegmentOutOfRange, std::string(verb) + " of " + std::to_string(bytes) + " bytes at offset " +
                                           std::to_string(offset) + " is outside " + where + " (" + std::to_string(size) +
                                           " bytes)");
}

constexpr VkPipelineStageFlags kCompute = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT;
constexpr VkAccessFlags kComputeAccess =
    VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_INDIRECT_COMMAND_READ_BIT;

}  // namespace

// OutOfMemory naming both sizes when the program needs more than the device's memory: the
// device, not a window or an allocation, is then the limit.
void Executable::check_fits_device(const DeviceInfo& info) const {
  uint64_t need = padded(program_.registers_bytes()) + padded(program_.metrics_bytes()) + padded(program_.globals().size()) +
                  2 * padded(program_.control_bytes()) + padded(program_.heap().size());
  for (const SegmentLayout* layout : {&program_.heap(), &program_.globals()})
    for (uint32_t far = 1; far <= layout->far_count(); ++far)
      if (!layout->far_segment(far).memory) need += layout->far_segment(far).size;  // imported: allocated already
  if (info.device_local_bytes && need > info.device_local_bytes)
    fail(ErrorCode::OutOfMemory, "program '" + program_.name() + "' needs " + std::to_string(need) + " bytes of device memory; " +
                                     info.name + " has " + std::to_string(info.device_local_bytes));
}

Executable::Executable(Device& device, Program program, RecordOptions options)
    : device_(device), program_(std::move(program)), options_(options) {
  const DeviceInfo& info = device.info();
  program_.resolve_shapes(info);
  program_.validate(info);
  plan_ = plan_program(program_, options_.barriers);

  static constexpr InputLimit kRunDeadline{"run deadline in seconds", "WEFT_RUN_DEADLINE_S", 600};
  const uint64_t deadline_s = input_limit(kRunDeadline);
  run_deadline_ns_ = options_.run_deadline_ns ? options_.run_deadline_ns
                     : deadline_s > UINT64_MAX / 1000000000 ? UINT64_MAX
                                                            : deadline_s * 1000000000;
  const uint64_t max_allocation = far_allocation_cap(info, options_.max_allocation_bytes);
  check_fits_device(info);
  far_ = std::make_unique<FarMemory>(device, program_, max_allocation);
  // The Control image: the program's sections, then the far-segment tables.
  control_image_ = program_.control_image();
  far_->append_tables(control_image_);
  const uint64_t sizes[WEFT_BINDING_COUNT] = {program_.registers_bytes(), program_.metrics_bytes(),
                                              program_.globals().size(), control_image_.size() * 4,
                                              program_.heap().size()};
  if (sizes[WEFT_BINDING_CONTROL] > info.max_storage_buffer_range)
    fail(ErrorCode::InvalidProgram, "program '" + program_.name() + "': Control with its far-segment tables needs " +
                                        std::to_string(sizes[WEFT_BINDING_CONTROL]) + " bytes, more than maxStorageBufferRange " +
                                        std::to_string(info.max_storage_buffer_range));
  for (uint32_t b = 0; b < WEFT_BINDING_COUNT; ++b) {
    VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT;
    if (b == WEFT_BINDING_CONTROL) usage |= VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
    MemoryUse use = b == WEFT_BINDING_METRICS ? MemoryUse::HostVisible : MemoryUse::DeviceLocal;
    buffers_.push_back(std::make_unique<Buffer>(device, padded(sizes[b]), usage, use, binding_name(Binding(b))));
    buffers_.back()->fill(0, buffers_.back()->size(), 0);  // every program starts from zeroed state
  }
  control_init_ = std::make_unique<Buffer>(device, padded(control_image_.size() * 4), 0, MemoryUse::DeviceLocal,
                                           "Control.initial");
  control_init_->write(0, control_image_.data(), control_image_.size() * 4);
  buffer(Binding::Control).write(0, control_image_.data(), control_image_.size() * 4);
  loop_cut_ = std::make_unique<Buffer>(device, 16, 0, MemoryUse::HostVisible, "Control.loop_cut");
  loop_cut_->fill(0, loop_cut_->size(), 0);
  dispatch_image_ = dispatch_table_image(program_);
  dispatch_table_ = std::make_unique<Buffer>(device, dispatch_image_.size() * sizeof(VkDispatchIndirectCommand),
                                             VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT, MemoryUse::HostVisible, "dispatch table");
  dispatch_table_->write(0, dispatch_image_.data(), dispatch_table_->size());

  PipelineCache& cache = device.pipelines();
  for (const Stage& s : program_.stages()) pipelines_.push_back(s.foreign ? VK_NULL_HANDLE : cache.pipeline(*s.kernel, s.shape));
  prepare_foreign();

  VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, WEFT_BINDING_COUNT};
  VkDescriptorPoolCreateInfo pi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pi.maxSets = 1;
  pi.poolSizeCount = 1;
  pi.pPoolSizes = &pool_size;
  vk_check(vkCreateDescriptorPool(device.vk(), &pi, nullptr, &pool_), "vkCreateDescriptorPool");
  VkDescriptorSetLayout set_layout = cache.set_layout();
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = pool_;
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = &set_layout;
  vk_check(vkAllocateDescriptorSets(device.vk(), &ai, &set_), "vkAllocateDescriptorSets");
  VkDescriptorBufferInfo infos[WEFT_BINDING_COUNT];
  VkWriteDescriptorSet writes[WEFT_BINDING_COUNT];
  for (uint32_t b = 0; b < WEFT_BINDING_COUNT; ++b) {
    // validate() keeps each binding's data inside the window; padding may pass it.
    infos[b] = {buffers_[b]->vk(), 0, std::min<uint64_t>(buffers_[b]->size(), info.max_storage_buffer_range / 4 * 4)};
    writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[b].dstSet = set_;
    writes[b].dstBinding = b;
    writes[b].descriptorCount = 1;
    writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[b].pBufferInfo = &infos[b];
  }
  vkUpdateDescriptorSets(device.vk(), WEFT_BINDING_COUNT, writes, 0, nullptr);

  VkSemaphoreTypeCreateInfo ti{VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO};
  ti.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo si{VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
  si.pNext = &ti;
  vk_check(vkCreateSemaphore(device.vk(), &si, nullptr, &timeline_), "vkCreateSemaphore");

  if (info.timestamps) {
    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = query_count();
    vk_check(vkCreateQueryPool(device.vk(), &qi, nullptr, &queries_), "vkCreateQueryPool");
  }

  VkCommandPoolCreateInfo ci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  ci.queueFamilyIndex = device.queue_family();
  vk_check(vkCreateCommandPool(device.vk(), &ci, nullptr, &command_pool_), "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cai.commandPool = command_pool_;
  cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cai.commandBufferCount = 1;
  vk_check(vkAllocateCommandBuffers(device.vk(), &cai, &command_buffer_), "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_SIMULTANEOUS_USE_BIT;
  vk_check(vkBeginCommandBuffer(command_buffer_, &bi), "vkBeginCommandBuffer");
  record_into(command_buffer_);
  vk_check(vkEndCommandBuffer(command_buffer_), "vkEndCommandBuffer");
}

Executable::~Executable() {
  if (submitted_ && timeline_) (void)wait(Ticket{submitted_});  // a lost device answers at once
  foreign_.clear();  // their libraries' objects go while the device is still there
  VkDevice d = device_.vk();
  if (command_pool_) vkDestroyCommandPool(d, command_pool_, nullptr);
  if (queries_) vkDestroyQueryPool(d, queries_, nullptr);
  if (timeline_) vkDestroySemaphore(d, timeline_, nullptr);
  if (pool_) vkDestroyDescriptorPool(d, pool_, nullptr);
}

// Each foreign stage sets itself up on this Executable's buffers: every declared range as the
// binding's VkBuffer and the range's offset (add_stage refused far segments).
void Executable::prepare_foreign() {
  foreign_.resize(program_.stages().size());
  auto spans = [&](const std::vector<Range>& ranges) {
    std::vector<BufferSpan> out;
    for (const Range& r : ranges) out.push_back({buffer(r.binding).vk(), r.offset, r.size, buffer(r.binding).size()});
    return out;
  };
  for (const Stage& s : program_.stages())
    if (s.foreign) {
      foreign_[s.index] = s.foreign->prepare(device_, ForeignBuffers{spans(s.reads), spans(s.writes)});
      if (!foreign_[s.index])
        fail(ErrorCode::InvalidProgram, "program '" + program_.name() + "', stage '" + s.name + "': foreign commands '" +
                                            s.foreign->what + "' prepared nothing");
    }
}

uint32_t Executable::query_count() const {
  return options_.stage_timestamps ? uint32_t(program_.stages().size()) + 1 : 2;
}

void Executable::record_into(VkCommandBuffer cmd) {
  const StageMasks stages = masks_of(program_);  // foreign stages may add transfers to the compute work
  if (queries_) vkCmdResetQueryPool(cmd, queries_, 0, query_count());
  if (options_.reset_control || options_.reset_metrics) {
    // Earlier runs on this queue must be done with Control/Metrics before the reset copies.
    barrier(cmd, kCompute | stages.stages, VK_ACCESS_SHADER_WRITE_BIT | stages.write, VK_PIPELINE_STAGE_TRANSFER_BIT,
            VK_ACCESS_TRANSFER_WRITE_BIT);
    if (options_.reset_control) {
      // All but loop_cut: once a kernel's loop was stopped early the program's state is void,
      // and every later wait says so.
      constexpr uint64_t cut = WEFT_CONTROL_LOOP_CUT_WORD * 4;
      const VkBufferCopy c[2] = {{0, 0, cut}, {cut + 4, cut + 4, control_image_.size() * 4 - cut - 4}};
      vkCmdCopyBuffer(cmd, control_init_->vk(), buffer(Binding::Control).vk(), 2, c);
    }
    if (options_.reset_metrics) vkCmdFillBuffer(cmd, buffer(Binding::Metrics).vk(), 0, VK_WHOLE_SIZE, 0);
  }
  // Transfers above, earlier runs and staged uploads become visible to this run's kernels.
  barrier(cmd, kCompute | VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT,
          kCompute | stages.stages, kComputeAccess | stages.read | stages.write);
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, device_.pipelines().pipeline_layout(), 0, 1, &set_, 0,
                          nullptr);
  if (queries_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, queries_, 0);
  StageRecording r{pipelines_, {}, device_.pipelines().pipeline_layout(), set_, buffer(Binding::Control).vk(),
                   dispatch_table_->vk(), options_.stage_timestamps ? queries_ : VK_NULL_HANDLE};
  for (const auto& f : foreign_) r.foreign.push_back(f.get());
  record_stages(cmd, program_, plan_, r);
  if (queries_ && !options_.stage_timestamps) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_, 1);
  // Results become visible to host reads (mapped) and to staged copies.
  barrier(cmd, kCompute | stages.stages, VK_ACCESS_SHADER_WRITE_BIT | stages.write,
          VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT);
  const VkBufferCopy cut{WEFT_CONTROL_LOOP_CUT_WORD * 4, 0, 4};
  vkCmdCopyBuffer(cmd, buffer(Binding::Control).vk(), loop_cut_->vk(), 1, &cut);
  barrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
}

// A kernel's loop the driver stopped early (weft_require_loop_end) voids the run's results.
Status Executable::loop_cut_status() {
  uint32_t stage_plus_one = 0;
  loop_cut_->read(0, &stage_plus_one, 4);  // mapped: written by the run's last copy
  if (stage_plus_one == 0) return Status::success();
  const Stage& s = program_.stages().at(stage_plus_one - 1);
  return Status::failure(ErrorCode::MissingFeature,
                         "program '" + program_.name() + "', stage '" + s.name + "' (kernel '" + s.kernel->name() +
                             "'): device '" + device_.info().name + "' stopped one of the kernel's loops before its end (it stops "
                             "a kernel's loops after " + std::to_string(device_.loop_iteration_limit()) +
                             " iterations per invocation), so the results are wrong; this program cannot run these sizes on this device");
}

Ticket Executable::submit() {
  settle_cancel();
  const uint64_t value = submitted_ + 1;
  VkTimelineSemaphoreSubmitInfo ts{VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO};
  ts.signalSemaphoreValueCount = 1;
  ts.pSignalSemaphoreValues = &value;
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.pNext = &ts;
  si.commandBufferCount = 1;
  si.pCommandBuffers = &command_buffer_;
  si.signalSemaphoreCount = 1;
  si.pSignalSemaphores = &timeline_;
  device_.submit(si, VK_NULL_HANDLE);
  submitted_ = value;
  return {value};
}

Status Executable::wait(Ticket ticket, uint64_t timeout_ns) {
  if (ticket.value == 0 || ticket.value > submitted_)
    return Status::failure(ErrorCode::BadInput, "wait: ticket " + std::to_string(ticket.value) + " was never submitted");
  if (Status s = wait_semaphore(ticket.value, timeout_ns); !s) return s;
  if (Status s = cancel_status(ticket); !s) return s;
  return loop_cut_status();
}

// Until the timeline reaches `value`: Timeout, or DeviceLost (which marks the device lost).
Status Executable::wait_semaphore(uint64_t value, uint64_t timeout_ns) {
  auto what = [&] { return "program '" + program_.name() + "', run " + std::to_string(value); };
  if (device_.lost()) return device_.lost_status(what());
  VkSemaphoreWaitInfo wi{VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO};
  wi.semaphoreCount = 1;
  wi.pSemaphores = &timeline_;
  wi.pValues = &value;
  const VkResult r = vkWaitSemaphores(device_.vk(), &wi, timeout_ns);
  if (r == VK_TIMEOUT) return Status::failure(ErrorCode::Timeout, "wait: run " + std::to_string(value) + " not done");
  if (r == VK_ERROR_DEVICE_LOST) return Status::failure(ErrorCode::DeviceLost, device_.note_lost("waiting for " + what()).message());
  return vk_status(r, "vkWaitSemaphores");
}

bool Executable::done(Ticket ticket) const {
  uint64_t value = 0;
  // A lost device finishes nothing more: done, and wait() says how.
  if (vkGetSemaphoreCounterValue(device_.vk(), timeline_, &value) != VK_SUCCESS) return true;
  return value >= ticket.value;
}

void Executable::run() {
  const Ticket ticket = submit();
  const Status s = wait(ticket, run_deadline_ns_);
  if (!s && s.code == ErrorCode::Timeout) {
    std::string message = describe_overrun(ticket);
    cancel();
    // The stage already dispatched ends on its own: give it the deadline again, between one
    // and ten seconds.
    const uint64_t grace_ns = std::clamp<uint64_t>(run_deadline_ns_, 1'000'000'000, 10'000'000'000);
    if (wait_semaphore(ticket.value, grace_ns))
      message += "; the rest of the run was cancelled (its results are void; the program can run again)";
    else
      message += "; cancelled, but the stage it was running had not ended " + std::to_string(grace_ns / 1000000) + " ms later";
    fail(ErrorCode::Timeout, message);
  }
  s.throw_if_failed();
}

// ---- cancelling ------------------------------------------------------------------------------
// The queue cannot drop work it was given, but every stage with fixed group counts dispatches
// indirectly from the host-visible dispatch table: zeroed, the stages a run has not reached yet
// dispatch nothing. A stage already dispatched runs to its end.

void Executable::cancel() {
  std::lock_guard lock(cancel_mutex_);
  uint64_t ended = 0;
  if (vkGetSemaphoreCounterValue(device_.vk(), timeline_, &ended) != VK_SUCCESS) return;  // lost: nothing runs
  const uint64_t through = submitted_;
  if (through <= ended) return;
  if (!cancel_pending_) {
    cancelled_from_ = ended + 1;
    const std::vector<VkDispatchIndirectCommand> none(dispatch_image_.size(), {0, 0, 0});
    dispatch_table_->write(0, none.data(), dispatch_table_->size());
  }
  cancelled_through_ = through;
  cancel_pending_ = true;
}

// A run in the cancelled span ended after the cancel: void, whatever it had done by then.
Status Executable::cancel_status(Ticket ticket) {
  std::lock_guard lock(cancel_mutex_);
  if (ticket.value < cancelled_from_ || ticket.value > cancelled_through_) return Status::success();
  return Status::failure(ErrorCode::Cancelled, "program '" + program_.name() + "', run " + std::to_string(ticket.value) +
                                                   " was cancelled (stages it had not reached were not dispatched): "
                                                   "its results are void");
}

// Before the next submission: the cancelled runs end, then the dispatch table gets its group
// counts back, so that the new run is whole.
void Executable::settle_cancel() {
  std::lock_guard lock(cancel_mutex_);
  if (!cancel_pending_) return;
  wait_semaphore(cancelled_through_, UINT64_MAX).throw_if_failed();
  dispatch_table_->write(0, dispatch_image_.data(), dispatch_table_->size());
  cancel_pending_ = false;
}

// Which stage a run that passed its deadline is in: the first one in recorded order whose
// closing timestamp is not yet written. Lavapipe (a CPU device) answers a query read only once
// its queue is idle, which would turn the deadline back into an unbounded wait, so there the
// stage is not named.
std::string Executable::describe_overrun(Ticket ticket) const {
  const std::string head = "program '" + program_.name() + "': run " + std::to_string(ticket.value) + " still running after " +
                           std::to_string(run_deadline_ns_ / 1000000) + " ms (RecordOptions::run_deadline_ns, WEFT_RUN_DEADLINE_S)";
  if (!queries_ || !options_.stage_timestamps) return head + "; per-stage timestamps are off, so the stage is unknown";
  if (device_.info().type == "cpu") return head + "; a CPU device reports no stage while a run is in flight";
  const uint32_t n = query_count();
  std::vector<uint64_t> raw(2 * size_t(n));  // (value, availability) per query
  vkGetQueryPoolResults(device_.vk(), queries_, 0, n, raw.size() * 8, raw.data(), 16,
                        VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
  for (size_t pos = 0; pos < plan_.order.size(); ++pos)
    if (raw[2 * (pos + 1) + 1] == 0) {
      const uint32_t stage = plan_.order[pos];
      return head + ", in stage " + std::to_string(stage) + " '" + program_.stages()[stage].name + "' (" +
             std::to_string(pos + 1) + " of " + std::to_string(plan_.order.size()) + " in recorded order)";
    }
  return head + ", past its last stage";
}

// Host access first waits for the runs in flight. On a lost device it refuses: the buffers'
// contents are void. (A loop cut is reported by wait() and run(), not by every access after it.)
void Executable::wait_idle() {
  device_.require_not_lost("program '" + program_.name() + "'");
  if (!submitted_ || !timeline_) return;
  const Status s = wait(Ticket{submitted_});
  if (!s && s.code == ErrorCode::DeviceLost) s.throw_if_failed();
}

Timings Executable::timings() {
  Timings t;
  if (!queries_ || submitted_ == 0) return t;
  wait_idle();
  const uint32_t n = query_count();
  std::vector<uint64_t> raw(n);
  if (vkGetQueryPoolResults(device_.vk(), queries_, 0, n, n * 8, raw.data(), 8, VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
    return t;
  const double period = device_.info().timestamp_period_ns;
  t.valid = true;
  t.total_ns = double(raw[n - 1] - raw[0]) * period;
  if (options_.stage_timestamps) {
    t.stage_ns.assign(program_.stages().size(), 0);
    for (size_t pos = 0; pos < plan_.order.size(); ++pos)
      t.stage_ns[plan_.order[pos]] = double(raw[pos + 1] - raw[pos]) * period;
  }
  return t;
}

// ---- host access ----------------------------------------------------------------------------

void Executable::write(Binding b, uint64_t offset, const void* data, uint64_t bytes) {
  check_inside(program_.whole(b).size, offset, bytes, "write", binding_name(b));
  wait_idle();
  buffer(b).write(offset, data, bytes);
}

void Executable::read(Binding b, uint64_t offset, void* data, uint64_t bytes) {
  check_inside(program_.whole(b).size, offset, bytes, "read", binding_name(b));
  wait_idle();
  buffer(b).read(offset, data, bytes);
}

void Executable::write_segment(Binding b, const std::string& name, const void* data, uint64_t bytes, uint64_t offset) {
  const Range r = program_.segment(b, name);
  check_inside(r.size, offset, bytes, "write", std::string(binding_name(b)) + " segment '" + name + "'");
  write_range(r, data, bytes, offset);
}

void Executable::read_segment(Binding b, const std::string& name, void* data, uint64_t bytes, uint64_t offset) {
  const Range r = program_.segment(b, name);
  check_inside(r.size, offset, bytes, "read", std::string(binding_name(b)) + " segment '" + name + "'");
  read_range(r, data, bytes, offset);
}

void Executable::write_segment_from_file(Binding b, const std::string& name, const std::string& path, uint64_t file_offset,
                                         uint64_t bytes, uint64_t offset) {
  const MappedFile file(path);
  check_inside(file.size(), file_offset, bytes, "read", "file " + path);
  write_segment(b, name, file.data() + file_offset, bytes, offset);
}

namespace {
std::string range_name(const Program& p, const Range& r) {
  return std::string(binding_name(r.binding)) +
         (r.far ? " far segment '" + p.far_segment(r.binding, r.far).name + "'" : " range at byte " + std::to_string(r.offset));
}
}  // namespace

void Executable::write_range(const Range& r, const void* data, uint64_t bytes, uint64_t offset) {
  check_inside(r.size, offset, bytes, "write", range_name(program_, r));
  if (!r.far) return write(r.binding, r.offset + offset, data, bytes);
  wait_idle();
  far_->write(r, offset, data, bytes, progress_);
}

void Executable::read_range(const Range& r, void* data, uint64_t bytes, uint64_t offset) {
  check_inside(r.size, offset, bytes, "read", range_name(program_, r));
  if (!r.far) return read(r.binding, r.offset + offset, data, bytes);
  wait_idle();
  far_->read(r, offset, data, bytes, progress_);
}

void Executable::write_register(InstanceId id, uint32_t reg, const void* data, uint64_t bytes) {
  const Range r = program_.registers(id, reg, 1);
  if (bytes > r.size)
    fail(ErrorCode::RegisterWindowOverflow, "write of " + std::to_string(bytes) + " bytes into R" + std::to_string(reg) +
                                                " of '" + program_.instance(id).name + "', which holds " +
                                                std::to_string(r.size));
  write(Binding::Registers, r.offset, data, bytes);
}

void Executable::read_register(InstanceId id, uint32_t reg, void* data, uint64_t bytes) {
  const Range r = program_.registers(id, reg, 1);
  if (bytes > r.size)
    fail(ErrorCode::RegisterWindowOverflow, "read of " + std::to_string(bytes) + " bytes from R" + std::to_string(reg) +
                                                " of '" + program_.instance(id).name + "', which holds " +
                                                std::to_string(r.size));
  read(Binding::Registers, r.offset, data, bytes);
}

abi::WeftMetrics Executable::metrics(InstanceId id) {
  const Range r = program_.metrics(id);
  abi::WeftMetrics m{};
  device_.require_not_lost("program '" + program_.name() + "', metrics of '" + program_.instance(id).name + "'");
  buffer(Binding::Metrics).read(r.offset, &m, sizeof m);  // mapped: no wait, a live poll
  return m;
}

void Executable::set_control_word(uint32_t word, uint32_t value) {
  // The host may set halt and step in the header; the rest of the header is the engine's.
  // The far-segment tables after the program's words are the engine's too.
  const bool header_word = word < WEFT_CONTROL_HEADER_WORDS;
  const uint64_t program_words = program_.control_bytes() / 4;
  if (word >= program_words || (header_word && word != 0 && word != 2))
    fail(ErrorCode::SegmentOutOfRange, "control word " + std::to_string(word) + " is not host-settable (halt = 0, step = 2, or [" +
                                           std::to_string(WEFT_CONTROL_HEADER_WORDS) + ", " + std::to_string(program_words) + "))");
  wait_idle();
  control_image_[word] = value;
  control_init_->write(uint64_t(word) * 4, &value, 4);
  buffer(Binding::Control).write(uint64_t(word) * 4, &value, 4);
}

uint32_t Executable::control_word(uint32_t word) {
  if (word >= control_image_.size())
    fail(ErrorCode::SegmentOutOfRange, "control word " + std::to_string(word) + " is outside the Control buffer (" +
                                           std::to_string(control_image_.size()) + " words)");
  uint32_t v = 0;
  read(Binding::Control, uint64_t(word) * 4, &v, 4);
  return v;
}

std::vector<KindTime> stage_times_by_kind(const Program& program, const Timings& timings,
                                          const std::function<bool(const Stage&)>& counted) {
  std::vector<KindTime> out;
  std::map<std::string, size_t> at;
  for (const Stage& s : program.stages()) {
    if (counted && !counted(s)) continue;
    const std::string kind = s.name.substr(0, s.name.find_first_of(".["));
    auto [it, added] = at.try_emplace(kind, out.size());
    if (added) out.push_back({kind, 0});
    if (timings.valid && s.index < timings.stage_ns.size()) out[it->second].ns += timings.stage_ns[s.index];
    for (const auto* ranges : {&s.reads, &s.writes})
      for (const Range& r : *ranges) out[it->second].declared_bytes += r.size;
  }
  return out;
}

}  // namespace weft
