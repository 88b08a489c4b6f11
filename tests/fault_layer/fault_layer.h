// The test side of VK_LAYER_WEFT_fault (fault_layer.cpp): asks the layer for a fault. The layer library is opened here before any Vulkan instance exists and stays
// open, so the loader, which opens it again by the same path, shares its state with the test.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace weft::test {

class FaultLayer {
 public:
  static FaultLayer& get() {
    static FaultLayer layer;
    return layer;
  }
  // Every device open now answers VK_ERROR_DEVICE_LOST from every submission and wait on.
  void lose_devices() { lose_(); }
  // Every allocation of `bytes` or more fails with OUT_OF_DEVICE_MEMORY (0: none fails).
  void limit_allocations(uint64_t bytes) { limit_(bytes); }
  // How many devices the layer has seen created: proof that the loader put it in the chain.
  uint64_t devices_created() const { return created_(); }

 private:
  FaultLayer() {
    handle_ = dlopen(WEFT_FAULT_LAYER_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!handle_) throw std::runtime_error(std::string("cannot open the fault layer: ") + dlerror());
    lose_ = symbol<void (*)()>("weft_fault_lose_devices");
    limit_ = symbol<void (*)(uint64_t)>("weft_fault_limit_allocations");
    created_ = symbol<uint64_t (*)()>("weft_fault_devices_created");
  }
  template <class Fn>
  Fn symbol(const char* name) {
    void* s = dlsym(handle_, name);
    if (!s) throw std::runtime_error(std::string("fault layer lacks ") + name);
    return reinterpret_cast<Fn>(s);
  }
  void* handle_ = nullptr;
  void (*lose_)() = nullptr;
  void (*limit_)(uint64_t) = nullptr;
  uint64_t (*created_)() = nullptr;
};

}  // namespace weft::test
