#include "histogram.h"

#include <algorithm>

#include "shaders/histogram_args.h"
#include "weft_histogram_kernels.h"

namespace weft::histogram {

namespace {

void validate(const Config& c) {
  if (c.bins == 0 || c.bins > kMaxBins)
    fail(ErrorCode::BadInput, "histogram: " + std::to_string(c.bins) + " bins; between 1 and " + std::to_string(kMaxBins));
  if (c.shift > 31) fail(ErrorCode::BadInput, "histogram: shift " + std::to_string(c.shift) + " is over 31");
}

}  // namespace

std::vector<uint32_t> reference(const std::vector<uint32_t>& values, const Config& config) {
  validate(config);
  std::vector<uint32_t> bins(config.bins, 0);
  for (uint32_t v : values) ++bins[std::min(v >> config.shift, config.bins - 1)];
  return bins;
}

Ports add_histogram(Program& p, uint64_t n, const Config& config) {
  validate(config);
  if (n > 0xFFFFFFFFull) fail(ErrorCode::BadInput, "histogram: more than 2^32 - 1 values");
  p.heap().add("histogram.values", std::max<uint64_t>(n, 1) * 4);
  p.globals().add("histogram.bins", uint64_t(config.bins) * 4);
  StageSpec s;
  s.name = "histogram.count";
  s.kernel = weft_histogram_kernels.get("count");
  s.instance = p.add_instance("histogram", 1);
  s.streaming_units = std::max<uint64_t>(n, 1);  // the kernel walks n; a stage walks at least one
  s.args = CountArgs{.values = p.segment(Binding::Heap, "histogram.values"),
                     .bins = p.segment(Binding::Globals, "histogram.bins"),
                     .n = uint32_t(n), .shift = config.shift, .bins_count = config.bins}.bind();
  p.add_stage(s);
  Ports ports("histogram");
  ports.add_segment("values", p.segment(Binding::Heap, "histogram.values"), "u32[n], the values counted")
      .add_segment("bins", p.segment(Binding::Globals, "histogram.bins"), "u32[bins], the counts (added to)");
  return ports;
}

Histogram::Histogram(Device& device, const std::vector<uint32_t>& values, const Config& config) : config_(config) {
  Program p("histogram");
  add_histogram(p, values.size(), config);
  p.require_bound_window(device.info(), "histogram of " + std::to_string(values.size()) + " values");
  exe_ = std::make_unique<Executable>(device, std::move(p));
  if (!values.empty()) exe_->write_segment(Binding::Heap, "histogram.values", values.data(), values.size() * 4);
  clear();
}

void Histogram::clear() {
  const std::vector<uint32_t> zeros(config_.bins, 0);
  exe_->write_segment(Binding::Globals, "histogram.bins", zeros.data(), zeros.size() * 4);
}

void Histogram::run() { exe_->run(); }

std::vector<uint32_t> Histogram::bins() { return exe_->read_segment<uint32_t>(Binding::Globals, "histogram.bins"); }

double Histogram::gpu_ns() {
  const Timings t = exe_->timings();
  return t.valid ? t.total_ns : 0;
}

}  // namespace weft::histogram
