// Elementary functions that GCC vectorizes inside loops: branch-free float
// implementations (selects instead of branches, integer tricks on the float
// bits, no table lookups, no libm calls), and double overloads that call libm.
// A kernel templated on its compute type C calls vexp(C) and gets the
// vectorizable float version or the exact double one.
//
// Every float function here passes NaN through and returns the IEEE limits
// for infinite and overflowing arguments. Their accuracy, measured against
// double libm over every 7th float in [-110, 110] (vlog: every 97th positive
// float and every 3rd subnormal), the same for the generic build and the
// FMA-contracted avx2 and avx512 builds to within a tenth of an ulp:
//   vexp      1.33 ulp
// (subnormal results: within a subnormal ulp)
//   vexpm1    1.75 ulp, 1.3e-7 relative
//   vlog      0.78 ulp
//   vlog1p    1.44 ulp, 1.4e-7 relative
//   vsigmoid  2.2e-7 relative
//   vtanh     3.2e-7 relative (5 ulp), |result| <= 1
//   vnormcdf  2.1e-7 absolute, result in [0, 1] (not relative in the lower
//             tail: Phi(-5) = 2.9e-7 comes out within 2.1e-7 of it)
//   vgauss    (e^(-x^2/2)) as vexp, with x^2 / 2 exact
// tests/test_vmath.cpp re-measures them (generic build) against these bounds.
#pragma once

#include "cpu/kernels/util/common.hpp"

#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
#include <immintrin.h>
#endif

namespace anydnn::cpu::ANYDNN_ISA_NS {

namespace vmath_detail {

constexpr float kInf = std::numeric_limits<float>::infinity();

// e^r = 1 + r + r^2 * exp_poly(r) on [-ln2/2, ln2/2] (a degree-6 polynomial
// fitted near-minimax; truncation error 8e-9 relative).
// F: float, or a GCC vector of floats (softmax's hand-vectorized columns).
template <class F>
ANYDNN_ALWAYS_INLINE F exp_poly(F r) {
    F p = F{} + 1.392639242e-03f;
    p = p * r + 8.363345638e-03f;
    p = p * r + 4.166655242e-02f;
    p = p * r + 1.666657627e-01f;
    p = p * r + 5.000000000e-01f;
    return p;
}

constexpr float kRound = 12582912.0f;  // 1.5 * 2^23: adding it rounds a float to an integer

// 2^k for an integer-valued float k in [-126, 127].
ANYDNN_ALWAYS_INLINE float pow2(float k) { return f32_from_bits((f32_bits(k + kRound) - f32_bits(kRound) + 127u) << 23); }

// e^(a + b) for |b| <= 2: the Cody-Waite reduction a + b = n ln2 + r takes a
// and b separately (a - n ln2_hi is exact), so that a sum that does not fit
// one float (vgauss's exact -x^2 / 2 in two parts) keeps its low bits. The two powers of two that
// apply 2^n keep results down to the smallest subnormal right.
ANYDNN_ALWAYS_INLINE float exp_sum(float a, float b) {
    a = a < -104.0f ? -104.0f : a;  // e^-104 rounds to 0; the compares keep NaN
    a = a > 89.0f ? 89.0f : a;      // e^89 overflows to infinity
    const float n = ((a + b) * 1.44269504f + kRound) - kRound;
    const float r = (a - n * 0.693359375f) + (b - n * -2.12194440e-4f);  // n * ln2_hi is exact for |n| < 2^15
    const float p = 1.0f + r + r * r * exp_poly(r);
    const float n1 = (n * 0.5f + kRound) - kRound;  // n in [-150, 129]: n1 and n - n1 in [-75, 65]
    return p * pow2(n1) * pow2(n - n1);
}

// The functions templated on F take a float, or a vec_t<float> in the
// loops written for vectors (activation.hpp's forward of the modes bound by
// a division): int_lanes_t<F> is F's lanes as 32-bit integers.
template <class F>
using int_lanes_t = std::conditional_t<std::is_same_v<F, float>, int32_t, vec_t<int32_t>>;

template <class F>
ANYDNN_ALWAYS_INLINE F abs_(F x) {
    if constexpr (std::is_same_v<F, float>) return std::fabs(x);
    else return __builtin_bit_cast(F, __builtin_bit_cast(int_lanes_t<F>, x) & 0x7fffffff);
}

// m (>= 0 or NaN) with the sign of x.
template <class F>
ANYDNN_ALWAYS_INLINE F with_sign_of(F m, F x) {
    if constexpr (std::is_same_v<F, float>) return std::copysign(m, x);
    else return __builtin_bit_cast(F, __builtin_bit_cast(int_lanes_t<F>, m) |
                                          (__builtin_bit_cast(int_lanes_t<F>, x) & INT32_MIN));
}

// a < b ? a : b and a > b ? a : b: b where either is NaN. On x86 vectors
// they are one vminps / vmaxps, which implement exactly these selects;
// written as selects on GCC vectors they take a compare and a blend (GCC
// does find vminps for float loops it vectorizes itself). F: float, double
// or vec_t<float>. (maskz: GCC 12's unmasked AVX-512 forms pass an undefined
// vector through, which trips -Wmaybe-uninitialized.)
template <bool Max, class F>
ANYDNN_ALWAYS_INLINE F select_lanes(F a, F b) {
    if constexpr (std::is_same_v<F, vec_t<float>>) {
#if ANYDNN_ISA_avx512
        return reinterpret_cast<F>(Max ? _mm512_maskz_max_ps(0xffff, a, b) : _mm512_maskz_min_ps(0xffff, a, b));
#elif ANYDNN_ISA_avx2
        return reinterpret_cast<F>(Max ? _mm256_max_ps(a, b) : _mm256_min_ps(a, b));
#endif
    }
    return (Max ? a > b : a < b) ? a : b;
}
template <class F>
ANYDNN_ALWAYS_INLINE F min_lanes(F a, F b) {
    return select_lanes<false>(a, b);
}
template <class F>
ANYDNN_ALWAYS_INLINE F max_lanes(F a, F b) {
    return select_lanes<true>(a, b);
}

// min(|x|, hi), NaN kept: one select on one condition (vminps). The odd
// functions below clamp |x| this way and put the sign back with copysign:
// written as the clamp of x to [-hi, hi] (two selects) and a clamp of the
// result, GCC jump-threads the selects into branches and if-converts those
// into masks over the whole function body (GELU took 1.7x the time of the
// same math with min and max).
template <class F>
ANYDNN_ALWAYS_INLINE F abs_min(F x, float hi) {
    return min_lanes(F{} + hi, abs_(x));
}

// P(s) / Q(s) by Horner, the coefficients from the highest degree down.
template <int NP, int NQ, class F>
ANYDNN_ALWAYS_INLINE F rational(F s, const float (&p)[NP], const float (&q)[NQ]) {
    F a = F{} + p[0], b = F{} + q[0];
    for (int i = 1; i < NP; ++i) a = a * s + p[i];
    for (int i = 1; i < NQ; ++i) b = b * s + q[i];
    return a / b;
}

}  // namespace vmath_detail

ANYDNN_ALWAYS_INLINE float vexp(float x) { return vmath_detail::exp_sum(x, 0.0f); }

// e^x - 1, accurate relative to the result near 0 (fdlibm's scheme): with
// x = n ln2 + r, e^x - 1 = 2^n (e^r - 1) + (2^n - 1), where e^r - 1 is
// r + r^2 P(r) with no cancellation and 2^n - 1 is exact for small n.
ANYDNN_ALWAYS_INLINE float vexpm1(float x) {
    const float xc = x < -30.0f ? -30.0f : (x > 89.0f ? 89.0f : x);  // e^-30 is below float's 1 - ulp
    const float n = (xc * 1.44269504f + vmath_detail::kRound) - vmath_detail::kRound;
    const float r = (xc - n * 0.693359375f) - n * -2.12194440e-4f;
    const float q = r + r * r * vmath_detail::exp_poly(r);
    const float nc = n < 127.0f ? n : 127.0f;  // not n > 127 again: see vlog
    const float s = vmath_detail::pow2(nc);
    const float near = s * q + (s - 1.0f);
    // n = 128, 129: 2^n e^r does not fit 2^n alone, and the -1 no longer matters.
    const float far = (s * (1.0f + q)) * vmath_detail::pow2(n - nc);
    return n > 127.0f ? far : near;
}

// Natural logarithm: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log(1 + f)
// for f = m - 1 by f - f^2/2 + f^3 P(f) (near-minimax degree 8, 5e-9).
// Each adjustment of e tests what the adjustment of x did, not the same
// condition again: one condition feeding two selects makes GCC branch (jump
// threading), and the loop no longer vectorizes.
ANYDNN_ALWAYS_INLINE float vlog(float x) {
    const float xs = x < 1.17549435e-38f ? x * 8388608.0f : x;  // subnormal (or <= 0): scale by 2^23
    const uint32_t b = f32_bits(xs);
    float e = static_cast<float>(static_cast<int32_t>((b >> 23) & 0xffu) - 127);
    e = xs != x ? e - 23.0f : e;
    const float m1 = f32_from_bits((b & 0x007fffffu) | 0x3f800000u);  // [1, 2)
    const float m = m1 > 1.41421356f ? 0.5f * m1 : m1;
    e = m != m1 ? e + 1.0f : e;
    const float f = m - 1.0f;
    float p = 6.971611828e-02f;
    p = p * f + -1.147973388e-01f;
    p = p * f + 1.168541983e-01f;
    p = p * f + -1.242568716e-01f;
    p = p * f + 1.424905807e-01f;
    p = p * f + -1.666780263e-01f;
    p = p * f + 2.000071555e-01f;
    p = p * f + -2.499999702e-01f;
    p = p * f + 3.333333135e-01f;
    const float z = f * f;
    float y = f * z * p;
    y = y + e * -2.12194440e-4f;
    y = y - 0.5f * z;
    float r = f + y;
    r = r + e * 0.693359375f;
    r = x == 0.0f ? -vmath_detail::kInf : r;
    r = x < 0.0f ? std::numeric_limits<float>::quiet_NaN() : r;
    r = x == vmath_detail::kInf ? x : r;
    return x != x ? x : r;
}

// log(1 + u), accurate near 0: w = 1 + u rounds, and (w - 1 - u) / w is
// the first-order correction for that rounding. The correction is NaN
// exactly where it does not apply (u = -1: 0 / 0, u = inf: inf - inf).
ANYDNN_ALWAYS_INLINE float vlog1p(float u) {
    const float w = 1.0f + u;
    const float lw = vlog(w);
    const float c = ((w - 1.0f) - u) / w;
    return c == c ? lw - c : lw;
}

// 1 / (1 + e^-x), from e^-|x| so that neither side cancels or overflows.
ANYDNN_ALWAYS_INLINE float vsigmoid(float x) {
    const float e = vexp(-std::fabs(x));
    const float s = 1.0f / (1.0f + e);
    return x >= 0.0f ? s : e * s;
}

// tanh(x) = x P(x^2) / Q(x^2) on |x| <= 9, where tanh rounds to +-1: a
// near-minimax rational fit of degree 4 / 4 in x^2 (truncation error 2e-8
// relative; the float evaluation makes it 5 ulp). 13 operations and one
// division, against about 45 for tanh from expm1: the activation and the
// RNN cells are bound by it. The last clamp keeps rounding above 1 out.
// F: float, or vec_t<float> (vmath_detail's int_lanes_t).
template <class F>
ANYDNN_ALWAYS_INLINE F vtanh(F x) {
    constexpr float kP[] = {1.335317190e-08f, 2.060802217e-05f, 3.495525336e-03f, 1.338097304e-01f, 1.0f};
    constexpr float kQ[] = {7.775951758e-07f, 3.285530838e-04f, 2.587674558e-02f, 4.671428800e-01f, 1.0f};
    const F a = vmath_detail::abs_min(x, 9.0f);
    const F t = a * vmath_detail::rational(a * a, kP, kQ);
    return vmath_detail::with_sign_of(vmath_detail::min_lanes(F{} + 1.0f, t), x);
}

namespace vmath_detail {

// x * x = hi + lo exactly (Dekker's product without FMA: x splits into
// 12-bit halves whose products are exact).
ANYDNN_ALWAYS_INLINE void square_parts(float x, float &hi, float &lo) {
    hi = x * x;
    const float xh = f32_from_bits(f32_bits(x) & 0xfffff000u), xl = x - xh;
    lo = ((xh * xh - hi) + 2.0f * xh * xl) + xl * xl;
}

}  // namespace vmath_detail

// The standard normal CDF, Phi(x) = 1/2 + x P(x^2) / Q(x^2) on |x| <= 5.8,
// where Phi rounds to 0 or 1 within 3.3e-9: a near-minimax rational fit of
// degree 5 / 5 in x^2 for the absolute error (2e-8; the float evaluation
// makes it 2.1e-7). GELU's x Phi(x) then has an absolute error of at most
// 1.2e-6 and is relative-accurate wherever it is not close to 0. 17
// operations and one division, against about 60 for a Phi that is
// relative-accurate in the lower tail from erfc's asymptotic form.
// F: float, or vec_t<float>.
template <class F>
ANYDNN_ALWAYS_INLINE F vnormcdf(F x) {
    constexpr float kP[] = {2.099479879e-08f, 6.402646250e-06f, 1.858723554e-04f,
                            4.780933727e-03f, 3.559433296e-02f, 3.989422023e-01f};
    constexpr float kQ[] = {1.149776381e-06f, 7.874344738e-05f, 1.981818583e-03f,
                            2.963444218e-02f, 2.558870316e-01f, 1.0f};
    const F a = vmath_detail::abs_min(x, 5.8f);
    const F h = a * vmath_detail::rational(a * a, kP, kQ);  // |Phi(x) - 1/2|
    return 0.5f + vmath_detail::with_sign_of(vmath_detail::min_lanes(F{} + 0.5f, h), x);
}

// e^(-x^2 / 2), with x^2 / 2 formed exactly (square_parts), so that the
// result keeps its relative accuracy far into the tails.
ANYDNN_ALWAYS_INLINE float vgauss(float x) {
    float xa = std::fabs(x);
    xa = xa > 20.0f ? 20.0f : xa;  // e^-200 is long 0 in float
    float hi, lo;
    vmath_detail::square_parts(xa, hi, lo);
    return vmath_detail::exp_sum(-0.5f * hi, -0.5f * lo);
}

ANYDNN_ALWAYS_INLINE double vexp(double x) { return std::exp(x); }
ANYDNN_ALWAYS_INLINE double vexpm1(double x) { return std::expm1(x); }
ANYDNN_ALWAYS_INLINE double vlog(double x) { return std::log(x); }
ANYDNN_ALWAYS_INLINE double vlog1p(double x) { return std::log1p(x); }
ANYDNN_ALWAYS_INLINE double vsigmoid(double x) {
    const double e = std::exp(-std::fabs(x));
    const double s = 1.0 / (1.0 + e);
    return x >= 0.0 ? s : e * s;
}
ANYDNN_ALWAYS_INLINE double vtanh(double x) { return std::tanh(x); }
ANYDNN_ALWAYS_INLINE double vgauss(double x) { return std::exp(-0.5 * x * x); }
ANYDNN_ALWAYS_INLINE double vnormcdf(double x) { return 0.5 * std::erfc(-x * 0.70710678118654752440); }

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
