/* suites/train/train_impl.h - internal to the train suite's host half:
 * train.c (problems, data, the CPU run, the suite), train_check.c (the
 * reference and the check) and train_dump.c (--dump). */
#ifndef SUITES_TRAIN_IMPL_H
#define SUITES_TRAIN_IMPL_H

#include "train.h"
#include "model.h"

/* Input set `set` of plan pl: the batch x (the model's input type) and its
 * labels, as train_fill writes them. */
void train_fill_batch(const model_plan *pl, int set, void *x, int *labels);

void *train_ref_build(const problem *p, void *const *host);
void train_ref_free(void *r);
check_result train_check(const problem *p, const void *r, int step, dtype_t dt, void *const *host,
                         char *why, size_t whycap);
int train_dump(const problem *p, void *const *in, void *const *out, const char *dir);
/* suite_steps.accuracy: a mixed-precision row's |loss - the fp32 reference's
 * loss| / the fp32 loss after the same checked steps; NaN for fp32 rows. */
double train_accuracy(const problem *p, const void *ref, int step, void *const *host);

#endif
