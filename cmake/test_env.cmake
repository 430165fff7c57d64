# cmake/test_env.cmake - included by ctest (the top directory's
# TEST_INCLUDE_FILES) before it starts any test: the environment every test
# inherits. BENCH_NO_ROOFS (harness/test_hooks.h): bench skips its roof probe,
# which takes seconds, as --no-roofs does; the tests of the roofs unset it.
# BENCH_NO_REMEASURE: a disturbed measurement is flagged, not measured again
# (tests run side by side on two cores: every timing is disturbed, and
# re-measuring would triple their time); cli.disturb unsets it.
set(ENV{BENCH_NO_ROOFS} 1)
set(ENV{BENCH_NO_REMEASURE} 1)
# CUDAEMU_PAGEABLE_LATE (emu/README.md): a blocking pageable host-to-device
# cudaMemcpy lands later, as work on the legacy stream, as CUDA allows; so a
# set-up copy not ordered before work on a non-blocking stream fails a test.
set(ENV{CUDAEMU_PAGEABLE_LATE} 1)
