/* emu/tests/nvcc_emu/driver_refused.cu - <cuda.h>'s calls the emulator does
 * not provide stop the compile with one line naming the call; with -D VMM,
 * the types of CUDA 12/13's virtual memory, context creation, driver
 * arrays and texture objects are declared, so the refusal names
 * cuMemCreate, cuCtxCreate_v4 and cuArrayCreate (not "not declared"). */
#include <cuda.h>

#ifndef __cuda_cuda_h__
#error "cuda.h must define __cuda_cuda_h__ (helper_cuda_drvapi.h keys on it)"
#endif

int main()
{
#ifdef VMM
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    CUmemGenericAllocationHandle h;
    CUmemAccessDesc acc = {};
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    (void)acc;
    CUctxCreateParams cp = {};
    CUcontext ctx;
    (void)cuCtxCreate_v4(&ctx, &cp, 0, 0);
    CUDA_ARRAY_DESCRIPTOR ad = {};
    ad.Format = CU_AD_FORMAT_FLOAT;
    ad.NumChannels = 1;
    CUDA_MEMCPY2D cp2 = {};
    cp2.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    CUDA_RESOURCE_DESC rd = {};
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    CUDA_TEXTURE_DESC td = {};
    td.addressMode[0] = CU_TR_ADDRESS_MODE_WRAP;
    td.filterMode = CU_TR_FILTER_MODE_LINEAR;
    td.flags = CU_TRSF_NORMALIZED_COORDINATES;
    (void)cp2, (void)rd, (void)td;
    CUjit_option jo[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_TARGET_FROM_CUCONTEXT};
    prop.allocFlags.compressionType = CU_MEM_ALLOCATION_COMP_GENERIC;
    CUjitInputType in = CU_JIT_INPUT_PTX;
    unsigned flags[] = {CU_STREAM_NON_BLOCKING, CU_EVENT_DISABLE_TIMING};
    (void)jo, (void)in, (void)flags;
    CUarray arr;
    (void)cuArrayCreate(&arr, &ad);
    return cuMemCreate(&h, size_t(2) << 20, &prop, 0ull) == CUDA_SUCCESS ? 0 : 1;
#else
    CUmodule m;
    return cuModuleLoad(&m, "kernels.cubin") == CUDA_SUCCESS ? 0 : 1;
#endif
}
