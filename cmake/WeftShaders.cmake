# weft_add_shaders(TARGET <target> TABLE <c_identifier> SOURCES <a.comp>... [INCLUDE_DIRS <dir>...])
#
# Compiles each compute shader at build time with glslangValidator (Vulkan 1.2), twice: the plain
# module and the WEFT_SHADER_CLOCK variant used on devices with VK_KHR_shader_clock. Every
# module is checked by spirv-val. The SPIR-V is embedded in <target> as a table of
# weft::EmbeddedKernel named <TABLE>, declared in the generated header <TABLE>.h:
#     weft::KernelRef k = weft::find_kernel(TABLE, TABLE_count, "name");
# Works in the Weft tree and for out-of-tree workloads through find_package(weft).
find_program(WEFT_GLSLANG_VALIDATOR glslangValidator REQUIRED)
find_program(WEFT_SPIRV_VAL spirv-val REQUIRED)
set(_WEFT_SHADERS_DIR "${CMAKE_CURRENT_LIST_DIR}" CACHE INTERNAL "")

function(weft_add_shaders)
  cmake_parse_arguments(ARG "" "TARGET;TABLE" "SOURCES;INCLUDE_DIRS" ${ARGN})
  set(out_dir "${CMAKE_CURRENT_BINARY_DIR}/${ARG_TABLE}")
  file(MAKE_DIRECTORY "${out_dir}")
  set(include_flags "")
  foreach(dir ${WEFT_GLSL_INCLUDE_DIRS} ${ARG_INCLUDE_DIRS})
    list(APPEND include_flags "-I${dir}")
  endforeach()
  set(spv_files "")
  set(kernel_list "")
  foreach(src ${ARG_SOURCES})
    get_filename_component(abs "${src}" ABSOLUTE)
    get_filename_component(stem "${src}" NAME_WE)
    set(plain "${out_dir}/${stem}.spv")
    set(clock "${out_dir}/${stem}.clock.spv")
    add_custom_command(
      OUTPUT "${plain}" "${clock}"
      COMMAND ${WEFT_GLSLANG_VALIDATOR} --quiet --target-env vulkan1.2 ${include_flags} -o "${plain}" "${abs}"
      COMMAND ${WEFT_SPIRV_VAL} --target-env vulkan1.2 "${plain}"
      COMMAND ${WEFT_GLSLANG_VALIDATOR} --quiet --target-env vulkan1.2 -DWEFT_SHADER_CLOCK=1 ${include_flags} -o "${clock}" "${abs}"
      COMMAND ${WEFT_SPIRV_VAL} --target-env vulkan1.2 "${clock}"
      DEPENDS "${abs}" ${WEFT_GLSL_DEPENDS}
      IMPLICIT_DEPENDS CXX "${abs}"
      COMMENT "glslang + spirv-val ${stem}.comp"
      VERBATIM)
    list(APPEND spv_files "${plain}" "${clock}")
    list(APPEND kernel_list "${stem}" "${plain}" "${clock}")
  endforeach()
  set(cpp "${out_dir}/${ARG_TABLE}.cpp")
  set(hdr "${out_dir}/${ARG_TABLE}.h")
  string(REPLACE ";" "|" kernel_arg "${kernel_list}")
  add_custom_command(
    OUTPUT "${cpp}" "${hdr}"
    COMMAND ${CMAKE_COMMAND} "-DTABLE=${ARG_TABLE}" "-DKERNELS=${kernel_arg}" "-DOUT_CPP=${cpp}" "-DOUT_H=${hdr}"
            -P "${_WEFT_SHADERS_DIR}/weft_embed_spirv.cmake"
    DEPENDS ${spv_files} "${_WEFT_SHADERS_DIR}/weft_embed_spirv.cmake"
    COMMENT "embedding SPIR-V table ${ARG_TABLE}"
    VERBATIM)
  target_sources(${ARG_TARGET} PRIVATE "${cpp}" "${hdr}")
  target_include_directories(${ARG_TARGET} PUBLIC "$<BUILD_INTERFACE:${out_dir}>")
endfunction()
