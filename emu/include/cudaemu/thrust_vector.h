/* emu/include/cudaemu/thrust_vector.h - the CUDA host emulator's Thrust
 * subset, containers: host_vector (a std::vector that also converts from and
 * to device_vector) and device_vector, whose storage is the emulator's
 * cudaMalloc (fresh memory poisoned, frees checked); copies between them are
 * thrust::copy's (cudaMemcpy), element access a device_reference
 * (emu/README.md, "Thrust and CUB"). */
#pragma once

#include "cudaemu/thrust_algorithm.h"

#include <cstdio>
#include <initializer_list>
#include <vector>

namespace thrust {
template <class T> class device_vector;

template <class T, class Alloc = std::allocator<T>> class host_vector : public std::vector<T, Alloc> {
    using base = std::vector<T, Alloc>;

public:
    using base::base;
    host_vector() = default;
    host_vector(const base &v) : base(v) {}
    template <class U> host_vector(const host_vector<U> &o) : base(o.begin(), o.end()) {}
    template <class U> host_vector(const std::vector<U> &o) : base(o.begin(), o.end()) {}
    template <class U> host_vector(const device_vector<U> &d) : base(d.size())
    {
        thrust::copy(d.begin(), d.end(), this->begin());
    }
    template <class U> host_vector &operator=(const device_vector<U> &d)
    {
        this->resize(d.size());
        thrust::copy(d.begin(), d.end(), this->begin());
        return *this;
    }
    template <class U> host_vector &operator=(const std::vector<U> &o)
    {
        this->assign(o.begin(), o.end());
        return *this;
    }
};

template <class T> class device_vector {
public:
    using value_type = T;
    using size_type = std::size_t;
    using difference_type = std::ptrdiff_t;
    using pointer = device_ptr<T>;
    using const_pointer = device_ptr<const T>;
    using iterator = device_ptr<T>;
    using const_iterator = device_ptr<const T>;
    using reference = device_reference<T>;
    using const_reference = device_reference<const T>;

    device_vector() = default;
    explicit device_vector(size_type n) { resize(n); }
    device_vector(size_type n, const T &v) { resize(n, v); }
    template <class It, class = std::enable_if_t<!std::is_integral<It>::value>> device_vector(It first, It last)
    {
        assign(first, last);
    }
    device_vector(std::initializer_list<T> l) { assign(l.begin(), l.end()); }
    device_vector(const device_vector &o) { assign(o.begin(), o.end()); }
    device_vector(device_vector &&o) noexcept { swap(o); }
    template <class U> device_vector(const device_vector<U> &o) { assign(o.begin(), o.end()); }
    template <class U, class A> device_vector(const host_vector<U, A> &h) { assign(h.begin(), h.end()); }
    template <class U, class A> device_vector(const std::vector<U, A> &h) { assign(h.begin(), h.end()); }
    ~device_vector()
    {
        if (p_ && cudaFree(p_) != cudaSuccess)
            std::fprintf(stderr, "thrust::device_vector: cudaFree(%p) failed: %s\n", (void *)p_,
                         cudaGetErrorString(cudaGetLastError()));
    }
    device_vector &operator=(const device_vector &o)
    {
        if (this != &o) assign(o.begin(), o.end());
        return *this;
    }
    device_vector &operator=(device_vector &&o) noexcept
    {
        swap(o);
        return *this;
    }
    template <class U> device_vector &operator=(const device_vector<U> &o) { assign(o.begin(), o.end()); return *this; }
    template <class U, class A> device_vector &operator=(const host_vector<U, A> &h) { assign(h.begin(), h.end()); return *this; }
    template <class U, class A> device_vector &operator=(const std::vector<U, A> &h) { assign(h.begin(), h.end()); return *this; }

    /* the elements of [first, last), of either system */
    template <class It, class = std::enable_if_t<!std::is_integral<It>::value>> void assign(It first, It last)
    {
        const auto n = static_cast<size_type>(last - first);
        device_vector tmp;
        tmp.reserve(n);
        tmp.n_ = n;
        thrust::copy(first, last, tmp.begin());
        swap(tmp);
    }
    void assign(size_type n, const T &v) { clear(); resize(n, v); }

    size_type size() const { return n_; }
    size_type capacity() const { return cap_; }
    bool empty() const { return n_ == 0; }
    iterator begin() { return iterator(p_); }
    iterator end() { return iterator(p_ + n_); }
    const_iterator begin() const { return const_iterator(p_); }
    const_iterator end() const { return const_iterator(p_ + n_); }
    const_iterator cbegin() const { return begin(); }
    const_iterator cend() const { return end(); }
    pointer data() { return pointer(p_); }
    const_pointer data() const { return const_pointer(p_); }
    reference operator[](size_type i) { return reference(p_ + i); }
    const_reference operator[](size_type i) const { return const_reference(p_ + i); }
    reference front() { return (*this)[0]; }
    reference back() { return (*this)[n_ - 1]; }
    const_reference front() const { return (*this)[0]; }
    const_reference back() const { return (*this)[n_ - 1]; }

    void reserve(size_type n)
    {
        if (n <= cap_) return;
        void *q = nullptr;
        detail::check(cudaMalloc(&q, n * sizeof(T)), "thrust::device_vector (cudaMalloc)");
        if (n_) {
            cudaError_t e = cudaMemcpy(q, p_, n_ * sizeof(T), cudaMemcpyDeviceToDevice);
            if (e != cudaSuccess) {
                (void)cudaFree(q); /* the copy's error is the one to report */
                detail::fail(e, "thrust::device_vector (grow)");
            }
        }
        if (p_) detail::check(cudaFree(p_), "thrust::device_vector (cudaFree)");
        p_ = static_cast<T *>(q);
        cap_ = n;
    }
    void resize(size_type n, const T &v = T())
    {
        if (n > cap_) reserve(std::max(n, 2 * cap_));
        const size_type old = n_;
        n_ = n;
        if (n > old) thrust::fill(begin() + old, end(), v);
    }
    void clear() { n_ = 0; }
    void shrink_to_fit()
    {
        if (cap_ == n_) return;
        device_vector tmp(*this);
        swap(tmp);
    }
    void push_back(const T &v)
    {
        resize(n_ + 1, v);
    }
    void pop_back() { --n_; }
    void swap(device_vector &o) noexcept
    {
        std::swap(p_, o.p_);
        std::swap(n_, o.n_);
        std::swap(cap_, o.cap_);
    }

private:
    T *p_ = nullptr;
    size_type n_ = 0, cap_ = 0;
};
} // namespace thrust
