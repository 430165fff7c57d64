/* emu/include/cublas_api.h - thin forwarding header of the CUDA host emulator:
 * the cuBLAS subset lives in cublas_v2.h. */
#include "cublas_v2.h"
