# Checks that every check named in the rule catalogue is a registered CTest test.
#
#   cmake -DSTATECHECK_CLI=<path to statecheck> -DCTEST_DIR=<build dir> -P CheckCatalogue.cmake
#
# Runs `<statecheck> list rules --checks` (one check name per line) and `ctest -N` in CTEST_DIR,
# and fails listing every check name that no test answers to. A check name N is answered by a
# test T when
#   T is N                                    (InMemoryWindowStore.DropRule),
#   T starts with N/                          (WindowStoreProperty.MatchesModel/3), or
#   T is <prefix>/N or <prefix>/N/<param>     (Seeds/WindowStoreProperty.MatchesModel/7),
# where <prefix> and <param> are non-empty and contain no '/'.
# Optional: -DCTEST_COMMAND=<path to ctest> (default: the ctest next to this cmake).

cmake_minimum_required(VERSION 3.25)

foreach(var STATECHECK_CLI CTEST_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "CheckCatalogue: pass -D${var}=... (usage: cmake "
                        "-DSTATECHECK_CLI=<statecheck> -DCTEST_DIR=<build dir> -P "
                        "CheckCatalogue.cmake)")
  endif()
endforeach()
if(NOT EXISTS "${STATECHECK_CLI}")
  message(FATAL_ERROR "CheckCatalogue: STATECHECK_CLI '${STATECHECK_CLI}' does not exist; "
                      "build the statecheck target first.")
endif()
if(NOT IS_DIRECTORY "${CTEST_DIR}")
  message(FATAL_ERROR "CheckCatalogue: CTEST_DIR '${CTEST_DIR}' is not a directory.")
endif()
if(NOT CTEST_COMMAND)
  if(CMAKE_CTEST_COMMAND)
    set(CTEST_COMMAND "${CMAKE_CTEST_COMMAND}")
  else()
    get_filename_component(cmake_bin_dir "${CMAKE_COMMAND}" DIRECTORY)
    set(CTEST_COMMAND "${cmake_bin_dir}/ctest")
  endif()
endif()

# Splits command output into a CMake list of its non-empty, trimmed lines. Neither check names
# nor gtest names hold ';', '[' or ']', which CMake lists would mangle.
function(statecheck_output_lines output out_var)
  string(REPLACE "\r" "" output "${output}")
  string(REPLACE "\n" ";" raw_lines "${output}")
  set(lines "")
  foreach(line IN LISTS raw_lines)
    string(STRIP "${line}" line)
    if(NOT line STREQUAL "")
      list(APPEND lines "${line}")
    endif()
  endforeach()
  set(${out_var} "${lines}" PARENT_SCOPE)
endfunction()

# 1. The check names.
execute_process(
  COMMAND "${STATECHECK_CLI}" list rules --checks
  RESULT_VARIABLE cli_result
  OUTPUT_VARIABLE cli_output
  ERROR_VARIABLE cli_error)
if(NOT cli_result EQUAL 0)
  message(FATAL_ERROR "CheckCatalogue: '${STATECHECK_CLI} list rules --checks' failed "
                      "(${cli_result}):\n${cli_error}${cli_output}")
endif()
statecheck_output_lines("${cli_output}" check_names)
list(REMOVE_DUPLICATES check_names)
list(LENGTH check_names check_count)
if(check_count EQUAL 0)
  message(FATAL_ERROR "CheckCatalogue: '${STATECHECK_CLI} list rules --checks' printed no check "
                      "names; the catalogue names checks for W1-W10, so this cannot be right.")
endif()

# 2. The registered tests: `ctest -N` prints "  Test  #12: Suite.Name".
execute_process(
  COMMAND "${CTEST_COMMAND}" -N
  WORKING_DIRECTORY "${CTEST_DIR}"
  RESULT_VARIABLE ctest_result
  OUTPUT_VARIABLE ctest_output
  ERROR_VARIABLE ctest_error)
if(NOT ctest_result EQUAL 0)
  message(FATAL_ERROR "CheckCatalogue: '${CTEST_COMMAND} -N' in ${CTEST_DIR} failed "
                      "(${ctest_result}):\n${ctest_error}${ctest_output}")
endif()
statecheck_output_lines("${ctest_output}" ctest_lines)
set(tests "")
foreach(line IN LISTS ctest_lines)
  if(line MATCHES "^Test +#[0-9]+: (.+)$")
    list(APPEND tests "${CMAKE_MATCH_1}")
  endif()
endforeach()
list(LENGTH tests test_count)

# 3. Match. Names are compared as strings, not regular expressions ('.' is in every name).
function(statecheck_check_is_registered name tests out_var)
  string(LENGTH "${name}" name_length)
  string(FIND "${tests}" "${name}" anywhere)
  if(anywhere EQUAL -1)
    set(${out_var} FALSE PARENT_SCOPE)
    return()
  endif()
  foreach(test IN LISTS tests)
    # T == N, or T starts with N/.
    if("${test}" STREQUAL "${name}")
      set(${out_var} TRUE PARENT_SCOPE)
      return()
    endif()
    string(FIND "${test}" "${name}/" at)
    if(at EQUAL 0)
      set(${out_var} TRUE PARENT_SCOPE)
      return()
    endif()
    # T == <prefix>/N or <prefix>/N/<param>.
    string(FIND "${test}" "/" slash)
    if(slash GREATER 0)
      math(EXPR rest_begin "${slash} + 1")
      # The prefix ends at the first '/', so it holds none.
      string(SUBSTRING "${test}" ${rest_begin} -1 rest)
      if("${rest}" STREQUAL "${name}")
        set(${out_var} TRUE PARENT_SCOPE)
        return()
      endif()
      string(FIND "${rest}" "${name}/" at)
      if(at EQUAL 0)
        string(SUBSTRING "${rest}" ${name_length} -1 param)  # "/<param>"
        string(LENGTH "${param}" param_length)
        string(FIND "${param}" "/" param_slash REVERSE)
        if(param_length GREATER 1 AND param_slash EQUAL 0)
          set(${out_var} TRUE PARENT_SCOPE)
          return()
        endif()
      endif()
    endif()
  endforeach()
  set(${out_var} FALSE PARENT_SCOPE)
endfunction()

set(missing "")
foreach(name IN LISTS check_names)
  statecheck_check_is_registered("${name}" "${tests}" found)
  if(NOT found)
    list(APPEND missing "${name}")
  endif()
endforeach()

if(missing)
  list(LENGTH missing missing_count)
  list(JOIN missing "\n  " missing_text)
  set(hint "")
  foreach(test IN LISTS tests)
    if(test MATCHES "_NOT_BUILT$")
      set(hint "\nSome test binaries are not built (${test}, ...); build all targets first.")
      break()
    endif()
  endforeach()
  message(FATAL_ERROR "CheckCatalogue: ${missing_count} of ${check_count} check names in the "
                      "rule catalogue are not registered CTest tests in ${CTEST_DIR} "
                      "(${test_count} tests):\n  ${missing_text}${hint}\n"
                      "Each must be a test name (Suite.Test), a prefix of one followed by '/', "
                      "or appear as <prefix>/Suite.Test[/<param>]. Fix the test or "
                      "reports/rules.json.")
endif()
message(STATUS "CheckCatalogue: all ${check_count} check names in the rule catalogue are "
               "registered CTest tests (${test_count} tests in ${CTEST_DIR}).")
