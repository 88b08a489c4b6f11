// The hypothesis update's public API: the backend interface and its types, the CPU backend and
// the Vulkan backend. Code outside this folder (the C ABI, compositions) includes only this.
#pragma once

#include "cpu_backend.h"
#include "hypothesis_backend.h"
#include "hypothesis_types.h"
#include "vulkan_backend.h"
