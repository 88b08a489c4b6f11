# weft_add_fuzz_smoke(<name> SOURCE <fuzz.cpp> CORPUS <dir>... [PREFIX <name prefix>]
#                     [LINK <target>...] [INCLUDE_DIRS <dir>...] [DEFINES <def>...])
#
# A libFuzzer target's source built with tests/fuzz_smoke/fuzz_smoke_main.cpp in the normal
# build, and the ctest entry fuzz_smoke.<name>: its corpus replayed, then seconds of seeded
# mutations (WEFT_FUZZ_SMOKE_SECONDS, default 5). The long, coverage-guided runs stay with
# -DWEFT_FUZZ=ON and clang.
set(WEFT_FUZZ_SMOKE_SECONDS 5 CACHE STRING "Seconds of mutations per fuzz smoke test")
function(weft_add_fuzz_smoke name)
  cmake_parse_arguments(ARG "" "SOURCE;PREFIX" "CORPUS;LINK;INCLUDE_DIRS;DEFINES" ${ARGN})
  if(NOT WEFT_BUILD_TESTS OR WEFT_FUZZ)
    return()
  endif()
  set(target weft_fuzz_smoke_${name})
  add_executable(${target} "${CMAKE_SOURCE_DIR}/tests/fuzz_smoke/fuzz_smoke_main.cpp" ${ARG_SOURCE})
  target_link_libraries(${target} PRIVATE ${ARG_LINK})
  target_include_directories(${target} PRIVATE ${ARG_INCLUDE_DIRS})
  target_compile_definitions(${target} PRIVATE ${ARG_DEFINES})
  target_compile_options(${target} PRIVATE -Wall -Wno-missing-field-initializers)
  set(prefix_args "")
  if(ARG_PREFIX)
    set(prefix_args --prefix ${ARG_PREFIX})
  endif()
  add_test(NAME fuzz_smoke.${name} COMMAND ${target} --seconds ${WEFT_FUZZ_SMOKE_SECONDS} ${prefix_args} ${ARG_CORPUS})
endfunction()
