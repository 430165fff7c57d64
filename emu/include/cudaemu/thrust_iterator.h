/* emu/include/cudaemu/thrust_iterator.h - the CUDA host emulator's Thrust
 * subset, fancy iterators: counting, constant, transform, zip, permutation
 * and discard iterators, each with its system (the largest of its bases') and
 * its lowering (the same iterator over lowered bases) for thrust_core.h's
 * run() (emu/README.md, "Thrust and CUB"). */
#pragma once

#include "cudaemu/thrust_core.h"

namespace thrust {
/* counting_iterator<T>: T(init), T(init) + 1, ... */
template <class T>
class counting_iterator : public detail::iter_facade<counting_iterator<T>, T, T> {
public:
    counting_iterator() : v_() {}
    explicit counting_iterator(T v) : v_(v) {}
    T deref() const { return v_; }
    void advance(std::ptrdiff_t n) { v_ = static_cast<T>(v_ + n); }
    std::ptrdiff_t distance_to(const counting_iterator &o) const { return static_cast<std::ptrdiff_t>(o.v_ - v_); }

private:
    T v_;
};
template <class T> counting_iterator<T> make_counting_iterator(T v) { return counting_iterator<T>(v); }

/* constant_iterator<T>: the same value at every position. */
template <class T>
class constant_iterator : public detail::iter_facade<constant_iterator<T>, T, T> {
public:
    constant_iterator() : v_(), i_(0) {}
    explicit constant_iterator(T v, std::ptrdiff_t i = 0) : v_(v), i_(i) {}
    T deref() const { return v_; }
    void advance(std::ptrdiff_t n) { i_ += n; }
    std::ptrdiff_t distance_to(const constant_iterator &o) const { return o.i_ - i_; }

private:
    T v_;
    std::ptrdiff_t i_;
};
template <class T> constant_iterator<T> make_constant_iterator(T v, std::ptrdiff_t i = 0)
{
    return constant_iterator<T>(v, i);
}

namespace detail {
template <class F, class It> using transform_ref = decltype(std::declval<const F &>()(*std::declval<It>()));
}
/* transform_iterator<F, It>: f(*it). */
template <class F, class It, class Ref = detail::transform_ref<F, It>, class Val = std::decay_t<Ref>>
class transform_iterator : public detail::iter_facade<transform_iterator<F, It, Ref, Val>, Val, Ref> {
public:
    transform_iterator() = default;
    transform_iterator(It it, F f) : it_(it), f_(f) {}
    Ref deref() const { return f_(*it_); }
    void advance(std::ptrdiff_t n) { it_ += n; }
    std::ptrdiff_t distance_to(const transform_iterator &o) const { return o.it_ - it_; }
    It base() const { return it_; }
    F functor() const { return f_; }

private:
    It it_;
    F f_;
};
template <class It, class F> transform_iterator<F, It> make_transform_iterator(It it, F f)
{
    return transform_iterator<F, It>(it, f);
}

/* permutation_iterator<Elems, Index>: elems[*index]. */
template <class E, class I>
class permutation_iterator
    : public detail::iter_facade<permutation_iterator<E, I>, typename std::iterator_traits<E>::value_type,
                                 typename std::iterator_traits<E>::reference> {
public:
    permutation_iterator() = default;
    permutation_iterator(E e, I i) : e_(e), i_(i) {}
    typename std::iterator_traits<E>::reference deref() const { return e_[*i_]; }
    void advance(std::ptrdiff_t n) { i_ += n; }
    std::ptrdiff_t distance_to(const permutation_iterator &o) const { return o.i_ - i_; }
    E elements() const { return e_; }
    I indices() const { return i_; }

private:
    E e_;
    I i_;
};
template <class E, class I> permutation_iterator<E, I> make_permutation_iterator(E e, I i)
{
    return permutation_iterator<E, I>(e, i);
}

/* zip_iterator<tuple<It...>>: a tuple of the bases' references. */
template <class IterTuple> class zip_iterator;
template <class... It>
class zip_iterator<std::tuple<It...>>
    : public detail::iter_facade<zip_iterator<std::tuple<It...>>,
                                 std::tuple<typename std::iterator_traits<It>::value_type...>,
                                 std::tuple<typename std::iterator_traits<It>::reference...>> {
public:
    using reference = std::tuple<typename std::iterator_traits<It>::reference...>;
    zip_iterator() = default;
    explicit zip_iterator(std::tuple<It...> t) : t_(t) {}
    reference deref() const
    {
        return std::apply([](const It &...i) { return reference(*i...); }, t_);
    }
    void advance(std::ptrdiff_t n)
    {
        std::apply([n](It &...i) { ((i += n), ...); }, t_);
    }
    std::ptrdiff_t distance_to(const zip_iterator &o) const { return std::get<0>(o.t_) - std::get<0>(t_); }
    const std::tuple<It...> &get_iterator_tuple() const { return t_; }

private:
    std::tuple<It...> t_;
};
template <class... It> zip_iterator<std::tuple<It...>> make_zip_iterator(std::tuple<It...> t)
{
    return zip_iterator<std::tuple<It...>>(t);
}
template <class... It, class = std::enable_if_t<(sizeof...(It) > 1)>>
zip_iterator<std::tuple<It...>> make_zip_iterator(It... it)
{
    return zip_iterator<std::tuple<It...>>(std::make_tuple(it...));
}

/* discard_iterator: writes go nowhere. */
namespace detail {
struct discard_ref {
    template <class T> const discard_ref &operator=(const T &) const { return *this; }
};
} // namespace detail
class discard_iterator : public detail::iter_facade<discard_iterator, detail::discard_ref, detail::discard_ref> {
public:
    explicit discard_iterator(std::ptrdiff_t i = 0) : i_(i) {}
    detail::discard_ref deref() const { return {}; }
    void advance(std::ptrdiff_t n) { i_ += n; }
    std::ptrdiff_t distance_to(const discard_iterator &o) const { return o.i_ - i_; }

private:
    std::ptrdiff_t i_;
};
inline discard_iterator make_discard_iterator(std::ptrdiff_t i = 0) { return discard_iterator(i); }

/* ---- systems and lowering of the fancy iterators ---------------------------- */
namespace detail {
template <class T> struct system_of<counting_iterator<T>> : std::integral_constant<int, SYS_ANY> {};
template <class T> struct system_of<constant_iterator<T>> : std::integral_constant<int, SYS_ANY> {};
template <> struct system_of<discard_iterator> : std::integral_constant<int, SYS_ANY> {};
template <class F, class It, class R, class V>
struct system_of<transform_iterator<F, It, R, V>> : system_of<It> {};
template <class E, class I>
struct system_of<permutation_iterator<E, I>> : std::integral_constant<int, system_max<E, I>()> {};
template <class... It>
struct system_of<zip_iterator<std::tuple<It...>>> : std::integral_constant<int, system_max<It...>()> {};

template <class F, class It, class R, class V> struct lower_t<transform_iterator<F, It, R, V>> {
    using type = transform_iterator<F, lowered<It>>;
    static type get(const transform_iterator<F, It, R, V> &i) { return type(lower(i.base()), i.functor()); }
};
template <class E, class I> struct lower_t<permutation_iterator<E, I>> {
    using type = permutation_iterator<lowered<E>, lowered<I>>;
    static type get(const permutation_iterator<E, I> &i) { return type(lower(i.elements()), lower(i.indices())); }
};
template <class... It> struct lower_t<zip_iterator<std::tuple<It...>>> {
    using type = zip_iterator<std::tuple<lowered<It>...>>;
    static type get(const zip_iterator<std::tuple<It...>> &z)
    {
        return type(std::apply([](const It &...i) { return std::make_tuple(lower(i)...); }, z.get_iterator_tuple()));
    }
};
} // namespace detail
} // namespace thrust
