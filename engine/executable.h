// An Executable is a Program made real on one device: its five buffers, the descriptor set
// (bound once per command buffer), pipelines, and the command buffer recorded once and
// replayed by every submit().
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "buffer.h"
#include "error.h"
#include "far_memory.h"
#include "program.h"
#include "recorder.h"

namespace weft {

class Device;

struct RecordOptions {
  BarrierMode barriers = BarrierMode::Planned;
  bool stage_timestamps = true;  // a GPU timestamp after every stage (else only around the run)
  bool reset_control = true;     // every run starts from the program's Control image
  bool reset_metrics = true;     // every run starts with zeroed Metrics records
  // The largest allocation a far segment's chunk may take (0: the device's
  // maxMemoryAllocationSize, or WEFT_MAX_ALLOCATION_BYTES when smaller). Lower values exercise
  // the split path on small data.
  uint64_t max_allocation_bytes = 0;
  // How long run() waits for a run before it reports a Timeout naming the stage still running
  // (0: WEFT_RUN_DEADLINE_S seconds, default 600; UINT64_MAX: no deadline). The GPU work itself
  // cannot be withdrawn from the queue: the executable waits for it (unbounded) before it is
  // destroyed, and a driver whose watchdog stops it reports DeviceLost.
  uint64_t run_deadline_ns = 0;
};

// A submitted run: the timeline-semaphore value that marks its completion.
struct Ticket {
  uint64_t value = 0;
};

struct Timings {
  bool valid = false;
  double total_ns = 0;            // first to last timestamp of the run
  std::vector<double> stage_ns;   // by stage index: completion time since the previous stage
};

// GPU time summed per kind of stage, in first-appearance order. A stage's kind is its name up
// to the first '.' or '[' ("aggregate[2].type1" -> "aggregate"), so workloads that name
// repeated stages that way get a per-operation breakdown.
struct KindTime {
  std::string kind;
  double ns = 0;
  // The traffic its stages declare: each read range read once, each written range written once
  // (the least a kernel touching all of them moves), so bytes / ns is its effective bandwidth.
  uint64_t declared_bytes = 0;
};
// `counted`, when given, leaves out the stages it returns false for (e.g. stages whose indirect
// slot the host zeroed, which ran no group and moved nothing).
std::vector<KindTime> stage_times_by_kind(const Program& program, const Timings& timings,
                                          const std::function<bool(const Stage&)>& counted = {});

class Executable {
 public:
  Executable(Device& device, Program program, RecordOptions options = {});
  ~Executable();
  Executable(const Executable&) = delete;
  Executable& operator=(const Executable&) = delete;

  Device& device() const { return device_; }
  const Program& program() const { return program_; }
  const Plan& plan() const { return plan_; }
  const FarMemory& far_memory() const { return *far_; }
  Buffer& buffer(Binding b) { return *buffers_[uint32_t(b)]; }

  // ---- host access. Writes and reads wait for runs in flight first, so they never race the
  // device. Ranges are checked: SegmentOutOfRange / RegisterWindowOverflow, never a silent clip.
  void write(Binding b, uint64_t offset, const void* data, uint64_t bytes);
  void read(Binding b, uint64_t offset, void* data, uint64_t bytes);
  void write_segment(Binding b, const std::string& segment, const void* data, uint64_t bytes, uint64_t offset = 0);
  void read_segment(Binding b, const std::string& segment, void* data, uint64_t bytes, uint64_t offset = 0);
  // A port's range (Ports::segment) or a far segment's: `bytes` from `offset` inside it.
  void write_range(const Range& range, const void* data, uint64_t bytes, uint64_t offset = 0);
  void read_range(const Range& range, void* data, uint64_t bytes, uint64_t offset = 0);
  // `bytes` of the file at `path` from `file_offset`, into the segment at `offset`, through a
  // read-only mapping of the file (no host copy of it is made).
  void write_segment_from_file(Binding b, const std::string& segment, const std::string& path, uint64_t file_offset,
                               uint64_t bytes, uint64_t offset = 0);
  // Called after each piece of a transfer longer than one piece (64 MiB); empty: none.
  void set_transfer_progress(TransferProgress progress) { progress_ = std::move(progress); }
  void write_register(InstanceId instance, uint32_t reg, const void* data, uint64_t bytes);
  void read_register(InstanceId instance, uint32_t reg, void* data, uint64_t bytes);
  template <class T>
  std::vector<T> read_range(const Range& range) {
    std::vector<T> out(range.size / sizeof(T));
    read_range(range, out.data(), out.size() * sizeof(T));
    return out;
  }
  template <class T>
  std::vector<T> read_segment(Binding b, const std::string& segment) {
    std::vector<T> out(program_.segment(b, segment).size / sizeof(T));
    read_segment(b, segment, out.data(), out.size() * sizeof(T));
    return out;
  }
  template <class T>
  std::vector<T> read_register(InstanceId instance, uint32_t reg) {
    std::vector<T> out(program_.instance(instance).width * 4 / sizeof(T));
    read_register(instance, reg, out.data(), out.size() * sizeof(T));
    return out;
  }

  // Polls an instance's Metrics record without waiting (it may change while a run is going).
  abi::WeftMetrics metrics(InstanceId instance);
  // Control words: `set` changes the image every run starts from (and the live buffer).
  void set_control_word(uint32_t word, uint32_t value);
  uint32_t control_word(uint32_t word);

  // ---- execution ----
  Ticket submit();                                        // non-blocking; settles an earlier cancel() first
  // DeviceLost / Timeout as status; MissingFeature once a kernel's loop was stopped early by the
  // driver (weft_require_loop_end), for this and every later wait: the results are void.
  Status wait(Ticket ticket, uint64_t timeout_ns = UINT64_MAX);
  bool done(Ticket ticket) const;
  void run();                                             // submit + wait (the run deadline), throwing on failure
  // Cancels the runs submitted so far and not yet ended: the stages they have not reached yet are
  // not dispatched (a stage already running, and one dispatched from a regulator's indirect slot,
  // runs to its end), so they end soon. Safe from any thread, also while another one waits.
  // wait() on a cancelled run reports Cancelled (its results are void); a run that had ended
  // before stays good. The next submit() runs whole. run() past its deadline cancels its run this
  // way. Runs appended to a caller's command buffer are not cancelled. A foreign stage
  // (foreign_stage.h) records its own commands and runs whole; the cancel takes effect at the
  // next kernel stage.
  void cancel();
  Timings timings();                                      // of the last completed run

  // Appends this program to a command buffer the caller records and submits (VkFFT style):
  // binds the shared descriptor set, resets Control/Metrics if asked, records every stage.
  // Once the caller's submission is done, loop_cut_status() says whether its results stand.
  void record_into(VkCommandBuffer cmd);
  Status loop_cut_status();

 private:
  void wait_idle();
  uint32_t query_count() const;
  std::string describe_overrun(Ticket ticket) const;
  Status wait_semaphore(uint64_t value, uint64_t timeout_ns);
  Status cancel_status(Ticket ticket);
  void settle_cancel();
  void check_fits_device(const DeviceInfo& info) const;
  void prepare_foreign();

  Device& device_;
  Program program_;
  RecordOptions options_;
  uint64_t run_deadline_ns_ = UINT64_MAX;
  Plan plan_;
  std::vector<std::unique_ptr<Buffer>> buffers_;
  std::unique_ptr<FarMemory> far_;
  TransferProgress progress_;
  std::unique_ptr<Buffer> control_init_;
  std::unique_ptr<Buffer> loop_cut_;  // host-visible copy of Control's loop_cut word, written at the end of each run
  std::vector<uint32_t> control_image_;
  std::vector<VkPipeline> pipelines_;
  std::vector<std::unique_ptr<ForeignCommands>> foreign_;  // by stage index; null for kernel stages
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
  VkSemaphore timeline_ = VK_NULL_HANDLE;
  VkQueryPool queries_ = VK_NULL_HANDLE;
  std::atomic<uint64_t> submitted_{0};
  // Every fixed-size stage's group counts, read by its indirect dispatch (record_stages); zeroed
  // by cancel() while runs cancelled_from_ .. cancelled_through_ end, restored by the next submit().
  std::vector<VkDispatchIndirectCommand> dispatch_image_;
  std::unique_ptr<Buffer> dispatch_table_;
  std::mutex cancel_mutex_;
  uint64_t cancelled_from_ = 0, cancelled_through_ = 0;
  bool cancel_pending_ = false;
};

}  // namespace weft
