#include "compiler.h"

#include <glslang/Public/ResourceLimits.h>
#include <glslang/Public/ShaderLang.h>
#include <glslang/SPIRV/GlslangToSpv.h>

#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "error.h"

namespace weft {

// Generated at build time from shaders/weft.glsl and bindings_layout/weft_layout.h.
extern const char* const kWeftGlslSource;
extern const char* const kWeftLayoutSource;
extern const char* const kWeftArgsSource;

namespace {

void init_glslang() {
  static std::once_flag once;
  std::call_once(once, [] { glslang::InitializeProcess(); });
}

bool read_text(const std::filesystem::path& path, std::string* out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  *out = ss.str();
  return true;
}

class Includer : public glslang::TShader::Includer {
 public:
  Includer(std::string root_file, const CompileOptions& options) : root_(std::move(root_file)), options_(options) {}

  IncludeResult* includeLocal(const char* header, const char* includer, size_t depth) override {
    std::filesystem::path base = std::filesystem::path(depth <= 1 ? root_ : includer).parent_path();
    if (auto* r = try_file(base / header)) return r;
    return includeSystem(header, includer, depth);
  }

  IncludeResult* includeSystem(const char* header, const char*, size_t) override {
    std::string h = header;
    if (h == "weft.glsl") return make(h, kWeftGlslSource);
    if (h == "weft_layout.h") return make(h, kWeftLayoutSource);
    if (h == "weft_args.h") return make(h, kWeftArgsSource);
    for (const auto& dir : options_.include_dirs)
      if (auto* r = try_file(std::filesystem::path(dir) / header)) return r;
    return nullptr;
  }

  void releaseInclude(IncludeResult* result) override {
    if (!result) return;
    delete static_cast<std::string*>(result->userData);
    delete result;
  }

 private:
  IncludeResult* try_file(const std::filesystem::path& p) {
    std::string text;
    if (!read_text(p, &text)) return nullptr;
    return make(p.string(), text);
  }
  IncludeResult* make(const std::string& name, const std::string& text) {
    auto* owned = new std::string(text);
    return new IncludeResult(name, owned->data(), owned->size(), owned);
  }
  std::string root_;
  const CompileOptions& options_;
};

// glslang prints "ERROR: file:line: msg"; Weft reports "file:line: msg", one per line.
std::string format_log(const std::string& log) {
  std::istringstream in(log);
  std::string line, out;
  while (std::getline(in, line)) {
    for (const char* prefix : {"ERROR: ", "WARNING: "}) {
      if (line.rfind(prefix, 0) == 0) {
        std::string rest = line.substr(std::string(prefix).size());
        if (rest.find("compilation errors") != std::string::npos) break;
        if (rest.find("Linking") == 0 && rest.find(':') == std::string::npos) break;
        if (std::string(prefix) == "ERROR: ") out += rest + "\n";
        break;
      }
    }
  }
  if (out.empty()) out = log;
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// What glslang reads while parsing: it keeps these pointers, so they live beside the shader.
struct ShaderInput {
  const char* text;
  int length;
  const char* name;
  std::string preamble;
};

// A compute shader with the source, its defines as a preamble and Weft's Vulkan 1.2 target.
void set_up(glslang::TShader& shader, ShaderInput& in, const CompileOptions& options) {
  shader.setStringsWithLengthsAndNames(&in.text, &in.length, &in.name, 1);
  for (const auto& [k, v] : options.defines) in.preamble += "#define " + k + " " + v + "\n";
  shader.setPreamble(in.preamble.c_str());
  shader.setEnvInput(glslang::EShSourceGlsl, EShLangCompute, glslang::EShClientVulkan, 100);
  shader.setEnvClient(glslang::EShClientVulkan, glslang::EShTargetVulkan_1_2);
  shader.setEnvTarget(glslang::EShTargetSpv, glslang::EShTargetSpv_1_5);
}

const auto kMessages = EShMessages(EShMsgSpvRules | EShMsgVulkanRules);

}  // namespace

KernelSignature describe_kernel_args(const std::string& source, const std::string& filename,
                                     const CompileOptions& options) {
  init_glslang();
  glslang::TShader shader(EShLangCompute);
  CompileOptions describe = options;
  describe.defines.emplace_back("WEFT_DESCRIBE_ARGS", "1");
  ShaderInput in{source.c_str(), int(source.size()), filename.c_str(), {}};
  set_up(shader, in, describe);
  std::string text;
  Includer includer(filename, options);
  if (!shader.preprocess(GetDefaultResources(), 450, ENoProfile, false, false, kMessages, &text, includer))
    fail(ErrorCode::ShaderCompile, format_log(shader.getInfoLog()));
  return parse_signature(text, filename);
}

std::vector<uint32_t> compile_glsl(const std::string& source, const std::string& filename,
                                   const CompileOptions& options) {
  init_glslang();
  glslang::TShader shader(EShLangCompute);
  ShaderInput in{source.c_str(), int(source.size()), filename.c_str(), {}};
  set_up(shader, in, options);
  const auto messages = kMessages;
  Includer includer(filename, options);
  if (!shader.parse(GetDefaultResources(), 450, false, messages, includer))
    fail(ErrorCode::ShaderCompile, format_log(shader.getInfoLog()));
  glslang::TProgram program;
  program.addShader(&shader);
  if (!program.link(messages)) fail(ErrorCode::ShaderCompile, filename + ": " + format_log(program.getInfoLog()));
  std::vector<uint32_t> spirv;
  glslang::SpvOptions spv_options;
  spv_options.validate = true;
  glslang::GlslangToSpv(*program.getIntermediate(EShLangCompute), spirv, &spv_options);
  return spirv;
}

KernelRef compile_kernel_source(const std::string& name, const std::string& source, const CompileOptions& options) {
  auto plain = compile_glsl(source, name, options);
  CompileOptions with_clock = options;
  with_clock.defines.emplace_back("WEFT_SHADER_CLOCK", "1");
  auto clock = compile_glsl(source, name, with_clock);
  std::string kernel_name = std::filesystem::path(name).stem().string();
  return std::make_shared<const Kernel>(kernel_name, std::move(plain), std::move(clock),
                                        describe_kernel_args(source, name, options));
}

KernelRef compile_kernel_file(const std::string& path, const CompileOptions& options) {
  std::string text;
  if (!read_text(path, &text)) fail(ErrorCode::BadInput, path + ": cannot read kernel source");
  return compile_kernel_source(path, text, options);
}

}  // namespace weft
