// Every embedded kernel builds on the device. A driver's compiler may refuse a module that the
// SPIR-V validator and other drivers accept (NVIDIA 580 refused the db expression interpreter):
// this case names every such kernel at once, where otherwise the first program that happens to
// use one fails, and kernels no case runs are never tried.
#include "conformance.h"

namespace weft::conformance {

namespace {

struct BuildTally {
  size_t built = 0;
  std::vector<std::string> refused, unsupported;
};

// The pipeline a program would ask for on this device: a streaming kernel at the device's shape.
void build(Device& dev, const Kernel& kernel, BuildTally& tally) {
  const bool streaming = kernel.interface(dev.info().shader_clock).streaming;
  try {
    dev.pipelines().pipeline(kernel, streaming ? streaming_shape(dev.info()) : KernelShape{});
    ++tally.built;
  } catch (const Error& e) {
    auto& list = e.code() == ErrorCode::MissingFeature ? tally.unsupported : tally.refused;
    list.push_back(kernel.name() + " (" + e.what() + ")");
  }
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : "; ") + s;
  return out;
}

}  // namespace

Case every_kernel_builds(const std::string& group, const KernelTable& table) {
  return {group + ".every_kernel_builds", "exact (each kernel's pipeline is created; refusals named)", [&table](Device& dev) {
            BuildTally tally;
            size_t far_skipped = 0;
            for (const std::string& name : table.names()) {
              const KernelRef kernel = table.get(name);
              build(dev, *kernel, tally);
              if (!kernel->far_variant()) continue;
              if (dev.info().buffer_device_address) build(dev, *kernel->far_variant(), tally);
              else ++far_skipped;
            }
            if (!tally.refused.empty())
              return Result::fail(std::to_string(tally.refused.size()) + " refused on this device: " + joined(tally.refused));
            std::string detail = std::to_string(tally.built) + " pipelines built";
            if (far_skipped) detail += "; " + std::to_string(far_skipped) + " far variants not built (no bufferDeviceAddress)";
            if (!tally.unsupported.empty()) detail += "; needs what this device lacks: " + joined(tally.unsupported);
            return Result::pass(detail);
          }};
}

std::vector<Case> workload_group(const std::string& group, std::vector<Case> cases, const KernelTable& table) {
  const FeatureSet required = table.required_features();
  for (Case& c : cases)
    c.run = [run = std::move(c.run), required, group](Device& dev) {
      if (const FeatureSet missing = required & ~features_of(dev.info()))
        return Result::skip(group + "'s kernels need " + describe_features(missing) + ", which this device lacks");
      return run(dev);
    };
  cases.push_back(every_kernel_builds(group, table));
  return cases;
}

}  // namespace weft::conformance
