/* harness/backend.c - small helpers over registry rows (see backend.h). */
#include "backend.h"

#include <stdio.h>

const char *dev_kind_name(dev_kind d) { return d == DEV_GPU ? "gpu" : "cpu"; }

const char *backend_role(const backend_def *b)
{
    if (b->needs & NEEDS_LIBRARY) return "library";
    return (b->flags & BK_REFERENCE) ? "reference" : "ours";
}

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

int backend_present(const backend_def *b) { return b->fn != NULL || b->fn_dt != NULL || b->ops != NULL; }

dtype_t backend_dtype(const backend_def *b)
{
    for (int d = 0; d < DTYPE_COUNT; d++)
        if (b->dtypes & DTYPE_BIT(d)) return (dtype_t)d;
    return DTYPE_FP32;
}

const char *backend_dt_skip(const backend_def *b, dtype_t dt, char *out, size_t cap)
{
    if (!(b->dtypes & DTYPE_BIT(dt))) {
        char runs[64];
        snprintf(out, cap, "%s has no %s path (it runs %s)", b->name, dtype_name(dt),
                 dtype_list(b->dtypes, ", ", runs, sizeof runs));
        return out;
    }
    const char *why = b->dt_skip ? b->dt_skip(dt) : NULL;
    if (!why) return NULL;
    snprintf(out, cap, "%s", why);
    return out;
}
