/* emu/include/cudaemu/thrust_functional.h - the CUDA host emulator's Thrust
 * subset, function objects: the arithmetic, comparison and logical ones (the
 * standard library's), maximum, minimum, identity, and the placeholders
 * thrust::placeholders::_1 ... _4 with + - * / % and unary - (emu/README.md,
 * "Thrust and CUB"). */
#pragma once

#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>

namespace thrust {
template <class T = void> using plus = std::plus<T>;
template <class T = void> using minus = std::minus<T>;
template <class T = void> using multiplies = std::multiplies<T>;
template <class T = void> using divides = std::divides<T>;
template <class T = void> using modulus = std::modulus<T>;
template <class T = void> using negate = std::negate<T>;
template <class T = void> using equal_to = std::equal_to<T>;
template <class T = void> using not_equal_to = std::not_equal_to<T>;
template <class T = void> using greater = std::greater<T>;
template <class T = void> using less = std::less<T>;
template <class T = void> using greater_equal = std::greater_equal<T>;
template <class T = void> using less_equal = std::less_equal<T>;
template <class T = void> using logical_and = std::logical_and<T>;
template <class T = void> using logical_or = std::logical_or<T>;
template <class T = void> using logical_not = std::logical_not<T>;
template <class T = void> using bit_and = std::bit_and<T>;
template <class T = void> using bit_or = std::bit_or<T>;
template <class T = void> using bit_xor = std::bit_xor<T>;

template <class T = void> struct maximum {
    T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
template <> struct maximum<void> {
    template <class A, class B> auto operator()(const A &a, const B &b) const { return a < b ? b : a; }
};
template <class T = void> struct minimum {
    T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};
template <> struct minimum<void> {
    template <class A, class B> auto operator()(const A &a, const B &b) const { return b < a ? b : a; }
};
template <class T = void> struct identity {
    const T &operator()(const T &x) const { return x; }
};
template <> struct identity<void> {
    template <class A> A &&operator()(A &&x) const { return std::forward<A>(x); }
};

/* ---- placeholders: expression objects called with the algorithm's arguments */
namespace detail {
template <class E> struct actor {
    E e;
    template <class... A> auto operator()(A &&...a) const { return e(std::forward<A>(a)...); }
};
template <std::size_t N> struct argument {
    template <class... A> decltype(auto) operator()(A &&...a) const
    {
        return std::get<N>(std::forward_as_tuple(std::forward<A>(a)...));
    }
};
template <class T> struct value {
    T v;
    template <class... A> const T &operator()(A &&...) const { return v; }
};
template <class Op, class L, class R> struct binary {
    L l;
    R r;
    template <class... A> auto operator()(A &&...a) const { return Op()(l(a...), r(a...)); }
};
template <class E> struct negated {
    E e;
    template <class... A> auto operator()(A &&...a) const { return -e(a...); }
};
template <class T> struct is_actor : std::false_type {};
template <class E> struct is_actor<actor<E>> : std::true_type {};
template <class T> auto as_actor(const T &v)
{
    if constexpr (is_actor<T>::value) return v;
    else return actor<value<T>>{{v}};
}
template <class Op, class L, class R> auto make_binary(const L &l, const R &r)
{
    auto a = as_actor(l);
    auto b = as_actor(r);
    return actor<binary<Op, decltype(a), decltype(b)>>{{a, b}};
}
} // namespace detail

namespace placeholders {
inline constexpr detail::actor<detail::argument<0>> _1{};
inline constexpr detail::actor<detail::argument<1>> _2{};
inline constexpr detail::actor<detail::argument<2>> _3{};
inline constexpr detail::actor<detail::argument<3>> _4{};
} // namespace placeholders

namespace detail {
#define CUDAEMU_THRUST_PLACEHOLDER_OP(op, fn)                                                      \
    template <class E, class T> auto operator op(const actor<E> &l, const T &r)                    \
    {                                                                                              \
        return make_binary<fn<>>(l, r);                                                            \
    }                                                                                              \
    template <class T, class E, class = std::enable_if_t<!is_actor<T>::value>>                     \
    auto operator op(const T &l, const actor<E> &r)                                                \
    {                                                                                              \
        return make_binary<fn<>>(l, r);                                                            \
    }
CUDAEMU_THRUST_PLACEHOLDER_OP(+, std::plus)
CUDAEMU_THRUST_PLACEHOLDER_OP(-, std::minus)
CUDAEMU_THRUST_PLACEHOLDER_OP(*, std::multiplies)
CUDAEMU_THRUST_PLACEHOLDER_OP(/, std::divides)
CUDAEMU_THRUST_PLACEHOLDER_OP(%, std::modulus)
#undef CUDAEMU_THRUST_PLACEHOLDER_OP
template <class E> auto operator-(const actor<E> &e) { return actor<negated<actor<E>>>{{e}}; }
} // namespace detail
} // namespace thrust
