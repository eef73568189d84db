// LRN and divisive normalization kernels, compiled once per ISA level.
//
// LRN across channels: a work item is one image's block of up to kPixelLanes
// pixels along the grid's last dimension (contiguous in NCHW; strided loads
// in NHWC), all channels. A ring of the squares of the last lrnN channels
// gives each channel's window sum, re-added in ascending channel order for
// every channel (lrnN <= 16 adds per element, in registers), which costs
// less than the exp and log of the power and never cancels as a running sum
// (add the entering square, subtract the leaving one) would. The backward
// pass runs the same ring plus rings of dy y / s and of s^-beta, writing dx
// `before` channels behind: see backward_item.
//
// LRN with channel lanes (NHWC): a work item is one pixel, its channels the
// lanes, in blocks with their window's halo; f32 with beta 0.75 and windows
// of 3 or 5 runs fused passes over the pixel's channels in registers
// (forward_pixel_fused, backward_pixel_fused).
//
// Divisive normalization: a work item is one (n, c) plane; the window sums
// are separable box sums (along w, then h, then d) of u^2 in a scratch of
// three planes, each output the sum of its window in ascending order.
//
// Compile time: the math (window sums, the power, the passes' arithmetic) is
// compiled once per compute type, on contiguous rows of it, and kept out of
// line; the drivers around it depend on the storage type only, take strides,
// beta == 0.75 and blending at run time, and stage 16-bit types, strided
// lanes and blending through L1 buffers (util/staging.hpp). Compiled into
// every storage type x (unit, strided) x beta case, the same math cost 28 s
// of compile time for AVX-512.
#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/staging.hpp"
#include "cpu/kernels/util/vmath.hpp"
#include "cpu/lrn.hpp"

#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
#include <immintrin.h>
#endif

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

// Pixels side by side in a pixel-lane work item: each channel of an item is
// a 1 KiB run of an NCHW plane (f32), which the prefetchers follow, and the
// calls per channel (staging, the ring's math) are paid once per 256
// pixels. With 64, those calls and the short runs across C planes made the
// forward pass twice oneDNN's time.
constexpr int64_t kPixelLanes = 256;
constexpr int64_t kLanes = 64;     // channels side by side in a channel-lane block
constexpr int64_t kGrain = 16384;  // elements per thread, at least
constexpr int kMaxN = ANYDNN_LRN_MAX_N;

// s^-beta for s >= lrnK > 0 (vectorizable for float, libm for double).
template <class C>
ANYDNN_ALWAYS_INLINE C neg_pow(C s, C neg_beta) {
    return vexp(neg_beta * vlog(s));
}

// 1 / sqrt(s) for a positive normal s: the classic bit estimate (3.4e-2
// relative) and three Newton steps (1.8e-3, 4.7e-6, then 3e-11: float
// rounding dominates).
ANYDNN_ALWAYS_INLINE float rsqrt_newton(float s) {
    float y = f32_from_bits(0x5f375a86u - (f32_bits(s) >> 1));
    const float h = 0.5f * s;
    y = y * (1.5f - h * y * y);
    y = y * (1.5f - h * y * y);
    return y * (1.5f - h * y * y);
}

// s^-beta, with beta = 0.75 (AlexNet's, GoogLeNet's) as r r / sqrt(r) for
// r = 1 / sqrt(s): about half the operations of exp and log (std::sqrt does
// not vectorize while it may set errno). s = inf gives 0, as exp(-beta
// log s) does.
template <bool B075, class C>
ANYDNN_ALWAYS_INLINE C lrn_pow(C s, C neg_beta) {
    if constexpr (B075 && sizeof(C) == 4) {
        const float r = rsqrt_newton(s);
        const float p = r * r * rsqrt_newton(r);
        return s == std::numeric_limits<float>::infinity() ? 0.0f : p;
    } else {
        return neg_pow(s, neg_beta);
    }
}

// One Newton step for 1 / sqrt(s) from the estimate r (relative error e to
// about 1.5 e^2).
template <class V>
ANYDNN_ALWAYS_INLINE V rsqrt_step(V s, V r) {
    return r * (1.5f - 0.5f * s * r * r);
}

// s^-0.75 as lrn_pow<true> computes it, a vector at a time from the
// hardware's estimate of 1 / sqrt (relative error 2^-14 for AVX-512's
// vrsqrt14ps, 1.5 * 2^-12 for AVX's vrsqrtps) and one Newton step instead of
// the bit estimate and three: the power was the larger part of the forward
// pass's arithmetic. Error about 3e-7 (the tests allow 2e-5).
#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
#if ANYDNN_ISA_avx512
using RawF = __m512;
// The zero-masked form of vrsqrt14ps: the plain one's undefined source
// operand draws GCC 12's -Wmaybe-uninitialized.
ANYDNN_ALWAYS_INLINE RawF rsqrt_estimate(RawF s) {
    return _mm512_maskz_rsqrt14_ps(0xffff, s);
}
// v, with 0 in the lanes where s is +inf.
ANYDNN_ALWAYS_INLINE RawF zero_where_inf(RawF s, RawF v) {
    const __mmask16 inf = _mm512_cmp_ps_mask(s, _mm512_set1_ps(std::numeric_limits<float>::infinity()), _CMP_EQ_OQ);
    return _mm512_mask_blend_ps(inf, v, _mm512_setzero_ps());
}
#else
using RawF = __m256;
ANYDNN_ALWAYS_INLINE RawF rsqrt_estimate(RawF s) { return _mm256_rsqrt_ps(s); }
ANYDNN_ALWAYS_INLINE RawF zero_where_inf(RawF s, RawF v) {
    const __m256 inf = _mm256_cmp_ps(s, _mm256_set1_ps(std::numeric_limits<float>::infinity()), _CMP_EQ_OQ);
    return _mm256_blendv_ps(v, _mm256_setzero_ps(), inf);
}
#endif

// s^-0.75 into pw and 1 / s (the square of the first root) into inv, for U
// vectors side by side, each step for all U before the next: one vector's
// chain (two estimates, two Newton steps, the products: ~35 cycles of
// latency, ~60 with the window sum before it) is longer than the FP
// scheduler's window covers on its own (a Zen 3 ran the forward pass at
// 18-22 cycles a vector, latency bound). The same operations per lane for
// any U, so results do not depend on it.
template <int U>
ANYDNN_ALWAYS_INLINE void pow_075_inverse(const RawF *s, RawF *pw, RawF *inv) {
    RawF r[U], q[U];
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) r[u] = rsqrt_estimate(s[u]);
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) r[u] = rsqrt_step(s[u], r[u]);
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) q[u] = rsqrt_estimate(r[u]);
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) q[u] = rsqrt_step(r[u], q[u]);
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
        inv[u] = zero_where_inf(s[u], r[u] * r[u]);
        pw[u] = zero_where_inf(s[u], r[u] * r[u] * q[u]);
    }
}

// s^-0.75 alone (the unused inverse costs nothing once inlined).
ANYDNN_ALWAYS_INLINE RawF pow_075(RawF s) {
    RawF pw, inv;
    pow_075_inverse<1>(&s, &pw, &inv);
    return pw;
}

// pow_075_inverse on U of the level's vec_t<float> (GCC's vector operators;
// RawF may alias them).
template <int U>
ANYDNN_ALWAYS_INLINE void pow_075_vec(const vec_t<float> *s, vec_t<float> *pw, vec_t<float> *inv) {
    pow_075_inverse<U>(reinterpret_cast<const RawF *>(s), reinterpret_cast<RawF *>(pw), reinterpret_cast<RawF *>(inv));
}
#endif

// The work items of an LRN call: (n, outer pixel, lane block), and each
// operand's offset of an item's lane 0.
struct LrnItems {
    int64_t outer = 1, blocks = 1;
    int64_t count(const ops::LrnGrid &g) const { return g.n * outer * blocks; }
};

inline LrnItems lrn_items(const ops::LrnGrid &g) {
    LrnItems it;
    for (int d = 0; d < g.nd - 1; ++d) it.outer *= g.dims[d];
    it.blocks = (g.dims[g.nd - 1] + kPixelLanes - 1) / kPixelLanes;
    return it;
}

// Offsets of item `item` for operands [0, nops); returns its lane count.
inline int64_t item_offsets(const ops::LrnGrid &g, const LrnItems &it, int64_t item, int64_t *off) {
    const int64_t b = item % it.blocks, rest = item / it.blocks;
    int64_t o = rest % it.outer;
    const int64_t n = rest / it.outer;
    const int last = g.nd - 1;
    for (int k = 0; k < g.nops; ++k) off[k] = n * g.sn[k] + b * kPixelLanes * g.s[k][last];
    for (int d = last - 1; d >= 0; --d) {
        const int64_t cd = o % g.dims[d];
        o /= g.dims[d];
        for (int k = 0; k < g.nops; ++k) off[k] += cd * g.s[k][d];
    }
    return imin_(kPixelLanes, g.dims[last] - b * kPixelLanes);
}

// r[l] = the sum of rows[0..K)[l], in that order: the rows are a constant
// count of pointers, so the lane loop is one vector loop with K loads (a
// loop over a run-time count of slots around it was unrolled and jammed by
// GCC into scalar code that cost a third of the forward pass).
template <int K, int64_t Lanes, class C>
inline void sum_rows(const C *const *rows, C *__restrict r) {
    for (int64_t l = 0; l < Lanes; ++l) {
        C acc = rows[0][l];
#pragma GCC unroll 16
        for (int j = 1; j < K; ++j) acc += rows[j][l];
        r[l] = acc;
    }
}

// sum_rows for the window width n: K = n for the common 3 and 5, else 4, 8
// or 16 with the rows past n zeros (the same sums either way).
template <int64_t Lanes, class C>
inline void sum_window(const C *const *rows, int n, C *__restrict r) {
    if (n == 3) sum_rows<3, Lanes>(rows, r);
    else if (n == 5) sum_rows<5, Lanes>(rows, r);
    else if (n <= 4) sum_rows<4, Lanes>(rows, r);
    else if (n <= 8) sum_rows<8, Lanes>(rows, r);
    else sum_rows<16, Lanes>(rows, r);
}

// r = the sum of the n ring slots first, first + 1, ... (mod n), in that
// order, over all kPixelLanes lanes; rows past n are `zeros`, and adding 0
// changes no sum.
template <class C>
[[gnu::noinline]] void ring_sum(const C (*ring)[kPixelLanes], int n, int64_t first, const C *zeros, C *__restrict r) {
    const C *rows[kMaxN];
    for (int j = 0; j < kMaxN; ++j) rows[j] = j < n ? ring[(first + j) % n] : zeros;
    sum_window<kPixelLanes>(rows, n, r);
}

// The constants of an LRN call in the compute type.
template <class C>
struct LrnConsts {
    C alpha_n, k, neg_beta, alpha, beta, two_beta_alpha_n;
    int n, before, after;
    bool b075;  // beta == 0.75: the fast power (float)
};

template <class C, class A>
LrnConsts<C> lrn_consts(const A &a) {
    return {static_cast<C>(a.lrn.alpha_n),
            static_cast<C>(a.lrn.k),
            static_cast<C>(-a.lrn.beta),
            static_cast<C>(a.alpha),
            static_cast<C>(a.beta),
            static_cast<C>(2 * a.lrn.beta * a.lrn.alpha_n),
            a.lrn.n,
            a.lrn.before,
            a.lrn.after,
            a.lrn.beta == 0.75};
}

// out[l] = s[l]^-beta for l < n (out may be s): the one copy of the
// power's vector code per compute type, which every pass calls on a row of
// window sums (inlined into each pass, for each beta case, it was most of
// this unit's compile time).
template <class C>
[[gnu::noinline]] void powers(const C *s, C *out, int64_t n, const LrnConsts<C> &p) {
    if constexpr (sizeof(C) == 4) {
        if (p.b075) {
            int64_t l = 0;
#if ANYDNN_ISA_avx512
            for (; l + 16 <= n; l += 16) _mm512_storeu_ps(out + l, pow_075(_mm512_loadu_ps(s + l)));
#elif ANYDNN_ISA_avx2
            for (; l + 8 <= n; l += 8) _mm256_storeu_ps(out + l, pow_075(_mm256_loadu_ps(s + l)));
#endif
            for (; l < n; ++l) out[l] = lrn_pow<true>(s[l], p.neg_beta);
            return;
        }
    }
    for (int64_t l = 0; l < n; ++l) out[l] = lrn_pow<false>(s[l], p.neg_beta);
}

// The forward pass's last steps in one pass over the lanes: y[l] = alpha
// x[l] s^-beta with s = k + alpha_n r[l], the window sum r (y may be x).
// As three passes (the sum's scaling, powers(), the product) they cost a
// fifth of the pixel lanes' time.
template <class C>
[[gnu::noinline]] void forward_powers(const C *r, const C *x, C *y, int64_t n, const LrnConsts<C> &p) {
    if constexpr (sizeof(C) == 4) {
        if (p.b075) {
            int64_t l = 0;
#if ANYDNN_ISA_avx512
            const __m512 k = _mm512_set1_ps(p.k), an = _mm512_set1_ps(p.alpha_n), al = _mm512_set1_ps(p.alpha);
            for (; l + 16 <= n; l += 16) {
                const __m512 s = k + an * _mm512_loadu_ps(r + l);
                _mm512_storeu_ps(y + l, al * _mm512_loadu_ps(x + l) * pow_075(s));
            }
#elif ANYDNN_ISA_avx2
            const __m256 k = _mm256_set1_ps(p.k), an = _mm256_set1_ps(p.alpha_n), al = _mm256_set1_ps(p.alpha);
            for (; l + 8 <= n; l += 8) {
                const __m256 s = k + an * _mm256_loadu_ps(r + l);
                _mm256_storeu_ps(y + l, al * _mm256_loadu_ps(x + l) * pow_075(s));
            }
#endif
            for (; l < n; ++l) y[l] = p.alpha * x[l] * lrn_pow<true>(p.k + p.alpha_n * r[l], p.neg_beta);
            return;
        }
    }
    for (int64_t l = 0; l < n; ++l) y[l] = p.alpha * x[l] * lrn_pow<false>(p.k + p.alpha_n * r[l], p.neg_beta);
}

// Zeros for the window rows past n and the lanes past a block (at least
// kPixelLanes and a channel-lane block's kLanes + kHalo + 1).
template <class C>
constexpr C kZeros[kPixelLanes] = {};

// The n results for p (stride s) go to p itself when it is contiguous C and
// nothing is blended, else to buf, which the caller then writes with
// staged_out.
template <class C, class T>
inline C *direct_out(T *p, int64_t s, bool blend, C *buf) {
    if constexpr (std::is_same_v<T, C>) {
        if (s == 1 && !blend) return p;
    }
    return buf;
}

// ---- Pixel lanes: the math, once per compute type -----------------------
//
// The drivers stage each channel's nb lanes of an item as contiguous C
// (util/staging.hpp); the rows below run on them.

// The squares of the nb lanes x (null: a channel outside [0, C), all 0)
// into slot; lanes past the block hold 0, so that ring_sum can add whole
// slots.
template <class C>
[[gnu::noinline]] void enter_square(const C *x, int64_t nb, C *__restrict slot) {
    const int64_t m = x ? nb : 0;
    for (int64_t l = 0; l < m; ++l) slot[l] = x[l] * x[l];
    for (int64_t l = m; l < kPixelLanes; ++l) slot[l] = 0;
}

// Channel c: its window's last square (of xn) enters the ring, then y =
// alpha x s^-beta. y may be x (x[l] is read before y[l] is written).
template <class C>
[[gnu::noinline]] void forward_row(C (*sq)[kPixelLanes], int64_t c, const C *xn, const C *x, C *y, int64_t nb,
                                   const LrnConsts<C> &p) {
    enter_square(xn, nb, sq[(c + p.n - 1) % p.n]);
    alignas(64) C r[kPixelLanes];
    ring_sum<C>(sq, p.n, c, kZeros<C>, r);
    forward_powers(r, x, y, nb, p);
}

#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
// Vectors of a fused pass whose chains (window sum, power, product) run
// side by side (pow_075_inverse).
constexpr int kChains = 4;

// out = alpha x s^-0.75 with s = k + alpha_n r, for the window sums r of U
// vectors: the fused forward passes' last steps.
template <int U>
ANYDNN_ALWAYS_INLINE void outputs_075(const vec_t<float> *r, const vec_t<float> *x, vec_t<float> *out,
                                      const LrnConsts<float> &p) {
    vec_t<float> s[U], inv[U];
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) s[u] = p.k + p.alpha_n * r[u];
    pow_075_vec<U>(s, out, inv);
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) out[u] = p.alpha * x[u] * out[u];
}

// r[u] = rows[0] + ... + rows[N - 2] + last[u] at lanes l + u W, for the
// kChains vectors of a fused pass's step: a ring's window sum in
// ring_sum's order (its other slots ascending, the newest entry last).
template <int N>
ANYDNN_ALWAYS_INLINE void ring_sums(const float *const *rows, int64_t l, const vec_t<float> *last, vec_t<float> *r) {
    using V = vec_t<float>;
    constexpr int64_t W = kVectorBytes / int64_t(sizeof(float));
#pragma GCC unroll 8
    for (int u = 0; u < kChains; ++u) r[u] = load_vec<V>(rows[0] + l + u * W);
#pragma GCC unroll 16
    for (int j = 1; j < N - 1; ++j)
#pragma GCC unroll 8
        for (int u = 0; u < kChains; ++u) r[u] += load_vec<V>(rows[j] + l + u * W);
#pragma GCC unroll 8
    for (int u = 0; u < kChains; ++u) r[u] += last[u];
}

// The squares of xn's kChains vectors at lane l (zeros for a null xn, a
// channel outside [0, C)) into the ring slot `entering`, and the window
// sums of the squares ring (ring_sums) into r.
template <int N>
ANYDNN_ALWAYS_INLINE void enter_and_sum(const float *const *rows, float *entering, const float *xn, int64_t l,
                                        vec_t<float> *r) {
    using V = vec_t<float>;
    constexpr int64_t W = kVectorBytes / int64_t(sizeof(float));
    V e[kChains];
#pragma GCC unroll 8
    for (int u = 0; u < kChains; ++u) {
        const V v = xn ? load_vec<V>(xn + l + u * W) : V{};
        e[u] = v * v;
        store_vec(entering + l + u * W, e[u]);
    }
    ring_sums<N>(rows, l, e, r);
}

// forward_row in one pass over a whole block of lanes, for f32, beta 0.75
// and a window of N channels: each vector's square enters the ring and its
// window sum, power and product stay in registers, where forward_row makes
// three passes through L1 (staged_out a fourth when streaming). The sums
// run in ring_sum's order. stream: y gets streaming stores (line-aligned).
template <int N>
[[gnu::noinline]] void forward_row_fused(float (*sq)[kPixelLanes], int64_t c, const float *xn, const float *x,
                                         float *y, const LrnConsts<float> &p, bool stream) {
    using V = vec_t<float>;
    constexpr int64_t W = kVectorBytes / int64_t(sizeof(float));
    const float *rows[N - 1];
    for (int j = 0; j < N - 1; ++j) rows[j] = sq[(c + j) % N];
    float *entering = sq[(c + N - 1) % N];
    static_assert(kPixelLanes % (kChains * W) == 0);
    for (int64_t l = 0; l < kPixelLanes; l += kChains * W) {
        V r[kChains], xv[kChains], out[kChains];
        enter_and_sum<N>(rows, entering, xn, l, r);
#pragma GCC unroll 8
        for (int u = 0; u < kChains; ++u) xv[u] = load_vec<V>(x + l + u * W);
        outputs_075<kChains>(r, xv, out, p);
#pragma GCC unroll 8
        for (int u = 0; u < kChains; ++u) {
            if (stream) stream_vector(y + l + u * W, out[u]);
            else store_vec(y + l + u * W, out[u]);
        }
    }
}
#endif

// Step m < C of the backward pass: s_m^-beta into pm, q_m = dy y / s_m into
// qm (lanes past the block 0).
template <class C>
[[gnu::noinline]] void backward_q(C (*sq)[kPixelLanes], int64_t m, const C *xn, const C *y, const C *dy,
                                  C *__restrict pm, C *__restrict qm, int64_t nb, const LrnConsts<C> &p) {
    enter_square(xn, nb, sq[(m + p.n - 1) % p.n]);
    alignas(64) C r[kPixelLanes];
    ring_sum<C>(sq, p.n, m, kZeros<C>, r);
    for (int64_t l = 0; l < nb; ++l) {
        r[l] = p.k + p.alpha_n * r[l];
        qm[l] = dy[l] * y[l] / r[l];
    }
    powers(r, pm, nb, p);
    for (int64_t l = nb; l < kPixelLanes; ++l) qm[l] = 0;
}

// dx of channel c = m - before from the ring of q (slots of c' = m - n + 1
// .. m, ascending) and pc = s_c^-beta.
template <class C>
[[gnu::noinline]] void backward_dx(C (*q)[kPixelLanes], int64_t m, const C *pc, const C *x, const C *dy, C *dx,
                                   int64_t nb, const LrnConsts<C> &p) {
    alignas(64) C r[kPixelLanes];
    ring_sum<C>(q, p.n, m + 1, kZeros<C>, r);
    for (int64_t l = 0; l < nb; ++l) dx[l] = p.alpha * (dy[l] * pc[l] - p.two_beta_alpha_n * x[l] * r[l]);
}

#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
// backward_q and backward_dx of step m (before <= m < C) in one pass over a
// whole block of lanes, for f32, beta 0.75 and a window of N channels: the
// entering square, s_m, s_m^-0.75 and q_m stay in registers for the window
// sums of q, where the two calls make six passes through L1 (GoogLeNet's
// conv2 norm backward, NCHW: 59% of the bandwidth). dx is channel m -
// before's (xc, dyc); the sums run in ring_sum's order. stream: dx gets
// streaming stores (line-aligned).
template <int N>
[[gnu::noinline]] void backward_row_fused(float (*sq)[kPixelLanes], float (*q)[kPixelLanes],
                                          float (*pw)[kPixelLanes], int64_t m, int before, const float *xn,
                                          const float *y, const float *dy, const float *xc, const float *dyc,
                                          float *dx, const LrnConsts<float> &p, bool stream) {
    using V = vec_t<float>;
    constexpr int64_t W = kVectorBytes / int64_t(sizeof(float));
    // Locals: the stores below could alias p for GCC, which then reloads it.
    const float k = p.k, alpha_n = p.alpha_n, alpha = p.alpha, two_beta_alpha_n = p.two_beta_alpha_n;
    const float *squares[N - 1], *qs[N - 1];  // the rings' other slots, ascending
    for (int j = 0; j < N - 1; ++j) {
        squares[j] = sq[(m + j) % N];
        qs[j] = q[(m + 1 + j) % N];
    }
    float *entering = sq[(m + N - 1) % N], *qm = q[m % N], *pm = pw[m % N];
    const float *pc = pw[(m - before) % N];
    static_assert(kPixelLanes % (kChains * W) == 0);
    for (int64_t l = 0; l < kPixelLanes; l += kChains * W) {
        V qv[kChains], r[kChains], pv[kChains], inv[kChains];
        enter_and_sum<N>(squares, entering, xn, l, r);
#pragma GCC unroll 8
        for (int u = 0; u < kChains; ++u) r[u] = k + alpha_n * r[u];
        pow_075_vec<kChains>(r, pv, inv);
#pragma GCC unroll 8
        for (int u = 0; u < kChains; ++u) {
            const int64_t i = l + u * W;
            store_vec(pm + i, pv[u]);
            qv[u] = load_vec<V>(dy + i) * load_vec<V>(y + i) * inv[u];
            store_vec(qm + i, qv[u]);
        }
        ring_sums<N>(qs, l, qv, r);  // r: the window sums of q
#pragma GCC unroll 8
        for (int u = 0; u < kChains; ++u) {
            const int64_t i = l + u * W;
            const V out = alpha * (load_vec<V>(dyc + i) * load_vec<V>(pc + i) -
                                   two_beta_alpha_n * load_vec<V>(xc + i) * r[u]);
            if (stream) stream_vector(dx + i, out);
            else store_vec(dx + i, out);
        }
    }
}
#endif

// ---- Pixel lanes: the drivers, per storage type ----------------------------

// Channels ahead of the one entering the ring whose rows are prefetched:
// an item's rows are short runs (1 KiB) in C different planes, which the
// hardware prefetchers pick up too late; the forward pass waited on x's
// loads for half its time.
constexpr int64_t kPrefetchChannels = 4;

// Asks for the bytes [p, p + n) ahead of their use (for writing: rw).
template <int RW>
inline void prefetch_run(const void *p, int64_t n) {
    const char *b = static_cast<const char *>(p);
    for (int64_t i = 0; i < n; i += 64) __builtin_prefetch(b + i, RW);
}

// The ring holds the square of channel ch in slot (ch + before) % n.
// stream: y's rows go out with streaming stores (contiguous, not blended).
template <class T, class C>
void forward_item(const LrnArgs &a, const LrnConsts<C> &p, const int64_t *off, int64_t nb, bool unit, bool stream) {
    const ops::LrnGrid &g = a.g;
    const int n = p.n, before = p.before, after = p.after;
    const int last = g.nd - 1;
    const int64_t sxc = g.sc[0], syc = g.sc[1], sxl = unit ? 1 : g.s[0][last], syl = unit ? 1 : g.s[1][last];
    const T *x = static_cast<const T *>(a.x) + off[0];
    T *y = static_cast<T *>(a.out) + off[1];
    const bool blend = a.beta != 0;
    alignas(64) C sq[kMaxN][kPixelLanes], bn[kPixelLanes], bx[kPixelLanes], res[kPixelLanes];
    auto row = [&](int64_t ch) -> const C * {
        return ch < 0 || ch >= g.c ? nullptr : staged_in(x + ch * sxc, sxl, nb, bn);
    };
    // forward_row_fused's case: float read and written in place (x's rows are
    // then x itself, not staging buffers), beta 0.75, windows of 3 or 5.
    [[maybe_unused]] const bool fused = unit && !blend && p.b075 && (n == 3 || n == 5);
    for (int64_t ch = -before; ch < after; ++ch) enter_square(row(ch), nb, sq[(ch + before) % n]);
    for (int64_t c = 0; c < g.c; ++c) {
        // x[c] is read before y[c] is written, and no later channel reads it
        // again (its square is in the ring): y may be x's buffer.
        const C *xn = row(c + after), *xc = staged_in(x + c * sxc, sxl, nb, bx);
        T *yp = y + c * syc;
        if (unit && c + after + kPrefetchChannels < g.c) {
            prefetch_run<0>(x + (c + after + kPrefetchChannels) * sxc, nb * int64_t(sizeof(T)));
            if (!stream) prefetch_run<1>(yp + kPrefetchChannels * syc, nb * int64_t(sizeof(T)));
        }
#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
        if constexpr (std::is_same_v<T, float>) {
            if (fused && nb == kPixelLanes) {
                // Streaming stores take whole lines: a row off a line's start goes through res.
                const bool nt = stream && line_aligned(yp);
                float *to = stream && !nt ? res : yp;
                (n == 3 ? forward_row_fused<3> : forward_row_fused<5>)(sq, c, xn, xc, to, p, nt);
                if (to == res) staged_out(yp, 1, res, nb, p.beta, false, true);
                continue;
            }
        }
#endif
        C *out = stream ? res : direct_out(yp, syl, blend, res);
        forward_row(sq, c, xn, xc, out, nb, p);
        if (out == res) staged_out(yp, syl, res, nb, p.beta, blend, stream);
    }
}

// Channel m's window sum s_m needs the squares up to m + after; dx_c needs
// q_c' = dy_c' y_c' / s_c' for c' in [c - after, c + before] (the channels
// whose windows hold c), so dx of channel c = m - before is final at step m.
// Rings: squares as in the forward pass; q_m and s_m^-beta in slot m % n
// (slots of channels below 0 stay 0: written only from step m = their slot).
// stream: dx's rows go out with streaming stores, as y's in forward_item
// (GoogLeNet's conv2 norm at mb16: 8.3 -> 5.9 ms).
template <class T, class C>
void backward_item(const LrnArgs &a, const LrnConsts<C> &p, const int64_t *off, int64_t nb, bool unit,
                   bool stream) {
    const ops::LrnGrid &g = a.g;
    const int n = p.n, before = p.before, after = p.after;
    const int last = g.nd - 1;
    const int64_t sxc = g.sc[0], syc = g.sc[1], sdyc = g.sc[2], sdxc = g.sc[3];
    const int64_t sxl = unit ? 1 : g.s[0][last], syl = unit ? 1 : g.s[1][last];
    const int64_t sdyl = unit ? 1 : g.s[2][last], sdxl = unit ? 1 : g.s[3][last];
    const T *x = static_cast<const T *>(a.x) + off[0], *y = static_cast<const T *>(a.y) + off[1];
    const T *dy = static_cast<const T *>(a.dy) + off[2];
    T *dx = static_cast<T *>(a.out) + off[3];
    const bool blend = a.beta != 0;
    alignas(64) C sq[kMaxN][kPixelLanes], q[kMaxN][kPixelLanes], pw[kMaxN][kPixelLanes];
    alignas(64) C bn[kPixelLanes], by[kPixelLanes], bdy[kPixelLanes], bx[kPixelLanes], bdyc[kPixelLanes],
        res[kPixelLanes];
    for (int i = 0; i < n; ++i)
        for (int64_t l = 0; l < kPixelLanes; ++l) q[i][l] = 0;
    auto row = [&](int64_t ch) -> const C * {
        return ch < 0 || ch >= g.c ? nullptr : staged_in(x + ch * sxc, sxl, nb, bn);
    };
    // backward_row_fused's case, as forward_row_fused's.
    [[maybe_unused]] const bool fused = unit && !blend && p.b075 && (n == 3 || n == 5);
    for (int64_t ch = -before; ch < after; ++ch) enter_square(row(ch), nb, sq[(ch + before) % n]);
    for (int64_t m = 0; m < g.c + before; ++m) {
        // As the forward pass: the channel rows kPrefetchChannels ahead (1 KiB
        // runs a plane apart, which the hardware prefetchers do not follow).
        if (unit && m + after + kPrefetchChannels < g.c) {
            const int64_t bytes = nb * int64_t(sizeof(T)), ahead = m + kPrefetchChannels;
            prefetch_run<0>(x + (ahead + after) * sxc, bytes);
            prefetch_run<0>(y + ahead * syc, bytes);
            prefetch_run<0>(dy + ahead * sdyc, bytes);
        }
#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
        if constexpr (std::is_same_v<T, float>) {
            if (fused && nb == kPixelLanes && m >= before && m < g.c) {
                const int64_t c = m - before;
                float *dxp = dx + c * sdxc;
                const bool nt = stream && line_aligned(dxp);
                float *to = stream && !nt ? res : dxp;
                (n == 3 ? backward_row_fused<3> : backward_row_fused<5>)(sq, q, pw, m, before, row(m + after),
                                                                         y + m * syc, dy + m * sdyc, x + c * sxc,
                                                                         dy + c * sdyc, to, p, nt);
                if (to == res) staged_out(dxp, 1, res, nb, p.beta, false, true);
                continue;
            }
        }
#endif
        if (m < g.c)
            backward_q(sq, m, row(m + after), staged_in(y + m * syc, syl, nb, by),
                       staged_in(dy + m * sdyc, sdyl, nb, bdy), pw[m % n], q[m % n], nb, p);
        else
            for (int64_t l = 0; l < kPixelLanes; ++l) q[m % n][l] = 0;
        if (m < before) continue;
        const int64_t c = m - before;
        T *dxp = dx + c * sdxc;
        C *out = stream ? res : direct_out(dxp, sdxl, blend, res);
        backward_dx(q, m, pw[c % n], staged_in(x + c * sxc, sxl, nb, bx), staged_in(dy + c * sdyc, sdyl, nb, bdyc),
                    out, nb, p);
        if (out == res) staged_out(dxp, sdxl, res, nb, p.beta, blend, stream);
    }
}

template <bool Backward, class T>
void lrn_typed(const ExecContext &ctx, const LrnArgs &a) {
    using C = compute_t<T>;
    const ops::LrnGrid &g = a.g;
    const LrnItems it = lrn_items(g);
    const int last = g.nd - 1;
    bool unit = true;
    for (int k = 0; k < g.nops; ++k) unit = unit && (g.s[k][last] == 1 || g.dims[last] == 1);
    const int64_t per_item = g.c * imin_(kPixelLanes, g.dims[last]);
    const LrnConsts<C> p = lrn_consts<C>(a);
    const bool stream = unit && a.beta == 0 &&
                        use_streaming_stores(g.n * g.c * g.pixels() * int64_t(sizeof(T)), a.out, a.x, a.y, a.dy);
    parallel_ranges(ctx, it.count(g), kGrain / per_item + 1, [&](int64_t begin, int64_t end) {
        int64_t off[ops::kLrnMaxOperands];
        for (int64_t item = begin; item < end; ++item) {
            const int64_t nb = item_offsets(g, it, item, off);
            if constexpr (Backward) backward_item<T>(a, p, off, nb, unit, stream);
            else forward_item<T>(a, p, off, nb, unit, stream);
        }
        if (stream) streaming_fence();
    });
}

// ---- Channel lanes (NHWC) ------------------------------------------------------
//
// A work item is one pixel of one image; its channels, contiguous, are the
// lanes, in blocks of kLanes. The squares of a block and its window's halo
// go to a buffer with zeros outside [0, C), and channel c's window sum is
// the sum of the buffer at c - before + j for j = 0 .. n-1 in that order:
// the same sums, in the same order, as the pixel lanes' ring. The drivers
// stage the channels a block reads, those inside [0, C), as contiguous C.

constexpr int64_t kHalo = kMaxN - 1;

// The padding of backward_pixel_fused's buffer of q on each side: zeros for
// the windows past the run's ends (up to 2 channels), a whole vector so
// that channel 0 stays aligned.
constexpr int64_t kQPad = kVectorBytes / int64_t(sizeof(float));

// buf[i] = xs[i - i0]^2 for i in [i0, i1), 0 for every other i < Size.
template <int64_t Size, class C>
inline void square_block(const C *xs, int64_t i0, int64_t i1, C *__restrict buf) {
    for (int64_t i = 0; i < Size; ++i) buf[i] = 0;
    for (int64_t i = i0; i < i1; ++i) buf[i] = xs[i - i0] * xs[i - i0];
}

template <int64_t Lanes, class C>
[[gnu::noinline]] void window_sums(const C *buf, int n, const C *zeros, C *__restrict r) {
    const C *rows[kMaxN];
    for (int j = 0; j < kMaxN; ++j) rows[j] = j < n ? buf + j : zeros;
    sum_window<Lanes>(rows, n, r);
}

// A block of nb channels: xs holds the channels [first + i0, first + i1) of
// its window's squares (first = the block's first channel - before), xc its
// own.
template <class C>
[[gnu::noinline]] void forward_block(const C *xs, int64_t i0, int64_t i1, const C *xc, C *y, int64_t nb,
                                     const LrnConsts<C> &p) {
    alignas(64) C sq[kLanes + kHalo + 1], r[kLanes];
    square_block<kLanes + kHalo + 1>(xs, i0, i1, sq);
    window_sums<kLanes>(sq, p.n, kZeros<C>, r);
    forward_powers(r, xc, y, nb, p);
}

// The block's dx needs q = dy y / s at the channels [c0 - after, c0 + nb +
// before), whose window sums need the squares of [c0 - (n-1), c0 + nb + n - 1).
// xs: the channels [i0, i1) of the squares' range; ys, dys: [t0, t1) of q's;
// xc, dyc: the block's own.
template <class C>
[[gnu::noinline]] void backward_block(const C *xs, int64_t i0, int64_t i1, const C *ys, const C *dys, int64_t t0,
                                      int64_t t1, const C *xc, const C *dyc, C *dx, int64_t nb,
                                      const LrnConsts<C> &p) {
    constexpr int64_t kWide = kLanes + kHalo + 1;  // the channels of q
    alignas(64) C sq[kWide + kHalo + 1], s[kWide], q[kWide], r[kLanes];
    square_block<kWide + kHalo + 1>(xs, i0, i1, sq);
    window_sums<kWide>(sq, p.n, kZeros<C>, s);
    for (int64_t t = 0; t < kWide; ++t) q[t] = 0;
    for (int64_t t = t0; t < t1; ++t) {
        s[t] = p.k + p.alpha_n * s[t];
        q[t] = dys[t - t0] * ys[t - t0] / s[t];
    }
    window_sums<kLanes>(q, p.n, kZeros<C>, r);
    C *const pw = sq;  // the squares are summed
    powers(s + p.after, pw, nb, p);
    for (int64_t l = 0; l < nb; ++l) dx[l] = p.alpha * (dyc[l] * pw[l] - p.two_beta_alpha_n * xc[l] * r[l]);
}

template <class T, class C>
void forward_pixel(const LrnArgs &a, const LrnConsts<C> &p, const int64_t *off) {
    const ops::LrnGrid &g = a.g;
    const int64_t sxc = g.sc[0], syc = g.sc[1];
    const T *x = static_cast<const T *>(a.x) + off[0];
    T *y = static_cast<T *>(a.out) + off[1];
    const bool blend = a.beta != 0;
    alignas(64) C bx[kLanes + kHalo], res[kLanes];
    for (int64_t c0 = 0; c0 < g.c; c0 += kLanes) {
        const int64_t nb = imin_(kLanes, g.c - c0), first = c0 - p.before;
        const int64_t lo = first < 0 ? 0 : first, hi = imin_(g.c, c0 + nb + p.after);
        const C *xs = staged_in(x + lo * sxc, sxc, hi - lo, bx);
        T *yp = y + c0 * syc;
        C *out = direct_out(yp, syc, blend, res);
        forward_block(xs, lo - first, hi - first, xs + (c0 - lo), out, nb, p);
        if (out == res) staged_out(yp, syc, res, nb, p.beta, blend, false);
    }
}

#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
// The lanes [lo, hi) of the vector at p (clamped to the vector), zeros in
// the others, whose memory is not read: masked loads do not fault, so p may
// start before a pixel's first channel or end past its last.
ANYDNN_ALWAYS_INLINE vec_t<float> load_lanes(const float *p, int64_t lo, int64_t hi) {
    constexpr int64_t W = kVectorBytes / int64_t(sizeof(float));
    lo = lo < 0 ? 0 : lo;
    hi = hi > W ? W : hi;
    if (lo >= hi) return vec_t<float>{};
#if ANYDNN_ISA_avx512
    const auto m = static_cast<__mmask16>(((1u << hi) - 1) & ~((1u << lo) - 1));
    return reinterpret_cast<vec_t<float>>(_mm512_maskz_loadu_ps(m, p));
#else
    const __m256i iota = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i m = _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(int(hi)), iota),
                                       _mm256_cmpgt_epi32(iota, _mm256_set1_epi32(int(lo) - 1)));
    return reinterpret_cast<vec_t<float>>(_mm256_maskload_ps(p, m));
#endif
}

// The first n lanes at p (zeros past them, not read when n < a vector).
ANYDNN_ALWAYS_INLINE vec_t<float> load_head(const float *p, int64_t n) {
    return n >= kVectorBytes / int64_t(sizeof(float)) ? load_vec<vec_t<float>>(p) : load_lanes(p, 0, n);
}

// Stores the first n (< a whole vector) lanes of v at p.
ANYDNN_ALWAYS_INLINE void store_lanes(float *p, vec_t<float> v, int64_t n) {
#if ANYDNN_ISA_avx512
    _mm512_mask_storeu_ps(p, static_cast<__mmask16>((1u << n) - 1), reinterpret_cast<__m512>(v));
#else
    const __m256i m = _mm256_cmpgt_epi32(_mm256_set1_epi32(int(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    _mm256_maskstore_ps(p, m, reinterpret_cast<__m256>(v));
#endif
}

// The results for channels [c, c + W) of a run of C to y + c: the run's
// tail masked; streamed when stream (lrn_channels streams only runs of
// whole lines from a line's start).
ANYDNN_ALWAYS_INLINE void store_channels(float *y, int64_t c, int64_t C, vec_t<float> out, bool stream) {
    if (c + kVectorBytes / int64_t(sizeof(float)) > C) store_lanes(y + c, out, C - c);
    else if (stream) stream_vector(y + c, out);
    else store_vec(y + c, out);
}

// The window sums of squares for U vectors of a pixel's C contiguous
// channels x side by side, channels [c, c + U W), in ascending channel order
// as the other paths sum, each step for all U before the next
// (pow_075_inverse says why): the squares of N shifted loads for a window of
// N = 2 before + 1 (lrn_problem's before = (n - 1) / 2); r the sums, own each
// vector's own channels. Edges: the group may reach past the run's
// ends, and its vectors that do load through load_lanes (zeros outside [0,
// C)); a group inside the run takes plain loads only.
template <int N, int U, bool Edges>
ANYDNN_ALWAYS_INLINE void window_squares_group(const float *x, int64_t c, int64_t C, vec_t<float> *r,
                                               vec_t<float> *own) {
    using V = vec_t<float>;
    constexpr int64_t W = kVectorBytes / int64_t(sizeof(float)), B = (N - 1) / 2;
    [[maybe_unused]] bool edge[U];
    if constexpr (Edges) {
#pragma GCC unroll 8
        for (int u = 0; u < U; ++u) edge[u] = c + u * W < B || c + u * W - B + N - 1 + W > C;
    }
#pragma GCC unroll 16
    for (int j = 0; j < N; ++j) {
#pragma GCC unroll 8
        for (int u = 0; u < U; ++u) {
            const int64_t o = c + u * W - B + j;  // the loaded vector's first channel
            const V v = Edges && edge[u] ? load_lanes(x + o, -o, C - o) : load_vec<V>(x + o);
            if (j == B) own[u] = v;
            // The square rounded, as the pixel lanes' ring holds it: left to
            // itself GCC contracted square and sum into an FMA in some groups
            // and not in others (the load's branch came between them).
            V sq = v * v;
            asm("" : "+v"(sq));
            r[u] = j == 0 ? sq : r[u] + sq;
        }
    }
}

// The forward pass of one pixel's C contiguous channels in registers, f32
// with beta 0.75, y not x, a window of N channels, kChains vectors side by
// side (window_squares_group). forward_block squared the block into a
// buffer and summed it at shifted offsets, loads that waited on the stores
// just made (a store-forwarding stall on every one): two thirds of NHWC's
// time. stream: y's whole vectors get streaming stores.
template <int N>
[[gnu::noinline]] void forward_pixel_fused(const float *x, float *y, int64_t C, const LrnConsts<float> &p,
                                           bool stream) {
    using V = vec_t<float>;
    constexpr int64_t W = kVectorBytes / int64_t(sizeof(float)), G = kChains * W, B = (N - 1) / 2;
    for (int64_t c = 0; c < C; c += G) {
        V r[kChains], own[kChains], out[kChains];
        if (c >= B && c - B + N - 1 + G <= C) window_squares_group<N, kChains, false>(x, c, C, r, own);
        else window_squares_group<N, kChains, true>(x, c, C, r, own);
        outputs_075<kChains>(r, own, out, p);
#pragma GCC unroll 8
        for (int u = 0; u < kChains; ++u)
            if (c + u * W < C) store_channels(y, c + u * W, C, out[u], stream);
    }
}

// The backward pass of one pixel's C contiguous channels, f32 with beta 0.75
// and a window of N: a first pass over the run computes each channel's
// window sum s (window_squares_group), s^-beta into pw and q = dy y / s into q
// (zeros past C: dy's masked lanes are 0); a second one adds each channel's
// q window (the channels whose windows hold it, ascending) for dx = alpha
// (dy s^-beta - 2 beta alpha_n x sum q). The second pass's shifted loads of
// q come after the whole first pass, once its stores have left the store
// buffer. q: kQPad + C rounded up to vectors + kQPad values, zero but for
// the channels; pw: C rounded up.
template <int N>
[[gnu::noinline]] void backward_pixel_fused(const float *x, const float *y, const float *dy, float *dx, int64_t C,
                                            float *q, float *pw, const LrnConsts<float> &p, bool stream) {
    using V = vec_t<float>;
    constexpr int64_t W = kVectorBytes / int64_t(sizeof(float)), G = kChains * W, B = (N - 1) / 2;
    const int64_t after = p.after;  // a local: the stores below could alias p for GCC
    float *qc = q + kQPad;          // channel 0
    for (int64_t c = 0; c < C; c += G) {
        V r[kChains], own[kChains], pv[kChains], inv[kChains];
        if (c >= B && c - B + N - 1 + G <= C) window_squares_group<N, kChains, false>(x, c, C, r, own);
        else window_squares_group<N, kChains, true>(x, c, C, r, own);
#pragma GCC unroll 8
        for (int u = 0; u < kChains; ++u) r[u] = p.k + p.alpha_n * r[u];
        pow_075_vec<kChains>(r, pv, inv);
#pragma GCC unroll 8
        for (int u = 0; u < kChains; ++u) {
            const int64_t cu = c + u * W;
            if (cu >= C) break;
            store_vec(pw + cu, pv[u]);
            store_vec(qc + cu, load_head(dy + cu, C - cu) * load_head(y + cu, C - cu) * inv[u]);
        }
    }
    for (int64_t c = 0; c < C; c += W) {
        V r = load_vec<V>(qc + c - after);
#pragma GCC unroll 16
        for (int j = 1; j < N; ++j) r += load_vec<V>(qc + c - after + j);
        const V out = p.alpha * (load_head(dy + c, C - c) * load_vec<V>(pw + c) -
                                 p.two_beta_alpha_n * load_head(x + c, C - c) * r);
        store_channels(dx, c, C, out, stream);
    }
}
#endif

template <class T, class C>
void backward_pixel(const LrnArgs &a, const LrnConsts<C> &p, const int64_t *off) {
    const ops::LrnGrid &g = a.g;
    const int64_t sxc = g.sc[0], syc = g.sc[1], sdyc = g.sc[2], sdxc = g.sc[3];
    const T *x = static_cast<const T *>(a.x) + off[0], *y = static_cast<const T *>(a.y) + off[1];
    const T *dy = static_cast<const T *>(a.dy) + off[2];
    T *dx = static_cast<T *>(a.out) + off[3];
    const bool blend = a.beta != 0;
    alignas(64) C bx[kLanes + 2 * kHalo], by[kLanes + kHalo], bdy[kLanes + kHalo], res[kLanes];
    for (int64_t c0 = 0; c0 < g.c; c0 += kLanes) {
        const int64_t nb = imin_(kLanes, g.c - c0);
        const int64_t fq = c0 - p.after, fs = fq - p.before;  // q's first channel, the squares'
        const int64_t lq = fq < 0 ? 0 : fq, hq = imin_(g.c, fq + nb + p.n - 1);
        const int64_t ls = fs < 0 ? 0 : fs, hs = imin_(g.c, fs + nb + 2 * (p.n - 1));
        const C *xs = staged_in(x + ls * sxc, sxc, hs - ls, bx);
        const C *dys = staged_in(dy + lq * sdyc, sdyc, hq - lq, bdy);
        T *dxp = dx + c0 * sdxc;
        C *out = direct_out(dxp, sdxc, blend, res);
        backward_block(xs, ls - fs, hs - fs, staged_in(y + lq * syc, syc, hq - lq, by), dys, lq - fq, hq - fq,
                       xs + (c0 - ls), dys + (c0 - lq), out, nb, p);
        if (out == res) staged_out(dxp, sdxc, res, nb, p.beta, blend, false);
    }
}

template <bool Backward, class T>
void lrn_channels(const ExecContext &ctx, const LrnArgs &a) {
    using C = compute_t<T>;
    const ops::LrnGrid &g = a.g;
    const int64_t pixels = g.pixels();
    const LrnConsts<C> lc = lrn_consts<C>(a);
    // The fused passes' case: f32, contiguous channels, beta 0.75, windows of 3
    // or 5, not blended; the forward pass not in place (the backward one
    // reads each vector's own lanes only after its first pass).
    bool fused = std::is_same_v<T, float> && kVectorBytes >= 32 && lc.b075 && (lc.n == 3 || lc.n == 5) &&
                 a.beta == 0 && (Backward || a.out != a.x);
    for (int k = 0; k < g.nops; ++k) fused = fused && g.sc[k] == 1;
    // Streamed: runs of whole lines (store_channels), each pixel's checked below.
    const bool stream = fused && g.c * int64_t(sizeof(T)) % kStreamLineBytes == 0 &&
                        use_streaming_stores(g.n * g.c * pixels * int64_t(sizeof(T)), a.out, a.x, a.y, a.dy);
    parallel_ranges(ctx, g.n * pixels, kGrain / g.c + 1, [&](int64_t begin, int64_t end) {
        // backward_pixel_fused's buffers; q's padding stays zero.
        const int64_t cv = (g.c + kQPad - 1) / kQPad * kQPad;  // C rounded up to vectors
        KernelArray<float> q(Backward && fused ? cv + 2 * kQPad : 0), pw(Backward && fused ? cv : 0);
        for (int64_t i = 0; Backward && fused && i < cv + 2 * kQPad; ++i) q.data()[i] = 0;
        int64_t off[ops::kLrnMaxOperands];
        const int last = g.nd - 1;
        int64_t col = 0;  // the pixel's index along the last dimension
        for (int64_t item = begin; item < end; ++item) {
            // Along the last dimension the next pixel is one stride on; the
            // offsets are worked out (divisions) at the start of a row only.
            if (item > begin && ++col < g.dims[last]) {
                for (int k = 0; k < g.nops; ++k) off[k] += g.s[k][last];
            } else {
                col = item % g.dims[last];
                int64_t p = item % pixels;
                for (int k = 0; k < g.nops; ++k) off[k] = item / pixels * g.sn[k];
                for (int d = last; d >= 0; --d) {
                    const int64_t cd = p % g.dims[d];
                    p /= g.dims[d];
                    for (int k = 0; k < g.nops; ++k) off[k] += cd * g.s[k][d];
                }
            }
#if ANYDNN_ISA_avx512 || ANYDNN_ISA_avx2
            if constexpr (std::is_same_v<T, float>) {
                if (fused) {
                    const float *x = static_cast<const float *>(a.x) + off[0];
                    float *out = static_cast<float *>(a.out) + off[Backward ? 3 : 1];
                    const bool nt = stream && line_aligned(out);
                    if constexpr (Backward)
                        (lc.n == 3 ? backward_pixel_fused<3> : backward_pixel_fused<5>)(
                            x, static_cast<const float *>(a.y) + off[1], static_cast<const float *>(a.dy) + off[2],
                            out, g.c, q.data(), pw.data(), lc, nt);
                    else (lc.n == 3 ? forward_pixel_fused<3> : forward_pixel_fused<5>)(x, out, g.c, lc, nt);
                    continue;
                }
            }
#endif
            if constexpr (Backward) backward_pixel<T>(a, lc, off);
            else forward_pixel<T>(a, lc, off);
        }
        if (stream) streaming_fence();
    });
}

void forward(const ExecContext &ctx, const LrnArgs &a) {
    visit_float_dtype(a.g.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (a.channel_lanes) lrn_channels<false, T>(ctx, a);
        else lrn_typed<false, T>(ctx, a);
    });
}

void backward(const ExecContext &ctx, const LrnArgs &a) {
    visit_float_dtype(a.g.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (a.channel_lanes) lrn_channels<true, T>(ctx, a);
        else lrn_typed<true, T>(ctx, a);
    });
}

// ---- Divisive normalization --------------------------------------------------

// out[o][i][q] = sum of in[o][j][q] over j in [i - lo, i + hi] inside [0, L),
// in ascending j, for a plane seen as outer x L x inner.
template <class C>
void box_axis(const C *__restrict in, C *__restrict out, int64_t outer, int64_t L, int64_t inner, int64_t lo,
              int64_t hi) {
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < L; ++i) {
            const int64_t j0 = i - lo < 0 ? 0 : i - lo, j1 = i + hi > L - 1 ? L - 1 : i + hi;
            C *op = out + (o * L + i) * inner;
            for (int64_t q = 0; q < inner; ++q) op[q] = 0;
            for (int64_t j = j0; j <= j1; ++j) {
                const C *ip = in + (o * L + j) * inner;
                for (int64_t q = 0; q < inner; ++q) op[q] += ip[q];
            }
        }
}

// The window sums of plane a (d x h x w) into b (a is overwritten): along
// w, h, then d.
template <class C>
[[gnu::noinline]] void box_3d(C *a, C *b, const int64_t *dims, int64_t lo, int64_t hi) {
    box_axis(a, b, dims[0] * dims[1], dims[2], 1, lo, hi);
    box_axis(b, a, dims[0], dims[1], dims[2], lo, hi);
    box_axis(a, b, 1, dims[0], dims[1] * dims[2], lo, hi);
}

// Calls fn(p, offsets) for each pixel p of the (n, c) plane, in d, h, w
// order, with the offsets of the 4 operands.
template <class Fn>
inline void for_each_pixel(const ops::LrnGrid &g, int64_t n, int64_t c, Fn &&fn) {
    int64_t p = 0;
    for (int64_t d = 0; d < g.dims[0]; ++d)
        for (int64_t h = 0; h < g.dims[1]; ++h)
            for (int64_t w = 0; w < g.dims[2]; ++w, ++p) {
                int64_t off[4];
                for (int k = 0; k < 4; ++k)
                    off[k] = n * g.sn[k] + c * g.sc[k] + d * g.s[k][0] + h * g.s[k][1] + w * g.s[k][2];
                fn(p, off);
            }
}

// The math, once per compute type; the drivers per storage type only
// gather the operands' planes into the scratch and scatter the results.

// b = s^-beta for the P window sums s = k + alpha_n b.
template <class C>
[[gnu::noinline]] void divnorm_pow(C *b, int64_t P, const LrnConsts<C> &p) {
    for (int64_t i = 0; i < P; ++i) b[i] = p.k + p.alpha_n * b[i];
    powers(b, b, P, p);
}

// w = s^-beta and a = a w / s (a: dy u) for the P window sums s = k +
// alpha_n b (b becomes s).
template <class C>
[[gnu::noinline]] void divnorm_q(C *__restrict a, C *__restrict b, C *__restrict w, int64_t P, const LrnConsts<C> &p) {
    for (int64_t i = 0; i < P; ++i) b[i] = p.k + p.alpha_n * b[i];
    powers(b, w, P, p);
    for (int64_t i = 0; i < P; ++i) a[i] = a[i] * w[i] / b[i];
}

// a = f a b.
template <class C>
[[gnu::noinline]] void scale_product(C *__restrict a, const C *__restrict b, int64_t P, C f) {
    for (int64_t i = 0; i < P; ++i) a[i] = f * a[i] * b[i];
}

// a = dy w - a.
template <class C>
[[gnu::noinline]] void divnorm_du(C *__restrict a, const C *__restrict dy, const C *__restrict w, int64_t P) {
    for (int64_t i = 0; i < P; ++i) a[i] = dy[i] * w[i] - a[i];
}

// What gather loads at each pixel of a plane: u^2, u, dy u or dy, for u =
// x - means (x without means).
enum class PlaneOf { u2, u, dyu, dy };

template <class T, class C>
[[gnu::noinline]] void gather(const DivNormArgs &a, int64_t n, int64_t c, PlaneOf what, C *__restrict dst) {
    const T *x = static_cast<const T *>(a.x), *m = static_cast<const T *>(a.means);
    const T *dy = static_cast<const T *>(a.dy);
    for_each_pixel(a.g, n, c, [&](int64_t p, const int64_t *off) {
        if (what == PlaneOf::dy) {
            dst[p] = load<C>(dy + off[2]);
            return;
        }
        const C v = load<C>(x + off[0]);
        const C u = m ? v - load<C>(m + off[1]) : v;
        dst[p] = what == PlaneOf::u2 ? u * u : what == PlaneOf::u ? u : load<C>(dy + off[2]) * u;
    });
}

// The plane f v into y (at operand 3's offsets), blended when beta != 0.
template <class T, class C>
[[gnu::noinline]] void scatter(const ops::LrnGrid &g, int64_t n, int64_t c, const C *v, C f, T *y, C beta,
                               bool blend) {
    for_each_pixel(g, n, c, [&](int64_t p, const int64_t *off) {
        C r = f * v[p];
        if (blend) r += beta * load<C>(y + off[3]);
        store(y + off[3], r);
    });
}

template <class T>
void divnorm_typed(const ExecContext &ctx, const DivNormArgs &a, bool backward) {
    using C = compute_t<T>;
    const ops::LrnGrid &g = a.g;
    const int64_t P = g.dims[0] * g.dims[1] * g.dims[2], planes = g.n * g.c;
    T *out = static_cast<T *>(a.out), *dm = static_cast<T *>(a.dmeans);
    LrnConsts<C> pc = lrn_consts<C>(a);
    pc.b075 = false;  // the exact power, as the reference's
    const bool blend = a.beta != 0;
    const int64_t before = a.lrn.before, after = a.lrn.after;
    C *scratch = static_cast<C *>(a.scratch);
    parallel_ranges(ctx, a.slots, 1, [&](int64_t begin, int64_t end) {
        for (int64_t s = begin; s < end; ++s) {
            C *A = scratch + s * 3 * P, *B = A + P, *W = B + P;
            for (int64_t plane = planes * s / a.slots; plane < planes * (s + 1) / a.slots; ++plane) {
                const int64_t n = plane / g.c, c = plane % g.c;
                gather<T>(a, n, c, PlaneOf::u2, A);
                box_3d(A, B, g.dims, before, after);  // B: window sums
                if (!backward) {
                    divnorm_pow(B, P, pc);
                    gather<T>(a, n, c, PlaneOf::u, A);
                    scale_product(A, B, P, pc.alpha);
                    scatter(g, n, c, A, C(1), out, pc.beta, blend);
                    continue;
                }
                // W = s^-beta; A = dy u s^-beta / s, summed over the
                // transposed window (the pixels whose windows hold p).
                gather<T>(a, n, c, PlaneOf::dyu, A);
                divnorm_q(A, B, W, P, pc);
                box_3d(A, B, g.dims, after, before);
                // du = dy W - 2 beta alpha_n u B
                gather<T>(a, n, c, PlaneOf::u, A);
                scale_product(A, B, P, pc.two_beta_alpha_n);
                gather<T>(a, n, c, PlaneOf::dy, B);
                divnorm_du(A, B, W, P);
                scatter(g, n, c, A, pc.alpha, out, pc.beta, blend);
                if (dm) scatter(g, n, c, A, -pc.alpha, dm, pc.beta, blend);
            }
        }
    });
}

void divnorm_forward(const ExecContext &ctx, const DivNormArgs &a) {
    visit_float_dtype(a.g.dt, [&](auto tag) { divnorm_typed<typename decltype(tag)::type>(ctx, a, false); });
}

void divnorm_backward(const ExecContext &ctx, const DivNormArgs &a) {
    visit_float_dtype(a.g.dt, [&](auto tag) { divnorm_typed<typename decltype(tag)::type>(ctx, a, true); });
}

}  // namespace

extern const LrnKernels lrn = {forward, backward, divnorm_forward, divnorm_backward};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
