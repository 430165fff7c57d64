/* emu/include/curand.h - cuRAND's host API for the CUDA host emulator.
 *
 * Generators XORWOW (the default), Philox4x32-10, MRG32k3a and Sobol32
 * (integers and uniforms, up to 21 dimensions), on the device (each
 * call queued on the generator's stream, computed when the stream drains) or
 * on the host (curandCreateGeneratorHost: computed in the call), in cuRAND's
 * default ordering, so the integers and uniforms are those of cuRAND
 * (emu/README.md, *cuRAND*; emu/src/curand.cpp).  Enum names and values are
 * those of CUDA 13.0's curand.h.  Functions have C++ linkage (inline
 * namespace cudaemu_api): no clash with libcurand.
 */
#ifndef CUDAEMU_CURAND_H
#define CUDAEMU_CURAND_H

#include "cuda_runtime.h"
#include "library_types.h"

#include <cstddef>

/* the toolkit's guard (code tests it) */
#define CURAND_H_

#define CURANDAPI
#define CURAND_VER_MAJOR 10
#define CURAND_VER_MINOR 4
#define CURAND_VER_PATCH 0
#define CURAND_VER_BUILD 35
#define CURAND_VERSION (CURAND_VER_MAJOR * 1000 + CURAND_VER_MINOR * 100 + CURAND_VER_PATCH)

typedef enum curandStatus : int {
    CURAND_STATUS_SUCCESS = 0,
    CURAND_STATUS_VERSION_MISMATCH = 100,
    CURAND_STATUS_NOT_INITIALIZED = 101,
    CURAND_STATUS_ALLOCATION_FAILED = 102,
    CURAND_STATUS_TYPE_ERROR = 103,
    CURAND_STATUS_OUT_OF_RANGE = 104,
    CURAND_STATUS_LENGTH_NOT_MULTIPLE = 105,
    CURAND_STATUS_DOUBLE_PRECISION_REQUIRED = 106,
    CURAND_STATUS_LAUNCH_FAILURE = 201,
    CURAND_STATUS_PREEXISTING_FAILURE = 202,
    CURAND_STATUS_INITIALIZATION_FAILED = 203,
    CURAND_STATUS_ARCH_MISMATCH = 204,
    CURAND_STATUS_INTERNAL_ERROR = 999
} curandStatus_t;

typedef enum curandRngType : int {
    CURAND_RNG_TEST = 0,
    CURAND_RNG_PSEUDO_DEFAULT = 100,
    CURAND_RNG_PSEUDO_XORWOW = 101,
    CURAND_RNG_PSEUDO_MRG32K3A = 121,
    CURAND_RNG_PSEUDO_MTGP32 = 141,
    CURAND_RNG_PSEUDO_MT19937 = 142,
    CURAND_RNG_PSEUDO_PHILOX4_32_10 = 161,
    CURAND_RNG_QUASI_DEFAULT = 200,
    CURAND_RNG_QUASI_SOBOL32 = 201,
    CURAND_RNG_QUASI_SCRAMBLED_SOBOL32 = 202,
    CURAND_RNG_QUASI_SOBOL64 = 203,
    CURAND_RNG_QUASI_SCRAMBLED_SOBOL64 = 204
} curandRngType_t;

typedef enum curandOrdering : int {
    CURAND_ORDERING_PSEUDO_BEST = 100,
    CURAND_ORDERING_PSEUDO_DEFAULT = 101,
    CURAND_ORDERING_PSEUDO_SEEDED = 102,
    CURAND_ORDERING_PSEUDO_LEGACY = 103,
    CURAND_ORDERING_PSEUDO_DYNAMIC = 104,
    CURAND_ORDERING_QUASI_DEFAULT = 201
} curandOrdering_t;

typedef enum curandDirectionVectorSet : int {
    CURAND_DIRECTION_VECTORS_32_JOEKUO6 = 101,
    CURAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6 = 102,
    CURAND_DIRECTION_VECTORS_64_JOEKUO6 = 103,
    CURAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6 = 104
} curandDirectionVectorSet_t;

struct curandGenerator_st;
typedef struct curandGenerator_st *curandGenerator_t;

typedef unsigned int curandDirectionVectors32_t[32];

inline namespace cudaemu_api {

curandStatus_t curandCreateGenerator(curandGenerator_t *generator, curandRngType_t rng_type);
curandStatus_t curandCreateGeneratorHost(curandGenerator_t *generator, curandRngType_t rng_type);
curandStatus_t curandDestroyGenerator(curandGenerator_t generator);
curandStatus_t curandGetVersion(int *version);
curandStatus_t curandGetProperty(libraryPropertyType type, int *value);
curandStatus_t curandSetStream(curandGenerator_t generator, cudaStream_t stream);
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t generator,
                                                  unsigned long long seed);
curandStatus_t curandSetGeneratorOffset(curandGenerator_t generator, unsigned long long offset);
/* Sobol32: 1 to 21 dimensions (cuRAND's 20 000: the emulator's direction numbers stop at 21) */
curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t generator,
                                                       unsigned int num_dimensions);
curandStatus_t curandSetGeneratorOrdering(curandGenerator_t generator, curandOrdering_t order);
/* the seeds are set up lazily by the first generate: a no-op that checks the handle */
curandStatus_t curandGenerateSeeds(curandGenerator_t generator);

curandStatus_t curandGenerate(curandGenerator_t generator, unsigned int *outputPtr, size_t num);
curandStatus_t curandGenerateUniform(curandGenerator_t generator, float *outputPtr, size_t num);
curandStatus_t curandGenerateUniformDouble(curandGenerator_t generator, double *outputPtr,
                                           size_t num);
/* normals come in pairs (Box-Muller): num must be even */
curandStatus_t curandGenerateNormal(curandGenerator_t generator, float *outputPtr, size_t n,
                                    float mean, float stddev);
curandStatus_t curandGenerateNormalDouble(curandGenerator_t generator, double *outputPtr,
                                          size_t n, double mean, double stddev);
curandStatus_t curandGenerateLogNormal(curandGenerator_t generator, float *outputPtr, size_t n,
                                       float mean, float stddev);
curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t generator, double *outputPtr,
                                             size_t n, double mean, double stddev);

/* the device API's Sobol tables: refused where called (emu/README.md, *cuRAND*) */
template <class V> curandStatus_t curandGetDirectionVectors32(V **, curandDirectionVectorSet_t)
{
    static_assert(sizeof(V *) == 0, "cudaemu: curandGetDirectionVectors32 (cuRAND's device Sobol) is "
                                    "not emulated: the emulator has direction numbers for 21 of "
                                    "cuRAND's 20 000 dimensions, and a kernel may read any of them; "
                                    "the host API's CURAND_RNG_QUASI_SOBOL32 has the 21");
    return CURAND_STATUS_TYPE_ERROR;
}

} // inline namespace cudaemu_api

#endif /* CUDAEMU_CURAND_H */
