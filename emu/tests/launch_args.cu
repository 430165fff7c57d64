/* emu/tests/launch_args.cu - kernel arguments convert to the kernel's
 * parameter types as in a call of the kernel: NULL, 0 and nullptr for
 * pointer parameters, an int for a float or size_t, a double for a float, a
 * pointer to a derived class for a pointer to its (second) base, which moves
 * the address.  Through <<<>>> (also a NULL default argument, a launch in a
 * template with a parameter pack, through a function pointer, with each
 * argument evaluated once), cudaLaunchKernelEx (nullptr, int to float,
 * derived to base) and cudaLaunchKernel (an array of pointers to values of
 * the parameter types).
 */
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdio>

#include "test_util.h"

struct First { int a; };
struct Second { int b; };
struct Both : First, Second {};

/* What the kernel saw, one launch per slot. */
struct Seen {
    int p_null, q_null, b_value;
    unsigned long long n;
    float f;
};

__global__ void record(int *p, const float *q, Second *b, size_t n, float f, Seen *out, int slot)
{
    Seen s;
    s.p_null = p == nullptr;
    s.q_null = q == nullptr;
    s.b_value = b ? b->b : -1;
    s.n = n;
    s.f = f;
    out[slot] = s;
}

/* the shfl_scan case: a pointer parameter whose default is NULL */
__global__ void with_default(Seen *out, int slot, int *opt = NULL)
{
    out[slot].p_null = opt == NULL;
}

template <typename... A> static void launch_pack(A... a) { record<<<1, 1>>>(a...); }

int main()
{
    Seen *seen = nullptr;
    Both *both = nullptr;
    const int slots = 9;
    CK(cudaMallocManaged(&seen, sizeof(Seen) * slots));
    CK(cudaMallocManaged(&both, sizeof(Both)));
    both->a = 11;
    both->b = 22;
    for (int i = 0; i < slots; ++i) seen[i] = Seen{-1, -1, -1, 0, -1.0f};

    /* <<<>>>: NULL and 0 for pointers, int to size_t and float, Both* to Second* */
    int seven = 7;
    record<<<1, 1>>>(NULL, 0, both, seven, 3, seen, 0);
    CK(cudaGetLastError());
    /* nullptr, a double for the float, an unsigned for size_t */
    record<<<1, 1>>>(nullptr, nullptr, both, 9u, 2.75, seen, 1);
    CK(cudaGetLastError());
    /* the NULL default argument appended by the translator */
    with_default<<<1, 1>>>(seen, 2);
    CK(cudaGetLastError());
    /* a parameter pack of the caller's types */
    launch_pack((int *)nullptr, (const float *)nullptr, both, 5, 1.5f, seen, 3);
    CK(cudaGetLastError());
    /* through a function pointer */
    void (*fp)(int *, const float *, Second *, size_t, float, Seen *, int) = record;
    fp<<<1, 1>>>(0, NULL, both, 4, 8, seen, 4);
    CK(cudaGetLastError());
    /* every argument is evaluated once */
    int slot = 5;
    record<<<1, 1>>>(NULL, NULL, both, 1, 1, seen, slot++);
    CK(cudaGetLastError());
    CHECK_EQ_INT(slot, 6);

    /* cudaLaunchKernelEx: nullptr, int to float and size_t, derived to base */
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(1);
    CK(cudaLaunchKernelEx(&cfg, record, nullptr, nullptr, both, 6, 5, seen, 6));

    /* cudaLaunchKernel: args[i] points at a value of parameter i's type */
    int *p = nullptr;
    const float *q = nullptr;
    Second *b = both;
    size_t n = 12;
    float f = 0.5f;
    int s7 = 7;
    void *args[] = {&p, &q, &b, &n, &f, &seen, &s7};
    CK(cudaLaunchKernel((void *)record, dim3(1), dim3(1), args, 0, 0));
    CK(cudaDeviceSynchronize());

    const struct { int b; unsigned long long n; float f; } want[] = {
        {22, 7, 3.0f}, {22, 9, 2.75f}, {-1, 0, -1.0f}, {22, 5, 1.5f},
        {22, 4, 8.0f}, {22, 1, 1.0f}, {22, 6, 5.0f}, {22, 12, 0.5f}};
    for (int i = 0; i < 8; ++i) {
        CHECK_EQ_INT(seen[i].p_null, 1);
        if (i == 2) continue; /* with_default sets p_null only */
        CHECK_EQ_INT(seen[i].q_null, 1);
        CHECK_EQ_INT(seen[i].b_value, want[i].b);
        CHECK_EQ_INT(seen[i].n, want[i].n);
        CHECK(seen[i].f == want[i].f);
    }
    CHECK_EQ_INT(seen[8].p_null, -1); /* untouched */
    CK(cudaFree(seen));
    CK(cudaFree(both));
    return test_exit("launch_args");
}
