/* emu/include/cudaemu/thrust_core.h - the CUDA host emulator's Thrust subset,
 * core: errors, execution policies, which system an iterator belongs to,
 * device_ptr and device_reference, device_malloc/device_free, and running an
 * algorithm on the host or "on the device" (emu/README.md, "Thrust and CUB").
 *
 * Every algorithm is written once, over iterators "lowered" for the host
 * (a device_ptr becomes its raw pointer, a fancy iterator over device_ptrs
 * one over raw pointers), and run by detail::run(policy, ...): directly for
 * thrust::host and thrust::seq, as a one-thread kernel on the policy's stream
 * for thrust::device and thrust::cuda::par(.on(s)), then synchronized (as
 * Thrust's algorithms are).  Element access from the host (operator[],
 * device_reference) is a checked cudaMemcpy, as Thrust's is. */
#pragma once

#include <cuda_runtime.h>

#include "cudaemu/library_kernel.h"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

namespace thrust {
namespace system {
/* What Thrust throws when a CUDA call under it fails. */
class system_error : public std::runtime_error {
public:
    system_error(cudaError_t e, const std::string &what)
        : std::runtime_error(what + ": " + cudaGetErrorName(e) + ": " + cudaGetErrorString(e)),
          code_(e) {}
    cudaError_t code() const { return code_; }

private:
    cudaError_t code_;
};
} // namespace system
using system::system_error;

/* ---- execution policies -------------------------------------------------- */
struct host_t {};
struct seq_t {};
struct device_t {
    cudaStream_t stream = 0;
    device_t on(cudaStream_t s) const { device_t p; p.stream = s; return p; }
};
inline constexpr host_t host{};
inline constexpr seq_t seq{};
inline constexpr device_t device{};
namespace cuda {
inline constexpr device_t par{};
inline constexpr device_t par_nosync{};
} // namespace cuda
namespace system {
namespace cuda {
using thrust::cuda::par;
using thrust::cuda::par_nosync;
} // namespace cuda
} // namespace system

template <class T> class device_ptr;
template <class T> class device_reference;

namespace detail {
template <class P> struct is_policy
    : std::bool_constant<std::is_same<std::decay_t<P>, host_t>::value ||
                         std::is_same<std::decay_t<P>, seq_t>::value ||
                         std::is_same<std::decay_t<P>, device_t>::value> {};

[[noreturn]] inline void fail(cudaError_t e, const char *what) { throw system_error(e, what); }
inline void check(cudaError_t e, const char *what) { if (e != cudaSuccess) fail(e, what); }

/* The system of an iterator: 0 any (counting, constant), 1 host, 2 device.
 * Fancy iterators take the largest of their bases'. */
enum { SYS_ANY = 0, SYS_HOST = 1, SYS_DEVICE = 2 };
template <class It, class = void> struct system_of : std::integral_constant<int, SYS_HOST> {};
template <class T> struct system_of<device_ptr<T>> : std::integral_constant<int, SYS_DEVICE> {};
template <class... It> constexpr int system_max() { int s = SYS_ANY; ((s = std::max(s, (int)system_of<It>::value)), ...); return s; }

/* Lowering: the iterator an algorithm's host code walks. */
template <class It, class = void> struct lower_t {
    using type = It;
    static It get(const It &i) { return i; }
};
template <class T> struct lower_t<device_ptr<T>> {
    using type = T *;
    static T *get(const device_ptr<T> &p) { return p.get(); }
};
template <class It> typename lower_t<It>::type lower(const It &i) { return lower_t<It>::get(i); }
template <class It> using lowered = typename lower_t<It>::type;

/* The policy of a call without one: the device if an iterator is a device one. */
template <class... It> auto policy_for()
{
    if constexpr (system_max<It...>() == SYS_DEVICE) return device_t{};
    else return host_t{};
}

template <class F> void run(const host_t &, const char *, F f) { f(); }
template <class F> void run(const seq_t &, const char *, F f) { f(); }
template <class F> void run(const device_t &p, const char *what, F f)
{
    cudaError_t e = ::cudaemu::detail::launch_library_work_at(p.stream, &f);
    if (e == cudaSuccess) e = cudaStreamSynchronize(p.stream);
    check(e, what);
}

/* A random-access iterator from deref(), advance(n), distance_to(other). */
template <class D, class Val, class Ref> struct iter_facade {
    using value_type = Val;
    using reference = Ref;
    using difference_type = std::ptrdiff_t;
    using pointer = void;
    using iterator_category = std::random_access_iterator_tag;
    const D &self() const { return static_cast<const D &>(*this); }
    D &self() { return static_cast<D &>(*this); }
    Ref operator*() const { return self().deref(); }
    Ref operator[](difference_type n) const { D t = self(); t.advance(n); return t.deref(); }
    D &operator++() { self().advance(1); return self(); }
    D &operator--() { self().advance(-1); return self(); }
    D operator++(int) { D t = self(); self().advance(1); return t; }
    D operator--(int) { D t = self(); self().advance(-1); return t; }
    D &operator+=(difference_type n) { self().advance(n); return self(); }
    D &operator-=(difference_type n) { self().advance(-n); return self(); }
    D operator+(difference_type n) const { D t = self(); t.advance(n); return t; }
    D operator-(difference_type n) const { D t = self(); t.advance(-n); return t; }
    friend D operator+(difference_type n, const D &d) { return d + n; }
    difference_type operator-(const D &o) const { return o.distance_to(self()); }
    bool operator==(const D &o) const { return (*this - o) == 0; }
    bool operator!=(const D &o) const { return (*this - o) != 0; }
    bool operator<(const D &o) const { return (*this - o) < 0; }
    bool operator>(const D &o) const { return (*this - o) > 0; }
    bool operator<=(const D &o) const { return (*this - o) <= 0; }
    bool operator>=(const D &o) const { return (*this - o) >= 0; }
};
} // namespace detail

/* ---- device_reference: one element of device memory, read and written
 *      from the host by checked cudaMemcpy ------------------------------------ */
template <class T> class device_reference {
public:
    using value_type = std::remove_cv_t<T>;
    explicit device_reference(T *p) : p_(p) {}
    device_reference(const device_reference &) = default;
    operator value_type() const
    {
        value_type v;
        detail::check(cudaMemcpy(&v, p_, sizeof v, cudaMemcpyDeviceToHost),
                      "thrust::device_reference (read)");
        return v;
    }
    device_reference &operator=(const value_type &v)
    {
        detail::check(cudaMemcpy(p_, &v, sizeof v, cudaMemcpyHostToDevice),
                      "thrust::device_reference (write)");
        return *this;
    }
    device_reference &operator=(const device_reference &o) { return *this = value_type(o); }
    device_ptr<T> operator&() const { return device_ptr<T>(p_); }
    device_reference &operator+=(const value_type &v) { return *this = value_type(*this) + v; }
    device_reference &operator-=(const value_type &v) { return *this = value_type(*this) - v; }
    device_reference &operator*=(const value_type &v) { return *this = value_type(*this) * v; }
    device_reference &operator/=(const value_type &v) { return *this = value_type(*this) / v; }
    device_reference &operator++() { return *this += value_type(1); }
    device_reference &operator--() { return *this -= value_type(1); }
    value_type operator++(int) { value_type v = *this; ++*this; return v; }
    value_type operator--(int) { value_type v = *this; --*this; return v; }
    friend void swap(device_reference a, device_reference b)
    {
        value_type t = a;
        a = value_type(b);
        b = t;
    }

private:
    T *p_;
};

/* ---- device_ptr: a pointer to device memory, an iterator of the device ---- */
template <class T>
class device_ptr : public detail::iter_facade<device_ptr<T>, std::remove_cv_t<T>, device_reference<T>> {
public:
    using element_type = T;
    device_ptr() : p_(nullptr) {}
    explicit device_ptr(T *p) : p_(p) {}
    device_ptr(std::nullptr_t) : p_(nullptr) {}
    template <class U, class = std::enable_if_t<std::is_convertible<U *, T *>::value>>
    device_ptr(const device_ptr<U> &o) : p_(o.get()) {}
    T *get() const { return p_; }
    explicit operator bool() const { return p_ != nullptr; }
    device_reference<T> deref() const { return device_reference<T>(p_); }
    void advance(std::ptrdiff_t n) { p_ += n; }
    std::ptrdiff_t distance_to(const device_ptr &o) const { return o.p_ - p_; }

private:
    T *p_;
};

template <class T> device_ptr<T> device_pointer_cast(T *p) { return device_ptr<T>(p); }
template <class T> device_ptr<T> device_pointer_cast(const device_ptr<T> &p) { return p; }
template <class T> T *raw_pointer_cast(T *p) { return p; }
template <class T> T *raw_pointer_cast(const device_ptr<T> &p) { return p.get(); }

/* device_malloc: checked cudaMalloc (fresh memory is the emulator's poison). */
template <class T = char> device_ptr<T> device_malloc(std::size_t n)
{
    void *p = nullptr;
    detail::check(cudaMalloc(&p, n * sizeof(T)), "thrust::device_malloc");
    return device_ptr<T>(static_cast<T *>(p));
}
template <class T> void device_free(device_ptr<T> p)
{
    detail::check(cudaFree(const_cast<std::remove_cv_t<T> *>(p.get())), "thrust::device_free");
}

/* pair and tuple are the standard library's */
template <class A, class B> using pair = std::pair<A, B>;
using std::make_pair;
template <class... T> using tuple = std::tuple<T...>;
using std::get;
using std::make_tuple;
using std::tie;
using std::tuple_element;
using std::tuple_size;
} // namespace thrust
