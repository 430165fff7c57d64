/* tests/train_run.h - one training step's host buffers for the train tests
 * (tests/suites/train/): parameters 0.2 * U(-1, 1) (seed 7), an input batch
 * (U(-1, 1), seed 8; token ids i*7 mod vocab for gpt), labels n mod classes,
 * the scratch area, and the step_bufs over them (SGD: no optimizer state).
 * Needs testutil.h and train/model.h before it. */
#ifndef TESTS_TRAIN_RUN_H
#define TESTS_TRAIN_RUN_H

#include <stdlib.h>

#include "check.h"
#include "train/model.h"

typedef struct run {
    float *params, *grads, *scratch, loss;
    void *x;
    int *labels;
    step_bufs b;
} run;

static void run_init(const model_plan *pl, run *r)
{
    size_t np = (size_t)pl->nparam_floats;
    r->params = calloc(np, sizeof(float));
    r->grads = calloc(np, sizeof(float));
    r->x = calloc((size_t)pl->in_slots, 4);
    r->scratch = calloc((size_t)pl->scratch_floats, sizeof(float));
    r->labels = calloc((size_t)pl->nlabels, sizeof(int));
    rng_fill_uniform(r->params, np, 7);
    for (size_t i = 0; i < np; i++) r->params[i] *= 0.2f;
    if (pl->x_ids)
        for (long long i = 0; i < pl->in_slots; i++) ((int *)r->x)[i] = (int)(i * 7 % pl->m->classes);
    else
        rng_fill_uniform((float *)r->x, (size_t)pl->in_slots, 8);
    for (long long n = 0; n < pl->nlabels; n++) r->labels[n] = (int)(n % pl->m->classes);
    step_bufs b = {r->x, r->labels, r->params, r->grads, NULL, &r->loss, r->scratch, NULL, NULL, NULL, 0};
    r->b = b;
}

static void run_free(run *r)
{
    free(r->params);
    free(r->grads);
    free(r->x);
    free(r->scratch);
    free(r->labels);
}

#endif
