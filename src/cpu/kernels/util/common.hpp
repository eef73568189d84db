// Shared pieces of every CPU kernel family, compiled once per ISA level.
//
// This header is included by the family headers (src/cpu/kernels/*.hpp; shared helpers in src/cpu/kernels/util/),
// which are compiled once per ISA by the generated translation units of
// cmake/AnydnnIsa.cmake with ANYDNN_ISA_NS set to the level's name. Every
// function here and in the family headers lives in anydnn::cpu::ANYDNN_ISA_NS,
// so the AVX-512 copy of an inline function can never be picked by the
// linker for the generic path. The same reason forbids std:: function
// templates (std::min, std::max, ...) in kernel code: their out-of-line
// copies would be shared between ISA levels. Use the helpers below.
#pragma once

#ifndef ANYDNN_ISA_NS
#error "compile kernel families through the generated per-ISA translation units"
#endif

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>

#include "cpu/parallel.hpp"
#include "cpu/strided_loop.hpp"
#include "cpu/types.hpp"

// Loops vectorize only when every call in their body is inlined, and in a
// kernel file with hundreds of instantiations GCC's unit-growth limit would
// otherwise stop inlining small helpers part way through (a transpose
// tile's 32 registers then went through memory at every call).
#if defined(__GNUC__)
#define ANYDNN_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ANYDNN_ALWAYS_INLINE inline
#endif

namespace anydnn::cpu::ANYDNN_ISA_NS {

// Bytes of the level's vector register.
#if ANYDNN_ISA_avx512
constexpr int kVectorBytes = 64;
#elif ANYDNN_ISA_avx2
constexpr int kVectorBytes = 32;
#else
constexpr int kVectorBytes = 16;
#endif

// The level's vector of T (GCC's vector extension): the operators work
// lane-wise, a scalar operand is broadcast, and `mask ? a : b` selects. The
// hand-vectorized kernels use it where GCC's loop vectorizer will not do
// what they need (values held in registers across a loop, instructions
// with no scalar form).
template <class T>
using vec_t [[gnu::vector_size(kVectorBytes)]] = T;

// A vector of V from p, and back to p: any alignment.
template <class V, class T>
inline V load_vec(const T *p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
template <class V, class T>
inline void store_vec(T *p, V v) {
    std::memcpy(p, &v, sizeof v);
}

inline float fmin_(float a, float b) { return a < b ? a : b; }
inline float fmax_(float a, float b) { return a > b ? a : b; }
inline double fmin_(double a, double b) { return a < b ? a : b; }
inline double fmax_(double a, double b) { return a > b ? a : b; }
inline int64_t imin_(int64_t a, int64_t b) { return a < b ? a : b; }

inline uint32_t f32_bits(float f) {
    uint32_t u;
    std::memcpy(&u, &f, 4);
    return u;
}
inline float f32_from_bits(uint32_t u) {
    float f;
    std::memcpy(&f, &u, 4);
    return f;
}

// IEEE half <-> float, branch-free so loops over them vectorize; rounding is
// to nearest even, NaN stays NaN, overflow gives infinity.
inline float half_to_float(uint16_t h) {
    const uint32_t shifted_exp = 0x7c00u << 13;
    uint32_t o = (static_cast<uint32_t>(h) & 0x7fffu) << 13;
    const uint32_t exp = shifted_exp & o;
    o += (127u - 15u) << 23;
    const uint32_t inf_nan = exp == shifted_exp ? (128u - 16u) << 23 : 0u;
    o += inf_nan;
    // Subnormal halves: renormalize through a float subtraction.
    const float sub = f32_from_bits(o + (1u << 23)) - f32_from_bits(113u << 23);
    const uint32_t r = exp == 0 ? f32_bits(sub) : o;
    return f32_from_bits(r | ((static_cast<uint32_t>(h) & 0x8000u) << 16));
}

inline uint16_t float_to_half(float f) {
    uint32_t u = f32_bits(f);
    const uint32_t sign = u & 0x80000000u;
    u ^= sign;
    const uint32_t f32_inf = 255u << 23, f16_max = (127u + 16u) << 23;
    const uint32_t denorm_magic = ((127u - 15u) + (23u - 10u) + 1u) << 23;
    const uint32_t big = u > f32_inf ? 0x7e00u : 0x7c00u;
    const uint32_t small = f32_bits(f32_from_bits(u) + f32_from_bits(denorm_magic)) - denorm_magic;
    const uint32_t mant_odd = (u >> 13) & 1u;
    const uint32_t normal = (u + ((15u - 127u) << 23) + 0xfffu + mant_odd) >> 13;
    const uint32_t o = u >= f16_max ? big : (u < (113u << 23) ? small : normal);
    return static_cast<uint16_t>(o | (sign >> 16));
}

inline float bf16_to_float(uint16_t b) { return f32_from_bits(static_cast<uint32_t>(b) << 16); }

inline uint16_t float_to_bf16(float f) {
    const uint32_t u = f32_bits(f);
    const uint32_t rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    const uint32_t quiet_nan = (u >> 16) | 0x40u;
    return static_cast<uint16_t>((u & 0x7fffffffu) > 0x7f800000u ? quiet_nan : rounded);
}

// The type each storage type computes in: double for the types a float
// cannot hold exactly, float otherwise.
template <class T> struct ComputeOf { using type = float; };
template <> struct ComputeOf<double> { using type = double; };
template <> struct ComputeOf<int32_t> { using type = double; };
template <> struct ComputeOf<int64_t> { using type = double; };
template <class T> using compute_t = typename ComputeOf<T>::type;

template <class C, class T>
inline C load(const T *p) {
    if constexpr (sizeof(T) == 2 && requires { p->bits; }) {
        if constexpr (std::is_same_v<T, f16>) return static_cast<C>(half_to_float(p->bits));
        else return static_cast<C>(bf16_to_float(p->bits));
    } else {
        return static_cast<C>(*p);
    }
}

// Round to nearest (even) and saturate to I's range; NaN gives 0.
template <class I, class C>
inline I saturate_round(C v) {
    constexpr I imin = std::numeric_limits<I>::min(), imax = std::numeric_limits<I>::max();
    constexpr C lo = static_cast<C>(imin);
    // imax may round up in C (int64 in double): compare with >=.
    constexpr C hi = static_cast<C>(imax);
    if (!(v == v)) return 0;
    const C r = std::nearbyint(v);
    if (r <= lo) return imin;
    if (r >= hi) return imax;
    return static_cast<I>(r);
}

template <class T, class C>
inline void store(T *p, C v) {
    if constexpr (std::is_same_v<T, f16>) p->bits = float_to_half(static_cast<float>(v));
    else if constexpr (std::is_same_v<T, bf16>) p->bits = float_to_bf16(static_cast<float>(v));
    else if constexpr (std::is_floating_point_v<T>) *p = static_cast<T>(v);
    else *p = saturate_round<T>(v);
}

// Walks the runs of the innermost loop that make up the flat element range
// [begin, end) of L: run(offsets, len), where offsets[k] is operand k's
// element offset at the run's first element and the run steps
// L.inner_stride(k) per element.
template <class Run>
inline void for_each_run(const StridedLoop &L, int64_t begin, int64_t end, Run &&run) {
    const int64_t inner = L.inner();
    int64_t coord[kMaxDims];
    int64_t outer = begin / inner;
    int64_t pos = begin % inner;
    for (int d = L.nd - 2; d >= 0; --d) {
        coord[d] = outer % L.dims[d];
        outer /= L.dims[d];
    }
    int64_t off[kMaxOperands];
    while (begin < end) {
        const int64_t len = imin_(inner - pos, end - begin);
        for (int k = 0; k < L.nops; ++k) {
            int64_t o = pos * L.strides[k][L.nd - 1];
            for (int d = 0; d < L.nd - 1; ++d) o += coord[d] * L.strides[k][d];
            off[k] = o;
        }
        run(off, len);
        begin += len;
        pos = 0;
        for (int d = L.nd - 2; d >= 0; --d) {
            if (++coord[d] < L.dims[d]) break;
            coord[d] = 0;
        }
    }
}

// For a >= 0, b > 0.
inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }
inline int64_t round_up(int64_t a, int64_t q) { return ceil_div(a, q) * q; }

// Elements per thread below which a loop stays single-threaded.
constexpr int64_t kElementwiseGrain = 16384;

// A kernel's own heap array of n values, for staging buffers whose size
// depends on the problem (a pooling window's row). Not std::vector: its
// out-of-line members (the destructor in an unoptimized or sanitizer build)
// are weak symbols outside this namespace, shared between ISA levels.
// Allocation failure throws std::bad_alloc (from the global operator new,
// a library function, not a weak copy). Cache-line aligned, so that rows of
// whole vectors in it are too (a vector across two lines is two loads, and
// a store across two lines does not forward to the next load).
template <class T>
class KernelArray {
  public:
    explicit KernelArray(int64_t n)
        : p_(n > 0 ? static_cast<T *>(::operator new(sizeof(T) * n, std::align_val_t{64})) : nullptr) {}
    ~KernelArray() { ::operator delete(p_, std::align_val_t{64}); }
    KernelArray(const KernelArray &) = delete;
    KernelArray &operator=(const KernelArray &) = delete;
    T *data() { return p_; }

  private:
    T *p_;
};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
