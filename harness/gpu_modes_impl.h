/* harness/gpu_modes_impl.h - what the GPU execution modes' two files share:
 * the state of one opened case. gpu_modes.c opens a case (buffers, streams,
 * inputs), reads its outputs, finishes its row and closes it;
 * gpu_modes_rep.c runs one repetition of it in its mode. Included by those
 * two files alone (compiled as C against CUDA and as C++ against emu/). */
#ifndef HARNESS_GPU_MODES_IMPL_H
#define HARNESS_GPU_MODES_IMPL_H

#include "gpu_exec.h"
#include "cuda_check.h"
#include "gpu_pool.h"
#include "measure.h"

#define MAX_SETS 8      /* resident rotation sets, or pipeline items */
/* Under emu/ no note carries a time: emulated timings are never shown. */
#ifdef __CUDAEMU__
#define NOTE_TIMES 0
#else
#define NOTE_TIMES 1
#endif
#define MAX_STREAMS 8
#define NBUF LAYOUT_MAX_BUFS

/* The parts of one repetition: H2D of WHOLE inputs, H2D of the rest,
 * compute, D2H. */
enum { SPLIT_H2D_SHARED, SPLIT_H2D_IN, SPLIT_COMPUTE, SPLIT_D2H, NSPLIT };

typedef struct mode_state {
    const gpu_mode *m;
    gpu_work w;
    const case_layout *l;
    int pinned, nstreams, nslots, next;
    int pipeline;             /* streams-N over independent items (STREAMS_PIPELINE) */
    int chunked;              /* streams-N over chunks of one problem (STREAMS_CHUNK) */
    int dslots, hslots;       /* device / host copies of the per-slot buffers */
    int hnext;                /* the host input set the next repetition copies in */
    int dcur, primed;         /* prefetch-2: the device slot of this step's batch */
    cudaEvent_t ev_copied[2], ev_computed[2];
    int computed[2];          /* ev_computed[k] has been recorded */
    void *d[MAX_SETS][NBUF];  /* device buffers: resident sets, pipeline items */
    void *part[NBUF];         /* REDUCE buffers in streams-N: n partials */
    void *ws;                 /* the workspace */
    size_t ws_bytes;          /* its size */
    int transient;            /* a step suite: its step's products are renewed every
                               * step (step_buf, gpu_alloc.h) */
    gpu_pool pool;            /* every device buffer of the case */
    int steps;                /* computes run (a note's count) */
    void *h[MAX_SETS][NBUF];  /* host buffers (pageable or pinned); items in pipeline */
    cudaStream_t s[MAX_STREAMS];
    cudaEvent_t ev[5], ev_shared, ev_done[MAX_STREAMS];
    int copy_engines;
    double alloc_ms;
    int setup_done;
    double *split[NSPLIT];
    int nsplit, split_cap;
} mode_state;


/* Copied host -> device every repetition in the end-to-end modes. */
static inline int copied_in(const mode_state *st, int i)
{
    buf_role r = st->l->buf[i].role;
    return r == ROLE_IN || (r == ROLE_INOUT && !st->l->stateful);
}

/* Copied device -> host every repetition in the end-to-end modes. */
static inline int copied_out(const mode_state *st, int i)
{
    buf_role r = st->l->buf[i].role;
    return (r == ROLE_OUT && !st->l->buf[i].keep) || (r == ROLE_INOUT && !st->l->stateful);
}

static inline int has_host(buf_role r) { return r != ROLE_SCRATCH; }

/* A step's own products, which a framework frees after the step and
 * allocates again for the next: scratch and the OUT buffers that stay on the
 * device (a model's activations and gradients). With the workspace, a step
 * suite gives them back to its pool and takes them anew before each step. */
static inline int step_buf(const case_buf *b)
{
    return b->role == ROLE_SCRATCH || (b->role == ROLE_OUT && b->keep);
}

/* The repetition of st's mode (gpu_modes_rep.c): a measure_fn over st. */
measure_fn gpu_modes_rep_fn(const mode_state *st);

/* One repetition as async-pageable/-pinned run it (H2D, compute, D2H on one
 * stream, the split recorded): the serial run the overlap modes are held
 * against. */
int gpu_modes_rep_async(void *st, double *ms);

#endif
