// What the C handles hold, and the one place C++ failures become status codes. Internal.
#pragma once

#include <atomic>
#include <memory>
#include <string>

#include <weft/manifest.h>
#include <weft/weft.h>

#include "weft.h"

// A handle owns a reference count; whatever it depends on is held through shared_ptr, so a
// program outlives an early weft_device_release without dangling.
struct weft_device {
  std::atomic<int> refs{1};
  std::shared_ptr<weft::Device> device;
};

struct weft_buffer {
  std::atomic<int> refs{1};
  std::shared_ptr<weft::Device> device;
  std::unique_ptr<weft::Buffer> buffer;
};

struct weft_program {
  std::atomic<int> refs{1};
  std::shared_ptr<weft::Device> device;
  std::unique_ptr<weft::ManifestRunner> runner;
};

namespace weft::capi {

// Runs `body`, turning every exception into a status and this thread's last error message.
template <class Body>
weft_status guard(Body&& body) noexcept;

weft_status set_error(weft_status status, const std::string& message) noexcept;
weft_status status_of(ErrorCode code) noexcept;

// Drops one reference; deletes the handle with the last one.
template <class Handle>
void release(Handle* handle) noexcept {
  if (handle && handle->refs.fetch_sub(1, std::memory_order_acq_rel) == 1) delete handle;
}

// A NULL where a pointer is required: WEFT_ERROR_INVALID_ARGUMENT naming the function and the argument.
struct InvalidArgument {
  std::string message;
};
inline void require(const void* pointer, const char* function, const char* argument) {
  if (!pointer) throw InvalidArgument{std::string(function) + ": " + argument + " is NULL"};
}

// A caller's options struct, or the defaults when `given` is NULL. InvalidArgument when its
// struct_size is smaller than this library's (a caller built against another header).
template <class Options>
Options options_or_default(const Options* given, void (*defaults)(Options*), const char* function) {
  Options o;
  defaults(&o);
  if (!given) return o;
  if (given->struct_size < sizeof o)
    throw InvalidArgument{std::string(function) + ": options->struct_size " + std::to_string(given->struct_size) +
                          " is not this library's " + std::to_string(sizeof o)};
  return *given;
}

template <class Body>
weft_status guard(Body&& body) noexcept {
  try {
    body();
    return WEFT_OK;
  } catch (const Error& e) {
    return set_error(status_of(e.code()), e.what());
  } catch (const InvalidArgument& e) {
    return set_error(WEFT_ERROR_INVALID_ARGUMENT, e.message);
  } catch (const std::bad_alloc&) {
    return set_error(WEFT_ERROR_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception& e) {
    return set_error(WEFT_ERROR_INTERNAL, e.what());
  } catch (...) {
    return set_error(WEFT_ERROR_INTERNAL, "unknown exception");
  }
}

}  // namespace weft::capi
