// VkFFT's header, included as Debian 12 ships it (1.2.26), on the glslang Debian 12 ships (12.0).
//
// VkFFT fills glslang's C resource struct positionally, written for a glslang without the nine
// mesh-shader *_ext fields that glslang 11.12 inserted before max_dual_source_draw_buffers_ext;
// with them its initializer no longer lines up. Rather than edit the header, this adapter gives
// VkFFT the struct it was written for: while vkFFT.h is included, glslang_resource_t and
// glslang_input_t name layout-compatible stand-ins without those fields, and the three glslang
// calls that take them convert to the real structs (the new fields get glslang's own defaults;
// compute shaders never read them). Nothing changes for a glslang older than 11.12.
#pragma once

#include <cstddef>
#include <cstring>

#include <glslang/Include/glslang_c_interface.h>
#include <glslang/build_info.h>

#if GLSLANG_VERSION_GREATER_OR_EQUAL_TO(11, 12, 0)
namespace weft::dsp::vkfft_compat {

// glslang_resource_t up to max_mesh_view_count_nv, then the fields after the *_ext ones.
struct Resource {
  int before_ext[offsetof(glslang_resource_t, max_mesh_output_vertices_ext) / sizeof(int)];
  int max_dual_source_draw_buffers_ext;
  glslang_limits_t limits;
};

// glslang_input_t, pointing at a Resource.
struct Input {
  glslang_source_t language;
  glslang_stage_t stage;
  glslang_client_t client;
  glslang_target_client_version_t client_version;
  glslang_target_language_t target_language;
  glslang_target_language_version_t target_language_version;
  const char* code;
  int default_version;
  glslang_profile_t default_profile;
  int force_default_version_and_profile;
  int forward_compatible;
  glslang_messages_t messages;
  const Resource* resource;
};
static_assert(sizeof(Input) == sizeof(glslang_input_t), "glslang_input_t changed: revisit vkfft_compat.h");

// The real structs for one call (the resource lives in `resource`).
inline glslang_input_t real_input(const Input* in, glslang_resource_t& resource) {
  resource = {};
  std::memcpy(&resource, in->resource->before_ext, sizeof in->resource->before_ext);
  // glslang's DefaultTBuiltInResource values for the fields VkFFT does not know.
  resource.max_mesh_output_vertices_ext = 256;
  resource.max_mesh_output_primitives_ext = 256;
  resource.max_mesh_work_group_size_x_ext = 128;
  resource.max_mesh_work_group_size_y_ext = 128;
  resource.max_mesh_work_group_size_z_ext = 128;
  resource.max_task_work_group_size_x_ext = 128;
  resource.max_task_work_group_size_y_ext = 128;
  resource.max_task_work_group_size_z_ext = 128;
  resource.max_mesh_view_count_ext = 4;
  resource.max_dual_source_draw_buffers_ext = in->resource->max_dual_source_draw_buffers_ext;
  resource.limits = in->resource->limits;
  glslang_input_t out;
  std::memcpy(&out, in, offsetof(Input, resource));
  out.resource = &resource;
  return out;
}

inline glslang_shader_t* shader_create(const Input* in) {
  glslang_resource_t r;
  const glslang_input_t real = real_input(in, r);
  return ::glslang_shader_create(&real);
}
inline int shader_preprocess(glslang_shader_t* shader, const Input* in) {
  glslang_resource_t r;
  const glslang_input_t real = real_input(in, r);
  return ::glslang_shader_preprocess(shader, &real);
}
inline int shader_parse(glslang_shader_t* shader, const Input* in) {
  glslang_resource_t r;
  const glslang_input_t real = real_input(in, r);
  return ::glslang_shader_parse(shader, &real);
}

}  // namespace weft::dsp::vkfft_compat

#define glslang_resource_t ::weft::dsp::vkfft_compat::Resource
#define glslang_input_t ::weft::dsp::vkfft_compat::Input
#define glslang_shader_create ::weft::dsp::vkfft_compat::shader_create
#define glslang_shader_preprocess ::weft::dsp::vkfft_compat::shader_preprocess
#define glslang_shader_parse ::weft::dsp::vkfft_compat::shader_parse
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-braces"
#include <vkFFT.h>
#pragma GCC diagnostic pop
#undef glslang_resource_t
#undef glslang_input_t
#undef glslang_shader_create
#undef glslang_shader_preprocess
#undef glslang_shader_parse
#else
#include <vkFFT.h>
#endif
