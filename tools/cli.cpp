#include "cli.h"

namespace weft::cli {

std::unique_ptr<Device> open_device(const Args& args) {
  DeviceOptions o;
  o.select = args.get("device");
  o.validation = args.flag("validation");
  return Device::open(o);
}

}  // namespace weft::cli
