# Runs COMMAND (a ;-list) and fails unless it exits with EXPECT_EXIT and its output (stdout and
# stderr together) matches EXPECT_REGEX. Used by the CLI's CTest tests.
execute_process(COMMAND ${COMMAND} RESULT_VARIABLE code OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
if(NOT code STREQUAL "${EXPECT_EXIT}")
  message(FATAL_ERROR "expected exit ${EXPECT_EXIT}, got ${code}\n--- output:\n${all}")
endif()
if(NOT all MATCHES "${EXPECT_REGEX}")
  message(FATAL_ERROR "output does not match /${EXPECT_REGEX}/\n--- output:\n${all}")
endif()
message(STATUS "exit ${code}; output matches /${EXPECT_REGEX}/")
