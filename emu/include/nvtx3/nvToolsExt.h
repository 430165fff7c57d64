/* emu/include/nvtx3/nvToolsExt.h - NVTX (the NVIDIA Tools Extension) as
 * no-ops: ranges, marks and names annotate a profiler's timeline, and the
 * emulator has no profiler, so every call does nothing and returns what NVTX
 * returns when no tool is attached (a push or pop: NVTX_NO_PUSH_POP_TRACKING;
 * a range start: 0; a domain or string handle: a null handle).  The C API of
 * nvtx3 (nvtxRangePushA/W/Ex, nvtxRangePop, nvtxRangeStartA/W/Ex,
 * nvtxRangeEnd, nvtxMarkA/W/Ex, nvtxNameOsThreadA/W, nvtxNameCategoryA/W,
 * nvtxDomain*) and the CUDA naming calls of nvToolsExtCuda.h /
 * nvToolsExtCudaRt.h; <nvToolsExt.h> (NVTX 2) forwards here, and -lnvToolsExt
 * names nothing to link.  The C++ wrapper nvtx3.hpp is not provided.
 */
#ifndef CUDAEMU_NVTOOLSEXT_H
#define CUDAEMU_NVTOOLSEXT_H

#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#ifndef NVTX_VERSION
#define NVTX_VERSION 3
#endif
#define NVTX_SUCCESS 0
#define NVTX_FAIL 1
#define NVTX_NO_PUSH_POP_TRACKING ((int)-2)
#define NVTX_EVENT_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(nvtxEventAttributes_t)))
#define NVTX_RESOURCE_ATTRIB_STRUCT_SIZE ((uint16_t)(sizeof(nvtxResourceAttributes_t)))

typedef uint64_t nvtxRangeId_t;
typedef struct nvtxDomainRegistration_st *nvtxDomainHandle_t;
typedef struct nvtxStringRegistration_st *nvtxStringHandle_t;
typedef struct nvtxResourceHandle *nvtxResourceHandle_t;

typedef enum nvtxColorType_t { NVTX_COLOR_UNKNOWN = 0, NVTX_COLOR_ARGB = 1 } nvtxColorType_t;
typedef enum nvtxMessageType_t {
    NVTX_MESSAGE_UNKNOWN = 0,
    NVTX_MESSAGE_TYPE_ASCII = 1,
    NVTX_MESSAGE_TYPE_UNICODE = 2,
    NVTX_MESSAGE_TYPE_REGISTERED = 3
} nvtxMessageType_t;
typedef enum nvtxPayloadType_t {
    NVTX_PAYLOAD_UNKNOWN = 0,
    NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 = 1,
    NVTX_PAYLOAD_TYPE_INT64 = 2,
    NVTX_PAYLOAD_TYPE_DOUBLE = 3,
    NVTX_PAYLOAD_TYPE_UNSIGNED_INT32 = 4,
    NVTX_PAYLOAD_TYPE_INT32 = 5,
    NVTX_PAYLOAD_TYPE_FLOAT = 6
} nvtxPayloadType_t;

typedef union nvtxMessageValue_t {
    const char *ascii;
    const wchar_t *unicode;
    nvtxStringHandle_t registered;
} nvtxMessageValue_t;

typedef struct nvtxEventAttributes_v2 {
    uint16_t version;
    uint16_t size;
    uint32_t category;
    int32_t colorType;
    uint32_t color;
    int32_t payloadType;
    int32_t reserved0;
    union payload_t {
        uint64_t ullValue;
        int64_t llValue;
        double dValue;
        uint32_t uiValue;
        int32_t iValue;
        float fValue;
    } payload;
    int32_t messageType;
    nvtxMessageValue_t message;
} nvtxEventAttributes_v2;
typedef struct nvtxEventAttributes_v2 nvtxEventAttributes_t;

typedef struct nvtxResourceAttributes_v0 {
    uint16_t version;
    uint16_t size;
    int32_t identifierType;
    union identifier_t {
        const void *pValue;
        uint64_t ullValue;
    } identifier;
    int32_t messageType;
    nvtxMessageValue_t message;
} nvtxResourceAttributes_v0;
typedef struct nvtxResourceAttributes_v0 nvtxResourceAttributes_t;

/* CUDA objects the naming calls take (the runtime's types when it is included) */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
struct CUstream_st;
struct CUevent_st;

#define CUDAEMU_NVTX static inline

CUDAEMU_NVTX void nvtxInitialize(const void *r) { (void)r; }
CUDAEMU_NVTX void nvtxMarkEx(const nvtxEventAttributes_t *a) { (void)a; }
CUDAEMU_NVTX void nvtxMarkA(const char *m) { (void)m; }
CUDAEMU_NVTX void nvtxMarkW(const wchar_t *m) { (void)m; }
CUDAEMU_NVTX nvtxRangeId_t nvtxRangeStartEx(const nvtxEventAttributes_t *a) { (void)a; return 0; }
CUDAEMU_NVTX nvtxRangeId_t nvtxRangeStartA(const char *m) { (void)m; return 0; }
CUDAEMU_NVTX nvtxRangeId_t nvtxRangeStartW(const wchar_t *m) { (void)m; return 0; }
CUDAEMU_NVTX void nvtxRangeEnd(nvtxRangeId_t id) { (void)id; }
CUDAEMU_NVTX int nvtxRangePushEx(const nvtxEventAttributes_t *a) { (void)a; return NVTX_NO_PUSH_POP_TRACKING; }
CUDAEMU_NVTX int nvtxRangePushA(const char *m) { (void)m; return NVTX_NO_PUSH_POP_TRACKING; }
CUDAEMU_NVTX int nvtxRangePushW(const wchar_t *m) { (void)m; return NVTX_NO_PUSH_POP_TRACKING; }
CUDAEMU_NVTX int nvtxRangePop(void) { return NVTX_NO_PUSH_POP_TRACKING; }
CUDAEMU_NVTX void nvtxNameCategoryA(uint32_t c, const char *n) { (void)c; (void)n; }
CUDAEMU_NVTX void nvtxNameCategoryW(uint32_t c, const wchar_t *n) { (void)c; (void)n; }
CUDAEMU_NVTX void nvtxNameOsThreadA(uint32_t t, const char *n) { (void)t; (void)n; }
CUDAEMU_NVTX void nvtxNameOsThreadW(uint32_t t, const wchar_t *n) { (void)t; (void)n; }

CUDAEMU_NVTX nvtxDomainHandle_t nvtxDomainCreateA(const char *n) { (void)n; return (nvtxDomainHandle_t)0; }
CUDAEMU_NVTX nvtxDomainHandle_t nvtxDomainCreateW(const wchar_t *n) { (void)n; return (nvtxDomainHandle_t)0; }
CUDAEMU_NVTX void nvtxDomainDestroy(nvtxDomainHandle_t d) { (void)d; }
CUDAEMU_NVTX void nvtxDomainMarkEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { (void)d; (void)a; }
CUDAEMU_NVTX nvtxRangeId_t nvtxDomainRangeStartEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { (void)d; (void)a; return 0; }
CUDAEMU_NVTX void nvtxDomainRangeEnd(nvtxDomainHandle_t d, nvtxRangeId_t id) { (void)d; (void)id; }
CUDAEMU_NVTX int nvtxDomainRangePushEx(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a) { (void)d; (void)a; return NVTX_NO_PUSH_POP_TRACKING; }
CUDAEMU_NVTX int nvtxDomainRangePop(nvtxDomainHandle_t d) { (void)d; return NVTX_NO_PUSH_POP_TRACKING; }
CUDAEMU_NVTX nvtxStringHandle_t nvtxDomainRegisterStringA(nvtxDomainHandle_t d, const char *s) { (void)d; (void)s; return (nvtxStringHandle_t)0; }
CUDAEMU_NVTX nvtxStringHandle_t nvtxDomainRegisterStringW(nvtxDomainHandle_t d, const wchar_t *s) { (void)d; (void)s; return (nvtxStringHandle_t)0; }
CUDAEMU_NVTX void nvtxDomainNameCategoryA(nvtxDomainHandle_t d, uint32_t c, const char *n) { (void)d; (void)c; (void)n; }
CUDAEMU_NVTX nvtxResourceHandle_t nvtxDomainResourceCreate(nvtxDomainHandle_t d, nvtxResourceAttributes_t *a) { (void)d; (void)a; return (nvtxResourceHandle_t)0; }
CUDAEMU_NVTX void nvtxDomainResourceDestroy(nvtxResourceHandle_t r) { (void)r; }

/* nvToolsExtCuda.h, nvToolsExtCudaRt.h */
CUDAEMU_NVTX void nvtxNameCuDeviceA(CUdevice d, const char *n) { (void)d; (void)n; }
CUDAEMU_NVTX void nvtxNameCuContextA(CUcontext c, const char *n) { (void)c; (void)n; }
CUDAEMU_NVTX void nvtxNameCuStreamA(struct CUstream_st *s, const char *n) { (void)s; (void)n; }
CUDAEMU_NVTX void nvtxNameCuEventA(struct CUevent_st *e, const char *n) { (void)e; (void)n; }
CUDAEMU_NVTX void nvtxNameCudaDeviceA(int d, const char *n) { (void)d; (void)n; }
CUDAEMU_NVTX void nvtxNameCudaStreamA(struct CUstream_st *s, const char *n) { (void)s; (void)n; }
CUDAEMU_NVTX void nvtxNameCudaEventA(struct CUevent_st *e, const char *n) { (void)e; (void)n; }
#undef CUDAEMU_NVTX

#ifdef UNICODE
#define nvtxMark nvtxMarkW
#define nvtxRangeStart nvtxRangeStartW
#define nvtxRangePush nvtxRangePushW
#else
#define nvtxMark nvtxMarkA
#define nvtxRangeStart nvtxRangeStartA
#define nvtxRangePush nvtxRangePushA
#endif

#endif
