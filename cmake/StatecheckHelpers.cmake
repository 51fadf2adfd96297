# One way to declare a library and one way to declare a test.
#
# statecheck_library(NAME SRCS ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...] [INCLUDE dir])
# statecheck_test(NAME SRCS ... DEPS ... LABELS unit|property|long [TIMEOUT s])
#   A gtest binary; each of its tests is registered with CTest under its gtest name
#   (gtest_discover_tests), labelled so `ctest -L unit` and `ctest -L property` split them.

include(GoogleTest)

set(STATECHECK_WARNINGS -Wall -Wextra -Wpedantic -Wno-unused-parameter)

function(statecheck_library name)
  cmake_parse_arguments(ARG "" "" "SRCS;PUBLIC_DEPS;PRIVATE_DEPS;INCLUDE" ${ARGN})
  add_library(${name} STATIC ${ARG_SRCS})
  target_compile_options(${name} PRIVATE ${STATECHECK_WARNINGS})
  target_include_directories(${name} PUBLIC ${ARG_INCLUDE} ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
endfunction()

function(statecheck_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SRCS;DEPS;LABELS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  add_executable(${name} ${ARG_SRCS})
  target_compile_options(${name} PRIVATE ${STATECHECK_WARNINGS})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  gtest_discover_tests(${name} NO_PRETTY_VALUES PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT}
                       DISCOVERY_TIMEOUT 60)
endfunction()
