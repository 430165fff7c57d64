/* emu/include/cudaemu/thrust_algorithm.h - the CUDA host emulator's Thrust
 * subset, algorithms.  Each is written once: the form with a policy lowers
 * its iterators and hands the standard library's algorithm to detail::run
 * (thrust_core.h); the form without one takes the policy of its iterators'
 * system (the device if any is a device iterator).  copy between the host
 * and the device goes through a host staging buffer and cudaMemcpy
 * (emu/README.md, "Thrust and CUB"). */
#pragma once

#include "cudaemu/thrust_functional.h"
#include "cudaemu/thrust_iterator.h"

#include <numeric>
#include <vector>

/* P is an execution policy; I (the first argument) is not */
#define CUDAEMU_THRUST_P class P, std::enable_if_t<::thrust::detail::is_policy<P>::value, int> = 0
#define CUDAEMU_THRUST_NOT_P(I) std::enable_if_t<!::thrust::detail::is_policy<I>::value, int> = 0
#define CUDAEMU_THRUST_POLICY(...) ::thrust::detail::policy_for<__VA_ARGS__>()

namespace thrust {
namespace detail {
template <class It> using value_of = typename std::iterator_traits<It>::value_type;
template <class It> using diff_of = typename std::iterator_traits<It>::difference_type;
/* The shape of copy, transform, the scans, adjacent_difference: body(f, l, o)
 * over [first, last) and result, lowered; the end of the output. */
template <class P, class In, class Out, class B>
Out run_to(const P &p, const char *what, In first, In last, Out result, B body)
{
    auto f = lower(first), l = lower(last);
    auto o = lower(result);
    run(p, what, [=] { body(f, l, o); });
    return result + (last - first);
}
} // namespace detail

/* ---- fill, sequence, generate, tabulate, for_each ------------------------- */
template <CUDAEMU_THRUST_P, class It, class T> void fill(const P &p, It first, It last, const T &v)
{
    auto f = detail::lower(first), l = detail::lower(last);
    detail::run(p, "thrust::fill", [=] { std::fill(f, l, v); });
}
template <class It, class T, CUDAEMU_THRUST_NOT_P(It)> void fill(It first, It last, const T &v)
{
    thrust::fill(CUDAEMU_THRUST_POLICY(It), first, last, v);
}
template <CUDAEMU_THRUST_P, class It, class N, class T> It fill_n(const P &p, It first, N n, const T &v)
{
    thrust::fill(p, first, first + n, v);
    return first + n;
}
template <class It, class N, class T, CUDAEMU_THRUST_NOT_P(It)> It fill_n(It first, N n, const T &v)
{
    return thrust::fill_n(CUDAEMU_THRUST_POLICY(It), first, n, v);
}

template <CUDAEMU_THRUST_P, class It, class T>
void sequence(const P &p, It first, It last, T init, T step)
{
    auto f = detail::lower(first), l = detail::lower(last);
    detail::run(p, "thrust::sequence", [=] {
        for (auto i = f; i != l; ++i) *i = init + static_cast<T>(i - f) * step;
    });
}
template <CUDAEMU_THRUST_P, class It, class T> void sequence(const P &p, It first, It last, T init)
{
    thrust::sequence(p, first, last, init, T(1));
}
template <CUDAEMU_THRUST_P, class It> void sequence(const P &p, It first, It last)
{
    thrust::sequence(p, first, last, detail::value_of<It>(0), detail::value_of<It>(1));
}
template <class It, class... T, CUDAEMU_THRUST_NOT_P(It)> void sequence(It first, It last, T... init_step)
{
    thrust::sequence(CUDAEMU_THRUST_POLICY(It), first, last, init_step...);
}

template <CUDAEMU_THRUST_P, class It, class G> void generate(const P &p, It first, It last, G g)
{
    auto f = detail::lower(first), l = detail::lower(last);
    detail::run(p, "thrust::generate", [=]() mutable { std::generate(f, l, g); });
}
template <class It, class G, CUDAEMU_THRUST_NOT_P(It)> void generate(It first, It last, G g)
{
    thrust::generate(CUDAEMU_THRUST_POLICY(It), first, last, g);
}
template <CUDAEMU_THRUST_P, class It, class N, class G> It generate_n(const P &p, It first, N n, G g)
{
    thrust::generate(p, first, first + n, g);
    return first + n;
}
template <class It, class N, class G, CUDAEMU_THRUST_NOT_P(It)> It generate_n(It first, N n, G g)
{
    return thrust::generate_n(CUDAEMU_THRUST_POLICY(It), first, n, g);
}

template <CUDAEMU_THRUST_P, class It, class F> void tabulate(const P &p, It first, It last, F op)
{
    auto f = detail::lower(first), l = detail::lower(last);
    detail::run(p, "thrust::tabulate", [=] {
        for (auto i = f; i != l; ++i) *i = op(i - f);
    });
}
template <class It, class F, CUDAEMU_THRUST_NOT_P(It)> void tabulate(It first, It last, F op)
{
    thrust::tabulate(CUDAEMU_THRUST_POLICY(It), first, last, op);
}

template <CUDAEMU_THRUST_P, class It, class F> It for_each(const P &p, It first, It last, F op)
{
    auto f = detail::lower(first), l = detail::lower(last);
    detail::run(p, "thrust::for_each", [=] { std::for_each(f, l, op); });
    return last;
}
template <class It, class F, CUDAEMU_THRUST_NOT_P(It)> It for_each(It first, It last, F op)
{
    return thrust::for_each(CUDAEMU_THRUST_POLICY(It), first, last, op);
}
template <CUDAEMU_THRUST_P, class It, class N, class F> It for_each_n(const P &p, It first, N n, F op)
{
    return thrust::for_each(p, first, first + n, op);
}
template <class It, class N, class F, CUDAEMU_THRUST_NOT_P(It)> It for_each_n(It first, N n, F op)
{
    return thrust::for_each_n(CUDAEMU_THRUST_POLICY(It), first, n, op);
}

/* ---- copy ------------------------------------------------------------------ */
template <CUDAEMU_THRUST_P, class In, class Out> Out copy(const P &p, In first, In last, Out result)
{
    return detail::run_to(p, "thrust::copy", first, last, result, [](auto f, auto l, auto o) { std::copy(f, l, o); });
}
namespace detail {
/* device -> host and host -> device: staged in host memory, by cudaMemcpy
 * where the device side is contiguous, else by a device copy. */
template <class In, class Out> Out copy_between_systems(In first, In last, Out result)
{
    using V = value_of<In>;
    const auto n = last - first;
    if (n <= 0) return result;
    std::vector<V> tmp(static_cast<std::size_t>(n));
    if constexpr (system_of<In>::value == SYS_DEVICE) { /* to the host */
        auto f = lower(first);
        if constexpr (std::is_pointer<lowered<In>>::value) {
            check(cudaMemcpy(tmp.data(), f, n * sizeof(V), cudaMemcpyDeviceToHost), "thrust::copy");
        } else {
            V *t = tmp.data();
            run(device_t{}, "thrust::copy", [=] { std::copy(f, f + n, t); });
        }
        return std::copy(tmp.begin(), tmp.end(), result);
    } else { /* to the device */
        std::copy(first, last, tmp.begin());
        auto o = lower(result);
        using O = lowered<Out>;
        if constexpr (std::is_pointer<O>::value &&
                      std::is_same<std::remove_cv_t<std::remove_pointer_t<O>>, V>::value) {
            check(cudaMemcpy(o, tmp.data(), n * sizeof(V), cudaMemcpyHostToDevice), "thrust::copy");
        } else {
            const V *t = tmp.data();
            run(device_t{}, "thrust::copy", [=] { std::copy(t, t + n, o); });
        }
        return result + n;
    }
}
} // namespace detail
template <class In, class Out, CUDAEMU_THRUST_NOT_P(In)> Out copy(In first, In last, Out result)
{
    constexpr int si = detail::system_of<In>::value, so = detail::system_of<Out>::value;
    if constexpr ((si == detail::SYS_DEVICE && so == detail::SYS_HOST) ||
                  (si == detail::SYS_HOST && so == detail::SYS_DEVICE))
        return detail::copy_between_systems(first, last, result);
    else
        return thrust::copy(CUDAEMU_THRUST_POLICY(In, Out), first, last, result);
}
template <CUDAEMU_THRUST_P, class In, class N, class Out> Out copy_n(const P &p, In first, N n, Out result)
{
    return thrust::copy(p, first, first + n, result);
}
template <class In, class N, class Out, CUDAEMU_THRUST_NOT_P(In)> Out copy_n(In first, N n, Out result)
{
    return thrust::copy(first, first + n, result);
}

/* ---- transform ---------------------------------------------------------------- */
template <CUDAEMU_THRUST_P, class In, class Out, class F>
Out transform(const P &p, In first, In last, Out result, F op)
{
    return detail::run_to(p, "thrust::transform", first, last, result,
                          [op](auto f, auto l, auto o) { std::transform(f, l, o, op); });
}
template <CUDAEMU_THRUST_P, class In1, class In2, class Out, class F>
Out transform(const P &p, In1 first1, In1 last1, In2 first2, Out result, F op)
{
    auto g = detail::lower(first2);
    return detail::run_to(p, "thrust::transform", first1, last1, result,
                          [g, op](auto f, auto l, auto o) { std::transform(f, l, g, o, op); });
}
template <class In, class Out, class F, CUDAEMU_THRUST_NOT_P(In)> Out transform(In first, In last, Out result, F op)
{
    return thrust::transform(CUDAEMU_THRUST_POLICY(In, Out), first, last, result, op);
}
template <class In1, class In2, class Out, class F, CUDAEMU_THRUST_NOT_P(In1)>
Out transform(In1 first1, In1 last1, In2 first2, Out result, F op)
{
    return thrust::transform(CUDAEMU_THRUST_POLICY(In1, In2, Out), first1, last1, first2, result, op);
}

/* ---- reductions ------------------------------------------------------------------ */
template <CUDAEMU_THRUST_P, class It, class T, class Op> T reduce(const P &p, It first, It last, T init, Op op)
{
    auto f = detail::lower(first), l = detail::lower(last);
    T r = init;
    detail::run(p, "thrust::reduce", [=, &r] { r = std::accumulate(f, l, init, op); });
    return r;
}
template <CUDAEMU_THRUST_P, class It, class T> T reduce(const P &p, It first, It last, T init)
{
    return thrust::reduce(p, first, last, init, thrust::plus<>());
}
template <CUDAEMU_THRUST_P, class It> detail::value_of<It> reduce(const P &p, It first, It last)
{
    return thrust::reduce(p, first, last, detail::value_of<It>(0), thrust::plus<>());
}
template <class It, class... A, CUDAEMU_THRUST_NOT_P(It)> auto reduce(It first, It last, A... init_op)
{
    return thrust::reduce(CUDAEMU_THRUST_POLICY(It), first, last, init_op...);
}

template <CUDAEMU_THRUST_P, class It, class U, class T, class B>
T transform_reduce(const P &p, It first, It last, U unary, T init, B binary)
{
    auto f = detail::lower(first), l = detail::lower(last);
    T r = init;
    detail::run(p, "thrust::transform_reduce", [=, &r] {
        T acc = init;
        for (auto i = f; i != l; ++i) acc = binary(acc, unary(*i));
        r = acc;
    });
    return r;
}
template <class It, class U, class T, class B, CUDAEMU_THRUST_NOT_P(It)>
T transform_reduce(It first, It last, U unary, T init, B binary)
{
    return thrust::transform_reduce(CUDAEMU_THRUST_POLICY(It), first, last, unary, init, binary);
}

template <CUDAEMU_THRUST_P, class It1, class It2, class T, class Sum, class Prod>
T inner_product(const P &p, It1 first1, It1 last1, It2 first2, T init, Sum sum, Prod prod)
{
    auto f = detail::lower(first1), l = detail::lower(last1);
    auto g = detail::lower(first2);
    T r = init;
    detail::run(p, "thrust::inner_product", [=, &r] { r = std::inner_product(f, l, g, init, sum, prod); });
    return r;
}
template <CUDAEMU_THRUST_P, class It1, class It2, class T>
T inner_product(const P &p, It1 first1, It1 last1, It2 first2, T init)
{
    return thrust::inner_product(p, first1, last1, first2, init, thrust::plus<>(), thrust::multiplies<>());
}
template <class It1, class It2, class T, class... Ops, CUDAEMU_THRUST_NOT_P(It1)>
T inner_product(It1 first1, It1 last1, It2 first2, T init, Ops... ops)
{
    return thrust::inner_product(CUDAEMU_THRUST_POLICY(It1, It2), first1, last1, first2, init, ops...);
}

template <CUDAEMU_THRUST_P, class It, class Pred> detail::diff_of<It> count_if(const P &p, It first, It last, Pred pred)
{
    auto f = detail::lower(first), l = detail::lower(last);
    detail::diff_of<It> r = 0;
    detail::run(p, "thrust::count_if", [=, &r] { r = std::count_if(f, l, pred); });
    return r;
}
template <class It, class Pred, CUDAEMU_THRUST_NOT_P(It)> detail::diff_of<It> count_if(It first, It last, Pred pred)
{
    return thrust::count_if(CUDAEMU_THRUST_POLICY(It), first, last, pred);
}
template <CUDAEMU_THRUST_P, class It, class T> detail::diff_of<It> count(const P &p, It first, It last, const T &v)
{
    return thrust::count_if(p, first, last, [v](const auto &x) { return x == v; });
}
template <class It, class T, CUDAEMU_THRUST_NOT_P(It)> detail::diff_of<It> count(It first, It last, const T &v)
{
    return thrust::count(CUDAEMU_THRUST_POLICY(It), first, last, v);
}

template <CUDAEMU_THRUST_P, class It, class Pred> bool all_of(const P &p, It first, It last, Pred pred)
{
    return thrust::count_if(p, first, last, pred) == last - first;
}
template <class It, class Pred, CUDAEMU_THRUST_NOT_P(It)> bool all_of(It first, It last, Pred pred)
{
    return thrust::all_of(CUDAEMU_THRUST_POLICY(It), first, last, pred);
}
template <CUDAEMU_THRUST_P, class It, class Pred> bool any_of(const P &p, It first, It last, Pred pred)
{
    return thrust::count_if(p, first, last, pred) > 0;
}
template <class It, class Pred, CUDAEMU_THRUST_NOT_P(It)> bool any_of(It first, It last, Pred pred)
{
    return thrust::any_of(CUDAEMU_THRUST_POLICY(It), first, last, pred);
}
template <class... A> bool none_of(A... a) { return !thrust::any_of(a...); }

template <CUDAEMU_THRUST_P, class It1, class It2, class Pred>
bool equal(const P &p, It1 first1, It1 last1, It2 first2, Pred pred)
{
    auto f = detail::lower(first1), l = detail::lower(last1);
    auto g = detail::lower(first2);
    bool r = false;
    detail::run(p, "thrust::equal", [=, &r] { r = std::equal(f, l, g, pred); });
    return r;
}
template <CUDAEMU_THRUST_P, class It1, class It2> bool equal(const P &p, It1 first1, It1 last1, It2 first2)
{
    return thrust::equal(p, first1, last1, first2, thrust::equal_to<>());
}
template <class It1, class It2, class... Pred, CUDAEMU_THRUST_NOT_P(It1)>
bool equal(It1 first1, It1 last1, It2 first2, Pred... pred)
{
    return thrust::equal(CUDAEMU_THRUST_POLICY(It1, It2), first1, last1, first2, pred...);
}
} // namespace thrust

#include "cudaemu/thrust_algorithm2.h"
