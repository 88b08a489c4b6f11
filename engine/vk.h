// Vulkan through volk: the loader is opened at run time, so Weft never links libvulkan.
#pragma once

#include <volk.h>

#include <string>

namespace weft {

const char* vk_result_name(VkResult r);

// Maps a failed VkResult to the typed error it means (out of memory, device lost, ...).
void vk_check(VkResult r, const char* what);

// Hot-path flavour: returns a Status instead of throwing.
struct Status;
Status vk_status(VkResult r, const char* what);

}  // namespace weft
