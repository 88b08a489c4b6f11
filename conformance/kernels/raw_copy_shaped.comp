#version 450
// The minimal raw-Vulkan streaming copy through a descriptor, with its shape as specialization
// constants like the engine's streaming kernels (weft bench engine's sweep of the driver's own
// ceiling): no Weft header or helpers, 16 bytes per unit.
layout(local_size_x = 256, local_size_x_id = 0) in;
layout(constant_id = 1) const uint units_per_invocation = 1u;
layout(set = 0, binding = 0, std430) readonly buffer Src { uvec4 src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Push { uvec2 src_address, dst_address; uint count; } pc;

void main() {
  const uint width = gl_WorkGroupSize.x * units_per_invocation;
  for (uint step = gl_WorkGroupID.x * width + gl_LocalInvocationID.x; step < pc.count; step += gl_NumWorkGroups.x * width)
    for (uint i = step, u = 0u; u < units_per_invocation && i < pc.count; ++u, i += gl_WorkGroupSize.x) dst[i] = src[i];
}
