// The Python Device object, shared by the module's source files. Python owns devices through
// shared_ptr so programs and token VM machines keep theirs alive.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include <weft/weft.h>

namespace weft::python {

pybind11::dict info_dict(const DeviceInfo& d);

class PyDevice {
 public:
  PyDevice(const std::string& select, bool validation) {
    DeviceOptions o;
    o.select = select;
    o.validation = validation;
    device_ = std::shared_ptr<Device>(Device::open(o));
  }
  pybind11::dict info() const { return info_dict(device_->info()); }
  std::vector<std::string> validation_messages() const { return device_->validation().messages(); }
  const std::shared_ptr<Device>& ptr() const { return device_; }

 private:
  std::shared_ptr<Device> device_;
};


}  // namespace weft::python
