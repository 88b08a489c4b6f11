#version 450
// The minimal raw-Vulkan streaming copy through a descriptor (weft bench engine's driver
// baseline): no Weft header or helpers, grid-stride, 16 bytes per invocation per step.
layout(local_size_x = 256) in;
layout(set = 0, binding = 0, std430) readonly buffer Src { uvec4 src[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Dst { uvec4 dst[]; };
layout(push_constant) uniform Push { uvec2 src_address, dst_address; uint count; } pc;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) dst[i] = src[i];
}
