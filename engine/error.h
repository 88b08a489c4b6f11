// Typed errors. Every failure the engine reports is a weft::Error with a code that callers can
// branch on and a message that names what failed and where.
#pragma once

#include <stdexcept>
#include <string>

namespace weft {

enum class ErrorCode {
  NoDevice,                // no Vulkan device, or none matches WEFT_DEVICE / --device
  MissingFeature,          // the device lacks a feature the program needs
  OutOfMemory,             // host or device allocation failed
  InvalidProgram,          // a program that cannot be recorded (bad dispatch, bad stage)
  RegisterWindowOverflow,  // an access or message past an instance's register window
  SegmentOutOfRange,       // a range outside a buffer or segment, or an unknown segment
  UndeclaredBinding,       // a kernel touches a binding its stage did not declare
  ShaderCompile,           // GLSL that does not compile, or SPIR-V that does not validate
  BadInput,                // malformed user input (files, ids, sizes, values)
  DeviceLost,              // the device was lost; the Device must be recreated
  Timeout,                 // wait() ran out of time
  Vulkan,                  // any other Vulkan failure
  Cancelled,               // the run was cancelled before it ended (Executable::cancel): its results are void
};

const char* to_string(ErrorCode code);  // "bad input": how messages start
const char* code_name(ErrorCode code);  // "BadInput": the enumerator, for bindings and reports

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message);
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }  // what() without the code's prefix

 private:
  ErrorCode code_;
  std::string message_;
};

// Status values for the hot path (submit/wait), where exceptions would be the wrong tool.
struct Status {
  ErrorCode code = ErrorCode::Vulkan;
  bool ok = true;
  std::string message;
  static Status success() { return {}; }
  static Status failure(ErrorCode c, std::string m) { return {c, false, std::move(m)}; }
  explicit operator bool() const { return ok; }
  // Turns a failed status into the matching typed error.
  void throw_if_failed() const;
};

[[noreturn]] void fail(ErrorCode code, const std::string& message);

}  // namespace weft
