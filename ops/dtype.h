/* ops/dtype.h - the element types of a case, and the one set of converters.
 *
 * A case's buffers hold one dtype (harness/layout.h): the runner fills them in
 * fp32 from the seeded generator and converts once, here; CPU kernels' scalar
 * paths, the reference and the checker read them back through these same
 * functions. The 16-bit formats round through one rounding core
 * (ops/half_round.h), the one implementation that the emulator's __half and
 * __nv_bfloat16 use too: round to nearest even, overflow to infinity, gradual
 * underflow, NaN to the canonical 0x7FFF, as cvt.rn.{f16,bf16}.f32 and
 * vcvtneps2bf16 round (vcvtneps2bf16 also flushes denormal inputs to zero;
 * seeded inputs are uniform in [-1, 1) and never that small).
 *
 *   dtype  storage            in a product
 *   fp32   float              exact
 *   tf32   float              inputs rounded to 10 fraction bits (nearest even
 *                             here; tensor cores may truncate: the checker's
 *                             tolerance allows either)
 *   bf16   uint16: 8-bit exponent, 7-bit fraction   exact (fp32 accumulation)
 *   fp16   uint16: 5-bit exponent, 10-bit fraction  exact (fp32 accumulation)
 *   u8     raw bytes (copies), compared exactly
 *   amp-bf16  float (fp32 master weights, optimizer state, every tensor a
 *             step keeps): a training step under autocast, the ops of the
 *             autocast list (suites/train/model_amp.c) reading their inputs
 *             rounded to bf16, products exact, fp32 accumulation
 *   amp-fp16  the same at fp16, with dynamic loss scaling (GradScaler's:
 *             ops/loss_scale.h; amp-bf16 uses none)
 * Includable from C and C++ (CPU code, the harness, CUDA host code).
 */
#ifndef OPS_DTYPE_H
#define OPS_DTYPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "half_round.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    DTYPE_FP32, DTYPE_TF32, DTYPE_BF16, DTYPE_FP16, DTYPE_U8,
    DTYPE_AMP_BF16, DTYPE_AMP_FP16, /* mixed-precision training steps (the train suite) */
    DTYPE_COUNT
} dtype_t;

/* A set of dtypes (a registry row's, a run's selection). */
#define DTYPE_BIT(d) (1u << (unsigned)(d))
#define DTYPES_FLOAT (DTYPE_BIT(DTYPE_FP32) | DTYPE_BIT(DTYPE_TF32) | DTYPE_BIT(DTYPE_BF16) | \
                      DTYPE_BIT(DTYPE_FP16))

/* One row per dtype: every property code asks of a dtype is read here, never
 * written as a ternary elsewhere. Adding a dtype: its enum value above, its
 * row here, its converters below (README "Adding a dtype"). */
typedef struct dtype_info {
    const char *name;    /* the CSV dtype column, --dtype */
    size_t size;         /* bytes of an element as stored */
    int frac_bits;       /* fraction bits it keeps (u8: 0) */
    int exp_bits;        /* exponent bits (u8: 0) */
    int emin;            /* exponent of its smallest normal number */
    int storage16;       /* stored in 16 bits: outputs rounded to it once */
    int rounds_inputs;   /* a product's inputs are rounded to it inside the
                          * product, as tensor cores may do otherwise than the
                          * reference (tf32) */
    uint16_t one16;      /* 1.0 in its 16-bit storage (storage16 only) */
    const char *colour;  /* its chart colour (plots/dtype.gp's DTYPEPAL) */
    dtype_t autocast;    /* a mixed-precision mode: the 16-bit dtype the
                          * autocast list's ops read their inputs in (fp32
                          * storage, fp32 accumulation); DTYPE_FP32: none */
    int loss_scale;      /* a mixed-precision mode that needs dynamic loss scaling
                          * (amp-fp16: ops/loss_scale.h) */
} dtype_info;

static const dtype_info DTYPE_INFO[DTYPE_COUNT] = {
    /* every member, in order (C++ translation units need both) */
    {.name = "fp32", .size = 4, .frac_bits = 23, .exp_bits = 8, .emin = -126, .storage16 = 0,
     .rounds_inputs = 0, .one16 = 0, .colour = "#0072B2", .autocast = DTYPE_FP32, .loss_scale = 0},
    {.name = "tf32", .size = 4, .frac_bits = 10, .exp_bits = 8, .emin = -126, .storage16 = 0,
     .rounds_inputs = 1, .one16 = 0, .colour = "#56B4E9", .autocast = DTYPE_FP32, .loss_scale = 0},
    {.name = "bf16", .size = 2, .frac_bits = 7, .exp_bits = 8, .emin = -126, .storage16 = 1,
     .rounds_inputs = 0, .one16 = 0x3F80, .colour = "#D55E00", .autocast = DTYPE_FP32, .loss_scale = 0},
    {.name = "fp16", .size = 2, .frac_bits = 10, .exp_bits = 5, .emin = -14, .storage16 = 1,
     .rounds_inputs = 0, .one16 = 0x3C00, .colour = "#E69F00", .autocast = DTYPE_FP32, .loss_scale = 0},
    {.name = "u8", .size = 1, .frac_bits = 0, .exp_bits = 0, .emin = 0, .storage16 = 0,
     .rounds_inputs = 0, .one16 = 0, .colour = "#7F7F7F", .autocast = DTYPE_FP32, .loss_scale = 0},
    /* mixed precision: stored and checked as fp32 (the reference rounds the
     * autocast ops' inputs as the backends do, so the check is as strict) */
    {.name = "amp-bf16", .size = 4, .frac_bits = 23, .exp_bits = 8, .emin = -126, .storage16 = 0,
     .rounds_inputs = 0, .one16 = 0, .colour = "#CC79A7", .autocast = DTYPE_BF16, .loss_scale = 0},
    {.name = "amp-fp16", .size = 4, .frac_bits = 23, .exp_bits = 8, .emin = -126, .storage16 = 0,
     .rounds_inputs = 0, .one16 = 0, .colour = "#009E73", .autocast = DTYPE_FP16, .loss_scale = 1},
};

/* d's row (fp32's for an out-of-range d). */
static inline const dtype_info *dtype_info_of(dtype_t d)
{
    return &DTYPE_INFO[(unsigned)d < DTYPE_COUNT ? d : DTYPE_FP32];
}

/* The unit roundoff of d's values: half a unit in the last place of 1
 * (2^-(frac_bits+1)); u8 0. */
static inline double dtype_unit_roundoff(dtype_t d)
{
    const dtype_info *i = dtype_info_of(d);
    return i->frac_bits ? 1.0 / (double)(2ull << i->frac_bits) : 0.0;
}

/* "fp32", "tf32", "bf16", "fp16", "u8", "amp-bf16", "amp-fp16" ("?" out of range). */
static inline const char *dtype_name(dtype_t d)
{
    return (unsigned)d < DTYPE_COUNT ? DTYPE_INFO[d].name : "?";
}

/* The dtype named s (exact, lower case); -1 when none is. */
static inline int dtype_parse(const char *s)
{
    for (int d = 0; d < DTYPE_COUNT; d++)
        if (strcmp(s, dtype_name((dtype_t)d)) == 0) return d;
    return -1;
}

/* The dtypes of set (DTYPE_BIT), in order, joined by sep into out:
 * "fp32,bf16". Returns out. */
static inline char *dtype_list(unsigned set, const char *sep, char *out, size_t cap)
{
    size_t u = 0;
    if (cap) out[0] = '\0';
    for (int d = 0; d < DTYPE_COUNT; d++)
        if ((set & DTYPE_BIT(d)) && u < cap)
            u += (size_t)snprintf(out + u, cap - u, "%s%s", u ? sep : "", dtype_name((dtype_t)d));
    return out;
}

/* Bytes of one element in storage. */
static inline size_t dtype_size(dtype_t d) { return dtype_info_of(d)->size; }

/* The 16-bit dtype a mixed-precision mode's autocast ops read their inputs
 * in; DTYPE_FP32 for every other dtype. */
static inline dtype_t dtype_autocast(dtype_t d) { return dtype_info_of(d)->autocast; }

/* Whether d is stored in 16 bits (its outputs are rounded to it). */
static inline int dtype_is_16bit(dtype_t d) { return dtype_info_of(d)->storage16; }

static inline uint16_t dtype_bf16_from_f32(float x)
{
    return h16_encode((double)x, 8, 7, H16_R_RN);
}
static inline float dtype_bf16_to_f32(uint16_t h)
{
    return h16_decode(h, 8, 7, 1);
}
static inline uint16_t dtype_fp16_from_f32(float x)
{
    return h16_encode((double)x, 5, 10, H16_R_RN);
}
static inline float dtype_fp16_to_f32(uint16_t h)
{
    return h16_decode(h, 5, 10, 0);
}
/* x rounded to tf32 (10 fraction bits, nearest even), kept in a float. */
static inline float dtype_tf32_round(float x)
{
    uint32_t u;
    memcpy(&u, &x, sizeof u);
    if ((u & 0x7F800000u) != 0x7F800000u) { /* finite: a carry may reach infinity, as it should */
        u += 0x0FFFu + ((u >> 13) & 1u);
        u &= ~0x1FFFu;
    }
    memcpy(&x, &u, sizeof x);
    return x;
}

/* x rounded to the values d holds (fp32, u8: x itself). */
static inline float dtype_round(dtype_t d, float x)
{
    switch (d) {
    case DTYPE_TF32: return dtype_tf32_round(x);
    case DTYPE_BF16: return dtype_bf16_to_f32(dtype_bf16_from_f32(x));
    case DTYPE_FP16: return dtype_fp16_to_f32(dtype_fp16_from_f32(x));
    default: return x;
    }
}

/* Element i of a buffer of dtype d, as a float (u8: the byte's value). */
static inline float dtype_get(dtype_t d, const void *p, size_t i)
{
    switch (d) {
    case DTYPE_BF16: return dtype_bf16_to_f32(((const uint16_t *)p)[i]);
    case DTYPE_FP16: return dtype_fp16_to_f32(((const uint16_t *)p)[i]);
    case DTYPE_U8: return (float)((const unsigned char *)p)[i];
    default: return ((const float *)p)[i];
    }
}

/* Stores x, rounded to d's storage, as element i of a buffer of dtype d
 * (tf32 stores the float unchanged: its rounding is the product's). */
static inline void dtype_set(dtype_t d, void *p, size_t i, float x)
{
    switch (d) {
    case DTYPE_BF16: ((uint16_t *)p)[i] = dtype_bf16_from_f32(x); break;
    case DTYPE_FP16: ((uint16_t *)p)[i] = dtype_fp16_from_f32(x); break;
    case DTYPE_U8: ((unsigned char *)p)[i] = (unsigned char)x; break;
    default: ((float *)p)[i] = x; break;
    }
}

/* The same from a double, rounded once (no double rounding through float):
 * a reference's element, summed in double. */
static inline void dtype_set_d(dtype_t d, void *p, size_t i, double x)
{
    switch (d) {
    case DTYPE_BF16: ((uint16_t *)p)[i] = h16_encode(x, 8, 7, H16_R_RN); break;
    case DTYPE_FP16: ((uint16_t *)p)[i] = h16_encode(x, 5, 10, H16_R_RN); break;
    default: dtype_set(d, p, i, (float)x); break;
    }
}

#ifdef __cplusplus
}
#endif
#endif
