/* emu/src/device_assert.cpp - assert() in kernels fails the launch, as on a GPU.
 *
 * Kernels are host code here, so a kernel's assert() is the C library's and
 * a failing one would call __assert_fail and abort the whole process.  This
 * file defines __assert_fail in libcudaemu.a: a program that uses assert()
 * links this definition ahead of the C library's (the archive comes first on
 * the link line), so every failing assert of the program lands here.  Inside a
 * kernel the failure is the GPU's: the message `file:line: function: block:
 * [x,y,z], thread: [x,y,z] Assertion `cond` failed.` on stderr and the launch
 * fails with the sticky cudaErrorAssert, reported by the next synchronizing
 * call.  Anywhere else it is the C library's: the same message glibc prints,
 * then abort().  No header changes: an assert compiled with NDEBUG is gone,
 * as with nvcc.
 */
#include "internal.h"

#include <cassert>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

extern "C" void __assert_fail(const char *assertion, const char *file, unsigned int line,
                              const char *function) noexcept
{
    cudaemu::kernel_assert_failed(assertion, file, line, function); /* returns only on the host */
    std::fprintf(stderr, "%s: %s:%u: %s%sAssertion `%s' failed.\n", program_invocation_short_name,
                 file, line, function ? function : "", function ? ": " : "", assertion);
    std::fflush(stderr);
    std::abort();
}
