#include "device_features.h"

#include <strings.h>

#include <cctype>
#include <iterator>
#include <utility>

#include "device.h"
#include "error.h"

namespace weft {

namespace {

struct FeatureName {
  Feature feature;
  const char* name;
};
// Vulkan's own names: feature struct members, and the subgroup operation bits for the others.
constexpr FeatureName kNames[] = {
    {Feature::ShaderFloat64, "shaderFloat64"},
    {Feature::ShaderInt64, "shaderInt64"},
    {Feature::ShaderInt16, "shaderInt16"},
    {Feature::ShaderFloat16, "shaderFloat16"},
    {Feature::ShaderInt8, "shaderInt8"},
    {Feature::StorageBuffer16BitAccess, "storageBuffer16BitAccess"},
    {Feature::StorageBuffer8BitAccess, "storageBuffer8BitAccess"},
    {Feature::ShaderClock, "shaderSubgroupClock"},
    {Feature::BufferDeviceAddress, "bufferDeviceAddress"},
    {Feature::SubgroupBasic, "subgroupBasic"},
    {Feature::SubgroupVote, "subgroupVote"},
    {Feature::SubgroupArithmetic, "subgroupArithmetic"},
    {Feature::SubgroupBallot, "subgroupBallot"},
    {Feature::SubgroupShuffle, "subgroupShuffle"},
    {Feature::SubgroupShuffleRelative, "subgroupShuffleRelative"},
    {Feature::SubgroupClustered, "subgroupClustered"},
    {Feature::SubgroupQuad, "subgroupQuad"},
};

// GroupNonUniform* capabilities (61..68) in the order of VkSubgroupFeatureFlagBits (bit 0..7).
constexpr Feature kSubgroupFeatures[] = {Feature::SubgroupBasic,   Feature::SubgroupVote,           Feature::SubgroupArithmetic,
                                         Feature::SubgroupBallot,  Feature::SubgroupShuffle,        Feature::SubgroupShuffleRelative,
                                         Feature::SubgroupClustered, Feature::SubgroupQuad};
constexpr uint32_t kCapabilityGroupNonUniform = 61;

// DeviceInfo's flag for each feature other than the subgroup operations.
constexpr std::pair<bool DeviceInfo::*, Feature> kDeviceFlags[] = {
    {&DeviceInfo::shader_float64, Feature::ShaderFloat64},
    {&DeviceInfo::shader_int64, Feature::ShaderInt64},
    {&DeviceInfo::shader_int16, Feature::ShaderInt16},
    {&DeviceInfo::shader_float16, Feature::ShaderFloat16},
    {&DeviceInfo::shader_int8, Feature::ShaderInt8},
    {&DeviceInfo::storage_16bit, Feature::StorageBuffer16BitAccess},
    {&DeviceInfo::storage_8bit, Feature::StorageBuffer8BitAccess},
    {&DeviceInfo::shader_clock, Feature::ShaderClock},
    {&DeviceInfo::buffer_device_address, Feature::BufferDeviceAddress},
};

}  // namespace

FeatureSet feature_of_capability(uint32_t capability) {
  switch (capability) {
    case 9: return uint32_t(Feature::ShaderFloat16);
    case 10: return uint32_t(Feature::ShaderFloat64);
    case 11: return uint32_t(Feature::ShaderInt64);
    case 22: return uint32_t(Feature::ShaderInt16);
    case 39: return uint32_t(Feature::ShaderInt8);
    case 4433: return uint32_t(Feature::StorageBuffer16BitAccess);
    case 4448: return uint32_t(Feature::StorageBuffer8BitAccess);
    case 5055: return uint32_t(Feature::ShaderClock);
    case 5347: return uint32_t(Feature::BufferDeviceAddress);
  }
  if (capability >= kCapabilityGroupNonUniform && capability < kCapabilityGroupNonUniform + std::size(kSubgroupFeatures))
    return uint32_t(kSubgroupFeatures[capability - kCapabilityGroupNonUniform]);
  return 0;
}

FeatureSet features_of(const DeviceInfo& d) {
  FeatureSet set = 0;
  for (const auto& [flag, feature] : kDeviceFlags)
    if (d.*flag) set |= uint32_t(feature);
  for (size_t bit = 0; bit < std::size(kSubgroupFeatures); ++bit)
    if (d.subgroup_in_compute && (d.subgroup_operations >> bit & 1u)) set |= uint32_t(kSubgroupFeatures[bit]);
  return set;
}

void withhold_features(DeviceInfo& d, FeatureSet withheld) {
  for (const auto& [flag, feature] : kDeviceFlags)
    if (has(withheld, feature)) d.*flag = false;
  for (size_t bit = 0; bit < std::size(kSubgroupFeatures); ++bit)
    if (has(withheld, kSubgroupFeatures[bit])) d.subgroup_operations &= ~(1u << bit);
}

std::string describe_features(FeatureSet set) {
  std::string out;
  for (const FeatureName& f : kNames)
    if (has(set, f.feature)) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out.empty() ? "none" : out;
}

FeatureSet parse_features(const std::string& names) {
  FeatureSet set = 0;
  std::string word;
  for (size_t i = 0; i <= names.size(); ++i) {
    const char c = i < names.size() ? names[i] : ',';
    if (c != ',' && !std::isspace(static_cast<unsigned char>(c))) {
      word += c;
      continue;
    }
    if (word.empty()) continue;
    FeatureSet found = 0;
    for (const FeatureName& f : kNames)
      if (strcasecmp(word.c_str(), f.name) == 0) found = uint32_t(f.feature);
    if (!found) {
      std::string known;
      for (const FeatureName& f : kNames) known += (known.empty() ? "" : ", ") + std::string(f.name);
      fail(ErrorCode::BadInput, "unknown device feature '" + word + "' (known: " + known + ")");
    }
    set |= found;
    word.clear();
  }
  return set;
}

}  // namespace weft
