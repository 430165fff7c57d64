/* emu/tests/clock_rate.cu - clock() and clock64() tick at the rate the device
 * reports (they once ticked at 1 MHz while cudaDevAttrClockRate said
 * 1.98 GHz, so a kernel spinning "10 ms" spun 20 s).
 *
 * A one-thread kernel spins clockRate * ms ticks (as cuda-samples' clock_block
 * does) with clock64() and then with clock(); the host time it takes must be
 * of the order of ms.  A host watchdog ends a runaway spin through a flag in
 * mapped pinned memory after 20x the intended time, so a wrong rate fails
 * quickly.  Bounds are generous ratios (the machine is shared): this is not a
 * timing test.
 */
#include <cuda_runtime.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <thread>

#include "test_util.h"

__global__ void spin64(long long ticks, const volatile int *stop, int *reached)
{
    long long start = clock64();
    long long now = start;
    while (now - start < ticks && !*stop) now = clock64();
    *reached = now - start >= ticks && !*stop;
}

__global__ void spin32(long long ticks, const volatile int *stop, int *reached)
{
    clock_t start = clock();
    long long elapsed = 0;
    while (elapsed < ticks && !*stop) elapsed = (long long)(clock() - start);
    *reached = elapsed >= ticks && !*stop;
}

/* Runs one spin of ms milliseconds by the clock rate; the host time in ms. */
static double timed_spin(bool use64, int khz, int ms, volatile int *stop_h, int *stop_d,
                         int *reached_d)
{
    *stop_h = 0;
    const long long ticks = (long long)khz * ms;
    std::atomic<bool> finished{false};
    std::thread watchdog([&] {
        auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(20 * ms);
        while (!finished.load() && std::chrono::steady_clock::now() < end)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
        if (!finished.load()) *stop_h = 1;
    });
    auto t0 = std::chrono::steady_clock::now();
    if (use64)
        spin64<<<1, 1>>>(ticks, stop_d, reached_d);
    else
        spin32<<<1, 1>>>(ticks, stop_d, reached_d);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    auto t1 = std::chrono::steady_clock::now();
    finished.store(true);
    watchdog.join();
    return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

int main()
{
    int khz = 0;
    CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    CHECK(khz > 0);
    int *stop_h = nullptr, *stop_d = nullptr, *reached = nullptr, reached_h = 0;
    CK(cudaHostAlloc(&stop_h, sizeof(int), cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer(&stop_d, stop_h, 0));
    CK(cudaMalloc(&reached, sizeof(int)));
    const int ms = 50;
    for (int use64 = 1; use64 >= 0; --use64) {
        double t = timed_spin(use64 != 0, khz, ms, stop_h, stop_d, reached);
        CK(cudaMemcpy(&reached_h, reached, sizeof(int), cudaMemcpyDeviceToHost));
        std::printf("clock_rate: %s spin of %d ms at %d kHz took %.1f ms (host time)\n",
                    use64 ? "clock64()" : "clock()", ms, khz, t);
        CHECK(reached_h == 1); /* the spin ended by the clock, not the watchdog */
        CHECK(t >= ms / 2.0 && t < 20.0 * ms);
    }
    CK(cudaFree(reached));
    CK(cudaFreeHost(stop_h));
    return test_exit("clock_rate");
}
