# One way to declare a library and one way to declare a test.
#
# statecheck_library(NAME SRCS ... [PUBLIC_DEPS ...] [PRIVATE_DEPS ...] [INCLUDE dir])
#   With INCLUDE (the engine: engine/include), that directory alone is the library's public
#   include path and the repository root is its own (its internal headers stay its own); without,
#   the repository root is public (the harness libraries' headers are root-relative).
#   ci/check_includes.sh checks what the build cannot: that no folder includes another's
#   internals.
# statecheck_test(NAME SRCS ... DEPS ... LABELS unit|property|long [TIMEOUT s] [COST c])
#   A gtest binary; each of its tests is registered with CTest under its gtest name
#   (gtest_discover_tests), labelled so `ctest -L unit` and `ctest -L property` split them.
#   COST (CTest's property; default 0) starts the binary's tests before those of lower cost when
#   CTest has no timings of its own yet, as on a fresh clone: give it to the binaries whose tests
#   take minutes, so that `ctest -j` does not end with one of them running alone.
# statecheck_fuzz_target(NAME SRCS ... DEPS ... CORPUS dir)
#   A fuzz target with its seed corpus. In the fuzz build (STATECHECK_FUZZ) a libFuzzer binary,
#   which ci/fuzz.sh runs for a time budget; in the others the same entry point behind
#   testing/fuzz_replay_main.cc. Either way CTest runs it once over the seeds (FuzzSeeds.NAME),
#   so the release and sanitizer builds check every seed with the target's own invariants.

include(GoogleTest)

set(STATECHECK_WARNINGS -Wall -Wextra -Wpedantic -Wno-unused-parameter)
# Warnings are errors in every build ci/build.sh makes (STATECHECK_WERROR); a user's own build
# with a newer compiler keeps them warnings.
if(STATECHECK_WERROR)
  list(APPEND STATECHECK_WARNINGS -Werror)
endif()

# statecheck_fast_malloc(TARGET): links tcmalloc into a harness executable where
# cmake/Dependencies.cmake found it (STATECHECK_TCMALLOC_LIBRARY; not in the sanitizer builds).
function(statecheck_fast_malloc target)
  if(STATECHECK_TCMALLOC_LIBRARY)
    target_link_libraries(${target} PRIVATE ${STATECHECK_TCMALLOC_LIBRARY})
  endif()
endfunction()

function(statecheck_library name)
  cmake_parse_arguments(ARG "" "" "SRCS;PUBLIC_DEPS;PRIVATE_DEPS;INCLUDE" ${ARGN})
  add_library(${name} STATIC ${ARG_SRCS})
  target_compile_options(${name} PRIVATE ${STATECHECK_WARNINGS})
  # Installed (cmake/StatecheckInstall.cmake), the engine's public headers are in include/ and
  # the harness's root-relative ones in include/statecheck-harness/.
  if(ARG_INCLUDE)
    target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${ARG_INCLUDE}>
                                              $<INSTALL_INTERFACE:include>
                                       PRIVATE ${PROJECT_SOURCE_DIR})
  else()
    target_include_directories(${name} PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}>
                                              $<INSTALL_INTERFACE:include/statecheck-harness>)
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_PUBLIC_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
endfunction()

# statecheck_light_folder([SANITIZERS_ONLY]): the calling folder's code runs for milliseconds of
# a run (writing reports, parsing the command line, starting workers), so it compiles for the
# compile's sake: at -O0 in the sanitizer builds, as test sources do (statecheck_test) — under
# ASan+UBSan a third of -O1's compile time — and at -O1 in Release (reports/run_report.cc,
# gcc 12: 15.7 s against -O3's 23.3 s). With SANITIZERS_ONLY, Release keeps its optimization
# (properties/: the campaign's speed is the properties'). The engine, the models and the fault
# file system keep the build's optimization everywhere.
macro(statecheck_light_folder)
  if(STATECHECK_SANITIZE OR STATECHECK_TSAN)
    add_compile_options(-O0)
  elseif(CMAKE_BUILD_TYPE STREQUAL "Release" AND NOT "${ARGV0}" STREQUAL "SANITIZERS_ONLY")
    add_compile_options(-O1)
  endif()
endmacro()

# statecheck_ubsan_here(): in a sanitizer build, the calling folder compiles with
# UndefinedBehaviorSanitizer too (engine/, model/, faults/; every folder with
# STATECHECK_UBSAN_ALL, which the top-level CMakeLists.txt then sets for all).
macro(statecheck_ubsan_here)
  if(STATECHECK_SANITIZE AND NOT STATECHECK_UBSAN_ALL)
    add_compile_options(-fsanitize=undefined -fno-sanitize-recover=undefined)
  endif()
endmacro()

# A test's own sources are assertions around calls into the libraries, which keep the build's
# optimization: in the sanitizer builds they compile at -O0 (under ASan+UBSan a third of -O1's
# compile time), in Release at -O1 (half of -O3's: engine/runtime/task_test.cc, gcc 12, 9.0 s against
# 17.1 s of CPU). Not -O0 in Release: what a test instantiates of rapidcheck's templates (its
# generators, shrinking) is compiled in the test's own source, and at -O0 the window-store
# property's configurations took 3 s each instead of 0.9 s.
function(statecheck_test_optimization target)
  if(STATECHECK_SANITIZE OR STATECHECK_TSAN)
    target_compile_options(${target} PRIVATE -O0)
  elseif(CMAKE_BUILD_TYPE STREQUAL "Release")
    target_compile_options(${target} PRIVATE -O1)
  endif()
endfunction()

function(statecheck_test name)
  cmake_parse_arguments(ARG "" "TIMEOUT;COST" "SRCS;DEPS;LABELS" ${ARGN})
  if(NOT ARG_TIMEOUT)
    set(ARG_TIMEOUT 300)
  endif()
  if(NOT ARG_COST)
    set(ARG_COST 0)
  endif()
  add_executable(${name} ${ARG_SRCS})
  target_compile_options(${name} PRIVATE ${STATECHECK_WARNINGS})
  statecheck_test_optimization(${name})
  # A test sits next to the code it tests and may include its internals (and testing/).
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} GTest::gtest GTest::gtest_main)
  statecheck_fast_malloc(${name})
  gtest_discover_tests(${name} NO_PRETTY_VALUES
                       PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT ${ARG_TIMEOUT} COST ${ARG_COST}
                       DISCOVERY_TIMEOUT 60)
endfunction()

function(statecheck_fuzz_target name)
  cmake_parse_arguments(ARG "" "CORPUS" "SRCS;DEPS" ${ARGN})
  if(NOT IS_DIRECTORY "${ARG_CORPUS}")
    message(FATAL_ERROR "statecheck_fuzz_target(${name}): CORPUS '${ARG_CORPUS}' is not a "
                        "directory")
  endif()
  if(STATECHECK_FUZZ)
    add_executable(${name} ${ARG_SRCS})
    target_link_options(${name} PRIVATE -fsanitize=fuzzer)
    add_test(NAME FuzzSeeds.${name} COMMAND ${name} -runs=0 ${ARG_CORPUS})
    set_property(GLOBAL APPEND PROPERTY STATECHECK_FUZZ_TARGETS "${name}")
    set_property(GLOBAL PROPERTY STATECHECK_FUZZ_CORPUS_${name} "${ARG_CORPUS}")
  else()
    # A seed replay is a test: its checks compile as tests do, and its driver once for all.
    if(NOT TARGET statecheck_fuzz_replay_main)
      add_library(statecheck_fuzz_replay_main OBJECT
                  ${PROJECT_SOURCE_DIR}/testing/fuzz_replay_main.cc)
      target_compile_options(statecheck_fuzz_replay_main PRIVATE ${STATECHECK_WARNINGS})
      statecheck_test_optimization(statecheck_fuzz_replay_main)
    endif()
    add_executable(${name} ${ARG_SRCS} $<TARGET_OBJECTS:statecheck_fuzz_replay_main>)
    statecheck_test_optimization(${name})
    add_test(NAME FuzzSeeds.${name} COMMAND ${name} ${ARG_CORPUS})
  endif()
  target_compile_options(${name} PRIVATE ${STATECHECK_WARNINGS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS})
  set_tests_properties(FuzzSeeds.${name} PROPERTIES LABELS unit)
endfunction()

# Writes `path`: one line per fuzz target, "<binary>\t<seed corpus directory>" (for ci/fuzz.sh).
function(statecheck_write_fuzz_target_list path)
  get_property(targets GLOBAL PROPERTY STATECHECK_FUZZ_TARGETS)
  set(content "")
  foreach(target IN LISTS targets)
    get_property(corpus GLOBAL PROPERTY STATECHECK_FUZZ_CORPUS_${target})
    string(APPEND content "$<TARGET_FILE:${target}>\t${corpus}\n")
  endforeach()
  file(GENERATE OUTPUT ${path} CONTENT "${content}")
endfunction()
