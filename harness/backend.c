/* harness/backend.c - small helpers over registry rows (see backend.h). */
#include "backend.h"

#include <stdio.h>

const char *dev_kind_name(dev_kind d) { return d == DEV_GPU ? "gpu" : "cpu"; }

void backend_needs_str(unsigned needs, char *out, size_t cap)
{
    static const struct { unsigned bit; const char *name; } NAMES[] = {
        {NEEDS_BLAS, "OpenBLAS"}, {NEEDS_GPU, "GPU"}, {NEEDS_CUBLAS, "cuBLAS"},
        {NEEDS_ONEDNN, "oneDNN"}, {NEEDS_CUDNN, "cuDNN"}, {NEEDS_MPI, "MPI"},
        {NEEDS_NCCL, "NCCL"}};
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if ((needs & NAMES[i].bit) && used < cap)
            used += (size_t)snprintf(out + used, cap - used, "%s%s", used ? ", " : "",
                                     NAMES[i].name);
    if (!used) snprintf(out, cap, "-");
}

int backend_present(const backend_def *b) { return b->fn != NULL || b->ops != NULL; }
