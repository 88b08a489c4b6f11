# cmake --install: headers, library, the weft binary, GLSL includes and weftConfig.cmake.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS weft weft_volk EXPORT weftTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
list(TRANSFORM WEFT_ENGINE_HEADERS PREPEND "${CMAKE_SOURCE_DIR}/engine/")
install(FILES ${WEFT_ENGINE_HEADERS} "${CMAKE_SOURCE_DIR}/bindings_layout/weft_layout.h"
  "${CMAKE_SOURCE_DIR}/bindings_layout/weft_args.h" "${CMAKE_SOURCE_DIR}/shaders/weft_engine_args.h"
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/weft)
install(FILES "${CMAKE_SOURCE_DIR}/shaders/weft.glsl" "${CMAKE_SOURCE_DIR}/bindings_layout/weft_layout.h"
  "${CMAKE_SOURCE_DIR}/bindings_layout/weft_args.h" DESTINATION ${CMAKE_INSTALL_DATADIR}/weft/glsl)
install(EXPORT weftTargets NAMESPACE weft:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/weft)
configure_package_config_file("${CMAKE_SOURCE_DIR}/cmake/weftConfig.cmake.in"
  "${CMAKE_BINARY_DIR}/weftConfig.cmake" INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/weft
  PATH_VARS CMAKE_INSTALL_DATADIR)  # -> PACKAGE_CMAKE_INSTALL_DATADIR: where the GLSL includes are
write_basic_package_version_file("${CMAKE_BINARY_DIR}/weftConfigVersion.cmake" COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_BINARY_DIR}/weftConfig.cmake" "${CMAKE_BINARY_DIR}/weftConfigVersion.cmake"
  "${CMAKE_SOURCE_DIR}/cmake/WeftShaders.cmake" "${CMAKE_SOURCE_DIR}/cmake/weft_embed_spirv.cmake"
  "${CMAKE_SOURCE_DIR}/cmake/weft_describe_args.cmake"
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/weft)
