/* harness/dynamic_shared.h - DYNAMIC_SHARED(T, name): the one macro for dynamic
 * shared memory (a `T *name` inside the kernel body).
 * Under nvcc: one untyped, 16-byte-aligned extern array viewed as T (a plain
 * `extern __shared__ T name[]` clashes when a template kernel is instantiated
 * with two different T). Under emu/ the emulator's header defines it first. */
#ifndef KERNELS_DYNAMIC_SHARED_H
#define KERNELS_DYNAMIC_SHARED_H

#ifndef DYNAMIC_SHARED
#define DYNAMIC_SHARED(T, name)                                                \
    extern __shared__ __align__(16) unsigned char name##_raw_[];               \
    T *name = reinterpret_cast<T *>(name##_raw_)
#endif

#endif
