# cmake/test_env.cmake - included by ctest (the top directory's
# TEST_INCLUDE_FILES) before it starts any test: the environment every test
# inherits. BENCH_NO_ROOFS (harness/test_hooks.h): bench skips its roof probe,
# which takes seconds, as --no-roofs does; the tests of the roofs unset it.
set(ENV{BENCH_NO_ROOFS} 1)
