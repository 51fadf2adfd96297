# Writes OUT, a header defining STATECHECK_GIT_COMMIT: the source tree's commit (12 hex digits),
# "-dirty" when tracked files differ from it, "unknown" outside a git checkout. Run at every build
# (tools/CMakeLists.txt), it rewrites OUT only when the text changes, so that a report names the
# commit the binary was built from, not the one CMake was configured at.
#   cmake -DSOURCE_DIR=<tree> -DOUT=<header> -P GitCommit.cmake
execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                ERROR_QUIET RESULT_VARIABLE result)
if(NOT result EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
else()
  execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY ${SOURCE_DIR}
                  ERROR_QUIET RESULT_VARIABLE dirty)
  if(NOT dirty EQUAL 0)
    string(APPEND commit "-dirty")
  endif()
endif()
set(text "#define STATECHECK_GIT_COMMIT \"${commit}\"\n")
set(old "")
if(EXISTS ${OUT})
  file(READ ${OUT} old)
endif()
if(NOT old STREQUAL text)
  file(WRITE ${OUT} "${text}")
endif()
