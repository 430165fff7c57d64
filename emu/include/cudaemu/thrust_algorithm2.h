/* emu/include/cudaemu/thrust_algorithm2.h - the CUDA host emulator's Thrust
 * subset, algorithms continued (included by thrust_algorithm.h, whose rules
 * they follow): searching, extrema, sorting, scans, compaction, gather and
 * scatter, reduce_by_key, adjacent_difference, vectorized bounds
 * (emu/README.md, "Thrust and CUB"). */
#pragma once

namespace thrust {
/* ---- searching and extrema --------------------------------------------------- */
template <CUDAEMU_THRUST_P, class It, class Pred> It find_if(const P &p, It first, It last, Pred pred)
{
    auto f = detail::lower(first), l = detail::lower(last);
    detail::diff_of<It> k = 0;
    detail::run(p, "thrust::find_if", [=, &k] { k = std::find_if(f, l, pred) - f; });
    return first + k;
}
template <class It, class Pred, CUDAEMU_THRUST_NOT_P(It)> It find_if(It first, It last, Pred pred)
{
    return thrust::find_if(CUDAEMU_THRUST_POLICY(It), first, last, pred);
}
template <CUDAEMU_THRUST_P, class It, class Pred> It find_if_not(const P &p, It first, It last, Pred pred)
{
    return thrust::find_if(p, first, last, [pred](const auto &x) { return !pred(x); });
}
template <class It, class Pred, CUDAEMU_THRUST_NOT_P(It)> It find_if_not(It first, It last, Pred pred)
{
    return thrust::find_if_not(CUDAEMU_THRUST_POLICY(It), first, last, pred);
}
template <CUDAEMU_THRUST_P, class It, class T> It find(const P &p, It first, It last, const T &v)
{
    return thrust::find_if(p, first, last, [v](const auto &x) { return x == v; });
}
template <class It, class T, CUDAEMU_THRUST_NOT_P(It)> It find(It first, It last, const T &v)
{
    return thrust::find(CUDAEMU_THRUST_POLICY(It), first, last, v);
}

template <CUDAEMU_THRUST_P, class It, class Cmp = thrust::less<>>
thrust::pair<It, It> minmax_element(const P &p, It first, It last, Cmp cmp = Cmp())
{
    auto f = detail::lower(first), l = detail::lower(last);
    detail::diff_of<It> lo = 0, hi = 0;
    detail::run(p, "thrust::minmax_element", [=, &lo, &hi] {
        /* the first smallest and, as Thrust's (not std's), the first largest */
        auto a = std::min_element(f, l, cmp), b = std::max_element(f, l, cmp);
        lo = a - f;
        hi = b - f;
    });
    return thrust::pair<It, It>(first + lo, first + hi);
}
template <class It, class... Cmp, CUDAEMU_THRUST_NOT_P(It)> thrust::pair<It, It> minmax_element(It first, It last, Cmp... cmp)
{
    return thrust::minmax_element(CUDAEMU_THRUST_POLICY(It), first, last, cmp...);
}
template <class... A> auto min_element(A... a) { return thrust::minmax_element(a...).first; }
template <class... A> auto max_element(A... a) { return thrust::minmax_element(a...).second; }

/* ---- sorting: by a stable sort of indices (so a zip of device ranges sorts
 *      too), or by std::sort/std::stable_sort of a plain array's keys ---------- */
namespace detail {
template <class K, class V, class Cmp>
void sort_by_key_lowered(K k, K kl, V v, bool has_values, Cmp cmp, bool stable = true)
{
    const std::size_t n = static_cast<std::size_t>(kl - k);
    if constexpr (std::is_pointer<K>::value) {
        if (!has_values && stable) { std::stable_sort(k, kl, cmp); return; }
        if (!has_values) { std::sort(k, kl, cmp); return; } /* thrust::sort is not stable either */
    }
    std::vector<std::size_t> idx(n);
    std::iota(idx.begin(), idx.end(), std::size_t(0));
    std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return cmp(k[a], k[b]); });
    std::vector<value_of<K>> ks;
    ks.reserve(n);
    for (std::size_t i = 0; i < n; ++i) ks.push_back(k[idx[i]]);
    if (has_values) {
        std::vector<value_of<V>> vs;
        vs.reserve(n);
        for (std::size_t i = 0; i < n; ++i) vs.push_back(v[idx[i]]);
        for (std::size_t i = 0; i < n; ++i) v[i] = vs[i];
    }
    for (std::size_t i = 0; i < n; ++i) k[i] = ks[i];
}
} // namespace detail
template <CUDAEMU_THRUST_P, class K, class V, class Cmp = thrust::less<>>
void stable_sort_by_key(const P &p, K kfirst, K klast, V vfirst, Cmp cmp = Cmp())
{
    auto k = detail::lower(kfirst), kl = detail::lower(klast);
    auto v = detail::lower(vfirst);
    detail::run(p, "thrust::sort_by_key", [=] { detail::sort_by_key_lowered(k, kl, v, true, cmp); });
}
template <class K, class V, class... Cmp, CUDAEMU_THRUST_NOT_P(K)>
void stable_sort_by_key(K kfirst, K klast, V vfirst, Cmp... cmp)
{
    thrust::stable_sort_by_key(CUDAEMU_THRUST_POLICY(K, V), kfirst, klast, vfirst, cmp...);
}
template <class... A> void sort_by_key(A... a) { thrust::stable_sort_by_key(a...); }

template <CUDAEMU_THRUST_P, class It, class Cmp = thrust::less<>>
void stable_sort(const P &p, It first, It last, Cmp cmp = Cmp())
{
    auto k = detail::lower(first), kl = detail::lower(last);
    detail::run(p, "thrust::sort", [=] { detail::sort_by_key_lowered(k, kl, k, false, cmp); });
}
template <class It, class... Cmp, CUDAEMU_THRUST_NOT_P(It)> void stable_sort(It first, It last, Cmp... cmp)
{
    thrust::stable_sort(CUDAEMU_THRUST_POLICY(It), first, last, cmp...);
}
template <CUDAEMU_THRUST_P, class It, class Cmp = thrust::less<>> void sort(const P &p, It first, It last, Cmp cmp = Cmp())
{
    auto k = detail::lower(first), kl = detail::lower(last);
    detail::run(p, "thrust::sort", [=] { detail::sort_by_key_lowered(k, kl, k, false, cmp, false); });
}
template <class It, class... Cmp, CUDAEMU_THRUST_NOT_P(It)> void sort(It first, It last, Cmp... cmp)
{
    thrust::sort(CUDAEMU_THRUST_POLICY(It), first, last, cmp...);
}

/* ---- scans (in place allowed) ---------------------------------------------------- */
template <CUDAEMU_THRUST_P, class In, class Out, class Op = thrust::plus<>>
Out inclusive_scan(const P &p, In first, In last, Out result, Op op = Op())
{
    return detail::run_to(p, "thrust::inclusive_scan", first, last, result,
                          [op](auto f, auto l, auto o) { std::inclusive_scan(f, l, o, op); });
}
template <class In, class Out, class... Op, CUDAEMU_THRUST_NOT_P(In)>
Out inclusive_scan(In first, In last, Out result, Op... op)
{
    return thrust::inclusive_scan(CUDAEMU_THRUST_POLICY(In, Out), first, last, result, op...);
}
template <CUDAEMU_THRUST_P, class In, class Out, class T = detail::value_of<In>, class Op = thrust::plus<>>
Out exclusive_scan(const P &p, In first, In last, Out result, T init = T(0), Op op = Op())
{
    return detail::run_to(p, "thrust::exclusive_scan", first, last, result,
                          [init, op](auto f, auto l, auto o) { std::exclusive_scan(f, l, o, init, op); });
}
template <class In, class Out, class... A, CUDAEMU_THRUST_NOT_P(In)>
Out exclusive_scan(In first, In last, Out result, A... init_op)
{
    return thrust::exclusive_scan(CUDAEMU_THRUST_POLICY(In, Out), first, last, result, init_op...);
}

/* ---- compaction ------------------------------------------------------------------- */
template <CUDAEMU_THRUST_P, class It, class Pred = thrust::equal_to<>> It unique(const P &p, It first, It last, Pred pred = Pred())
{
    auto f = detail::lower(first), l = detail::lower(last);
    detail::diff_of<It> k = 0;
    detail::run(p, "thrust::unique", [=, &k] { k = std::unique(f, l, pred) - f; });
    return first + k;
}
template <class It, class... Pred, CUDAEMU_THRUST_NOT_P(It)> It unique(It first, It last, Pred... pred)
{
    return thrust::unique(CUDAEMU_THRUST_POLICY(It), first, last, pred...);
}
/* copy_if with a stencil: out gets in[i] where pred(stencil[i]); the count */
namespace detail {
template <class In, class S, class Out, class Pred> diff_of<In> copy_if_lowered(In f, In l, S s, Out o, Pred pred)
{
    diff_of<In> k = 0;
    for (auto i = f; i != l; ++i, ++s)
        if (pred(*s)) o[k++] = *i;
    return k;
}
} // namespace detail
template <CUDAEMU_THRUST_P, class In, class S, class Out, class Pred>
Out copy_if(const P &p, In first, In last, S stencil, Out result, Pred pred)
{
    auto f = detail::lower(first), l = detail::lower(last);
    auto s = detail::lower(stencil);
    auto o = detail::lower(result);
    detail::diff_of<In> k = 0;
    detail::run(p, "thrust::copy_if", [=, &k] { k = detail::copy_if_lowered(f, l, s, o, pred); });
    return result + k;
}
template <CUDAEMU_THRUST_P, class In, class Out, class Pred> Out copy_if(const P &p, In first, In last, Out result, Pred pred)
{
    return thrust::copy_if(p, first, last, first, result, pred);
}
template <class In, class... A, CUDAEMU_THRUST_NOT_P(In)> auto copy_if(In first, In last, A... a)
{
    return thrust::copy_if(CUDAEMU_THRUST_POLICY(In, A...), first, last, a...);
}
/* remove_if (with a stencil too): a stable compaction of what is kept */
template <CUDAEMU_THRUST_P, class It, class S, class Pred> It remove_if(const P &p, It first, It last, S stencil, Pred pred)
{
    auto f = detail::lower(first), l = detail::lower(last);
    auto s = detail::lower(stencil);
    detail::diff_of<It> k = 0;
    detail::run(p, "thrust::remove_if", [=, &k] {
        std::vector<detail::value_of<decltype(f)>> kept;
        auto t = s;
        for (auto i = f; i != l; ++i, ++t)
            if (!pred(*t)) kept.push_back(*i);
        k = std::copy(kept.begin(), kept.end(), f) - f;
    });
    return first + k;
}
template <CUDAEMU_THRUST_P, class It, class Pred> It remove_if(const P &p, It first, It last, Pred pred)
{
    return thrust::remove_if(p, first, last, first, pred);
}
template <class It, class... A, CUDAEMU_THRUST_NOT_P(It)> It remove_if(It first, It last, A... a)
{
    return thrust::remove_if(CUDAEMU_THRUST_POLICY(It), first, last, a...);
}
template <CUDAEMU_THRUST_P, class It, class T> It remove(const P &p, It first, It last, const T &v)
{
    return thrust::remove_if(p, first, last, [v](const auto &x) { return x == v; });
}
template <class It, class T, CUDAEMU_THRUST_NOT_P(It)> It remove(It first, It last, const T &v)
{
    return thrust::remove(CUDAEMU_THRUST_POLICY(It), first, last, v);
}

/* ---- gather, scatter ---------------------------------------------------------------- */
template <CUDAEMU_THRUST_P, class M, class In, class Out> Out gather(const P &p, M map_first, M map_last, In input, Out result)
{
    auto in = detail::lower(input);
    return detail::run_to(p, "thrust::gather", map_first, map_last, result, [in](auto m, auto ml, auto o) {
        for (auto i = m; i != ml; ++i) o[i - m] = in[*i];
    });
}
template <class M, class In, class Out, CUDAEMU_THRUST_NOT_P(M)> Out gather(M map_first, M map_last, In input, Out result)
{
    return thrust::gather(CUDAEMU_THRUST_POLICY(M, In, Out), map_first, map_last, input, result);
}
template <CUDAEMU_THRUST_P, class In, class M, class Out> void scatter(const P &p, In first, In last, M map, Out result)
{
    auto f = detail::lower(first), l = detail::lower(last);
    auto m = detail::lower(map);
    auto o = detail::lower(result);
    detail::run(p, "thrust::scatter", [=] {
        for (auto i = f; i != l; ++i) o[m[i - f]] = *i;
    });
}
template <class In, class M, class Out, CUDAEMU_THRUST_NOT_P(In)> void scatter(In first, In last, M map, Out result)
{
    thrust::scatter(CUDAEMU_THRUST_POLICY(In, M, Out), first, last, map, result);
}

/* ---- reduce_by_key: one output per run of equal consecutive keys --------------- */
template <CUDAEMU_THRUST_P, class K, class V, class KO, class VO, class Eq = thrust::equal_to<>, class Op = thrust::plus<>>
thrust::pair<KO, VO> reduce_by_key(const P &p, K kfirst, K klast, V vfirst, KO kout, VO vout, Eq eq = Eq(), Op op = Op())
{
    auto k = detail::lower(kfirst), kl = detail::lower(klast);
    auto v = detail::lower(vfirst);
    auto ko = detail::lower(kout);
    auto vo = detail::lower(vout);
    detail::diff_of<K> runs = 0;
    detail::run(p, "thrust::reduce_by_key", [=, &runs] {
        const auto n = kl - k;
        detail::diff_of<K> r = 0;
        for (detail::diff_of<K> i = 0; i < n;) {
            detail::value_of<decltype(k)> key = k[i];
            detail::value_of<decltype(v)> acc = v[i];
            for (++i; i < n && eq(key, k[i]); ++i) acc = op(acc, v[i]);
            ko[r] = key;
            vo[r] = acc;
            ++r;
        }
        runs = r;
    });
    return thrust::pair<KO, VO>(kout + runs, vout + runs);
}
template <class K, class V, class KO, class VO, class... A, CUDAEMU_THRUST_NOT_P(K)>
thrust::pair<KO, VO> reduce_by_key(K kfirst, K klast, V vfirst, KO kout, VO vout, A... eq_op)
{
    return thrust::reduce_by_key(CUDAEMU_THRUST_POLICY(K, V, KO, VO), kfirst, klast, vfirst, kout, vout, eq_op...);
}

/* ---- adjacent_difference; lower_bound/upper_bound of many values ---------------- */
template <CUDAEMU_THRUST_P, class In, class Out, class Op = thrust::minus<>>
Out adjacent_difference(const P &p, In first, In last, Out result, Op op = Op())
{
    return detail::run_to(p, "thrust::adjacent_difference", first, last, result,
                          [op](auto f, auto l, auto o) { std::adjacent_difference(f, l, o, op); });
}
template <class In, class Out, class... Op, CUDAEMU_THRUST_NOT_P(In)>
Out adjacent_difference(In first, In last, Out result, Op... op)
{
    return thrust::adjacent_difference(CUDAEMU_THRUST_POLICY(In, Out), first, last, result, op...);
}
#define CUDAEMU_THRUST_BOUND(name)                                                                 \
    template <CUDAEMU_THRUST_P, class It, class VIt, class Out>                                    \
    Out name(const P &p, It first, It last, VIt vfirst, VIt vlast, Out result)                     \
    {                                                                                              \
        auto f = detail::lower(first), l = detail::lower(last);                                    \
        auto vf = detail::lower(vfirst), vl = detail::lower(vlast);                                \
        auto o = detail::lower(result);                                                            \
        detail::run(p, "thrust::" #name, [=] {                                                     \
            for (auto v = vf; v != vl; ++v) o[v - vf] = std::name(f, l, *v) - f;                   \
        });                                                                                        \
        return result + (vlast - vfirst);                                                          \
    }                                                                                              \
    template <class It, class VIt, class Out, CUDAEMU_THRUST_NOT_P(It)>                            \
    Out name(It first, It last, VIt vfirst, VIt vlast, Out result)                                 \
    {                                                                                              \
        return thrust::name(CUDAEMU_THRUST_POLICY(It, VIt, Out), first, last, vfirst, vlast, result); \
    }
CUDAEMU_THRUST_BOUND(lower_bound)
CUDAEMU_THRUST_BOUND(upper_bound)
#undef CUDAEMU_THRUST_BOUND
} // namespace thrust

#include "cudaemu/thrust_algorithm3.h"
