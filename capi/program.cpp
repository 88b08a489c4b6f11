// Manifest programs through the C ABI: load, submit / wait / run, segments, metrics, control.
#include <cstring>
#include <filesystem>

#include <weft/manifest.h>

#include "handles.h"

using namespace weft;
using weft::capi::guard;
using weft::capi::require;

namespace {

Binding binding_of(weft_binding b, const char* function) {
  switch (b) {
    case WEFT_BIND_HEAP: return Binding::Heap;
    case WEFT_BIND_GLOBALS: return Binding::Globals;
    default: break;
  }
  fail(ErrorCode::BadInput, std::string(function) + ": named segments live in Heap or Globals, not binding " +
                                std::to_string(int(b)));
}

void open_program(weft_device* device, const Manifest& manifest, weft_program** program) {
  auto handle = std::make_unique<weft_program>();
  handle->device = device->device;
  handle->runner = std::make_unique<ManifestRunner>(*device->device, manifest);
  *program = handle.release();
}

}  // namespace

extern "C" {

weft_status weft_program_from_manifest(weft_device* device, const char* path, weft_program** program) {
  return guard([&] {
    require(device, "weft_program_from_manifest", "device");
    require(path, "weft_program_from_manifest", "path");
    require(program, "weft_program_from_manifest", "program");
    *program = nullptr;
    open_program(device, load_manifest(path), program);
  });
}

weft_status weft_program_from_manifest_text(weft_device* device, const char* text, const char* base_dir,
                                            weft_program** program) {
  return guard([&] {
    require(device, "weft_program_from_manifest_text", "device");
    require(text, "weft_program_from_manifest_text", "text");
    require(program, "weft_program_from_manifest_text", "program");
    *program = nullptr;
    // Relative paths resolve against the manifest's folder: name a file inside base_dir.
    const std::filesystem::path dir = base_dir && *base_dir ? base_dir : ".";
    open_program(device, parse_manifest(text, (dir / "<text>").string()), program);
  });
}

weft_status weft_program_submit(weft_program* program, uint64_t* ticket) {
  return guard([&] {
    require(program, "weft_program_submit", "program");
    require(ticket, "weft_program_submit", "ticket");
    *ticket = program->runner->executable().submit().value;
  });
}

weft_status weft_program_wait(weft_program* program, uint64_t ticket, uint64_t timeout_ns) {
  return guard([&] {
    require(program, "weft_program_wait", "program");
    program->runner->executable().wait(Ticket{ticket}, timeout_ns).throw_if_failed();
  });
}

weft_status weft_program_cancel(weft_program* program) {
  return guard([&] {
    require(program, "weft_program_cancel", "program");
    program->runner->executable().cancel();
  });
}

weft_status weft_program_run(weft_program* program) {
  return guard([&] {
    require(program, "weft_program_run", "program");
    program->runner->run();
  });
}

weft_status weft_program_segment_size(weft_program* program, weft_binding binding, const char* segment, uint64_t* bytes) {
  return guard([&] {
    require(program, "weft_program_segment_size", "program");
    require(segment, "weft_program_segment_size", "segment");
    require(bytes, "weft_program_segment_size", "bytes");
    *bytes = program->runner->executable().program().segment(binding_of(binding, "weft_program_segment_size"), segment).size;
  });
}

weft_status weft_program_write_segment(weft_program* program, weft_binding binding, const char* segment,
                                       uint64_t offset, const void* data, uint64_t bytes) {
  return guard([&] {
    require(program, "weft_program_write_segment", "program");
    require(segment, "weft_program_write_segment", "segment");
    if (bytes) require(data, "weft_program_write_segment", "data");
    program->runner->executable().write_segment(binding_of(binding, "weft_program_write_segment"), segment, data, bytes,
                                                offset);
  });
}

weft_status weft_program_read_segment(weft_program* program, weft_binding binding, const char* segment,
                                      uint64_t offset, void* data, uint64_t bytes) {
  return guard([&] {
    require(program, "weft_program_read_segment", "program");
    require(segment, "weft_program_read_segment", "segment");
    if (bytes) require(data, "weft_program_read_segment", "data");
    program->runner->executable().read_segment(binding_of(binding, "weft_program_read_segment"), segment, data, bytes,
                                               offset);
  });
}

weft_status weft_program_instance_count(const weft_program* program, uint32_t* count) {
  return guard([&] {
    require(program, "weft_program_instance_count", "program");
    require(count, "weft_program_instance_count", "count");
    *count = uint32_t(program->runner->executable().program().instances().size());
  });
}

weft_status weft_program_instance(const weft_program* program, const char* name, uint32_t* instance) {
  return guard([&] {
    require(program, "weft_program_instance", "program");
    require(name, "weft_program_instance", "name");
    require(instance, "weft_program_instance", "instance");
    *instance = program->runner->instance(name).index;
  });
}

weft_status weft_program_metrics(weft_program* program, uint32_t instance, weft_metrics* metrics) {
  static_assert(sizeof(weft_metrics) == sizeof(abi::WeftMetrics), "weft_metrics mirrors WeftMetrics");
  return guard([&] {
    require(program, "weft_program_metrics", "program");
    require(metrics, "weft_program_metrics", "metrics");
    const auto count = program->runner->executable().program().instances().size();
    if (instance >= count)
      fail(ErrorCode::BadInput, "weft_program_metrics: instance " + std::to_string(instance) + " does not exist (" +
                                    std::to_string(count) + " instances)");
    const abi::WeftMetrics m = program->runner->executable().metrics(InstanceId{instance});
    std::memcpy(metrics, &m, sizeof m);
  });
}

weft_status weft_program_control_get(weft_program* program, const char* name, uint32_t element, uint32_t* value) {
  return guard([&] {
    require(program, "weft_program_control_get", "program");
    require(name, "weft_program_control_get", "name");
    require(value, "weft_program_control_get", "value");
    *value = program->runner->executable().control_word(program->runner->control_word(name, element));
  });
}

weft_status weft_program_control_set(weft_program* program, const char* name, uint32_t element, uint32_t value) {
  return guard([&] {
    require(program, "weft_program_control_set", "program");
    require(name, "weft_program_control_set", "name");
    program->runner->executable().set_control_word(program->runner->control_word(name, element), value);
  });
}

weft_status weft_program_gpu_time_ns(weft_program* program, double* total_ns) {
  return guard([&] {
    require(program, "weft_program_gpu_time_ns", "program");
    require(total_ns, "weft_program_gpu_time_ns", "total_ns");
    const Timings t = program->runner->executable().timings();
    *total_ns = t.valid ? t.total_ns : 0.0;
  });
}

weft_status weft_program_write_outputs(weft_program* program, const char* dir) {
  return guard([&] {
    require(program, "weft_program_write_outputs", "program");
    require(dir, "weft_program_write_outputs", "dir");
    program->runner->write_outputs(dir);
  });
}

void weft_program_release(weft_program* program) { weft::capi::release(program); }

}  // extern "C"
