# weft_add_workload(<name>
#   [SOURCES <cpp>...]              the workload library weft_<name>: host API, program builders, CPU reference
#   [KERNELS <comp>...]             its kernels, embedded as the KernelTable weft_<name>_kernels
#   [FAR_KERNELS <comp>...]         those of KERNELS that also get a far variant (WEFT_FAR_ACCESS
#                                   defined), run by stages that declare far segments
#   [KERNEL_INCLUDE_DIRS <dir>...]  extra GLSL include folders (the kernels' own folder is searched first)
#   [LINK <target>...]              what weft_<name> links besides weft
#   [LIBRARY <target>]              instead of SOURCES: the workload's library, defined by its own CMakeLists
#   [INTERFACE <header>...]         the headers (C++ and GLSL) other workloads, compositions and the
#                                   C ABI may include; every other header is the workload's own
#                                   (tools/check_interfaces.py, run by ctest, holds everyone to it)
#   CLI <cpp>...                    `weft <name>`: defines weft::cli::Command weft::cli::<name>_command()
#   [CLI_LINK <target>...]          what the CLI part links besides the library
#   CONFORMANCE <cpp>...            defines std::vector<weft::conformance::Case> weft::conformance::<name>_cases()
#   [CONFORMANCE_LINK <target>...]
#   [DATA <dir>]                    data its conformance cases read, found at <data dir>/<name>: in the
#                                   build tree and the install, share/weft/data/<name> beside bin/
#   [PYTHON <cpp> [<py>...]]        Python: the cpp defines void weft::python::bind_<name>(pybind11::module_&);
#                                   each .py joins the package, a .pyi is the submodule's type stubs
#                                   (the submodule weft._weft.<name>); the .py files join the package
#   [PYTHON_LINK <target>...])
#
# Everything a workload contributes is declared here, in its own folder: the central tables
# (`weft help`, `weft bench`, `weft conformance`, the conformance ctest entries, the Python
# package) are generated from these registrations, so adding a workload edits no central file.
# The names of the two functions follow from <name>; a workload without either does not link.

function(weft_add_workload name)
  cmake_parse_arguments(ARG "" "LIBRARY;DATA"
    "SOURCES;KERNELS;FAR_KERNELS;KERNEL_INCLUDE_DIRS;LINK;CLI;CLI_LINK;CONFORMANCE;CONFORMANCE_LINK;PYTHON;PYTHON_LINK;INTERFACE" ${ARGN})
  if(NOT ARG_CLI OR NOT ARG_CONFORMANCE)
    message(FATAL_ERROR "weft_add_workload(${name}): a workload declares its CLI command and its conformance cases")
  endif()
  if(ARG_LIBRARY)
    set(library ${ARG_LIBRARY})
  else()
    set(library weft_${name})
    add_library(${library} STATIC ${ARG_SOURCES})
    target_include_directories(${library} PUBLIC "${CMAKE_CURRENT_SOURCE_DIR}")
    target_link_libraries(${library} PUBLIC weft ${ARG_LINK})
    target_compile_options(${library} PRIVATE -Wall -Wextra -Wno-missing-field-initializers)
  endif()
  if(ARG_KERNELS)
    weft_add_shaders(TARGET ${library} TABLE weft_${name}_kernels
      INCLUDE_DIRS "${CMAKE_CURRENT_SOURCE_DIR}/shaders" ${ARG_KERNEL_INCLUDE_DIRS} SOURCES ${ARG_KERNELS}
      FAR_VARIANTS ${ARG_FAR_KERNELS})
  endif()

  add_library(weft_${name}_cli STATIC ${ARG_CLI})
  target_link_libraries(weft_${name}_cli PRIVATE ${library} weft_cli weft_conformance ${ARG_CLI_LINK})
  target_compile_options(weft_${name}_cli PRIVATE -Wall -Wno-missing-field-initializers)

  add_library(weft_${name}_conformance STATIC ${ARG_CONFORMANCE})
  target_link_libraries(weft_${name}_conformance PRIVATE ${library} weft_conformance ${ARG_CONFORMANCE_LINK})
  target_compile_options(weft_${name}_conformance PRIVATE -Wall -Wno-missing-field-initializers)

  if(ARG_PYTHON)
    # One extension module holds the engine once (its Vulkan loader state is per copy): the
    # binding joins weft._weft as the submodule <name>, and weft/<name>.py re-exports it.
    # Each binding compiles on its own with only its workload's include folders (two workloads'
    # headers may share a name, e.g. reference.h), and its objects join the one module.
    list(POP_FRONT ARG_PYTHON binding_source)
    add_library(weft_${name}_python OBJECT "${CMAKE_CURRENT_SOURCE_DIR}/${binding_source}")
    set_target_properties(weft_${name}_python PROPERTIES POSITION_INDEPENDENT_CODE ON CXX_VISIBILITY_PRESET hidden)
    target_include_directories(weft_${name}_python PRIVATE "${CMAKE_SOURCE_DIR}/python/src")
    target_link_libraries(weft_${name}_python PRIVATE ${library} ${ARG_PYTHON_LINK} pybind11::module)
    target_link_libraries(weft_python PRIVATE weft_${name}_python ${library} ${ARG_PYTHON_LINK})
    foreach(py ${ARG_PYTHON})
      get_filename_component(py_name "${py}" NAME)
      if(py MATCHES "\\.pyi$")  # the submodule's type stubs
        configure_file("${py}" "${WEFT_PYTHON_PACKAGE_DIR}/_weft/${name}.pyi" COPYONLY)
      else()
        configure_file("${py}" "${WEFT_PYTHON_PACKAGE_DIR}/${py_name}" COPYONLY)
      endif()
    endforeach()
    set_property(GLOBAL APPEND PROPERTY WEFT_PYTHON_WORKLOADS ${name})
  endif()

  if(ARG_DATA)
    file(MAKE_DIRECTORY "${CMAKE_BINARY_DIR}/share/weft/data")
    file(CREATE_LINK "${CMAKE_CURRENT_SOURCE_DIR}/${ARG_DATA}" "${CMAKE_BINARY_DIR}/share/weft/data/${name}" SYMBOLIC)
    install(DIRECTORY "${ARG_DATA}/" DESTINATION "${CMAKE_INSTALL_DATADIR}/weft/data/${name}")
  endif()

  set(interface "")
  foreach(header ${ARG_INTERFACE})
    list(APPEND interface "${CMAKE_CURRENT_SOURCE_DIR}/${header}")
  endforeach()
  string(REPLACE ";" " " interface "${interface}")
  set_property(GLOBAL APPEND PROPERTY WEFT_WORKLOAD_INTERFACES "${name} ${CMAKE_CURRENT_SOURCE_DIR} ${interface}")
  set_property(GLOBAL APPEND PROPERTY WEFT_WORKLOADS ${name})
endfunction()

# Writes the workload registry (tools/registry.h) from the registrations and builds it as
# weft_registry. Called once, after every workload folder has been added.
function(weft_generate_registry)
  get_property(workloads GLOBAL PROPERTY WEFT_WORKLOADS)
  set(declarations "")
  set(entries "")
  set(libraries "")
  get_property(tables GLOBAL PROPERTY WEFT_KERNEL_TABLES)
  set(table_declarations "")
  foreach(name ${workloads})
    string(APPEND declarations "namespace cli { Command ${name}_command(); }\n")
    string(APPEND declarations "namespace conformance { std::vector<Case> ${name}_cases(); }\n")
    if("weft_${name}_kernels" IN_LIST tables)
      string(APPEND table_declarations "extern const weft::KernelTable weft_${name}_kernels;\n")
      set(table "&weft_${name}_kernels")
    else()
      set(table "nullptr")
    endif()
    string(APPEND entries "      {\"${name}\", &cli::${name}_command, &conformance::${name}_cases, ${table}},\n")
    list(APPEND libraries weft_${name}_cli weft_${name}_conformance)
  endforeach()
  set(out "${CMAKE_BINARY_DIR}/registry/workloads.cpp")
  file(CONFIGURE OUTPUT "${out}" CONTENT "// Generated by weft_generate_registry() from weft_add_workload() calls: do not edit.
#include \"registry.h\"

@table_declarations@
namespace weft {
@declarations@
namespace registry {

const std::vector<Workload>& workloads() {
  static const std::vector<Workload> all = {
@entries@  };
  return all;
}

}  // namespace registry
}  // namespace weft
" @ONLY)
  add_library(weft_registry STATIC "${out}" "${CMAKE_SOURCE_DIR}/tools/registry.cpp")
  target_include_directories(weft_registry PUBLIC "${CMAKE_SOURCE_DIR}/tools")
  target_link_libraries(weft_registry PUBLIC weft_cli weft_conformance PRIVATE ${libraries})
  set(WEFT_WORKLOADS ${workloads} PARENT_SCOPE)

  # What each workload lets others include (checked by tools/check_interfaces.py).
  get_property(interfaces GLOBAL PROPERTY WEFT_WORKLOAD_INTERFACES)
  string(REPLACE ";" "\n" interfaces "${interfaces}")
  file(WRITE "${CMAKE_BINARY_DIR}/registry/interfaces.txt" "${interfaces}\n")

  # The Python bindings: each workload's submodule of weft._weft.
  get_property(python_workloads GLOBAL PROPERTY WEFT_PYTHON_WORKLOADS)
  set(declarations "")
  set(calls "")
  foreach(name ${python_workloads})
    string(APPEND declarations "void bind_${name}(pybind11::module_& m);\n")
    string(APPEND calls "  pybind11::module_ ${name} = m.def_submodule(\"${name}\");\n  bind_${name}(${name});\n  modules[${name}.attr(\"__name__\")] = ${name};\n")
  endforeach()
  set(out "${CMAKE_BINARY_DIR}/registry/python_bindings.cpp")
  file(CONFIGURE OUTPUT "${out}" CONTENT "// Generated by weft_generate_registry() from weft_add_workload() calls: do not edit.
#include <pybind11/pybind11.h>

namespace weft::python {
@declarations@
// Each submodule is also entered in sys.modules, so `import weft._weft.<name>` (type checkers,
// stubtest) finds it like any other module.
void bind_workloads(pybind11::module_& m) {
  pybind11::object modules = pybind11::module_::import(\"sys\").attr(\"modules\");
@calls@}

}  // namespace weft::python
" @ONLY)
  target_sources(weft_python PRIVATE "${out}")
endfunction()
