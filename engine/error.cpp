#include "error.h"

namespace weft {

const char* to_string(ErrorCode code) {
  switch (code) {
    case ErrorCode::NoDevice: return "no device";
    case ErrorCode::MissingFeature: return "missing feature";
    case ErrorCode::OutOfMemory: return "out of memory";
    case ErrorCode::InvalidProgram: return "invalid program";
    case ErrorCode::RegisterWindowOverflow: return "register window overflow";
    case ErrorCode::SegmentOutOfRange: return "segment out of range";
    case ErrorCode::UndeclaredBinding: return "undeclared binding";
    case ErrorCode::ShaderCompile: return "shader compile error";
    case ErrorCode::BadInput: return "bad input";
    case ErrorCode::DeviceLost: return "device lost";
    case ErrorCode::Timeout: return "timeout";
    case ErrorCode::Vulkan: return "vulkan error";
    case ErrorCode::Cancelled: return "cancelled";
  }
  return "unknown error";
}

const char* code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::NoDevice: return "NoDevice";
    case ErrorCode::MissingFeature: return "MissingFeature";
    case ErrorCode::OutOfMemory: return "OutOfMemory";
    case ErrorCode::InvalidProgram: return "InvalidProgram";
    case ErrorCode::RegisterWindowOverflow: return "RegisterWindowOverflow";
    case ErrorCode::SegmentOutOfRange: return "SegmentOutOfRange";
    case ErrorCode::UndeclaredBinding: return "UndeclaredBinding";
    case ErrorCode::ShaderCompile: return "ShaderCompile";
    case ErrorCode::BadInput: return "BadInput";
    case ErrorCode::DeviceLost: return "DeviceLost";
    case ErrorCode::Timeout: return "Timeout";
    case ErrorCode::Vulkan: return "Vulkan";
    case ErrorCode::Cancelled: return "Cancelled";
  }
  return "Unknown";
}

Error::Error(ErrorCode code, const std::string& message)
    : std::runtime_error(std::string(to_string(code)) + ": " + message), code_(code), message_(message) {}

void Status::throw_if_failed() const {
  if (!ok) throw Error(code, message);
}

void fail(ErrorCode code, const std::string& message) { throw Error(code, message); }

}  // namespace weft
