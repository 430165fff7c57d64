/* cpu/omp_team.h - how every parallel region of cpu-omp's GEMM, convolution
 * and training-step code (and the elementwise ops cpu-blas and cpu-onednn
 * share) ends: each thread counts itself in and waits, spinning up to 50 us
 * and then yielding the CPU (gemm_omp.c: gemm_yield_barrier), until the
 * whole team has (omp_team_end); never in an OpenMP barrier.
 *
 * Why: an OpenMP barrier (the end of a worksharing loop without nowait,
 * `#pragma omp barrier`) spins for GOMP's spin count (~12 ms on this CPU)
 * before it sleeps, and on a machine where another process wants a CPU that
 * spin holds the core a preempted partner thread needs to finish its share:
 * measured, 2-thread GEMM calls of ~100 us taking 6-12 ms whenever other
 * processes kept both vCPUs busy (gemm_omp.c). With every thread past the
 * yield barrier, the region's own closing barrier is brief. The other
 * mechanism, libgomp's wait policy (OMP_WAIT_POLICY, GOMP_SPINCOUNT), is
 * read once when libgomp starts and would change the OpenMP teams of
 * oneDNN and OpenBLAS in the same process too, whose rows must measure what
 * their users get: so it stays the user's, and the barrier is ours, here.
 *
 * The shape of a region (tests/cpu/omp_team_test.sh holds every region of
 * cpu/ to it):
 *
 *     atomic_int arrived = 0;
 *   #pragma omp parallel if (...)
 *     {
 *   #pragma omp for schedule(...) nowait
 *         for (...) ...;
 *         omp_team_end(&arrived);
 *     }
 *
 * and phases inside a region end in gemm_yield_barrier with a growing
 * target (team * phase). No combined `parallel for`, no `omp barrier`, no
 * worksharing construct without nowait.
 */
#ifndef CPU_OMP_TEAM_H
#define CPU_OMP_TEAM_H

#include <omp.h>
#include <stdatomic.h>

/* Counts the thread in (*count += 1) and waits, spinning up to 50 us, then
 * yielding the CPU, until *count >= target. */
void gemm_yield_barrier(atomic_int *count, int target);

/* The end of a region whose team has counted into *arrived nothing yet:
 * every thread of the team counts in and yields until all have. */
static inline void omp_team_end(atomic_int *arrived)
{
    gemm_yield_barrier(arrived, omp_get_num_threads());
}

#endif
