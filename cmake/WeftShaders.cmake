# weft_add_shaders(TARGET <target> TABLE <c_identifier> SOURCES <a.comp>... [INCLUDE_DIRS <dir>...]
#                  [FAR_VARIANTS <a.comp>...])
#
# Compiles each compute shader at build time with glslangValidator (Vulkan 1.2), twice: the plain
# module and the WEFT_SHADER_CLOCK variant used on devices with VK_KHR_shader_clock. Every
# module is checked by spirv-val, and a preprocessing pass with WEFT_DESCRIBE_ARGS records the
# kernel's typed arguments (bindings_layout/weft_args.h). The modules are embedded in <target>
# as a weft::KernelTable named <TABLE>, declared in the generated header <TABLE>.h:
#     weft::KernelRef k = TABLE.get("name");
# glslang's depfile names every included file, so an edited include rebuilds its kernels.
# Each source listed in FAR_VARIANTS (also one of SOURCES) is compiled once more with
# WEFT_FAR_ACCESS as the entry "<name>.far": Program::add_stage runs it for stages that declare
# a far segment (data beyond the bound window), so a kernel written against one addressing
# helper serves both placements.
# Works in the Weft tree and for out-of-tree workloads through find_package(weft).
find_program(WEFT_GLSLANG_VALIDATOR glslangValidator REQUIRED)
find_program(WEFT_SPIRV_VAL spirv-val REQUIRED)
set(_WEFT_SHADERS_DIR "${CMAKE_CURRENT_LIST_DIR}" CACHE INTERNAL "")

function(weft_add_shaders)
  cmake_parse_arguments(ARG "" "TARGET;TABLE" "SOURCES;INCLUDE_DIRS;FAR_VARIANTS" ${ARGN})
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TABLE}")
  file(MAKE_DIRECTORY "${out_dir}")
  set(include_flags "")
  foreach(dir ${WEFT_GLSL_INCLUDE_DIRS} ${ARG_INCLUDE_DIRS})
    list(APPEND include_flags "-I${dir}")
  endforeach()
  string(REPLACE ";" "|" include_arg "${include_flags}")
  set(generated "")
  set(kernel_list "")
  set(variants "")
  foreach(src ${ARG_SOURCES})
    list(APPEND variants "${src}|")
  endforeach()
  foreach(src ${ARG_FAR_VARIANTS})
    if(NOT src IN_LIST ARG_SOURCES)
      message(FATAL_ERROR "weft_add_shaders(${ARG_TABLE}): FAR_VARIANTS names ${src}, which is not one of SOURCES")
    endif()
    list(APPEND variants "${src}|far")
  endforeach()
  foreach(variant ${variants})
    string(REPLACE "|" ";" parts "${variant}")
    list(GET parts 0 src)
    list(LENGTH parts n_parts)
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(stem "${src}" NAME_WE)
    set(defines "")
    if(n_parts GREATER 1)
      list(GET parts 1 suffix)
      if(suffix STREQUAL "far")
        set(stem "${stem}.far")
        set(defines "-DWEFT_FAR_ACCESS=1")
      endif()
    endif()
    set(plain "${out_dir}/${stem}.spv")
    set(clock "${out_dir}/${stem}.clock.spv")
    set(args "${out_dir}/${stem}.args")
    add_custom_command(
      OUTPUT "${plain}" "${clock}" "${args}"
      COMMAND ${WEFT_GLSLANG_VALIDATOR} --quiet --target-env vulkan1.2 ${defines} ${include_flags} --depfile "${plain}.d" -o "${plain}" "${abs}"
      COMMAND ${WEFT_SPIRV_VAL} --target-env vulkan1.2 "${plain}"
      COMMAND ${WEFT_GLSLANG_VALIDATOR} --quiet --target-env vulkan1.2 ${defines} -DWEFT_SHADER_CLOCK=1 ${include_flags} -o "${clock}" "${abs}"
      COMMAND ${WEFT_SPIRV_VAL} --target-env vulkan1.2 "${clock}"
      COMMAND ${CMAKE_COMMAND} "-DGLSLANG=${WEFT_GLSLANG_VALIDATOR}" "-DINCLUDES=${include_arg}" "-DSOURCE=${abs}"
              "-DOUT=${args}" -P "${_WEFT_SHADERS_DIR}/weft_describe_args.cmake"
      DEPENDS "${abs}" "${_WEFT_SHADERS_DIR}/weft_describe_args.cmake"
      DEPFILE "${plain}.d"
      COMMENT "glslang + spirv-val ${stem}.comp"
      VERBATIM)
    list(APPEND generated "${plain}" "${clock}" "${args}")
    list(APPEND kernel_list "${stem}" "${plain}" "${clock}" "${args}")
  endforeach()
  set(cpp "${out_dir}/${ARG_TABLE}.cpp")
  set(hdr "${out_dir}/${ARG_TABLE}.h")
  string(REPLACE ";" "|" kernel_arg "${kernel_list}")
  add_custom_command(
    OUTPUT "${cpp}" "${hdr}"
    COMMAND ${CMAKE_COMMAND} "-DTABLE=${ARG_TABLE}" "-DKERNELS=${kernel_arg}" "-DOUT_CPP=${cpp}" "-DOUT_H=${hdr}"
            -P "${_WEFT_SHADERS_DIR}/weft_embed_spirv.cmake"
    DEPENDS ${generated} "${_WEFT_SHADERS_DIR}/weft_embed_spirv.cmake"
    COMMENT "embedding SPIR-V table ${ARG_TABLE}"
    VERBATIM)
  target_sources(${ARG_TARGET} PRIVATE "${cpp}" "${hdr}")
  target_include_directories(${ARG_TARGET} PUBLIC "$<BUILD_INTERFACE:${out_dir}>")
  # The registry gives a workload's table to its conformance group (every kernel must build).
  set_property(GLOBAL APPEND PROPERTY WEFT_KERNEL_TABLES ${ARG_TABLE})
endfunction()
