/* emu/include/math_constants.h - the CUDART_* constants of the toolkit's
 * math_constants.h that programs use most, for the CUDA host emulator: the
 * float forms (_F) and the double forms, plus infinities, NaNs and limits.
 * Values computed from their definitions (round to nearest). */
#ifndef CUDAEMU_MATH_CONSTANTS_H
#define CUDAEMU_MATH_CONSTANTS_H
#define __MATH_CONSTANTS_H__

/* single precision */
#define CUDART_INF_F __builtin_huge_valf()
#define CUDART_NAN_F __builtin_nanf("")
#define CUDART_MIN_DENORM_F 1.40129846e-45f
#define CUDART_MAX_NORMAL_F 3.40282347e+38f
#define CUDART_NEG_ZERO_F (-0.0f)
#define CUDART_ZERO_F 0.0f
#define CUDART_ONE_F 1.0f
#define CUDART_SQRT_HALF_F 0.707106781f
#define CUDART_SQRT_TWO_F 1.414213562f
#define CUDART_THIRD_F 0.333333333f
#define CUDART_PI_F 3.141592654e+00f
#define CUDART_PIO2_F 1.570796327e+00f
#define CUDART_PIO4_F 7.853981634e-01f
#define CUDART_L2E_F 1.442695041e+00f
#define CUDART_L2T_F 3.321928095e+00f
#define CUDART_LG2_F 3.010299957e-01f
#define CUDART_LGE_F 4.342944819e-01f
#define CUDART_LN2_F 6.931471806e-01f
#define CUDART_LNT_F 2.302585093e+00f
#define CUDART_LNPI_F 1.144729886e+00f

/* double precision */
#define CUDART_INF __builtin_huge_val()
#define CUDART_NAN __builtin_nan("")
#define CUDART_NEG_ZERO (-0.0)
#define CUDART_MIN_DENORM 4.9406564584124654e-324
#define CUDART_ZERO 0.0
#define CUDART_ONE 1.0
#define CUDART_SQRT_TWO 1.4142135623730951
#define CUDART_SQRT_HALF 0.70710678118654757
#define CUDART_THIRD 0.33333333333333331
#define CUDART_PI 3.14159265358979312e+00
#define CUDART_PIO2 1.57079632679489656e+00
#define CUDART_PIO4 7.85398163397448279e-01
#define CUDART_SQRT_2PI 2.50662827463100024e+00
#define CUDART_SQRT_2OPI 7.97884560802865406e-01
#define CUDART_L2E 1.44269504088896339e+00
#define CUDART_L2T 3.32192809488736218e+00
#define CUDART_LG2 3.01029995663981198e-01
#define CUDART_LGE 4.34294481903251817e-01
#define CUDART_LN2 6.93147180559945286e-01
#define CUDART_LNT 2.30258509299404590e+00
#define CUDART_LNPI 1.14472988584940016e+00

#endif
