#version 450
// The same copy as raw_copy_ssbo.comp through buffer device addresses pushed as constants: what
// the driver itself gives for device-address loads and stores, without Weft's far tables.
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
layout(local_size_x = 256) in;
layout(buffer_reference, std430, buffer_reference_align = 16) buffer Vec4s { uvec4 v[]; };
layout(push_constant) uniform Push { uvec2 src_address, dst_address; uint count; } pc;

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  Vec4s src = Vec4s(pc.src_address), dst = Vec4s(pc.dst_address);
  for (uint i = gl_GlobalInvocationID.x; i < pc.count; i += stride) dst.v[i] = src.v[i];
}
