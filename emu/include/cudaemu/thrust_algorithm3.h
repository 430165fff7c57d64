/* emu/include/cudaemu/thrust_algorithm3.h - the CUDA host emulator's Thrust
 * subset, algorithms continued (included by thrust_algorithm2.h; the rules of
 * thrust_algorithm.h): merge and the set operations on sorted ranges (and
 * their _by_key forms), partitions, the scans by key, the transform scans,
 * unique_by_key (emu/README.md, "Thrust and CUB"). */
#pragma once

namespace thrust {
/* ---- merge and the set operations: one walk of two sorted ranges ------------ */
namespace detail {
enum class set_kind { merge, set_union, set_intersection, set_difference, set_symmetric_difference };

/* Walks sorted [a, al) and [b, bl) as std::merge and std::set_* do (equivalent
 * elements: merge and union keep a's first, intersection a's, union then the
 * surplus of b's); writes the kept keys to ko and, with values, the values
 * of the range each key came from (va, vb) to vo; the count written. */
template <bool WithValues, class A, class B, class VA, class VB, class KO, class VO, class Cmp>
diff_of<A> set_walk(set_kind kind, A a, A al, B b, B bl, VA va, VB vb, KO ko, VO vo, Cmp cmp)
{
    diff_of<A> n = 0;
    auto out_a = [&] {
        ko[n] = *a;
        if constexpr (WithValues) vo[n] = *va;
        ++n, ++a, ++va;
    };
    auto out_b = [&] {
        ko[n] = *b;
        if constexpr (WithValues) vo[n] = *vb;
        ++n, ++b, ++vb;
    };
    /* which of an element only in a (only in b) is kept */
    const bool keep_a = kind != set_kind::set_intersection;
    const bool keep_b = kind == set_kind::merge || kind == set_kind::set_union ||
                        kind == set_kind::set_symmetric_difference;
    while (a != al && b != bl) {
        if (cmp(*a, *b)) {
            if (keep_a) out_a();
            else ++a, ++va;
        } else if (cmp(*b, *a)) {
            if (keep_b) out_b();
            else ++b, ++vb;
        } else if (kind == set_kind::merge) {
            out_a(); /* b's equivalent follows */
        } else {
            if (kind == set_kind::set_union || kind == set_kind::set_intersection) out_a();
            else ++a, ++va;
            ++b, ++vb;
        }
    }
    while (keep_a && a != al) out_a();
    while (keep_b && b != bl) out_b();
    return n;
}

template <bool WithValues, class P, class A, class B, class VA, class VB, class KO, class VO, class Cmp>
diff_of<A> set_run(const P &p, const char *what, set_kind kind, A f1, A l1, B f2, B l2, VA v1, VB v2,
                   KO kr, VO vr, Cmp cmp)
{
    auto a = lower(f1), al = lower(l1);
    auto b = lower(f2), bl = lower(l2);
    auto va = lower(v1);
    auto vb = lower(v2);
    auto ko = lower(kr);
    auto vo = lower(vr);
    diff_of<A> n = 0;
    run(p, what, [=, &n] { n = set_walk<WithValues>(kind, a, al, b, bl, va, vb, ko, vo, cmp); });
    return n;
}
} // namespace detail

/* merge, set_union, ...: (policy,) first1, last1, first2, last2, result (, comp) */
#define CUDAEMU_THRUST_SET(name)                                                                   \
    template <CUDAEMU_THRUST_P, class A, class B, class O, class Cmp = thrust::less<>>             \
    O name(const P &p, A first1, A last1, B first2, B last2, O result, Cmp cmp = Cmp())            \
    {                                                                                              \
        return result + detail::set_run<false>(p, "thrust::" #name, detail::set_kind::name,        \
                                               first1, last1, first2, last2, first1, first2,       \
                                               result, result, cmp);                               \
    }                                                                                              \
    template <class A, class B, class O, class... Cmp, CUDAEMU_THRUST_NOT_P(A)>                    \
    O name(A first1, A last1, B first2, B last2, O result, Cmp... cmp)                             \
    {                                                                                              \
        return thrust::name(CUDAEMU_THRUST_POLICY(A, B, O), first1, last1, first2, last2, result,   \
                            cmp...);                                                               \
    }
CUDAEMU_THRUST_SET(merge)
CUDAEMU_THRUST_SET(set_union)
CUDAEMU_THRUST_SET(set_intersection)
CUDAEMU_THRUST_SET(set_difference)
CUDAEMU_THRUST_SET(set_symmetric_difference)
#undef CUDAEMU_THRUST_SET

/* their _by_key forms: (policy,) keys_first1, keys_last1, keys_first2,
 * keys_last2, values_first1, values_first2, keys_result, values_result (, comp);
 * set_intersection_by_key has no values_first2 (its values are range 1's) */
#define CUDAEMU_THRUST_SET_BY_KEY(name, kind)                                                      \
    template <CUDAEMU_THRUST_P, class A, class B, class VA, class VB, class KO, class VO,           \
              class Cmp = thrust::less<>>                                                          \
    thrust::pair<KO, VO> name(const P &p, A kfirst1, A klast1, B kfirst2, B klast2, VA vfirst1,    \
                              VB vfirst2, KO kresult, VO vresult, Cmp cmp = Cmp())                 \
    {                                                                                              \
        const auto n = detail::set_run<true>(p, "thrust::" #name, detail::set_kind::kind, kfirst1, \
                                             klast1, kfirst2, klast2, vfirst1, vfirst2, kresult,   \
                                             vresult, cmp);                                        \
        return thrust::pair<KO, VO>(kresult + n, vresult + n);                                     \
    }                                                                                              \
    template <class A, class B, class VA, class VB, class KO, class VO, class... Cmp,              \
              CUDAEMU_THRUST_NOT_P(A)>                                                             \
    thrust::pair<KO, VO> name(A kfirst1, A klast1, B kfirst2, B klast2, VA vfirst1, VB vfirst2,    \
                              KO kresult, VO vresult, Cmp... cmp)                                  \
    {                                                                                              \
        return thrust::name(CUDAEMU_THRUST_POLICY(A, B, VA, VB, KO, VO), kfirst1, klast1, kfirst2, \
                            klast2, vfirst1, vfirst2, kresult, vresult, cmp...);                   \
    }
CUDAEMU_THRUST_SET_BY_KEY(merge_by_key, merge)
CUDAEMU_THRUST_SET_BY_KEY(set_union_by_key, set_union)
CUDAEMU_THRUST_SET_BY_KEY(set_difference_by_key, set_difference)
CUDAEMU_THRUST_SET_BY_KEY(set_symmetric_difference_by_key, set_symmetric_difference)
#undef CUDAEMU_THRUST_SET_BY_KEY
template <CUDAEMU_THRUST_P, class A, class B, class VA, class KO, class VO, class Cmp = thrust::less<>>
thrust::pair<KO, VO> set_intersection_by_key(const P &p, A kfirst1, A klast1, B kfirst2, B klast2,
                                             VA vfirst1, KO kresult, VO vresult, Cmp cmp = Cmp())
{
    const auto n = detail::set_run<true>(p, "thrust::set_intersection_by_key",
                                         detail::set_kind::set_intersection, kfirst1, klast1,
                                         kfirst2, klast2, vfirst1, vfirst1, kresult, vresult, cmp);
    return thrust::pair<KO, VO>(kresult + n, vresult + n);
}
template <class A, class B, class VA, class KO, class VO, class... Cmp, CUDAEMU_THRUST_NOT_P(A)>
thrust::pair<KO, VO> set_intersection_by_key(A kfirst1, A klast1, B kfirst2, B klast2, VA vfirst1,
                                             KO kresult, VO vresult, Cmp... cmp)
{
    return thrust::set_intersection_by_key(CUDAEMU_THRUST_POLICY(A, B, VA, KO, VO), kfirst1, klast1,
                                           kfirst2, klast2, vfirst1, kresult, vresult, cmp...);
}

/* ---- partitions (all stable: Thrust's partition may be, and this one is) ---- */
namespace detail {
/* the elements of [f, l) whose stencil s passes pred, then the others, in
 * their order, to yes and no; the count of the first */
template <class In, class S, class Yes, class No, class Pred>
diff_of<In> partition_to(In f, In l, S s, Yes yes, No no, Pred pred)
{
    diff_of<In> ny = 0, nn = 0;
    for (auto i = f; i != l; ++i, ++s) {
        if (pred(*s)) yes[ny++] = *i;
        else no[nn++] = *i;
    }
    return ny;
}
} // namespace detail
template <CUDAEMU_THRUST_P, class It, class S, class Pred>
It stable_partition(const P &p, It first, It last, S stencil, Pred pred)
{
    auto f = detail::lower(first), l = detail::lower(last);
    auto s = detail::lower(stencil);
    detail::diff_of<It> k = 0;
    detail::run(p, "thrust::partition", [=, &k] {
        std::vector<detail::value_of<decltype(f)>> yes(l - f), no(l - f);
        k = detail::partition_to(f, l, s, yes.begin(), no.begin(), pred);
        std::copy(no.begin(), no.begin() + ((l - f) - k), std::copy(yes.begin(), yes.begin() + k, f));
    });
    return first + k;
}
template <CUDAEMU_THRUST_P, class It, class Pred> It stable_partition(const P &p, It first, It last, Pred pred)
{
    return thrust::stable_partition(p, first, last, first, pred);
}
template <class It, class... A, CUDAEMU_THRUST_NOT_P(It)> It stable_partition(It first, It last, A... a)
{
    return thrust::stable_partition(CUDAEMU_THRUST_POLICY(It, A...), first, last, a...);
}
template <class... A> auto partition(A... a) { return thrust::stable_partition(a...); }

template <CUDAEMU_THRUST_P, class In, class S, class Yes, class No, class Pred>
thrust::pair<Yes, No> stable_partition_copy(const P &p, In first, In last, S stencil, Yes out_true,
                                            No out_false, Pred pred)
{
    auto f = detail::lower(first), l = detail::lower(last);
    auto s = detail::lower(stencil);
    auto y = detail::lower(out_true);
    auto o = detail::lower(out_false);
    detail::diff_of<In> k = 0;
    detail::run(p, "thrust::partition_copy", [=, &k] { k = detail::partition_to(f, l, s, y, o, pred); });
    return thrust::pair<Yes, No>(out_true + k, out_false + ((last - first) - k));
}
template <CUDAEMU_THRUST_P, class In, class Yes, class No, class Pred>
thrust::pair<Yes, No> stable_partition_copy(const P &p, In first, In last, Yes out_true, No out_false, Pred pred)
{
    return thrust::stable_partition_copy(p, first, last, first, out_true, out_false, pred);
}
template <class In, class... A, CUDAEMU_THRUST_NOT_P(In)> auto stable_partition_copy(In first, In last, A... a)
{
    return thrust::stable_partition_copy(CUDAEMU_THRUST_POLICY(In, A...), first, last, a...);
}
template <class... A> auto partition_copy(A... a) { return thrust::stable_partition_copy(a...); }

/* of a partitioned range: its first element that fails pred */
template <CUDAEMU_THRUST_P, class It, class Pred> It partition_point(const P &p, It first, It last, Pred pred)
{
    return thrust::find_if_not(p, first, last, pred);
}
template <class It, class Pred, CUDAEMU_THRUST_NOT_P(It)> It partition_point(It first, It last, Pred pred)
{
    return thrust::partition_point(CUDAEMU_THRUST_POLICY(It), first, last, pred);
}
template <CUDAEMU_THRUST_P, class It, class Pred> bool is_partitioned(const P &p, It first, It last, Pred pred)
{
    auto f = detail::lower(first), l = detail::lower(last);
    bool r = false;
    detail::run(p, "thrust::is_partitioned", [=, &r] { r = std::is_partitioned(f, l, pred); });
    return r;
}
template <class It, class Pred, CUDAEMU_THRUST_NOT_P(It)> bool is_partitioned(It first, It last, Pred pred)
{
    return thrust::is_partitioned(CUDAEMU_THRUST_POLICY(It), first, last, pred);
}

/* ---- scans by key: a scan that restarts where eq(previous key, key) fails
 *      (in place allowed: each value is read before its result is written) ---- */
namespace detail {
template <class K, class V, class O, class T, class Eq, class Op>
void scan_by_key_lowered(K k, K kl, V v, O o, bool inclusive, T init, Eq eq, Op op)
{
    T acc = init;
    for (diff_of<K> i = 0, n = kl - k; i < n; ++i) {
        const bool head = i == 0 || !eq(k[i - 1], k[i]);
        const T x = v[i];
        if (inclusive) {
            acc = head ? x : op(acc, x);
            o[i] = acc;
        } else {
            if (head) acc = init;
            o[i] = acc;
            acc = op(acc, x);
        }
    }
}
} // namespace detail
template <CUDAEMU_THRUST_P, class K, class V, class O, class Eq = thrust::equal_to<>, class Op = thrust::plus<>>
O inclusive_scan_by_key(const P &p, K kfirst, K klast, V vfirst, O result, Eq eq = Eq(), Op op = Op())
{
    auto v = detail::lower(vfirst);
    auto o = detail::lower(result);
    return detail::run_to(p, "thrust::inclusive_scan_by_key", kfirst, klast, result, [=](auto k, auto kl, auto) {
        detail::scan_by_key_lowered(k, kl, v, o, true, detail::value_of<V>(), eq, op);
    });
}
template <class K, class V, class O, class... A, CUDAEMU_THRUST_NOT_P(K)>
O inclusive_scan_by_key(K kfirst, K klast, V vfirst, O result, A... eq_op)
{
    return thrust::inclusive_scan_by_key(CUDAEMU_THRUST_POLICY(K, V, O), kfirst, klast, vfirst, result, eq_op...);
}
template <CUDAEMU_THRUST_P, class K, class V, class O, class T = detail::value_of<V>,
          class Eq = thrust::equal_to<>, class Op = thrust::plus<>>
O exclusive_scan_by_key(const P &p, K kfirst, K klast, V vfirst, O result, T init = T(0), Eq eq = Eq(), Op op = Op())
{
    auto v = detail::lower(vfirst);
    auto o = detail::lower(result);
    return detail::run_to(p, "thrust::exclusive_scan_by_key", kfirst, klast, result, [=](auto k, auto kl, auto) {
        detail::scan_by_key_lowered(k, kl, v, o, false, init, eq, op);
    });
}
template <class K, class V, class O, class... A, CUDAEMU_THRUST_NOT_P(K)>
O exclusive_scan_by_key(K kfirst, K klast, V vfirst, O result, A... init_eq_op)
{
    return thrust::exclusive_scan_by_key(CUDAEMU_THRUST_POLICY(K, V, O), kfirst, klast, vfirst, result, init_eq_op...);
}

/* ---- transform scans: Thrust's argument order (unary before init, binary) ---- */
template <CUDAEMU_THRUST_P, class In, class Out, class U, class B>
Out transform_inclusive_scan(const P &p, In first, In last, Out result, U unary, B binary)
{
    return detail::run_to(p, "thrust::transform_inclusive_scan", first, last, result,
                          [=](auto f, auto l, auto o) { std::transform_inclusive_scan(f, l, o, binary, unary); });
}
template <class In, class Out, class U, class B, CUDAEMU_THRUST_NOT_P(In)>
Out transform_inclusive_scan(In first, In last, Out result, U unary, B binary)
{
    return thrust::transform_inclusive_scan(CUDAEMU_THRUST_POLICY(In, Out), first, last, result, unary, binary);
}
template <CUDAEMU_THRUST_P, class In, class Out, class U, class T, class B>
Out transform_exclusive_scan(const P &p, In first, In last, Out result, U unary, T init, B binary)
{
    return detail::run_to(p, "thrust::transform_exclusive_scan", first, last, result,
                          [=](auto f, auto l, auto o) { std::transform_exclusive_scan(f, l, o, init, binary, unary); });
}
template <class In, class Out, class U, class T, class B, CUDAEMU_THRUST_NOT_P(In)>
Out transform_exclusive_scan(In first, In last, Out result, U unary, T init, B binary)
{
    return thrust::transform_exclusive_scan(CUDAEMU_THRUST_POLICY(In, Out), first, last, result, unary, init, binary);
}

/* ---- unique_by_key(_copy): the first key of each run of equal keys, and its value ---- */
namespace detail {
template <class K, class V, class KO, class VO, class Eq>
diff_of<K> unique_by_key_lowered(K k, K kl, V v, KO ko, VO vo, Eq eq)
{
    diff_of<K> r = 0;
    for (diff_of<K> i = 0, n = kl - k; i < n; ++i)
        if (i == 0 || !eq(ko[r - 1], k[i])) { /* ko[r - 1]: the run's first key, as Thrust */
            ko[r] = k[i];
            vo[r] = v[i];
            ++r;
        }
    return r;
}
} // namespace detail
template <CUDAEMU_THRUST_P, class K, class V, class KO, class VO, class Eq = thrust::equal_to<>>
thrust::pair<KO, VO> unique_by_key_copy(const P &p, K kfirst, K klast, V vfirst, KO kresult, VO vresult, Eq eq = Eq())
{
    auto k = detail::lower(kfirst), kl = detail::lower(klast);
    auto v = detail::lower(vfirst);
    auto ko = detail::lower(kresult);
    auto vo = detail::lower(vresult);
    detail::diff_of<K> r = 0;
    detail::run(p, "thrust::unique_by_key", [=, &r] { r = detail::unique_by_key_lowered(k, kl, v, ko, vo, eq); });
    return thrust::pair<KO, VO>(kresult + r, vresult + r);
}
template <class K, class V, class KO, class VO, class... Eq, CUDAEMU_THRUST_NOT_P(K)>
thrust::pair<KO, VO> unique_by_key_copy(K kfirst, K klast, V vfirst, KO kresult, VO vresult, Eq... eq)
{
    return thrust::unique_by_key_copy(CUDAEMU_THRUST_POLICY(K, V, KO, VO), kfirst, klast, vfirst, kresult, vresult, eq...);
}
/* in place: the output never overtakes the input (r <= i) */
template <CUDAEMU_THRUST_P, class K, class V, class Eq = thrust::equal_to<>>
thrust::pair<K, V> unique_by_key(const P &p, K kfirst, K klast, V vfirst, Eq eq = Eq())
{
    return thrust::unique_by_key_copy(p, kfirst, klast, vfirst, kfirst, vfirst, eq);
}
template <class K, class V, class... Eq, CUDAEMU_THRUST_NOT_P(K)>
thrust::pair<K, V> unique_by_key(K kfirst, K klast, V vfirst, Eq... eq)
{
    return thrust::unique_by_key(CUDAEMU_THRUST_POLICY(K, V), kfirst, klast, vfirst, eq...);
}
} // namespace thrust
