/* emu/include/cudaemu/cub_device.h - the CUDA host emulator's CUB subset,
 * device-wide calls: DeviceReduce (Sum Max Min Reduce), DeviceScan
 * (ExclusiveSum InclusiveSum ExclusiveScan InclusiveScan) and
 * DeviceRadixSort (SortKeys SortPairs and their Descending forms, also over
 * a DoubleBuffer), with CUB's two-call protocol: a call with
 * d_temp_storage == NULL only sets temp_storage_bytes; a call with less
 * temporary storage than that, or with a d_temp_storage that is not device
 * memory, is one line and cudaErrorInvalidValue.  The work is queued on the
 * stream as a one-thread kernel (library_kernel.h) and returns at once, as
 * CUB's kernels do, so reading the result needs the usual synchronization
 * (emu/README.md, "Thrust and CUB"). */
#pragma once

#include "cudaemu/library_kernel.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <limits>
#include <numeric>
#include <type_traits>
#include <vector>

namespace cub {
template <class T> struct DoubleBuffer {
    T *d_buffers[2];
    int selector;
    DoubleBuffer() : d_buffers{nullptr, nullptr}, selector(0) {}
    DoubleBuffer(T *current, T *alternate) : d_buffers{current, alternate}, selector(0) {}
    T *Current() const { return d_buffers[selector]; }
    T *Alternate() const { return d_buffers[selector ^ 1]; }
};

namespace detail {
/* the first call's answer, or the second call's check of it */
inline bool temp_storage(const char *who, void *d_temp, size_t &bytes, size_t need, cudaError_t *err)
{
    if (need == 0) need = 1;
    if (d_temp == nullptr) {
        bytes = need;
        *err = cudaSuccess;
        return false;
    }
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, d_temp) != cudaSuccess ||
        (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)) {
        (void)cudaGetLastError();
        std::fprintf(stderr, "cudaemu: %s: d_temp_storage %p is not device memory\n", who, d_temp);
        *err = cudaErrorInvalidValue;
        return false;
    }
    if (bytes < need) {
        std::fprintf(stderr, "cudaemu: %s: temp_storage_bytes %zu is less than the %zu it needs "
                     "(ask with d_temp_storage = NULL first)\n", who, bytes, need);
        *err = cudaErrorInvalidValue;
        return false;
    }
    return true;
}
constexpr size_t TILE = 4096; /* items per tile of the reductions and scans */
inline size_t tiles(size_t n) { return (n + TILE - 1) / TILE; }
template <class In> using value_t = typename std::iterator_traits<In>::value_type;
} // namespace detail

/* ---- DeviceReduce: tile partials in the temporary storage, then their fold */
struct DeviceReduce {
    template <class In, class Out, class Op, class T>
    static cudaError_t Reduce(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, int num_items,
                              Op op, T init, cudaStream_t stream = 0)
    {
        cudaError_t e;
        const size_t n = num_items > 0 ? (size_t)num_items : 0, nt = detail::tiles(n);
        if (!detail::temp_storage("cub::DeviceReduce", d_temp_storage, temp_storage_bytes, nt * sizeof(T), &e)) return e;
        T *part = static_cast<T *>(d_temp_storage);
        return ::cudaemu::detail::launch_library_work(stream, [=] {
            for (size_t t = 0; t < nt; ++t) {
                T acc = d_in[t * detail::TILE];
                for (size_t i = t * detail::TILE + 1; i < std::min(n, (t + 1) * detail::TILE); ++i) acc = op(acc, d_in[i]);
                part[t] = acc;
            }
            T r = init;
            for (size_t t = 0; t < nt; ++t) r = op(r, part[t]);
            *d_out = r;
        });
    }
    template <class In, class Out>
    static cudaError_t Sum(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, int num_items,
                           cudaStream_t stream = 0)
    {
        using T = detail::value_t<In>;
        return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, cub::Sum(), T(0), stream);
    }
    template <class In, class Out>
    static cudaError_t Max(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, int num_items,
                           cudaStream_t stream = 0)
    {
        using T = detail::value_t<In>;
        return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, cub::Max(),
                      std::numeric_limits<T>::lowest(), stream);
    }
    template <class In, class Out>
    static cudaError_t Min(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, int num_items,
                           cudaStream_t stream = 0)
    {
        using T = detail::value_t<In>;
        return Reduce(d_temp_storage, temp_storage_bytes, d_in, d_out, num_items, cub::Min(),
                      std::numeric_limits<T>::max(), stream);
    }
};

/* ---- DeviceScan: tile totals in the temporary storage, then each tile
 *      scanned from the fold of the totals before it (in place allowed) */
struct DeviceScan {
    template <class In, class Out, class Op, class T>
    static cudaError_t ExclusiveScan(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, Op op,
                                     T init, int num_items, cudaStream_t stream = 0)
    {
        return scan(d_temp_storage, temp_storage_bytes, d_in, d_out, op, &init, num_items, stream);
    }
    template <class In, class Out, class Op>
    static cudaError_t InclusiveScan(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, Op op,
                                     int num_items, cudaStream_t stream = 0)
    {
        return scan(d_temp_storage, temp_storage_bytes, d_in, d_out, op, (detail::value_t<In> *)nullptr, num_items,
                    stream);
    }
    template <class In, class Out>
    static cudaError_t ExclusiveSum(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out,
                                    int num_items, cudaStream_t stream = 0)
    {
        detail::value_t<In> zero = detail::value_t<In>(0);
        return scan(d_temp_storage, temp_storage_bytes, d_in, d_out, cub::Sum(), &zero, num_items, stream);
    }
    template <class In, class Out>
    static cudaError_t InclusiveSum(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out,
                                    int num_items, cudaStream_t stream = 0)
    {
        return InclusiveScan(d_temp_storage, temp_storage_bytes, d_in, d_out, cub::Sum(), num_items, stream);
    }

private:
    template <class In, class Out, class Op, class T>
    static cudaError_t scan(void *d_temp_storage, size_t &temp_storage_bytes, In d_in, Out d_out, Op op,
                            const T *init, int num_items, cudaStream_t stream)
    {
        cudaError_t e;
        const size_t n = num_items > 0 ? (size_t)num_items : 0, nt = detail::tiles(n);
        if (!detail::temp_storage("cub::DeviceScan", d_temp_storage, temp_storage_bytes, nt * sizeof(T), &e)) return e;
        T *total = static_cast<T *>(d_temp_storage);
        const bool has_init = init != nullptr;
        const T seed = has_init ? *init : T();
        return ::cudaemu::detail::launch_library_work(stream, [=] {
            for (size_t t = 0; t < nt; ++t) {
                T acc = d_in[t * detail::TILE];
                for (size_t i = t * detail::TILE + 1; i < std::min(n, (t + 1) * detail::TILE); ++i) acc = op(acc, d_in[i]);
                total[t] = acc;
            }
            T prefix = seed; /* the fold of init and the tiles before */
            bool has = has_init;
            for (size_t t = 0; t < nt; ++t) {
                T run = prefix;
                bool run_has = has;
                for (size_t i = t * detail::TILE; i < std::min(n, (t + 1) * detail::TILE); ++i) {
                    const T x = d_in[i]; /* read before the write: in place works */
                    if (has_init) {
                        d_out[i] = run;
                        run = op(run, x);
                    } else {
                        run = run_has ? op(run, x) : x;
                        run_has = true;
                        d_out[i] = run;
                    }
                }
                prefix = has ? op(prefix, total[t]) : total[t];
                has = true;
            }
        });
    }
};
} // namespace cub

#include "cudaemu/cub_radix_sort.h"
