/* cpu/cpu_features.c - run-time CPU feature probe and the AMX permission
 * request (contract in cpu_features.h). */
#define _GNU_SOURCE /* syscall */
#include "cpu_features.h"

#include <pthread.h>
#include <stdatomic.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#if defined(__x86_64__)
/* XCR0 (the state components the OS saves), 0 when XGETBV is unavailable. */
static unsigned long long xcr0(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE)) return 0;
    __asm__ volatile("xgetbv" : "=a"(a), "=d"(d) : "c"(0));
    return ((unsigned long long)d << 32) | a;
}

static unsigned probe(void)
{
    unsigned f = 0, a, b, c, d;
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f")) f |= CPU_F_AVX512F;
    if (__builtin_cpu_supports("avx512bf16") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl"))
        f |= CPU_F_AVX512BF16;
    if (__builtin_cpu_supports("avx") && __get_cpuid(1, &a, &b, &c, &d) && (c & bit_F16C))
        f |= CPU_F_F16C;
    /* leaf 7.0 EDX: bit 22 AMX-BF16, bit 24 AMX-TILE; XCR0 bits 17, 18: tile state */
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (d >> 22 & 1) && (d >> 24 & 1) &&
        (xcr0() & (3ull << 17)) == (3ull << 17))
        f |= CPU_F_AMX_BF16;
    return f;
}
#else
static unsigned probe(void) { return 0; }
#endif

unsigned cpu_features(void)
{
    static atomic_uint cached; /* the bits + 1 << 31 once probed */
    unsigned v = atomic_load_explicit(&cached, memory_order_acquire);
    if (!v) {
        v = probe() | 1u << 31;
        atomic_store_explicit(&cached, v, memory_order_release);
    }
    return v & ~(1u << 31);
}

#define ARCH_REQ_XCOMP_PERM 0x1023
#define XFEATURE_XTILEDATA 18

static int amx_granted;

/* Linux's permission is per process: asked once, for every thread. */
static void amx_request(void)
{
#if defined(__x86_64__) && defined(__linux__) && defined(SYS_arch_prctl)
    amx_granted = (cpu_features() & CPU_F_AMX_BF16) &&
                  syscall(SYS_arch_prctl, ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA) == 0;
#endif
}

int cpu_amx_permit(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, amx_request);
    return amx_granted;
}
