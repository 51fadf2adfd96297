# `cmake --install`: the engine's public headers and library, the harness's libraries and
# headers, the `statecheck` CLI, and a CMake package, so that another project checks its own
# store with
#
#   find_package(statecheck CONFIG REQUIRED)
#   target_link_libraries(my_check PRIVATE statecheck::harness)   # or statecheck::engine
#
# (examples/verify-my-store/ is such a project; CI installs to a prefix and builds it). Under
# the prefix: include/statecheck/ (the engine's public headers, nothing else of the engine),
# include/statecheck-harness/ (model/, faults/, properties/, reports/ and the engine's test
# hooks, statecheck/hooks/, which only the harness sees), lib/ (static libraries),
# lib/cmake/statecheck/ (the package: statecheckConfig.cmake, its version file and targets),
# bin/statecheck. A product build (STATECHECK_PRODUCT) installs the engine alone.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_statecheck_package_dir ${CMAKE_INSTALL_LIBDIR}/cmake/statecheck)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/engine/include/statecheck
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
set_target_properties(statecheck_engine PROPERTIES EXPORT_NAME engine)
set(_statecheck_targets statecheck_engine)

if(STATECHECK_PRODUCT)
  set(STATECHECK_INSTALL_HARNESS OFF)
else()
  set(STATECHECK_INSTALL_HARNESS ON)
  # The harness's headers, root-relative as in the source tree; tests' and fuzz targets' own
  # headers stay behind, and so does the crash runner's (`statecheck crash`'s, not a library
  # the package exports).
  foreach(folder model faults properties reports)
    install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}
            DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/statecheck-harness
            FILES_MATCHING PATTERN "*.h"
            PATTERN "*_test.h" EXCLUDE PATTERN "*fuzz*" EXCLUDE PATTERN "fuzz_corpus" EXCLUDE
            PATTERN "crash" EXCLUDE)
  endforeach()
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/engine/hooks/statecheck
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/statecheck-harness FILES_MATCHING PATTERN "*.h")
  # What the hooks' headers compile to depends on these, as in the build that made the library.
  if(STATECHECK_FAIL_POINTS)
    target_compile_definitions(statecheck_engine_hooks INTERFACE STATECHECK_FAIL_POINTS)
  endif()
  if(STATECHECK_PLANTED_BUGS)
    target_compile_definitions(statecheck_engine_hooks INTERFACE STATECHECK_PLANTED_BUGS)
  endif()
  # statecheck::harness: every property family, its registry and traces, the models, the fault
  # layer and the report writers.
  add_library(statecheck_harness INTERFACE)
  target_link_libraries(statecheck_harness INTERFACE statecheck_properties statecheck_reports)
  set_target_properties(statecheck_harness PROPERTIES EXPORT_NAME harness)
  get_property(_statecheck_families GLOBAL PROPERTY STATECHECK_PROPERTY_FAMILIES)
  list(APPEND _statecheck_targets statecheck_engine_hooks statecheck_model statecheck_faults
       statecheck_reports statecheck_properties_kv ${_statecheck_families}
       statecheck_properties statecheck_harness)
  install(TARGETS statecheck RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(TARGETS ${_statecheck_targets} EXPORT statecheckTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(EXPORT statecheckTargets NAMESPACE statecheck:: DESTINATION ${_statecheck_package_dir})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/statecheckConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/statecheckConfig.cmake
                              INSTALL_DESTINATION ${_statecheck_package_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/statecheckConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/statecheckConfig.cmake
              ${PROJECT_BINARY_DIR}/statecheckConfigVersion.cmake
        DESTINATION ${_statecheck_package_dir})
