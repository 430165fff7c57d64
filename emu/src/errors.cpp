/* emu/src/errors.cpp - cudaGetErrorName / cudaGetErrorString for every
 * cudaError_t value of CUDA 13.0 (table generated from driver_types.h; the
 * strings of the common codes are those the real runtime returns, the rest
 * fall back to the code's name).
 */
#include "internal.h"

namespace {
struct ErrorText {
    int code;
    const char *name;
    const char *text;
};
const ErrorText kErrors[] = {
    {0, "cudaSuccess", "no error"},
    {1, "cudaErrorInvalidValue", "invalid argument"},
    {2, "cudaErrorMemoryAllocation", "out of memory"},
    {3, "cudaErrorInitializationError", "initialization error"},
    {4, "cudaErrorCudartUnloading", "driver shutting down"},
    {5, "cudaErrorProfilerDisabled", nullptr},
    {6, "cudaErrorProfilerNotInitialized", nullptr},
    {7, "cudaErrorProfilerAlreadyStarted", nullptr},
    {8, "cudaErrorProfilerAlreadyStopped", nullptr},
    {9, "cudaErrorInvalidConfiguration", "invalid configuration argument"},
    {12, "cudaErrorInvalidPitchValue", "invalid pitch argument"},
    {13, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {16, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {17, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {18, "cudaErrorInvalidTexture", nullptr},
    {19, "cudaErrorInvalidTextureBinding", nullptr},
    {20, "cudaErrorInvalidChannelDescriptor", nullptr},
    {21, "cudaErrorInvalidMemcpyDirection", "invalid copy direction for memcpy"},
    {22, "cudaErrorAddressOfConstant", nullptr},
    {23, "cudaErrorTextureFetchFailed", nullptr},
    {24, "cudaErrorTextureNotBound", nullptr},
    {25, "cudaErrorSynchronizationError", nullptr},
    {26, "cudaErrorInvalidFilterSetting", nullptr},
    {27, "cudaErrorInvalidNormSetting", nullptr},
    {28, "cudaErrorMixedDeviceExecution", nullptr},
    {31, "cudaErrorNotYetImplemented", "function not yet implemented"},
    {32, "cudaErrorMemoryValueTooLarge", nullptr},
    {34, "cudaErrorStubLibrary", "CUDA driver is a stub library"},
    {35, "cudaErrorInsufficientDriver", "CUDA driver version is insufficient for CUDA runtime version"},
    {36, "cudaErrorCallRequiresNewerDriver", nullptr},
    {37, "cudaErrorInvalidSurface", nullptr},
    {43, "cudaErrorDuplicateVariableName", nullptr},
    {44, "cudaErrorDuplicateTextureName", nullptr},
    {45, "cudaErrorDuplicateSurfaceName", nullptr},
    {46, "cudaErrorDevicesUnavailable", "CUDA-capable device(s) is/are busy or unavailable"},
    {49, "cudaErrorIncompatibleDriverContext", nullptr},
    {52, "cudaErrorMissingConfiguration", "__global__ function call is not configured"},
    {53, "cudaErrorPriorLaunchFailure", "unspecified launch failure in prior launch"},
    {65, "cudaErrorLaunchMaxDepthExceeded", nullptr},
    {66, "cudaErrorLaunchFileScopedTex", nullptr},
    {67, "cudaErrorLaunchFileScopedSurf", nullptr},
    {68, "cudaErrorSyncDepthExceeded", nullptr},
    {69, "cudaErrorLaunchPendingCountExceeded", nullptr},
    {98, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {100, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {101, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {102, "cudaErrorDeviceNotLicensed", nullptr},
    {103, "cudaErrorSoftwareValidityNotEstablished", nullptr},
    {127, "cudaErrorStartupFailure", nullptr},
    {200, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {201, "cudaErrorDeviceUninitialized", "invalid device context"},
    {205, "cudaErrorMapBufferObjectFailed", nullptr},
    {206, "cudaErrorUnmapBufferObjectFailed", nullptr},
    {207, "cudaErrorArrayIsMapped", nullptr},
    {208, "cudaErrorAlreadyMapped", nullptr},
    {209, "cudaErrorNoKernelImageForDevice", "no kernel image is available for execution on the device"},
    {210, "cudaErrorAlreadyAcquired", nullptr},
    {211, "cudaErrorNotMapped", nullptr},
    {212, "cudaErrorNotMappedAsArray", nullptr},
    {213, "cudaErrorNotMappedAsPointer", nullptr},
    {214, "cudaErrorECCUncorrectable", nullptr},
    {215, "cudaErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {216, "cudaErrorDeviceAlreadyInUse", nullptr},
    {217, "cudaErrorPeerAccessUnsupported", nullptr},
    {218, "cudaErrorInvalidPtx", nullptr},
    {219, "cudaErrorInvalidGraphicsContext", nullptr},
    {220, "cudaErrorNvlinkUncorrectable", nullptr},
    {221, "cudaErrorJitCompilerNotFound", nullptr},
    {222, "cudaErrorUnsupportedPtxVersion", nullptr},
    {223, "cudaErrorJitCompilationDisabled", nullptr},
    {224, "cudaErrorUnsupportedExecAffinity", nullptr},
    {225, "cudaErrorUnsupportedDevSideSync", nullptr},
    {226, "cudaErrorContained", nullptr},
    {300, "cudaErrorInvalidSource", nullptr},
    {301, "cudaErrorFileNotFound", nullptr},
    {302, "cudaErrorSharedObjectSymbolNotFound", nullptr},
    {303, "cudaErrorSharedObjectInitFailed", nullptr},
    {304, "cudaErrorOperatingSystem", nullptr},
    {400, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {401, "cudaErrorIllegalState", "the operation cannot be performed in the present state"},
    {402, "cudaErrorLossyQuery", nullptr},
    {500, "cudaErrorSymbolNotFound", "named symbol not found"},
    {600, "cudaErrorNotReady", "device not ready"},
    {700, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {701, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {702, "cudaErrorLaunchTimeout", "the launch timed out and was terminated"},
    {703, "cudaErrorLaunchIncompatibleTexturing", nullptr},
    {704, "cudaErrorPeerAccessAlreadyEnabled", nullptr},
    {705, "cudaErrorPeerAccessNotEnabled", nullptr},
    {708, "cudaErrorSetOnActiveProcess", nullptr},
    {709, "cudaErrorContextIsDestroyed", "context is destroyed"},
    {710, "cudaErrorAssert", "device-side assert triggered"},
    {711, "cudaErrorTooManyPeers", nullptr},
    {712, "cudaErrorHostMemoryAlreadyRegistered", "part or all of the requested memory range is already mapped"},
    {713, "cudaErrorHostMemoryNotRegistered", "pointer does not correspond to a registered memory region"},
    {714, "cudaErrorHardwareStackError", "hardware stack error"},
    {715, "cudaErrorIllegalInstruction", "an illegal instruction was encountered"},
    {716, "cudaErrorMisalignedAddress", "misaligned address"},
    {717, "cudaErrorInvalidAddressSpace", nullptr},
    {718, "cudaErrorInvalidPc", nullptr},
    {719, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {720, "cudaErrorCooperativeLaunchTooLarge", "too many blocks in cooperative launch"},
    {721, "cudaErrorTensorMemoryLeak", nullptr},
    {800, "cudaErrorNotPermitted", "operation not permitted"},
    {801, "cudaErrorNotSupported", "operation not supported"},
    {802, "cudaErrorSystemNotReady", nullptr},
    {803, "cudaErrorSystemDriverMismatch", nullptr},
    {804, "cudaErrorCompatNotSupportedOnDevice", nullptr},
    {805, "cudaErrorMpsConnectionFailed", nullptr},
    {806, "cudaErrorMpsRpcFailure", nullptr},
    {807, "cudaErrorMpsServerNotReady", nullptr},
    {808, "cudaErrorMpsMaxClientsReached", nullptr},
    {809, "cudaErrorMpsMaxConnectionsReached", nullptr},
    {810, "cudaErrorMpsClientTerminated", nullptr},
    {811, "cudaErrorCdpNotSupported", nullptr},
    {812, "cudaErrorCdpVersionMismatch", nullptr},
    {900, "cudaErrorStreamCaptureUnsupported", nullptr},
    {901, "cudaErrorStreamCaptureInvalidated", nullptr},
    {902, "cudaErrorStreamCaptureMerge", nullptr},
    {903, "cudaErrorStreamCaptureUnmatched", nullptr},
    {904, "cudaErrorStreamCaptureUnjoined", nullptr},
    {905, "cudaErrorStreamCaptureIsolation", nullptr},
    {906, "cudaErrorStreamCaptureImplicit", nullptr},
    {907, "cudaErrorCapturedEvent", nullptr},
    {908, "cudaErrorStreamCaptureWrongThread", nullptr},
    {909, "cudaErrorTimeout", nullptr},
    {910, "cudaErrorGraphExecUpdateFailure", nullptr},
    {911, "cudaErrorExternalDevice", nullptr},
    {912, "cudaErrorInvalidClusterSize", nullptr},
    {913, "cudaErrorFunctionNotLoaded", nullptr},
    {914, "cudaErrorInvalidResourceType", nullptr},
    {915, "cudaErrorInvalidResourceConfiguration", nullptr},
    {999, "cudaErrorUnknown", "unknown error"},
    {10000, "cudaErrorApiFailureBase", nullptr},
};
const ErrorText *lookup(cudaError_t e)
{
    for (const ErrorText &t : kErrors)
        if (t.code == int(e)) return &t;
    return nullptr;
}
} // namespace

inline namespace cudaemu_api {

const char *cudaGetErrorName(cudaError_t error)
{
    const ErrorText *t = lookup(error);
    return t ? t->name : "unrecognized error code";
}

const char *cudaGetErrorString(cudaError_t error)
{
    const ErrorText *t = lookup(error);
    if (!t) return "unrecognized error code";
    return t->text ? t->text : t->name;
}

} // inline namespace cudaemu_api
