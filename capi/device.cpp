// Devices and standalone buffers through the C ABI.
#include <algorithm>
#include <cstring>

#include "handles.h"

using namespace weft;
using weft::capi::guard;
using weft::capi::require;

namespace {

template <size_t N>
void copy_text(char (&dst)[N], const std::string& src) {
  const size_t n = std::min(src.size(), N - 1);  // truncated, always terminated
  std::memcpy(dst, src.data(), n);
  dst[n] = '\0';
}

void check_size(uint32_t given, size_t expected, const char* function, const char* argument) {
  if (given != expected)
    throw capi::InvalidArgument{std::string(function) + ": " + argument + "->struct_size is " + std::to_string(given) +
                                ", this library expects " + std::to_string(expected)};
}

void fill_info(const DeviceInfo& d, weft_device_info* out) {
  const uint32_t size = out->struct_size;
  std::memset(out, 0, sizeof *out);
  out->struct_size = size;
  out->index = d.index;
  copy_text(out->name, d.name);
  copy_text(out->type, d.type);
  copy_text(out->driver, d.driver + (d.driver_info.empty() ? "" : " " + d.driver_info));
  copy_text(out->api_version, d.api_string());
  out->vendor_id = d.vendor_id;
  out->device_id = d.device_id;
  out->subgroup_size = d.subgroup_size;
  out->max_storage_buffer_range = d.max_storage_buffer_range;
  out->device_local_bytes = d.device_local_bytes;
  out->timestamp_period_ns = d.timestamp_period_ns;
  out->usable = d.usable ? 1 : 0;
  copy_text(out->unusable_reason, d.unusable_reason);
}

}  // namespace

extern "C" {

weft_status weft_device_count(uint32_t* count) {
  return guard([&] {
    require(count, "weft_device_count", "count");
    *count = uint32_t(Device::list().size());
  });
}

weft_status weft_device_describe(uint32_t index, weft_device_info* info) {
  return guard([&] {
    require(info, "weft_device_describe", "info");
    check_size(info->struct_size, sizeof *info, "weft_device_describe", "info");
    const auto devices = Device::list();
    if (index >= devices.size())
      fail(ErrorCode::BadInput, "weft_device_describe: device " + std::to_string(index) + " does not exist (" +
                                    std::to_string(devices.size()) + " present)");
    fill_info(devices[index], info);
  });
}

weft_status weft_device_open(const weft_device_options* options, weft_device** device) {
  return guard([&] {
    require(device, "weft_device_open", "device");
    *device = nullptr;
    DeviceOptions o;
    if (options) {
      check_size(options->struct_size, sizeof *options, "weft_device_open", "options");
      o.select = options->select ? options->select : "";
      o.validation = options->validation != 0;
    }
    auto handle = std::make_unique<weft_device>();
    handle->device = std::shared_ptr<Device>(Device::open(o));
    *device = handle.release();
  });
}

weft_status weft_device_info_get(const weft_device* device, weft_device_info* info) {
  return guard([&] {
    require(device, "weft_device_info_get", "device");
    require(info, "weft_device_info_get", "info");
    check_size(info->struct_size, sizeof *info, "weft_device_info_get", "info");
    fill_info(device->device->info(), info);
  });
}

weft_status weft_device_validation_count(const weft_device* device, uint32_t* count) {
  return guard([&] {
    require(device, "weft_device_validation_count", "device");
    require(count, "weft_device_validation_count", "count");
    *count = uint32_t(device->device->validation().count());
  });
}

void weft_device_retain(weft_device* device) {
  if (device) device->refs.fetch_add(1, std::memory_order_relaxed);
}
void weft_device_release(weft_device* device) { capi::release(device); }

weft_status weft_buffer_create(weft_device* device, uint64_t bytes, weft_buffer** buffer) {
  return guard([&] {
    require(device, "weft_buffer_create", "device");
    require(buffer, "weft_buffer_create", "buffer");
    *buffer = nullptr;
    if (bytes == 0) fail(ErrorCode::BadInput, "weft_buffer_create: a buffer needs at least 1 byte");
    auto handle = std::make_unique<weft_buffer>();
    handle->device = device->device;
    handle->buffer = std::make_unique<Buffer>(*device->device, bytes,
                                              VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                                                  VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                                              MemoryUse::DeviceLocal, "capi buffer");
    *buffer = handle.release();
  });
}

weft_status weft_buffer_size(const weft_buffer* buffer, uint64_t* bytes) {
  return guard([&] {
    require(buffer, "weft_buffer_size", "buffer");
    require(bytes, "weft_buffer_size", "bytes");
    *bytes = buffer->buffer->size();
  });
}

weft_status weft_buffer_upload(weft_buffer* buffer, uint64_t offset, const void* data, uint64_t bytes) {
  return guard([&] {
    require(buffer, "weft_buffer_upload", "buffer");
    if (bytes) require(data, "weft_buffer_upload", "data");
    buffer->buffer->write(offset, data, bytes);
  });
}

weft_status weft_buffer_download(weft_buffer* buffer, uint64_t offset, void* data, uint64_t bytes) {
  return guard([&] {
    require(buffer, "weft_buffer_download", "buffer");
    if (bytes) require(data, "weft_buffer_download", "data");
    buffer->buffer->read(offset, data, bytes);
  });
}

void weft_buffer_release(weft_buffer* buffer) { capi::release(buffer); }

}  // extern "C"
