/* emu/include/cudaemu/vector_types.h - CUDA's built-in vector types for the host emulator.
 *
 * char1..4, uchar1..4, short1..4, ushort1..4, int1..4, uint1..4, long1..2,
 * ulong1..2, longlong1..2, ulonglong1..2, float1..4, double1..2 with the same
 * alignment as CUDA's vector_types.h (float2/int2 8 bytes, float4/int4/double2
 * 16 bytes, ...), their make_* constructors, and dim3.  Included by cuda_runtime.h.
 */
#ifndef CUDAEMU_VECTOR_TYPES_H
#define CUDAEMU_VECTOR_TYPES_H

#define CUDAEMU_VEC1(T, N, A)                                                  \
    struct alignas(A) N##1 { T x; };                                           \
    inline N##1 make_##N##1(T x) { N##1 v; v.x = x; return v; }
#define CUDAEMU_VEC2(T, N, A)                                                  \
    struct alignas(A) N##2 { T x, y; };                                        \
    inline N##2 make_##N##2(T x, T y) { N##2 v; v.x = x; v.y = y; return v; }
#define CUDAEMU_VEC3(T, N)                                                     \
    struct N##3 { T x, y, z; };                                                \
    inline N##3 make_##N##3(T x, T y, T z)                                     \
    { N##3 v; v.x = x; v.y = y; v.z = z; return v; }
#define CUDAEMU_VEC4(T, N, A)                                                  \
    struct alignas(A) N##4 { T x, y, z, w; };                                  \
    inline N##4 make_##N##4(T x, T y, T z, T w)                                \
    { N##4 v; v.x = x; v.y = y; v.z = z; v.w = w; return v; }
#define CUDAEMU_VEC_ALL(T, N, A1, A2, A4)                                      \
    CUDAEMU_VEC1(T, N, A1) CUDAEMU_VEC2(T, N, A2) CUDAEMU_VEC3(T, N)           \
    CUDAEMU_VEC4(T, N, A4)

CUDAEMU_VEC_ALL(signed char, char, 1, 2, 4)
CUDAEMU_VEC_ALL(unsigned char, uchar, 1, 2, 4)
CUDAEMU_VEC_ALL(short, short, 2, 4, 8)
CUDAEMU_VEC_ALL(unsigned short, ushort, 2, 4, 8)
CUDAEMU_VEC_ALL(int, int, 4, 8, 16)
CUDAEMU_VEC_ALL(unsigned int, uint, 4, 8, 16)
CUDAEMU_VEC_ALL(float, float, 4, 8, 16)
CUDAEMU_VEC1(long, long, 8) CUDAEMU_VEC2(long, long, 16) CUDAEMU_VEC3(long, long)
CUDAEMU_VEC1(unsigned long, ulong, 8) CUDAEMU_VEC2(unsigned long, ulong, 16)
CUDAEMU_VEC3(unsigned long, ulong)
CUDAEMU_VEC1(long long, longlong, 8) CUDAEMU_VEC2(long long, longlong, 16)
CUDAEMU_VEC3(long long, longlong)
CUDAEMU_VEC1(unsigned long long, ulonglong, 8)
CUDAEMU_VEC2(unsigned long long, ulonglong, 16)
CUDAEMU_VEC3(unsigned long long, ulonglong)
CUDAEMU_VEC1(double, double, 8) CUDAEMU_VEC2(double, double, 16) CUDAEMU_VEC3(double, double)

#undef CUDAEMU_VEC_ALL
#undef CUDAEMU_VEC4
#undef CUDAEMU_VEC3
#undef CUDAEMU_VEC2
#undef CUDAEMU_VEC1

static_assert(sizeof(float2) == 8 && alignof(float2) == 8, "float2 layout");
static_assert(sizeof(float4) == 16 && alignof(float4) == 16, "float4 layout");
static_assert(sizeof(int4) == 16 && alignof(int4) == 16, "int4 layout");
static_assert(sizeof(double2) == 16 && alignof(double2) == 16, "double2 layout");
static_assert(sizeof(float3) == 12, "float3 layout");

/* Grid and block extents: unspecified components default to 1. */
struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

#endif
