// Optional device features a kernel may need, named as Vulkan names them. A kernel's needs are
// read from its SPIR-V capabilities (reflect() in kernel.h), a device's from what it enabled
// (DeviceInfo), so a kernel that needs what a device lacks is refused by name before the driver
// sees it, and a workload's needs are the union of its kernels'.
#pragma once

#include <cstdint>
#include <string>

namespace weft {

struct DeviceInfo;

enum class Feature : uint32_t {
  ShaderFloat64 = 1u << 0,
  ShaderInt64 = 1u << 1,
  ShaderInt16 = 1u << 2,
  ShaderFloat16 = 1u << 3,
  ShaderInt8 = 1u << 4,
  StorageBuffer16BitAccess = 1u << 5,
  StorageBuffer8BitAccess = 1u << 6,
  ShaderClock = 1u << 7,
  BufferDeviceAddress = 1u << 8,
  SubgroupBasic = 1u << 9,
  SubgroupVote = 1u << 10,
  SubgroupArithmetic = 1u << 11,
  SubgroupBallot = 1u << 12,
  SubgroupShuffle = 1u << 13,
  SubgroupShuffleRelative = 1u << 14,
  SubgroupClustered = 1u << 15,
  SubgroupQuad = 1u << 16,
};

// A set of features, one bit each.
using FeatureSet = uint32_t;
constexpr FeatureSet operator|(Feature a, Feature b) { return uint32_t(a) | uint32_t(b); }
constexpr bool has(FeatureSet set, Feature f) { return (set & uint32_t(f)) != 0; }

// The feature a SPIR-V capability needs beyond Vulkan 1.2's required ones, or 0.
FeatureSet feature_of_capability(uint32_t capability);
// What the device enabled (subgroup operations only where compute shaders have them).
FeatureSet features_of(const DeviceInfo& device);
// The device as if it lacked the `withheld` features (DeviceOptions::without_features).
void withhold_features(DeviceInfo& device, FeatureSet withheld);
// "shaderFloat64, shaderInt64": the Vulkan names, in bit order ("none" for an empty set).
std::string describe_features(FeatureSet set);
// "shaderFloat64,storageBuffer8BitAccess" (the names describe_features prints, any case, comma
// or space separated); BadInput naming an unknown one and listing the known.
FeatureSet parse_features(const std::string& names);

}  // namespace weft
