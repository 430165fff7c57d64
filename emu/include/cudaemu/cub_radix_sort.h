/* emu/include/cudaemu/cub_radix_sort.h - the CUDA host emulator's CUB subset,
 * cub::DeviceRadixSort (included by cub_device.h, whose protocol it follows):
 * a stable sort by bits [begin_bit, end_bit) of each key's order-preserving
 * bit pattern (signed integers with the sign bit flipped; floats with
 * -0.0 == +0.0, negatives' bits inverted), ascending or descending.  The
 * pointer forms stage the sorted keys and values in the temporary storage
 * (n keys + n values); the DoubleBuffer forms write the alternate buffers and
 * flip the selector (emu/README.md, "Thrust and CUB"). */
#pragma once

namespace cub {
struct NullType {};

namespace detail {
template <class K> auto radix_bits(K k)
{
    if constexpr (std::is_floating_point<K>::value) {
        using U = std::conditional_t<sizeof(K) == 8, std::uint64_t, std::uint32_t>;
        static_assert(sizeof(K) == sizeof(U), "cub::DeviceRadixSort: float or double keys");
        if (k == K(0)) k = K(0); /* -0.0 sorts as +0.0 */
        U u;
        std::memcpy(&u, &k, sizeof u);
        const U sign = U(1) << (8 * sizeof(U) - 1);
        return (u & sign) ? U(~u) : U(u | sign);
    } else {
        static_assert(std::is_integral<K>::value, "cub::DeviceRadixSort: integral or floating keys");
        using U = std::make_unsigned_t<K>;
        U u = static_cast<U>(k);
        if (std::is_signed<K>::value) u ^= U(U(1) << (8 * sizeof(U) - 1));
        return static_cast<std::uint64_t>(u);
    }
}
/* sorts n (key, value) pairs from kin/vin into kout/vout; V = NullType: keys only */
template <class K, class V>
void radix_sort(const K *kin, K *kout, const V *vin, V *vout, size_t n, int begin_bit, int end_bit, bool descending)
{
    const int width = end_bit - begin_bit;
    const std::uint64_t mask = width >= 64 ? ~std::uint64_t(0) : ((std::uint64_t(1) << width) - 1);
    std::vector<std::uint64_t> digit(n);
    for (size_t i = 0; i < n; ++i) digit[i] = (static_cast<std::uint64_t>(radix_bits(kin[i])) >> begin_bit) & mask;
    std::vector<size_t> idx(n);
    std::iota(idx.begin(), idx.end(), size_t(0));
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) {
        return descending ? digit[a] > digit[b] : digit[a] < digit[b];
    });
    std::vector<K> ks(n);
    for (size_t i = 0; i < n; ++i) ks[i] = kin[idx[i]];
    if constexpr (!std::is_same<V, NullType>::value) {
        std::vector<V> vs(n);
        for (size_t i = 0; i < n; ++i) vs[i] = vin[idx[i]];
        std::copy(vs.begin(), vs.end(), vout);
    }
    std::copy(ks.begin(), ks.end(), kout);
}
} // namespace detail

struct DeviceRadixSort {
#define CUDAEMU_CUB_RADIX(Pairs, Keys, descending)                                                             \
    template <class K, class V>                                                                          \
    static cudaError_t Pairs(void *d_temp_storage, size_t &temp_storage_bytes, const K *d_keys_in, \
                                   K *d_keys_out, const V *d_values_in, V *d_values_out, int num_items,  \
                                   int begin_bit = 0, int end_bit = sizeof(K) * 8, cudaStream_t stream = 0) \
    {                                                                                                    \
        return sort("cub::DeviceRadixSort::" #Pairs, d_temp_storage, temp_storage_bytes,        \
                    d_keys_in, d_keys_out, d_values_in, d_values_out, num_items, begin_bit, end_bit,    \
                    descending, stream);                                                                 \
    }                                                                                                    \
    template <class K>                                                                                   \
    static cudaError_t Keys(void *d_temp_storage, size_t &temp_storage_bytes, const K *d_keys_in,  \
                                  K *d_keys_out, int num_items, int begin_bit = 0,                       \
                                  int end_bit = sizeof(K) * 8, cudaStream_t stream = 0)                  \
    {                                                                                                    \
        return sort("cub::DeviceRadixSort::" #Keys, d_temp_storage, temp_storage_bytes,         \
                    d_keys_in, d_keys_out, (const NullType *)nullptr, (NullType *)nullptr, num_items,   \
                    begin_bit, end_bit, descending, stream);                                             \
    }                                                                                                    \
    template <class K, class V>                                                                          \
    static cudaError_t Pairs(void *d_temp_storage, size_t &temp_storage_bytes,                    \
                                   DoubleBuffer<K> &d_keys, DoubleBuffer<V> &d_values, int num_items,    \
                                   int begin_bit = 0, int end_bit = sizeof(K) * 8, cudaStream_t stream = 0) \
    {                                                                                                    \
        return sort_db("cub::DeviceRadixSort::" #Pairs, d_temp_storage, temp_storage_bytes,     \
                       d_keys, &d_values, num_items, begin_bit, end_bit, descending, stream);            \
    }                                                                                                    \
    template <class K>                                                                                   \
    static cudaError_t Keys(void *d_temp_storage, size_t &temp_storage_bytes,                     \
                                  DoubleBuffer<K> &d_keys, int num_items, int begin_bit = 0,             \
                                  int end_bit = sizeof(K) * 8, cudaStream_t stream = 0)                  \
    {                                                                                                    \
        return sort_db("cub::DeviceRadixSort::" #Keys, d_temp_storage, temp_storage_bytes,      \
                       d_keys, (DoubleBuffer<NullType> *)nullptr, num_items, begin_bit, end_bit,        \
                       descending, stream);                                                              \
    }
    CUDAEMU_CUB_RADIX(SortPairs, SortKeys, false)
    CUDAEMU_CUB_RADIX(SortPairsDescending, SortKeysDescending, true)
#undef CUDAEMU_CUB_RADIX

private:
    static bool bits_ok(const char *who, int begin_bit, int end_bit, int key_bits, cudaError_t *e)
    {
        if (begin_bit >= 0 && begin_bit < end_bit && end_bit <= key_bits) return true;
        std::fprintf(stderr, "cudaemu: %s: bits [%d, %d) are not within the key's %d bits\n", who, begin_bit, end_bit,
                     key_bits);
        *e = cudaErrorInvalidValue;
        return false;
    }
    template <class K, class V>
    static cudaError_t sort(const char *who, void *d_temp_storage, size_t &temp_storage_bytes, const K *kin,
                            K *kout, const V *vin, V *vout, int num_items, int begin_bit, int end_bit,
                            bool descending, cudaStream_t stream)
    {
        cudaError_t e = cudaSuccess;
        const size_t n = num_items > 0 ? (size_t)num_items : 0;
        const size_t vbytes = std::is_same<V, NullType>::value ? 0 : sizeof(V);
        if (!bits_ok(who, begin_bit, end_bit, (int)sizeof(K) * 8, &e)) return e;
        if (!detail::temp_storage(who, d_temp_storage, temp_storage_bytes, n * (sizeof(K) + vbytes) + 16, &e))
            return e;
        K *kst = static_cast<K *>(d_temp_storage);
        V *vst = reinterpret_cast<V *>(static_cast<char *>(d_temp_storage) + n * sizeof(K));
        return ::cudaemu::detail::launch_library_work(stream, [=] {
            detail::radix_sort(kin, kst, vin, vst, n, begin_bit, end_bit, descending);
            std::copy(kst, kst + n, kout);
            if constexpr (!std::is_same<V, NullType>::value) std::copy(vst, vst + n, vout);
        });
    }
    template <class K, class V>
    static cudaError_t sort_db(const char *who, void *d_temp_storage, size_t &temp_storage_bytes,
                               DoubleBuffer<K> &keys, DoubleBuffer<V> *values, int num_items, int begin_bit,
                               int end_bit, bool descending, cudaStream_t stream)
    {
        cudaError_t e = cudaSuccess;
        const size_t n = num_items > 0 ? (size_t)num_items : 0;
        if (!bits_ok(who, begin_bit, end_bit, (int)sizeof(K) * 8, &e)) return e;
        if (!detail::temp_storage(who, d_temp_storage, temp_storage_bytes, 256, &e)) return e;
        const K *kin = keys.Current();
        K *kout = keys.Alternate();
        const V *vin = values ? values->Current() : nullptr;
        V *vout = values ? values->Alternate() : nullptr;
        e = ::cudaemu::detail::launch_library_work(stream, [=] {
            detail::radix_sort(kin, kout, vin, vout, n, begin_bit, end_bit, descending);
        });
        if (e == cudaSuccess) {
            keys.selector ^= 1;
            if (values) values->selector ^= 1;
        }
        return e;
    }
};
} // namespace cub
