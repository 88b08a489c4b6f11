// weft info: every Vulkan device, its limits and features, and which one Weft picks.
#include <cstdio>
#include <string>

#include <weft/weft.h>

#include "cli.h"
#include "registry.h"

namespace weft {

namespace {

const char* yes(bool b) { return b ? "yes" : "no"; }

// The features a workload's kernels need that the device lacks (0: it runs there).
FeatureSet missing_for(const registry::Workload& w, const DeviceInfo& d) {
  return w.kernels ? w.kernels->required_features() & ~features_of(d) : 0;
}

// "attention, db (needs shaderFloat64), ...": the registered workloads and what each lacks here.
std::string workloads_on(const DeviceInfo& d) {
  std::string out;
  for (const registry::Workload& w : registry::workloads()) {
    out += (out.empty() ? "" : ", ") + std::string(w.name);
    if (const FeatureSet missing = missing_for(w, d)) out += " (needs " + describe_features(missing) + ")";
  }
  return out;
}

// The same as JSON: [{"name": "db", "missing": ["shaderFloat64"]}, ...].
std::string workloads_json(const DeviceInfo& d) {
  std::string out = "[";
  for (const registry::Workload& w : registry::workloads()) {
    const FeatureSet missing = missing_for(w, d);
    std::string names;
    for (uint32_t bit = 1; bit != 0; bit <<= 1)
      if (missing & bit) names += (names.empty() ? "\"" : ", \"") + describe_features(bit) + "\"";
    out += std::string(out.size() > 1 ? ", " : "") + "{\"name\": \"" + w.name + "\", \"missing\": [" + names + "]}";
  }
  return out + "]";
}

}  // namespace

int cmd_info(int argc, char** argv) {
  cli::Args args = cli::parse(argc, argv, 2, {"device"}, {"json"});
  std::vector<DeviceInfo> devices = Device::list();
  int chosen = -1;
  std::string why;
  try {
    chosen = int(Device::choose(devices, args.get("device")));
  } catch (const Error& e) {
    why = e.what();
  }
  if (args.flag("json")) {
    std::printf("{\"default\": %d, \"devices\": [", chosen);
    for (size_t i = 0; i < devices.size(); ++i) {
      const DeviceInfo& d = devices[i];
      std::printf(
          "%s{\"index\": %u, \"name\": \"%s\", \"type\": \"%s\", \"api\": \"%s\", \"driver\": \"%s\", "
          "\"usable\": %s, \"subgroup_size\": %u, \"subgroup_operations\": %u, \"max_compute_shared_memory\": %u, \"max_storage_buffer_range\": %llu, \"max_push_constants\": %u, "
          "\"max_workgroup_invocations\": %u, \"timestamps\": %s, \"buffer_device_address\": %s, \"shader_clock\": %s, "
          "\"features\": \"%s\", \"workloads\": %s}",
          i ? ", " : "", d.index, d.name.c_str(), d.type.c_str(), d.api_string().c_str(), d.driver.c_str(),
          d.usable ? "true" : "false", d.subgroup_size, d.subgroup_operations, d.max_compute_shared_memory,
          (unsigned long long)d.max_storage_buffer_range,
          d.max_push_constants, d.max_workgroup_invocations, d.timestamps ? "true" : "false",
          d.buffer_device_address ? "true" : "false", d.shader_clock ? "true" : "false",
          describe_features(features_of(d)).c_str(), workloads_json(d).c_str());
    }
    std::printf("]}\n");
    return chosen < 0 ? 1 : 0;
  }
  std::printf("Weft %s — %zu Vulkan device(s)\n", WEFT_VERSION, devices.size());
  for (const DeviceInfo& d : devices) {
    std::printf("\n%s device %u: %s\n", int(d.index) == chosen ? "*" : " ", d.index, d.name.c_str());
    std::printf("    type %s, Vulkan %s, driver %s (%s), vendor 0x%04x device 0x%04x\n", d.type.c_str(),
                d.api_string().c_str(), d.driver.c_str(), d.driver_info.c_str(), d.vendor_id, d.device_id);
    if (!d.usable) {
      std::printf("    not usable by Weft: %s\n", d.unusable_reason.c_str());
      continue;
    }
    std::printf("    limits: maxStorageBufferRange %llu MiB, maxMemoryAllocationSize %llu MiB, device-local %llu MiB\n",
                (unsigned long long)(d.max_storage_buffer_range >> 20),
                (unsigned long long)(d.max_memory_allocation_size >> 20), (unsigned long long)(d.device_local_bytes >> 20));
    std::printf("            push constants %u B, workgroup %u invocations (%u x %u x %u), groups %u x %u x %u\n",
                d.max_push_constants, d.max_workgroup_invocations, d.max_workgroup_size[0], d.max_workgroup_size[1],
                d.max_workgroup_size[2], d.max_workgroup_count[0], d.max_workgroup_count[1], d.max_workgroup_count[2]);
    std::printf("            subgroup size %u (operations 0x%x%s), shared memory %u B, timestamp period %.3g ns,\n"
                "            minStorageBufferOffsetAlignment %llu, nonCoherentAtomSize %llu\n",
                d.subgroup_size, d.subgroup_operations, d.subgroup_in_compute ? " in compute" : ", not in compute",
                d.max_compute_shared_memory, d.timestamp_period_ns, (unsigned long long)d.min_storage_buffer_offset_alignment,
                (unsigned long long)d.non_coherent_atom_size);
    std::printf("    features: timestamps %s, bufferDeviceAddress %s, shader clock %s, float64 %s, int64 %s, int16 %s, int8 %s,\n",
                yes(d.timestamps), yes(d.buffer_device_address), yes(d.shader_clock), yes(d.shader_float64),
                yes(d.shader_int64), yes(d.shader_int16), yes(d.shader_int8));
    std::printf("              float16 %s, 16-bit storage %s, 8-bit storage %s, subgroup size control %s\n",
                yes(d.shader_float16), yes(d.storage_16bit), yes(d.storage_8bit), yes(d.subgroup_size_control));
    std::printf("    workloads: %s\n", workloads_on(d).c_str());
  }
  if (chosen >= 0)
    std::printf("\n* default device: %u (%s)%s\n", unsigned(chosen), devices[chosen].name.c_str(),
                args.get("device").empty() && !std::getenv("WEFT_DEVICE") ? ", best of discrete > integrated > virtual > cpu"
                                                                           : "");
  else
    std::printf("\nno default device: %s\n", why.c_str());
  return chosen < 0 ? 1 : 0;
}

}  // namespace weft
