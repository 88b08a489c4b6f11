#include "errors.h"

#include <array>
#include <new>
#include <string>

#include <weft/weft.h>

namespace py = pybind11;

namespace weft::python {
namespace {

constexpr size_t kCodes = size_t(ErrorCode::Cancelled) + 1;

struct Classes {
  py::object error;                      // weft.Error
  std::array<py::object, kCodes> by_code;  // weft.<CodeName>
  py::object argument;                   // weft.ArgumentError
};
Classes* classes = nullptr;  // set by bind_errors; lives as long as the process

// What each class means, for its docstring (the enumerators' comments in engine/error.h).
const char* meaning(ErrorCode code) {
  switch (code) {
    case ErrorCode::NoDevice: return "No Vulkan device, or none matches the selection (WEFT_DEVICE or the argument).";
    case ErrorCode::MissingFeature: return "The device lacks a feature the program needs.";
    case ErrorCode::OutOfMemory: return "A host or device allocation failed (also a MemoryError).";
    case ErrorCode::InvalidProgram: return "A program that cannot be recorded (bad dispatch, bad stage).";
    case ErrorCode::RegisterWindowOverflow: return "An access or message past an instance's register window.";
    case ErrorCode::SegmentOutOfRange: return "A range outside a buffer or segment, or an unknown segment.";
    case ErrorCode::UndeclaredBinding: return "A kernel touches a binding its stage did not declare.";
    case ErrorCode::ShaderCompile: return "GLSL that does not compile, or SPIR-V that does not validate.";
    case ErrorCode::BadInput: return "Malformed input: files, ids, sizes, values (also a ValueError).";
    case ErrorCode::DeviceLost: return "The device was lost; open a new weft.Device.";
    case ErrorCode::Timeout: return "A wait ran out of time (also a TimeoutError).";
    case ErrorCode::Vulkan: return "Any other Vulkan failure.";
    case ErrorCode::Cancelled: return "The run was cancelled (Program.cancel) before it ended: its results are void.";
  }
  return "";
}

// A builtin exception that means the same, as a second base, so `except ValueError` (or
// MemoryError, TimeoutError) around a Weft call keeps working.
PyObject* builtin_base(ErrorCode code) {
  switch (code) {
    case ErrorCode::BadInput: return PyExc_ValueError;
    case ErrorCode::OutOfMemory: return PyExc_MemoryError;
    case ErrorCode::Timeout: return PyExc_TimeoutError;
    default: return nullptr;
  }
}

py::object new_class(py::module_& m, const std::string& name, py::tuple bases, const char* doc) {
  const std::string qualified = "weft." + name;  // users see and catch it as weft.<name>
  PyObject* type = PyErr_NewExceptionWithDoc(qualified.c_str(), doc, bases.ptr(), nullptr);
  if (!type) throw py::error_already_set();
  py::object cls = py::reinterpret_steal<py::object>(type);
  m.attr(name.c_str()) = cls;
  return cls;
}

// Messages may quote the caller's bytes (a path, a name), which need not be UTF-8.
py::str readable(const std::string& text) {
  PyObject* s = PyUnicode_DecodeUTF8(text.data(), py::ssize_t(text.size()), "replace");
  if (!s) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

// Raises cls(f"{code}: {message}") with .code and .message set.
void set_error(const py::object& cls, const std::string& code, const std::string& message) {
  py::object exc = cls(readable(code + ": " + message));
  exc.attr("code") = code;
  exc.attr("message") = readable(message);
  PyErr_SetObject(cls.ptr(), exc.ptr());
}

void translate(std::exception_ptr p) {
  try {
    if (p) std::rethrow_exception(p);
  } catch (const Error& e) {
    set_error(classes->by_code[size_t(e.code())], code_name(e.code()), e.message());
  } catch (const py::stop_iteration&) {
    throw;  // the end of an iterator, not an error
  } catch (const py::builtin_exception& e) {
    // pybind11 could not convert a value the caller passed or a binding returned.
    set_error(classes->argument, code_name(ErrorCode::BadInput), e.what());
  } catch (const std::bad_alloc&) {
    set_error(classes->by_code[size_t(ErrorCode::OutOfMemory)], code_name(ErrorCode::OutOfMemory), "a host allocation failed");
  } catch (const std::exception& e) {
    // Not a weft::Error: a bug in Weft, still reported as weft.Error rather than a bare RuntimeError.
    set_error(classes->error, "Internal", e.what());
  }
}

}  // namespace

py::handle error_class() { return classes->error; }

void bind_errors(py::module_& m) {
  classes = new Classes;
  classes->error = new_class(m, "Error", py::make_tuple(py::handle(PyExc_RuntimeError)),
                             "Every error Weft raises. .code names the kind (an ErrorCode name, or 'Internal' for a bug), "
                             ".message is the text; str() is 'Code: message'.");
  for (size_t i = 0; i < kCodes; ++i) {
    const auto code = ErrorCode(i);
    py::tuple bases = builtin_base(code) ? py::make_tuple(classes->error, py::handle(builtin_base(code))) : py::make_tuple(classes->error);
    classes->by_code[i] = new_class(m, code_name(code), bases, meaning(code));
  }
  classes->argument = new_class(m, "ArgumentError",
                                py::make_tuple(classes->by_code[size_t(ErrorCode::BadInput)], py::handle(PyExc_TypeError)),
                                "An argument of the wrong type or count (a weft.BadInput and a TypeError).");
  py::register_local_exception_translator(&translate);
}

}  // namespace weft::python
