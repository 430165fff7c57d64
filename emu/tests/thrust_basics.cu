/* emu/tests/thrust_basics.cu - Thrust programs in the style of the books'
 * examples (a saxpy, sort + reduce of 1M keys, a zip dot product,
 * sort_by_key, scans, compaction, fancy iterators, raw device pointers),
 * run by the CUDA host emulator's Thrust subset; every value is checked
 * against a host computation.  `thrust_basics failing-functor`: a functor
 * that traps makes the algorithm throw thrust::system_error (emu/README.md,
 * "Thrust and CUB"). */
#include <thrust/copy.h>
#include <thrust/count.h>
#include <thrust/device_free.h>
#include <thrust/device_malloc.h>
#include <thrust/device_ptr.h>
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/extrema.h>
#include <thrust/fill.h>
#include <thrust/find.h>
#include <thrust/functional.h>
#include <thrust/gather.h>
#include <thrust/host_vector.h>
#include <thrust/inner_product.h>
#include <thrust/iterator/constant_iterator.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/random.h>
#include <thrust/reduce.h>
#include <thrust/remove.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>
#include <thrust/unique.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

#include "test_util.h"


static unsigned g_lcg = 12345u;
static unsigned next_rand() { return g_lcg = g_lcg * 1664525u + 1013904223u; }
static float next_float() { return (float)(next_rand() >> 8) / (float)(1u << 24) * 2.0f - 1.0f; }

struct saxpy_functor {
    const float a;
    explicit saxpy_functor(float a_) : a(a_) {}
    __host__ __device__ float operator()(const float &x, const float &y) const { return a * x + y; }
};

/* a kernel on a device_vector's raw pointer, as the books mix them */
__global__ void square(int *v, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * v[i];
}

/* thrust::seq inside a kernel: the algorithm runs in the calling thread */
__global__ void seq_sum(const int *v, int n, long long *out)
{
    if (threadIdx.x == 0) *out = thrust::reduce(thrust::seq, v, v + n, 0LL);
}

static void saxpy()
{
    const int n = 1000;
    thrust::host_vector<float> hx(n), hy(n);
    for (int i = 0; i < n; ++i) { hx[i] = next_float(); hy[i] = next_float(); }
    thrust::device_vector<float> x = hx, y = hy;
    thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), saxpy_functor(2.5f));
    thrust::host_vector<float> r = y;
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += r[i] != 2.5f * hx[i] + hy[i];
    CHECK(bad == 0);
    /* the placeholder form, into a third vector, with a policy */
    using namespace thrust::placeholders;
    thrust::device_vector<float> z(n);
    thrust::transform(thrust::device, x.begin(), x.end(), y.begin(), z.begin(), 3.0f * _1 - _2);
    thrust::host_vector<float> hz = z;
    bad = 0;
    for (int i = 0; i < n; ++i) bad += hz[i] != 3.0f * hx[i] - r[i];
    CHECK(bad == 0);
}

static void sort_reduce_1m()
{
    /* a permutation of 3 i - n, i < n: sorted, element i is 3 i - n */
    const int n = 1 << 20;
    thrust::host_vector<int> h(n);
    for (int i = 0; i < n; ++i) h[i] = (int)((i * 40503u + 977u) % (unsigned)n) * 3 - n;
    thrust::device_vector<int> d = h;
    thrust::sort(d.begin(), d.end());
    std::vector<int> want(n);
    for (int i = 0; i < n; ++i) want[i] = 3 * i - n;
    std::vector<int> got(n);
    thrust::copy(d.begin(), d.end(), got.begin());
    CHECK(got == want);
    const long long sum = thrust::reduce(d.begin(), d.end(), 0LL, thrust::plus<long long>());
    CHECK(sum == std::accumulate(h.begin(), h.end(), 0LL));
    CHECK(thrust::reduce(d.begin(), d.end(), want[0], thrust::minimum<int>()) == want[0]);
    CHECK(*thrust::max_element(d.begin(), d.end()) == want[n - 1]);
    /* descending, with a comparator, on the first 1000 */
    thrust::device_vector<int> part(h.begin(), h.begin() + 1000);
    thrust::stable_sort(part.begin(), part.end(), thrust::greater<int>());
    std::vector<int> wpart(h.begin(), h.begin() + 1000);
    std::sort(wpart.begin(), wpart.end(), std::greater<int>());
    thrust::host_vector<int> gpart = part;
    CHECK(std::equal(wpart.begin(), wpart.end(), gpart.begin()));
}

static void zip_dot()
{
    const int n = 4096;
    thrust::host_vector<float> ha(n), hb(n);
    double want = 0;
    for (int i = 0; i < n; ++i) {
        ha[i] = next_float();
        hb[i] = next_float();
        want += (double)ha[i] * hb[i];
    }
    thrust::device_vector<float> a = ha, b = hb;
    auto first = thrust::make_zip_iterator(thrust::make_tuple(a.begin(), b.begin()));
    auto last = thrust::make_zip_iterator(thrust::make_tuple(a.end(), b.end()));
    const float dot = thrust::transform_reduce(
        first, last,
        [] __host__ __device__(const thrust::tuple<float, float> &t) { return thrust::get<0>(t) * thrust::get<1>(t); },
        0.0f, thrust::plus<float>());
    const float dot2 = thrust::inner_product(a.begin(), a.end(), b.begin(), 0.0f);
    const double tol = 1e-5 * n;
    CHECK(std::fabs(dot - want) < tol);
    CHECK(std::fabs(dot2 - want) < tol);
    /* for_each over a zip writes through the tuple's references */
    thrust::device_vector<float> c(n);
    auto z3 = thrust::make_zip_iterator(thrust::make_tuple(a.begin(), b.begin(), c.begin()));
    thrust::for_each(z3, z3 + n, [] __device__(thrust::tuple<float &, float &, float &> t) {
        thrust::get<2>(t) = thrust::get<0>(t) + thrust::get<1>(t);
    });
    thrust::host_vector<float> hc = c;
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += hc[i] != ha[i] + hb[i];
    CHECK(bad == 0);
}

static void by_key()
{
    const int n = 5000;
    thrust::host_vector<int> hk(n);
    for (int i = 0; i < n; ++i) hk[i] = (int)(next_rand() % 97u);
    thrust::device_vector<int> k = hk;
    thrust::device_vector<int> v(n);
    thrust::sequence(v.begin(), v.end());
    thrust::sort_by_key(k.begin(), k.end(), v.begin());
    std::vector<std::pair<int, int>> want(n);
    for (int i = 0; i < n; ++i) want[i] = {hk[i], i};
    std::stable_sort(want.begin(), want.end(),
                     [](const std::pair<int, int> &a, const std::pair<int, int> &b) { return a.first < b.first; });
    thrust::host_vector<int> gk = k, gv = v;
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += gk[i] != want[i].first || gv[i] != want[i].second;
    CHECK(bad == 0);
    /* reduce_by_key over the sorted keys: one sum per distinct key */
    thrust::device_vector<int> ko(n), vo(n);
    auto ends = thrust::reduce_by_key(k.begin(), k.end(), thrust::make_constant_iterator(1), ko.begin(), vo.begin());
    const long runs = ends.first - ko.begin();
    std::vector<int> counts(97, 0);
    for (int i = 0; i < n; ++i) ++counts[hk[i]];
    const long distinct = std::count_if(counts.begin(), counts.end(), [](int c) { return c > 0; });
    CHECK(runs == distinct && ends.second - vo.begin() == distinct);
    thrust::host_vector<int> hko = ko, hvo = vo;
    bad = 0;
    for (long r = 0; r < runs; ++r) bad += hvo[r] != counts[hko[r]];
    CHECK(bad == 0);
}

static void scans_and_compaction()
{
    const int n = 777;
    thrust::host_vector<int> h(n);
    for (int i = 0; i < n; ++i) h[i] = (int)(next_rand() % 11u) - 5;
    thrust::device_vector<int> d = h, out(n);
    thrust::inclusive_scan(d.begin(), d.end(), out.begin());
    std::vector<int> want(n);
    std::partial_sum(h.begin(), h.end(), want.begin());
    thrust::host_vector<int> got = out;
    CHECK(std::equal(want.begin(), want.end(), got.begin()));
    thrust::exclusive_scan(d.begin(), d.end(), out.begin(), 100, thrust::maximum<int>());
    got = out;
    int run = 100, bad = 0;
    for (int i = 0; i < n; ++i) { bad += got[i] != run; run = std::max(run, (int)h[i]); }
    CHECK(bad == 0);
    /* exclusive_scan in place, default init 0 */
    thrust::device_vector<int> e = h;
    thrust::exclusive_scan(e.begin(), e.end(), e.begin());
    got = e;
    CHECK(got[0] == 0 && got[n - 1] == want[n - 2]);

    const long negatives = std::count_if(h.begin(), h.end(), [](int x) { return x < 0; });
    CHECK(thrust::count_if(d.begin(), d.end(), [] __device__(int x) { return x < 0; }) == negatives);
    CHECK(thrust::count(d.begin(), d.end(), h[3]) == std::count(h.begin(), h.end(), h[3]));
    CHECK(thrust::find(d.begin(), d.end(), h[10]) - d.begin() == std::find(h.begin(), h.end(), h[10]) - h.begin());
    auto mm = thrust::minmax_element(d.begin(), d.end());
    CHECK(mm.first - d.begin() == std::min_element(h.begin(), h.end()) - h.begin());
    CHECK(mm.second - d.begin() == std::max_element(h.begin(), h.end()) - h.begin());

    thrust::device_vector<int> r = h;
    auto rend = thrust::remove_if(r.begin(), r.end(), [] __host__ __device__(int x) { return x < 0; });
    CHECK(rend - r.begin() == n - negatives);
    std::vector<int> kept;
    std::copy_if(h.begin(), h.end(), std::back_inserter(kept), [](int x) { return x >= 0; });
    CHECK(thrust::equal(r.begin(), rend, kept.begin()));

    thrust::sort(r.begin(), rend);
    auto uend = thrust::unique(r.begin(), rend);
    std::sort(kept.begin(), kept.end());
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    CHECK(uend - r.begin() == (long)kept.size());
    CHECK(thrust::equal(r.begin(), uend, kept.begin()));
}

static void iterators_and_pointers()
{
    const int n = 300;
    /* counting + transform iterators: the sum of squares 0..n-1 */
    auto sq = thrust::make_transform_iterator(thrust::make_counting_iterator(0),
                                              [] __host__ __device__(int i) { return (long long)i * i; });
    const long long want = (long long)(n - 1) * n * (2 * n - 1) / 6;
    CHECK(thrust::reduce(thrust::device, sq, sq + n) == want);
    CHECK(thrust::reduce(thrust::host, sq, sq + n) == want);

    /* gather, scatter, permutation_iterator with a reversing map */
    thrust::device_vector<int> src(n), map(n), dst(n);
    thrust::sequence(src.begin(), src.end(), 10, 3);
    thrust::sequence(map.begin(), map.end(), n - 1, -1);
    thrust::gather(map.begin(), map.end(), src.begin(), dst.begin());
    CHECK(dst[0] == 10 + 3 * (n - 1) && dst[n - 1] == 10);
    thrust::device_vector<int> back(n);
    thrust::scatter(dst.begin(), dst.end(), map.begin(), back.begin());
    CHECK(thrust::equal(back.begin(), back.end(), src.begin()));
    auto perm = thrust::make_permutation_iterator(src.begin(), map.begin());
    CHECK(thrust::equal(perm, perm + n, dst.begin()));

    /* fill, generate, copy_n, device_reference writes, resize */
    thrust::device_vector<int> f(n);
    thrust::fill(f.begin(), f.end(), 7);
    CHECK(thrust::count(f.begin(), f.end(), 7) == n);
    f[5] = 9;
    f[6] += 2;
    CHECK(f[5] == 9 && f[6] == 9 && thrust::count(f.begin(), f.end(), 9) == 2);
    f.resize(n + 10, -1);
    CHECK(f.size() == (size_t)n + 10 && f[n + 9] == -1 && f[n - 1] == 7);
    thrust::host_vector<int> hf(4);
    thrust::copy_n(f.begin() + 4, 4, hf.begin());
    CHECK(hf[0] == 7 && hf[1] == 9 && hf[2] == 9 && hf[3] == 7);
    unsigned seed = 3;
    thrust::host_vector<unsigned> hg(n);
    thrust::generate(hg.begin(), hg.end(), [&seed] { return seed = seed * 69069u + 1u; });
    thrust::device_vector<unsigned> dg = hg;
    seed = 3;
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += dg[i] != (seed = seed * 69069u + 1u);
    CHECK(bad == 0);

    /* device_malloc'd memory through device_ptr, a kernel on the raw pointer,
     * thrust::cuda::par.on(stream) */
    thrust::device_ptr<int> p = thrust::device_malloc<int>(n);
    thrust::sequence(p, p + n);
    square<<<(n + 127) / 128, 128>>>(thrust::raw_pointer_cast(p), n);
    CK(cudaGetLastError());
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    const long long sum = thrust::reduce(thrust::cuda::par.on(s), p, p + n, 0LL);
    CHECK(sum == want);
    long long *dsum = nullptr, hsum = 0;
    CK(cudaMalloc(&dsum, sizeof(long long)));
    seq_sum<<<1, 32>>>(thrust::raw_pointer_cast(p), n, dsum);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&hsum, dsum, sizeof hsum, cudaMemcpyDeviceToHost));
    CHECK(hsum == want);
    CK(cudaFree(dsum));
    int *raw = nullptr;
    CK(cudaMalloc(&raw, n * sizeof(int)));
    thrust::copy(thrust::device, p, p + n, raw);
    thrust::device_ptr<int> wrapped = thrust::device_pointer_cast(raw);
    CHECK(wrapped[n - 1] == (n - 1) * (n - 1));
    CK(cudaFree(raw));
    CK(cudaStreamDestroy(s));
    thrust::device_free(p);
}

/* Monte Carlo points from thrust/random.h's engine and distribution: the
 * device run equals the same engine run on the host */
struct inside_circle {
    __host__ __device__ int operator()(unsigned i) const
    {
        thrust::default_random_engine rng(1234u);
        rng.discard(2 * i);
        thrust::uniform_real_distribution<float> u(0.0f, 1.0f);
        const float x = u(rng), y = u(rng);
        return x * x + y * y <= 1.0f;
    }
};

static void random_points()
{
    const unsigned n = 600; /* discard() is linear: n^2 / 2 steps */
    const int hits = thrust::transform_reduce(thrust::counting_iterator<unsigned>(0), thrust::counting_iterator<unsigned>(n),
                                              inside_circle(), 0, thrust::plus<int>());
    thrust::device_vector<int> flags(n);
    thrust::transform(thrust::device, thrust::counting_iterator<unsigned>(0), thrust::counting_iterator<unsigned>(n),
                      flags.begin(), inside_circle());
    int want = 0;
    for (unsigned i = 0; i < n; ++i) want += inside_circle()(i);
    CHECK(hits == want && thrust::reduce(flags.begin(), flags.end()) == want);
    CHECK(std::fabs(4.0 * want / n - 3.14159) < 0.15);
}

/* a functor that faults: Thrust throws thrust::system_error, naming the
 * algorithm and the CUDA error */
static int failing_functor()
{
    thrust::device_vector<int> d(4, 1);
    try {
        thrust::for_each(d.begin(), d.end(), [] __device__(int) { __trap(); });
    } catch (const thrust::system_error &e) {
        std::printf("thrust_basics failing-functor: %s\n", e.what());
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1) return std::strcmp(argv[1], "failing-functor") == 0 ? failing_functor() : 2;
    saxpy();
    sort_reduce_1m();
    zip_dot();
    by_key();
    scans_and_compaction();
    iterators_and_pointers();
    random_points();
    CK(cudaDeviceSynchronize());
    return test_exit("thrust_basics");
}
