// Device features: what a kernel needs is read from its SPIR-V, a device can be opened as if it
// lacked some (DeviceOptions::without_features), and a kernel that needs what the device lacks is
// refused by name, as is a workload's conformance group, while everything else still runs.
#include <vector>

#include "support.h"

using namespace weft;
using namespace weft::test;

namespace {

const char* kDoubleKernel =
    "#version 450\nlayout(local_size_x = 64) in;\nlayout(set = 0, binding = 2) buffer G { uint g[]; };\n"
    "void main() { g[gl_GlobalInvocationID.x] = uint(double(g[gl_GlobalInvocationID.x]) * 0.5lf); }\n";
const char* kPlainKernel =
    "#version 450\nlayout(local_size_x = 64) in;\nlayout(set = 0, binding = 2) buffer G { uint g[]; };\n"
    "void main() { g[gl_GlobalInvocationID.x] += 1u; }\n";
const char* kSubgroupKernel =
    "#version 450\n#extension GL_KHR_shader_subgroup_arithmetic : require\nlayout(local_size_x = 64) in;\n"
    "layout(set = 0, binding = 2) buffer G { uint g[]; };\nvoid main() { g[gl_GlobalInvocationID.x] = subgroupAdd(1u); }\n";

FeatureSet features_of_source(const char* source) {
  return reflect(compile_glsl(source, "probe.comp"), "probe").features;
}

std::unique_ptr<Device> device_without(FeatureSet withheld) {
  DeviceOptions o;
  o.validation = true;
  o.without_features = withheld;
  return Device::open(o);
}

}  // namespace

TEST_CASE("a kernel's needed features are read from its SPIR-V capabilities") {
  CHECK(features_of_source(kPlainKernel) == 0);
  CHECK(features_of_source(kDoubleKernel) == uint32_t(Feature::ShaderFloat64));
  CHECK(features_of_source(kSubgroupKernel) == (Feature::SubgroupBasic | Feature::SubgroupArithmetic));
}

TEST_CASE("feature names are Vulkan's, parsed in any case with commas or spaces") {
  CHECK(describe_features(Feature::ShaderFloat64 | Feature::BufferDeviceAddress) == "shaderFloat64, bufferDeviceAddress");
  CHECK(describe_features(0) == "none");
  CHECK(parse_features("shaderfloat64, BufferDeviceAddress") == (Feature::ShaderFloat64 | Feature::BufferDeviceAddress));
  CHECK(parse_features("") == 0);
  try {
    parse_features("shaderFloat65");
    FAIL("an unknown feature name was accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::BadInput);
    CHECK(contains(e.what(), "'shaderFloat65'"));
    CHECK(contains(e.what(), "shaderFloat64"));  // the known names are listed
  }
}

TEST_CASE("a device opened without a feature refuses the kernels that need it, naming both") {
  if (!device().info().shader_float64) return;  // nothing to withhold
  auto dev = device_without(uint32_t(Feature::ShaderFloat64));
  CHECK_FALSE(dev->info().shader_float64);
  CHECK_FALSE(has(features_of(dev->info()), Feature::ShaderFloat64));
  const KernelRef plain = compile_kernel_source("plain", kPlainKernel), twice = compile_kernel_source("halve", kDoubleKernel);
  CHECK_NOTHROW(dev->pipelines().pipeline(*plain));
  try {
    dev->pipelines().pipeline(*twice);
    FAIL("a kernel needing shaderFloat64 was built on a device without it");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::MissingFeature);
    CHECK(contains(e.what(), "'halve' needs shaderFloat64"));
  }
  for (const auto& m : dev->validation().messages()) FAIL_CHECK("validation: " << m);
}

TEST_CASE("a workload's conformance cases are skipped, naming the feature, where its kernels need what the device lacks") {
  if (!device().info().shader_float64) return;
  const std::vector<uint32_t> spirv = compile_glsl(kDoubleKernel, "halve.comp");
  const EmbeddedKernel entries[] = {{"halve", spirv.data(), spirv.size(), nullptr, 0, ""}};
  const KernelTable table("needs_f64", entries, 1);
  bool ran = false;
  std::vector<conformance::Case> cases{{"needs_f64.runs", "exact", [&ran](Device&) {
                                          ran = true;
                                          return conformance::Result::pass();
                                        }}};
  cases = conformance::workload_group("needs_f64", std::move(cases), table);
  REQUIRE(cases.size() == 2);
  CHECK(cases[1].name == "needs_f64.every_kernel_builds");

  auto lacking = device_without(uint32_t(Feature::ShaderFloat64));
  const conformance::Result skipped = cases[0].run(*lacking);
  CHECK(skipped.outcome == conformance::Outcome::Skip);
  CHECK(contains(skipped.detail, "kernels need shaderFloat64"));
  CHECK_FALSE(ran);
  CHECK(cases[1].run(*lacking).outcome == conformance::Outcome::Pass);  // lacking a feature is not a refusal

  CHECK(cases[0].run(device()).outcome == conformance::Outcome::Pass);
  CHECK(ran);
}

TEST_CASE("a regulator rule on ticks is refused by name on a device without the shader clock") {
  auto program = [] {
    Program p("ticks");
    const InstanceId a = p.add_instance("a", 1);
    add_regulator(p, "budget", {rule(Condition::greater(a, WEFT_METRIC_TICKS_LO, 1000u), Action::halt())});
    return p;
  };
  auto clockless = device_without(uint32_t(Feature::ShaderClock));
  CHECK_FALSE(clockless->info().shader_clock);
  try {
    Executable exe(*clockless, program());
    FAIL("a rule on ticks was recorded on a device that reports 0 ticks");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::MissingFeature);
    CHECK(contains(e.what(), "program 'ticks': a regulator rule"));
    CHECK(contains(e.what(), "reads the ticks of instance 'a'"));
    CHECK(contains(e.what(), "no shaderSubgroupClock"));
  }
  if (device().info().shader_clock) CHECK_NOTHROW(Executable(device(), program()));
  for (const auto& m : clockless->validation().messages()) FAIL_CHECK("validation: " << m);
}
