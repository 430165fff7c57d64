/* tests/ops/dtype_test.c - the test of ops/dtype.h's dtype table: every
 * property the code reads of a dtype, against the formats' definitions (IEEE
 * binary32 and binary16, bfloat16, TF32), so a wrong row fails here before it
 * moves a tolerance. */
#include "../../ops/dtype.h"
#include "testutil.h"

#include <math.h>

int main(void)
{
    /* unit roundoff 2^-(p) with p the significand's bits incl. the hidden one */
    EXPECT(dtype_unit_roundoff(DTYPE_FP32) == ldexp(1.0, -24), "fp32 u");
    EXPECT(dtype_unit_roundoff(DTYPE_TF32) == ldexp(1.0, -11), "tf32 u");
    EXPECT(dtype_unit_roundoff(DTYPE_BF16) == ldexp(1.0, -8), "bf16 u");
    EXPECT(dtype_unit_roundoff(DTYPE_FP16) == ldexp(1.0, -11), "fp16 u");
    EXPECT(dtype_unit_roundoff(DTYPE_U8) == 0.0, "u8 has no roundoff");
    for (int d = 0; d < DTYPE_COUNT; d++) {
        const dtype_info *i = dtype_info_of((dtype_t)d);
        EXPECT(dtype_parse(i->name) == d, "%s parses back", i->name);
        EXPECT(dtype_is_16bit((dtype_t)d) == (i->size == 2), "%s: 16-bit storage", i->name);
        if (i->storage16) {
            /* one16 is 1.0 in storage; the smallest normal 2^emin; the largest
             * finite value 2^(2^(exp_bits-1)) * (1 - 2^-(frac_bits+1)) */
            float one = d == DTYPE_BF16 ? dtype_bf16_to_f32(i->one16) : dtype_fp16_to_f32(i->one16);
            EXPECT(one == 1.0f, "%s: one16 is %g", i->name, one);
            const float tiny = (float)ldexp(1.0, i->emin);
            const uint16_t t = d == DTYPE_BF16 ? dtype_bf16_from_f32(tiny) : dtype_fp16_from_f32(tiny);
            EXPECT(t == 1u << i->frac_bits, "%s: 2^emin encodes as 0x%04x", i->name, t);
        }
        for (int k = 0; k < d; k++)
            EXPECT(strcmp(DTYPE_INFO[k].colour, i->colour) != 0, "%s and %s share a colour",
                   DTYPE_INFO[k].name, i->name);
    }
    EXPECT(dtype_info_of(DTYPE_TF32)->rounds_inputs && !dtype_info_of(DTYPE_BF16)->rounds_inputs,
           "only tf32 rounds a product's inputs");
    TEST_END();
}
