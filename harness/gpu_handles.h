/* harness/gpu_handles.h - every library handle the GPU code caches (cuBLAS
 * today, cuDNN and NCCL next), in one registry. A library's code registers
 * its release function when it first creates a handle; the end of a run and
 * device recovery (cudaDeviceReset destroys the context the handles live in)
 * release them all, and the next use creates them afresh. No CUDA types. */
#ifndef HARNESS_GPU_HANDLES_H
#define HARNESS_GPU_HANDLES_H

#ifdef __cplusplus
extern "C" {
#endif

typedef void (*gpu_handle_release_fn)(void);

/* Registers f under name (once; a second call with the same name is a no-op).
 * Returns 0, -1 when the registry is full. */
int gpu_handles_register(const char *name, gpu_handle_release_fn f);
/* Calls every registered release function (each must tolerate no handle). */
void gpu_handles_release_all(void);
/* Number of registered kinds (tests). */
int gpu_handles_count(void);

#ifdef __cplusplus
}
#endif
#endif
