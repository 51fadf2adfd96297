# StatecheckCli.EmitGTestIsCurrent: `statecheck replay TRACE --emit-gtest`, formatted with
# clang-format, must equal the checked-in test EXPECTED (which CTest also compiles and runs), so
# that the generator and the test it once wrote cannot drift apart.
#   cmake -DSTATECHECK=... -DTRACE=docs/examples/x.jsonl -DEXPECTED=tools/x_test.cc
#         -DCLANG_FORMAT=... -DSOURCE_DIR=... -P ExpectGeneratedTest.cmake
execute_process(COMMAND ${STATECHECK} replay ${TRACE} --emit-gtest
                COMMAND ${CLANG_FORMAT} --assume-filename=${EXPECTED}
                WORKING_DIRECTORY ${SOURCE_DIR}
                RESULTS_VARIABLE codes OUTPUT_VARIABLE generated ERROR_VARIABLE err)
foreach(code IN LISTS codes)
  if(NOT code EQUAL 0)
    message(FATAL_ERROR "statecheck replay ${TRACE} --emit-gtest | clang-format failed "
                        "(${codes}): ${err}")
  endif()
endforeach()
file(READ ${SOURCE_DIR}/${EXPECTED} expected)
if(NOT generated STREQUAL expected)
  file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/generated-test.cc "${generated}")
  message(FATAL_ERROR "${EXPECTED} is not what `statecheck replay ${TRACE} --emit-gtest` writes "
                      "now (see ${CMAKE_CURRENT_BINARY_DIR}/generated-test.cc); regenerate it: "
                      "cd ${SOURCE_DIR} && statecheck replay ${TRACE} --emit-gtest | "
                      "clang-format-14 --assume-filename=${EXPECTED} > ${EXPECTED}")
endif()
message(STATUS "${EXPECTED} is what --emit-gtest writes for ${TRACE}")
