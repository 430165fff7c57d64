/* emu/tests/thrust_more.cu - the CUDA host emulator's Thrust subset, the
 * algorithms of cudaemu/thrust_algorithm3.h: merge and the set operations
 * (and _by_key), partitions, scans by key, transform scans, unique_by_key,
 * on device_vectors (the device policy), on host arrays (thrust::host) and
 * on a stream (thrust::cuda::par.on).  Every result is checked against the
 * standard library's algorithm on host copies (the by_key forms as the std
 * algorithm on (key, value) pairs compared by key alone). */
#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/merge.h>
#include <thrust/partition.h>
#include <thrust/scan.h>
#include <thrust/set_operations.h>
#include <thrust/sort.h>
#include <thrust/transform_scan.h>
#include <thrust/unique.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <utility>
#include <vector>

#include "test_util.h"

typedef std::pair<int, int> KV;

static unsigned g_lcg = 2024u;
static int next_int(int m) { return (int)((g_lcg = g_lcg * 1664525u + 1013904223u) >> 8) % m; }

/* n sorted keys in [0, m) (with repeats) */
static std::vector<int> sorted_keys(int n, int m)
{
    std::vector<int> v(n);
    for (int &x : v) x = next_int(m);
    std::sort(v.begin(), v.end());
    return v;
}

template <class T> static std::vector<T> host(const thrust::device_vector<T> &d, size_t n)
{
    thrust::host_vector<T> h(d.begin(), d.begin() + n);
    return std::vector<T>(h.begin(), h.end());
}

struct by_key {
    bool operator()(const KV &a, const KV &b) const { return a.first < b.first; }
};
struct is_even {
    __host__ __device__ bool operator()(int x) const { return x % 2 == 0; }
};
struct negate_int {
    __host__ __device__ int operator()(int x) const { return -x; }
};
struct same_tens { /* keys equal when they have the same tens */
    __host__ __device__ bool operator()(int a, int b) const { return a / 10 == b / 10; }
};

enum Op { MERGE, UNION, INTERSECTION, DIFFERENCE, SYMMETRIC, N_OPS };
static const char *op_name[N_OPS] = {"merge", "set_union", "set_intersection", "set_difference",
                                     "set_symmetric_difference"};

/* the standard library's answer, on (key, value) pairs compared by key */
static std::vector<KV> std_set(Op op, const std::vector<KV> &a, const std::vector<KV> &b)
{
    std::vector<KV> r(a.size() + b.size());
    auto o = r.begin();
    switch (op) {
    case MERGE: o = std::merge(a.begin(), a.end(), b.begin(), b.end(), o, by_key()); break;
    case UNION: o = std::set_union(a.begin(), a.end(), b.begin(), b.end(), o, by_key()); break;
    case INTERSECTION: o = std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), o, by_key()); break;
    case DIFFERENCE: o = std::set_difference(a.begin(), a.end(), b.begin(), b.end(), o, by_key()); break;
    default: o = std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), o, by_key()); break;
    }
    r.erase(o, r.end());
    return r;
}

static void set_operations()
{
    const std::vector<int> ka = sorted_keys(1000, 300), kb = sorted_keys(700, 300);
    std::vector<int> va(ka.size()), vb(kb.size());
    std::iota(va.begin(), va.end(), 0);      /* a's values: 0, 1, ... */
    std::iota(vb.begin(), vb.end(), 100000); /* b's: 100000, ...: the origin shows */
    std::vector<KV> pa, pb;
    for (size_t i = 0; i < ka.size(); i++) pa.push_back(KV(ka[i], va[i]));
    for (size_t i = 0; i < kb.size(); i++) pb.push_back(KV(kb[i], vb[i]));
    thrust::device_vector<int> dka(ka.begin(), ka.end()), dkb(kb.begin(), kb.end());
    thrust::device_vector<int> dva(va.begin(), va.end()), dvb(vb.begin(), vb.end());
    thrust::device_vector<int> ko(ka.size() + kb.size()), vo(ka.size() + kb.size());
    for (int op = 0; op < N_OPS; op++) {
        const std::vector<KV> want = std_set((Op)op, pa, pb);
        /* keys alone, without a policy (device_vectors: the device) */
        thrust::device_vector<int>::iterator end;
        switch (op) {
        case MERGE: end = thrust::merge(dka.begin(), dka.end(), dkb.begin(), dkb.end(), ko.begin()); break;
        case UNION: end = thrust::set_union(dka.begin(), dka.end(), dkb.begin(), dkb.end(), ko.begin()); break;
        case INTERSECTION:
            end = thrust::set_intersection(dka.begin(), dka.end(), dkb.begin(), dkb.end(), ko.begin());
            break;
        case DIFFERENCE:
            end = thrust::set_difference(dka.begin(), dka.end(), dkb.begin(), dkb.end(), ko.begin());
            break;
        default:
            end = thrust::set_symmetric_difference(dka.begin(), dka.end(), dkb.begin(), dkb.end(), ko.begin());
        }
        const std::vector<int> got = host(ko, end - ko.begin());
        std::vector<int> want_keys;
        for (const KV &kv : want) want_keys.push_back(kv.first);
        if (got != want_keys) {
            std::fprintf(stderr, "%s: %zu keys, want %zu\n", op_name[op], got.size(), want_keys.size());
            CHECK(got == want_keys);
        }
        /* by key, with the device policy and a comparator */
        thrust::pair<thrust::device_vector<int>::iterator, thrust::device_vector<int>::iterator> e;
        const thrust::less<int> lt;
        switch (op) {
        case MERGE:
            e = thrust::merge_by_key(thrust::device, dka.begin(), dka.end(), dkb.begin(), dkb.end(),
                                     dva.begin(), dvb.begin(), ko.begin(), vo.begin(), lt);
            break;
        case UNION:
            e = thrust::set_union_by_key(thrust::device, dka.begin(), dka.end(), dkb.begin(), dkb.end(),
                                         dva.begin(), dvb.begin(), ko.begin(), vo.begin(), lt);
            break;
        case INTERSECTION:
            e = thrust::set_intersection_by_key(thrust::device, dka.begin(), dka.end(), dkb.begin(),
                                                dkb.end(), dva.begin(), ko.begin(), vo.begin(), lt);
            break;
        case DIFFERENCE:
            e = thrust::set_difference_by_key(thrust::device, dka.begin(), dka.end(), dkb.begin(), dkb.end(),
                                              dva.begin(), dvb.begin(), ko.begin(), vo.begin(), lt);
            break;
        default:
            e = thrust::set_symmetric_difference_by_key(thrust::device, dka.begin(), dka.end(), dkb.begin(),
                                                        dkb.end(), dva.begin(), dvb.begin(), ko.begin(),
                                                        vo.begin(), lt);
        }
        CHECK_EQ_INT(e.first - ko.begin(), (long long)want.size());
        CHECK_EQ_INT(e.second - vo.begin(), (long long)want.size());
        const std::vector<int> gk = host(ko, want.size()), gv = host(vo, want.size());
        int bad = 0;
        for (size_t i = 0; i < want.size(); i++) bad += gk[i] != want[i].first || gv[i] != want[i].second;
        if (bad) std::fprintf(stderr, "%s_by_key: %d of %zu differ\n", op_name[op], bad, want.size());
        CHECK_EQ_INT(bad, 0);
    }
    /* thrust::host on plain arrays */
    std::vector<int> out(ka.size() + kb.size());
    int *o = thrust::set_union(thrust::host, ka.data(), ka.data() + ka.size(), kb.data(),
                               kb.data() + kb.size(), out.data());
    std::vector<int> want(ka.size() + kb.size());
    want.erase(std::set_union(ka.begin(), ka.end(), kb.begin(), kb.end(), want.begin()), want.end());
    CHECK(std::vector<int>(out.data(), o) == want);
}

static void partitions(cudaStream_t st)
{
    const int n = 1001;
    std::vector<int> v(n), s(n);
    for (int i = 0; i < n; i++) v[i] = next_int(1000), s[i] = next_int(7);
    const thrust::device_vector<int> dv0(v.begin(), v.end()), ds(s.begin(), s.end());
    const long long evens = std::count_if(v.begin(), v.end(), is_even());

    /* stable_partition: std's order */
    thrust::device_vector<int> d = dv0;
    auto mid = thrust::stable_partition(d.begin(), d.end(), is_even());
    std::vector<int> want = v;
    std::stable_partition(want.begin(), want.end(), is_even());
    CHECK_EQ_INT(mid - d.begin(), evens);
    CHECK(host(d, n) == want);
    CHECK(thrust::is_partitioned(d.begin(), d.end(), is_even()));
    CHECK_EQ_INT(thrust::partition_point(d.begin(), d.end(), is_even()) - d.begin(), evens);
    CHECK(!thrust::is_partitioned(dv0.begin(), dv0.end(), is_even()));

    /* partition on a stream: partitioned, the same elements */
    d = dv0;
    mid = thrust::partition(thrust::cuda::par.on(st), d.begin(), d.end(), is_even());
    CHECK_EQ_INT(mid - d.begin(), evens);
    std::vector<int> got = host(d, n);
    CHECK(std::is_partitioned(got.begin(), got.end(), is_even()));
    std::vector<int> a = got, b = v;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    CHECK(a == b);

    /* with a stencil: v[i] first where s[i] is even */
    d = dv0;
    mid = thrust::stable_partition(thrust::device, d.begin(), d.end(), ds.begin(), is_even());
    std::vector<int> yes, no;
    for (int i = 0; i < n; i++) (s[i] % 2 == 0 ? yes : no).push_back(v[i]);
    CHECK_EQ_INT(mid - d.begin(), (long long)yes.size());
    yes.insert(yes.end(), no.begin(), no.end());
    CHECK(host(d, n) == yes);

    /* partition_copy: std::partition_copy's two outputs */
    thrust::device_vector<int> t(n), f(n);
    auto ends = thrust::partition_copy(dv0.begin(), dv0.end(), t.begin(), f.begin(), is_even());
    std::vector<int> wt(n), wf(n);
    auto we = std::partition_copy(v.begin(), v.end(), wt.begin(), wf.begin(), is_even());
    CHECK_EQ_INT(ends.first - t.begin(), we.first - wt.begin());
    CHECK_EQ_INT(ends.second - f.begin(), we.second - wf.begin());
    CHECK(host(t, ends.first - t.begin()) == std::vector<int>(wt.begin(), we.first));
    CHECK(host(f, ends.second - f.begin()) == std::vector<int>(wf.begin(), we.second));
}

/* std's inclusive (exclusive) scan on each run of keys equal by eq */
template <class Eq>
static std::vector<int> std_scan_by_key(const std::vector<int> &k, const std::vector<int> &v, bool incl,
                                        int init, Eq eq)
{
    std::vector<int> r(v.size());
    for (size_t i = 0; i < k.size();) {
        size_t j = i + 1;
        while (j < k.size() && eq(k[j - 1], k[j])) j++;
        if (incl) std::inclusive_scan(v.begin() + i, v.begin() + j, r.begin() + i);
        else std::exclusive_scan(v.begin() + i, v.begin() + j, r.begin() + i, init);
        i = j;
    }
    return r;
}

static void scans()
{
    const int n = 777;
    std::vector<int> k(n), v(n);
    for (int i = 0, key = 0; i < n; i++) {
        if (next_int(5) == 0) key += 1 + next_int(20); /* runs of keys, some adjacent tens */
        k[i] = key;
        v[i] = next_int(100) - 50;
    }
    const thrust::device_vector<int> dk(k.begin(), k.end()), dv(v.begin(), v.end());
    thrust::device_vector<int> o(n);
    const thrust::equal_to<int> eq;

    auto e = thrust::inclusive_scan_by_key(dk.begin(), dk.end(), dv.begin(), o.begin());
    CHECK_EQ_INT(e - o.begin(), n);
    CHECK(host(o, n) == std_scan_by_key(k, v, true, 0, eq));
    thrust::exclusive_scan_by_key(dk.begin(), dk.end(), dv.begin(), o.begin());
    CHECK(host(o, n) == std_scan_by_key(k, v, false, 0, eq));
    thrust::exclusive_scan_by_key(thrust::device, dk.begin(), dk.end(), dv.begin(), o.begin(), 7);
    CHECK(host(o, n) == std_scan_by_key(k, v, false, 7, eq));
    /* another key equality, in place */
    thrust::device_vector<int> w = dv;
    thrust::inclusive_scan_by_key(thrust::device, dk.begin(), dk.end(), w.begin(), w.begin(), same_tens(),
                                  thrust::plus<int>());
    CHECK(host(w, n) == std_scan_by_key(k, v, true, 0, same_tens()));
    w = dv;
    thrust::exclusive_scan_by_key(dk.begin(), dk.end(), w.begin(), w.begin(), -3, same_tens(), thrust::plus<int>());
    CHECK(host(w, n) == std_scan_by_key(k, v, false, -3, same_tens()));

    /* transform scans: Thrust's argument order, std's values */
    std::vector<int> want(n);
    e = thrust::transform_inclusive_scan(dv.begin(), dv.end(), o.begin(), negate_int(), thrust::plus<int>());
    CHECK_EQ_INT(e - o.begin(), n);
    std::transform_inclusive_scan(v.begin(), v.end(), want.begin(), std::plus<int>(), negate_int());
    CHECK(host(o, n) == want);
    thrust::transform_exclusive_scan(thrust::device, dv.begin(), dv.end(), o.begin(), negate_int(), 11,
                                     thrust::plus<int>());
    std::transform_exclusive_scan(v.begin(), v.end(), want.begin(), 11, std::plus<int>(), negate_int());
    CHECK(host(o, n) == want);

    /* unique_by_key(_copy): std::unique on pairs equal by key */
    std::vector<KV> pairs;
    for (int i = 0; i < n; i++) pairs.push_back(KV(k[i], v[i]));
    pairs.erase(std::unique(pairs.begin(), pairs.end(),
                            [](const KV &a, const KV &b) { return a.first == b.first; }),
                pairs.end());
    thrust::device_vector<int> uk = dk, uv = dv;
    auto u = thrust::unique_by_key(uk.begin(), uk.end(), uv.begin());
    CHECK_EQ_INT(u.first - uk.begin(), (long long)pairs.size());
    CHECK_EQ_INT(u.second - uv.begin(), (long long)pairs.size());
    std::vector<int> gk = host(uk, pairs.size()), gv = host(uv, pairs.size());
    int bad = 0;
    for (size_t i = 0; i < pairs.size(); i++) bad += gk[i] != pairs[i].first || gv[i] != pairs[i].second;
    CHECK_EQ_INT(bad, 0);
    std::vector<int> hk(n), hv(n);
    auto hu = thrust::unique_by_key_copy(thrust::host, k.data(), k.data() + n, v.data(), hk.data(), hv.data());
    CHECK_EQ_INT(hu.first - hk.data(), (long long)pairs.size());
    bad = 0;
    for (size_t i = 0; i < pairs.size(); i++) bad += hk[i] != pairs[i].first || hv[i] != pairs[i].second;
    CHECK_EQ_INT(bad, 0);
}

int main()
{
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    set_operations();
    partitions(st);
    scans();
    CK(cudaStreamDestroy(st));
    return test_exit("thrust_more");
}
