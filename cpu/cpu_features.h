/* cpu/cpu_features.h - the x86 instruction-set features the CPU backends
 * choose kernels by at run time, and Linux's permission to use AMX tiles.
 *
 * cpu_features() is this CPU's set of CPU_F_* bits, probed once (cpuid and
 * XCR0 through gcc's __builtin_cpu_supports and <cpuid.h>); 0 off x86-64.
 * A bit is set only when the OS has enabled the registers too (AVX-512:
 * XCR0's opmask/zmm state, as __builtin_cpu_supports checks; AMX: XCR0's
 * tile state, XTILECFG and XTILEDATA).
 * cpu_amx_permit() asks Linux, once per process, for the right to use AMX
 * tile data (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA); 1 when
 * granted, 0 when refused or not possible (no AMX, not Linux, an old kernel).
 * Both are thread-safe. */
#ifndef CPU_FEATURES_H
#define CPU_FEATURES_H

#ifdef __cplusplus
extern "C" {
#endif

enum {
    CPU_F_AVX512F = 1u << 0,
    CPU_F_AVX512BF16 = 1u << 1, /* with AVX512BW and AVX512VL, which its kernels also use */
    CPU_F_AMX_BF16 = 1u << 2,   /* AMX-TILE and AMX-BF16, tile state enabled by the OS */
    CPU_F_F16C = 1u << 3,       /* with AVX (its 256-bit forms) */
};

unsigned cpu_features(void);
int cpu_amx_permit(void);

#ifdef __cplusplus
}
#endif
#endif
