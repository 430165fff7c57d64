# Writes OUT (a header defining BENCH_GIT_REV) from `git describe` of SRC,
# touching it only when the revision changed, so every build records the
# revision it was built from without rebuilding everything.
execute_process(COMMAND git describe --always --dirty --abbrev=12
                WORKING_DIRECTORY ${SRC} OUTPUT_VARIABLE rev
                OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR rev STREQUAL "")
  set(rev "unknown")
endif()
file(WRITE ${OUT}.tmp "#define BENCH_GIT_REV \"${rev}\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different ${OUT}.tmp ${OUT})
file(REMOVE ${OUT}.tmp)
