// Status codes, the per-thread error message and the library's version.
#include <cstring>

#include "handles.h"

namespace weft::capi {
namespace {
thread_local std::string last_error;
}

weft_status set_error(weft_status status, const std::string& message) noexcept {
  try {
    last_error = message;
  } catch (...) {
    last_error.clear();  // out of memory for the message itself: keep the status
  }
  return status;
}

weft_status status_of(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::NoDevice: return WEFT_ERROR_NO_DEVICE;
    case ErrorCode::MissingFeature: return WEFT_ERROR_MISSING_FEATURE;
    case ErrorCode::OutOfMemory: return WEFT_ERROR_OUT_OF_MEMORY;
    case ErrorCode::InvalidProgram: return WEFT_ERROR_INVALID_PROGRAM;
    case ErrorCode::RegisterWindowOverflow: return WEFT_ERROR_REGISTER_WINDOW_OVERFLOW;
    case ErrorCode::SegmentOutOfRange: return WEFT_ERROR_SEGMENT_OUT_OF_RANGE;
    case ErrorCode::UndeclaredBinding: return WEFT_ERROR_UNDECLARED_BINDING;
    case ErrorCode::ShaderCompile: return WEFT_ERROR_SHADER_COMPILE;
    case ErrorCode::BadInput: return WEFT_ERROR_BAD_INPUT;
    case ErrorCode::DeviceLost: return WEFT_ERROR_DEVICE_LOST;
    case ErrorCode::Timeout: return WEFT_ERROR_TIMEOUT;
    case ErrorCode::Vulkan: return WEFT_ERROR_VULKAN;
    case ErrorCode::Cancelled: return WEFT_ERROR_CANCELLED;
  }
  return WEFT_ERROR_INTERNAL;
}

}  // namespace weft::capi

extern "C" {

uint32_t weft_abi_version(void) { return WEFT_ABI_VERSION; }
const char* weft_version(void) { return WEFT_VERSION_STRING; }
const char* weft_last_error(void) { return weft::capi::last_error.c_str(); }

const char* weft_status_name(weft_status status) {
  switch (status) {
    case WEFT_OK: return "WEFT_OK";
    case WEFT_ERROR_NO_DEVICE: return "WEFT_ERROR_NO_DEVICE";
    case WEFT_ERROR_MISSING_FEATURE: return "WEFT_ERROR_MISSING_FEATURE";
    case WEFT_ERROR_OUT_OF_MEMORY: return "WEFT_ERROR_OUT_OF_MEMORY";
    case WEFT_ERROR_INVALID_PROGRAM: return "WEFT_ERROR_INVALID_PROGRAM";
    case WEFT_ERROR_REGISTER_WINDOW_OVERFLOW: return "WEFT_ERROR_REGISTER_WINDOW_OVERFLOW";
    case WEFT_ERROR_SEGMENT_OUT_OF_RANGE: return "WEFT_ERROR_SEGMENT_OUT_OF_RANGE";
    case WEFT_ERROR_UNDECLARED_BINDING: return "WEFT_ERROR_UNDECLARED_BINDING";
    case WEFT_ERROR_SHADER_COMPILE: return "WEFT_ERROR_SHADER_COMPILE";
    case WEFT_ERROR_BAD_INPUT: return "WEFT_ERROR_BAD_INPUT";
    case WEFT_ERROR_DEVICE_LOST: return "WEFT_ERROR_DEVICE_LOST";
    case WEFT_ERROR_TIMEOUT: return "WEFT_ERROR_TIMEOUT";
    case WEFT_ERROR_VULKAN: return "WEFT_ERROR_VULKAN";
    case WEFT_ERROR_INVALID_ARGUMENT: return "WEFT_ERROR_INVALID_ARGUMENT";
    case WEFT_ERROR_INTERNAL: return "WEFT_ERROR_INTERNAL";
    case WEFT_ERROR_CANCELLED: return "WEFT_ERROR_CANCELLED";
  }
  return "WEFT_ERROR_UNKNOWN";
}

}  // extern "C"
