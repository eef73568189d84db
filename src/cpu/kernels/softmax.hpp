// Softmax kernels, compiled once per ISA level.
//
// Each softmax is a few passes over its elements (max, sum of exponentials,
// output; backward: a dot product, output), done one softmax (or one block of
// them) at a time so that the passes after the first read from cache. Two
// ways to vectorize, picked per problem:
// - rows: the elements of one softmax are contiguous in every operand
//   (CHANNEL mode in NHWC, INSTANCE mode of packed tensors); reductions run
//   in one vector register of partial results, folded by halves at the end
//   (reduce: a fixed order, whatever the thread count). Strided rows (the
//   general fallback) take the same code with strided loads.
// - columns: the softmaxes are contiguous and their elements strided (CHANNEL
//   mode in NCHW: C has stride H*W); a block of up to kColumns neighbouring
//   softmaxes advances together, one vector lane per softmax; full f32
//   blocks of ACCURATE and LOG take columns_block, their maxima and sums in
//   registers, prefetching the next block while computing this one.
// ACCURATE and LOG take the exponential of x - max <= 0 (exp_le0: about 20
// vector instructions per 16 floats, half of vexp's), FAST vexp's whole
// range. FAST and ACCURATE compute each term once: stored into y when y
// holds the compute type and beta is 0, and scaled in the last pass.
// Contiguous rows of up to kStreamingChunk elements in the compute type
// (beta 0) take rows_forward, all passes in one call, a group of up to
// kRowGroup adjacent rows at a time (NHWC: 1024 / C of them), pass by pass so
// that the rows' reductions overlap. On tensors beyond the cache
// (streaming_store.hpp) those rows, and NCHW column blocks of up to
// kColumnSteps channels, are computed in an L1 buffer and streamed to y, so
// y is written once and never read.
//
// Compile time: the passes' math (the vectorized vexp/vlog bodies) is
// compiled once per compute type, on contiguous buffers of it, and kept out
// of line; the drivers around it depend on the storage type only, take the
// algorithm, the layout and beta at run time, and stage 16-bit types,
// strided rows and blending through L1 buffers (util/staging.hpp). Compiled
// into every algorithm x storage type x (unit, strided, columns) x blend x
// store case, the same math made this the slowest unit of the build
// (285 s of compile time for AVX-512).
#include <utility>

#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/staging.hpp"
#include "cpu/kernels/util/streaming_store.hpp"
#include "cpu/kernels/util/vmath.hpp"
#include "cpu/softmax.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

constexpr int64_t kColumns = 64;    // softmaxes per column block
constexpr int64_t kRowGroup = 64;     // adjacent short rows that rows_forward takes at once
constexpr int64_t kColumnSteps = 64;  // elements per softmax that a streamed column block stages (16 KiB of f32)
constexpr int64_t kGrain = 4096;    // elements per thread, at least (exp makes them dear)

enum class Alg { fast, accurate, log };

// Calls body(off, n) for each run of the row whose first element is at
// offsets base: off[k] is operand k's offset at the run's first element, and
// the run steps row.inner_stride(k).
template <class Body>
inline void row_runs(const StridedLoop &row, const int64_t *base, Body &&body) {
    int64_t off[kMaxOperands] = {};
    if (row.nd == 1) {
        for (int k = 0; k < row.nops; ++k) off[k] = base[k];
        body(off, row.dims[0]);
        return;
    }
    for_each_run(row, 0, row.total(), [&](const int64_t *o, int64_t n) {
        for (int k = 0; k < row.nops; ++k) off[k] = base[k] + o[k];
        body(off, n);
    });
}

// ---- The math, once per compute type ------------------------------------
//
// Rows: n contiguous elements. Columns: n steps (strides sx, sy) of
// nb <= kColumns contiguous softmaxes, one partial result per softmax.

// e^a for a <= 0 or NaN (x - max in ACCURATE and LOG), at half vexp's cost:
// no upper bound to handle, a degree-5 polynomial (1.05e-7 relative, within
// 3 ulp in float: a softmax term needs no more), and 2^n applied by
// vscalefps on AVX-512 vectors (one operation for four) or from the bits of
// the rounding sum elsewhere (n + 127 <= 0, results below 2^-126, give 0
// there: a softmax term that small is 0 next to the max's 1). FAST, which
// does not subtract the max, keeps vexp.
// F is float, or vec_t<float> (the register-held column blocks and rows).
template <class F>
ANYDNN_ALWAYS_INLINE F exp_le0(F a) {
    using vmath_detail::kRound;
    a = vmath_detail::max_lanes(F{} - 104.0f, a);  // keeps NaN; bounds r and n below
    const F t = a * 1.44269504f + kRound;  // kRound + n, n = round(a / ln2)
    const F n = t - kRound;
    const F r = (a - n * 0.693359375f) - n * -2.12194440e-4f;
    F q = F{} + 8.312525228e-03f;  // e^r = 1 + r + r^2 q(r) on [-ln2/2, ln2/2], fitted near-minimax
    q = q * r + 4.189011455e-02f;
    q = q * r + 1.666711420e-01f;
    q = q * r + 4.999923110e-01f;
    const F p = 1.0f + r + r * r * q;
#if ANYDNN_ISA_avx512
    if constexpr (!std::is_same_v<F, float>)
        return reinterpret_cast<F>(
            _mm512_maskz_scalef_ps(0xffff, reinterpret_cast<__m512>(p), reinterpret_cast<__m512>(n)));
#endif
    using I = vmath_detail::int_lanes_t<F>;  // F's bits as integers
    I k = __builtin_bit_cast(I, t) - static_cast<int32_t>(f32_bits(kRound) - 127);  // n's biased exponent
    k = k > 0 ? k : 0;
    return p * __builtin_bit_cast(F, k << 23);
}
ANYDNN_ALWAYS_INLINE double exp_le0(double a) { return std::exp(a); }

// e[i] = e^(x[i] - m), or for FAST (m = 0) e^x[i] with vexp's range.
template <class C>
[[gnu::noinline]] void row_exp(const C *x, C *e, int64_t n, C m, bool fast) {
    if (fast)
        for (int64_t i = 0; i < n; ++i) e[i] = vexp(x[i]);
    else
        for (int64_t i = 0; i < n; ++i) e[i] = exp_le0(x[i] - m);
}

// v with its lanes rotated by H: lane j gets lane j + H (mod the width).
template <int H, class V, size_t... J>
ANYDNN_ALWAYS_INLINE V rotated(V v, std::index_sequence<J...>) {
    return __builtin_shufflevector(v, v, ((J + H) % sizeof...(J))...);
}

// Folds lanes H apart, then H / 2, ..., 1: lane 0 holds the whole.
template <int H, class V, class Step>
ANYDNN_ALWAYS_INLINE V fold(V v, Step &step) {
    if constexpr (H == 0) {
        return v;
    } else {
        constexpr int W = sizeof(V) / sizeof(v[0]);
        return fold<H / 2>(step(v, rotated<H>(v, std::make_index_sequence<W>())), step);
    }
}

// Reductions over n contiguous values run in four vectors of partial
// results (the level's registers: they stay in them; one vector waited on
// its own latency each step: a third of an in-cache softmax of rows of
// 1000 was its max pass), combined and folded by halves at the end; the
// order is fixed, so any thread count gives the same result. get(at) is the
// value at i of the operands p: at(p) loads the vector at p + i, then
// (the tail) the value p[i]; step combines values or vectors alike.
template <class C, class Step, class Get>
ANYDNN_ALWAYS_INLINE C reduce(int64_t n, C start, Step &&step, Get &&get) {
    using V = vec_t<C>;
    constexpr int W = kVectorBytes / sizeof(C);
    V acc[4] = {V{} + start, V{} + start, V{} + start, V{} + start};
    const auto at = [&](int64_t k) { return get([&](const C *p) { return load_vec<V>(p + k); }); };
    int64_t i = 0;
    for (; i + 4 * W <= n; i += 4 * W)
#pragma GCC unroll 4
        for (int j = 0; j < 4; ++j) acc[j] = step(acc[j], at(i + j * W));
    for (; i + W <= n; i += W) acc[0] = step(acc[0], at(i));
    C r = fold<W / 2>(step(step(acc[0], acc[1]), step(acc[2], acc[3])), step)[0];
    for (; i < n; ++i) r = step(r, get([&](const C *p) { return p[i]; }));
    return r;
}

// The max of x, ignoring NaN (a NaN never becomes the max; it reaches the sum).
template <class C>
[[gnu::noinline]] C row_max(const C *x, int64_t n) {
    return reduce(n, -std::numeric_limits<C>::infinity(), [](auto a, auto b) { return b > a ? b : a; },
                  [&](auto at) { return at(x); });
}

// The sum of x, or of dy y.
template <class C>
[[gnu::noinline]] C row_sum(const C *x, const C *y, int64_t n) {
    const auto add = [](auto a, auto b) { return a + b; };
    if (y) return reduce(n, C(0), add, [&](auto at) { return at(x) * at(y); });
    return reduce(n, C(0), add, [&](auto at) { return at(x); });
}

// The sum of e[i] = e^(x[i] - m) (ACCURATE and LOG, C float), the terms
// stored as they are summed: one pass where row_exp and row_sum take two,
// written with vector types so that exp_le0 takes its vector form and the
// sums stay in registers (rows of 1000: -15% of a softmax on one thread).
// ahead (or 0): the distance in bytes to the same stretch of a row to come,
// prefetched into L2 line by line while this pass computes, so that a long stream of rows
// (the caller's x beyond the cache) is read while the exps run, not in the
// next row's max pass, which waited on DRAM for a third of the time.
template <class C>
[[gnu::noinline]] C row_exp_sum(const C *x, C *e, int64_t n, C m, int64_t ahead) {
    using V = vec_t<C>;
    constexpr int64_t W = sizeof(V) / sizeof(C);
    V s0{}, s1{};
    int64_t i = 0;
    for (; i + 2 * W <= n; i += 2 * W) {
        if (ahead) {
            prefetch_l2(x + i, ahead);
            if constexpr (W * sizeof(C) >= 64) prefetch_l2(x + i + W, ahead);
        }
        const V t0 = exp_le0(load_vec<V>(x + i) - m), t1 = exp_le0(load_vec<V>(x + i + W) - m);
        store_vec(e + i, t0);
        store_vec(e + i + W, t1);
        s0 += t0, s1 += t1;
    }
    for (; i + W <= n; i += W) {
        const V t = exp_le0(load_vec<V>(x + i) - m);
        store_vec(e + i, t);
        s0 += t;
    }
    if (i < n) {  // the tail through a vector too, its unused lanes left out of the sum
        alignas(64) C t[W] = {};
        std::memcpy(t, x + i, sizeof(C) * size_t(n - i));
        store_vec(t, exp_le0(load_vec<V>(t) - m));
        std::memcpy(e + i, t, sizeof(C) * size_t(n - i));
        for (int64_t k = n - i; k < W; ++k) t[k] = 0;
        s1 += load_vec<V>(t);
    }
    const auto add = [](V a, V b) { return a + b; };
    return fold<W / 2>(s0 + s1, add)[0];
}

// The sum of e^(x - m) (row_exp); the terms go to e, or through L1 when e
// is null. ahead: as in row_exp_sum (ACCURATE and LOG only).
template <class C>
[[gnu::noinline]] C row_sum_exp(const C *x, int64_t n, C m, bool fast, C *e, int64_t ahead = 0) {
    alignas(64) C buf[kStage];
    C s = 0;
    for (int64_t i = 0; i < n; i += kStage) {
        const int64_t c = imin_(kStage, n - i);
        C *out = e ? e + i : buf;
        if constexpr (std::is_same_v<C, float> && kVectorBytes >= 32) {
            if (!fast) {
                s += row_exp_sum(x + i, out, c, m, ahead);
                continue;
            }
        }
        row_exp(x + i, out, c, m, fast);
        s += row_sum<C>(out, nullptr, c);
    }
    return s;
}

template <class C>
[[gnu::noinline]] void row_exp_scale(const C *x, C *y, int64_t n, C m, C scale, bool fast) {
    if (fast)
        for (int64_t i = 0; i < n; ++i) y[i] = vexp(x[i]) * scale;
    else
        for (int64_t i = 0; i < n; ++i) y[i] = exp_le0(x[i] - m) * scale;
}

// e may be y (the terms stored by row_sum_exp, scaled in place).
template <class C>
[[gnu::noinline]] void row_scale(const C *e, C *y, int64_t n, C scale) {
    for (int64_t i = 0; i < n; ++i) y[i] = e[i] * scale;
}

template <class C>
[[gnu::noinline]] void row_log(const C *x, C *y, int64_t n, C m, C log_sum, C alpha) {
    for (int64_t i = 0; i < n; ++i) y[i] = alpha * ((x[i] - m) - log_sum);
}

// rows <= kRowGroup adjacent softmaxes of len contiguous elements at x,
// written to out (beta 0, out x or disjoint from it), or when to is not null
// computed in out (an L1 buffer) and streamed to to, the last pass's math
// on the way out (stream_map; LOG needs no buffer); the passes after the
// max read x and out from L1. Each pass runs over every row before the next
// starts: the rows' reductions (and their folds) are independent and
// overlap, where row after row waited on each fold (rows of 64, NHWC
// channels: 2.3 cycles per element against 1.8).
template <class C>
[[gnu::noinline]] void rows_forward(const C *x, C *out, C *to, int64_t rows, int64_t len, Alg alg, C alpha) {
    const bool fast = alg == Alg::fast;
    // Streamed (x beyond the cache): the next group's rows are prefetched
    // during this group's exp pass.
    const int64_t ahead = to ? rows * len * int64_t(sizeof(C)) : 0;
    C m[kRowGroup], s[kRowGroup];
    for (int64_t r = 0; r < rows; ++r) m[r] = fast ? C(0) : row_max(x + r * len, len);
    if (alg == Alg::log) {  // out may be x: the terms do not go there
        for (int64_t r = 0; r < rows; ++r) s[r] = row_sum_exp<C>(x + r * len, len, m[r], false, nullptr, ahead);
        for (int64_t r = 0; r < rows; ++r) {
            const C mr = m[r], ls = vlog(s[r]);
            if (to) stream_map(to + r * len, x + r * len, len, [&](auto v) { return alpha * ((v - mr) - ls); });
            else row_log(x + r * len, out + r * len, len, mr, ls, alpha);
        }
        return;
    }
    for (int64_t r = 0; r < rows; ++r) s[r] = row_sum_exp(x + r * len, len, m[r], fast, out + r * len, ahead);
    for (int64_t r = 0; r < rows; ++r) {
        const C k = alpha / s[r];
        if (to) stream_map(to + r * len, out + r * len, len, [k](auto v) { return v * k; });
        else row_scale(out + r * len, out + r * len, len, k);
    }
}

// rows adjacent ACCURATE softmaxes of NV vectors each (C float, beta 0; row
// r at x + r NV W): each row is loaded once and held in registers through
// its max, terms, sum and scaling, where rows_forward makes a call per row
// and pass, each setting up its constants for a few vectors (NHWC over 64
// channels: 1.7 cycles per element in those calls). The reductions fold
// the lanes by rotation, which leaves the whole in every lane. stream: y
// gets streaming stores (when aligned; rows are whole vectors).
template <int NV, class C>
[[gnu::noinline]] void rows_in_registers(const C *x, C *y, int64_t rows, C alpha, bool stream) {
    using V = vec_t<C>;
    constexpr int W = sizeof(V) / sizeof(C), L = NV * W;
    // Rows in lock-step, R at a time: one row's chain of reductions (two
    // folds, the exp, a division) is longer than the out-of-order window
    // covers, R rows' independent chains fill it.
    constexpr int R = 4 / NV > 1 ? 4 / NV : 2;
    const auto vmax = [](V a, V b) { return vmath_detail::max_lanes(a, b); };  // b where a is NaN
    const auto add = [](V a, V b) { return a + b; };
    const bool nt = stream && reinterpret_cast<uintptr_t>(y) % kVectorBytes == 0;
    const auto block = [&](int64_t r0, auto rows_now) {
        constexpr int RN = decltype(rows_now)::value;
        V v[RN][NV], m[RN], s[RN];
        if (stream) prefetch_stream_run(x + r0 * L, RN * L * int64_t(sizeof(C)));
#pragma GCC unroll 8
        for (int j = 0; j < RN; ++j) {
            m[j] = V{} - std::numeric_limits<C>::infinity(), s[j] = V{};
#pragma GCC unroll 4
            for (int k = 0; k < NV; ++k) {
                v[j][k] = load_vec<V>(x + (r0 + j) * L + k * W);
                m[j] = vmax(v[j][k], m[j]);  // a NaN never becomes the max; it reaches the sum
            }
        }
#pragma GCC unroll 8
        for (int j = 0; j < RN; ++j) m[j] = fold<W / 2>(m[j], vmax);
#pragma GCC unroll 8
        for (int j = 0; j < RN; ++j)
#pragma GCC unroll 4
            for (int k = 0; k < NV; ++k) s[j] += v[j][k] = exp_le0(v[j][k] - m[j]);
#pragma GCC unroll 8
        for (int j = 0; j < RN; ++j) s[j] = alpha / fold<W / 2>(s[j], add);
#pragma GCC unroll 8
        for (int j = 0; j < RN; ++j)
#pragma GCC unroll 4
            for (int k = 0; k < NV; ++k) {
                C *p = y + (r0 + j) * L + k * W;
                if (nt) stream_vector(p, v[j][k] * s[j]);
                else store_vec(p, v[j][k] * s[j]);
            }
    };
    int64_t r = 0;
    for (; r + R <= rows; r += R) block(r, std::integral_constant<int, R>{});
    for (; r < rows; ++r) block(r, std::integral_constant<int, 1>{});
}

// rows_in_registers for rows of len elements, if it takes them.
template <class C>
bool rows_in_registers(const C *x, C *y, int64_t rows, int64_t len, C alpha, bool stream) {
    if constexpr (std::is_same_v<C, float> && kVectorBytes >= 32) {
        switch (len * int64_t(sizeof(C))) {
        case kVectorBytes: return rows_in_registers<1>(x, y, rows, alpha, stream), true;
        case 2 * kVectorBytes: return rows_in_registers<2>(x, y, rows, alpha, stream), true;
        case 3 * kVectorBytes: return rows_in_registers<3>(x, y, rows, alpha, stream), true;
        case 4 * kVectorBytes: return rows_in_registers<4>(x, y, rows, alpha, stream), true;
        default: break;
        }
    }
    return false;
}

// dx = alpha * y (dy - d), or for LOG alpha * (dy - e^y d).
template <class C>
[[gnu::noinline]] void row_backward(const C *dy, const C *y, C *dx, int64_t n, C d, C alpha, bool log) {
    if (log)
        for (int64_t i = 0; i < n; ++i) dx[i] = alpha * (dy[i] - vexp(y[i]) * d);
    else
        for (int64_t i = 0; i < n; ++i) dx[i] = alpha * (y[i] * (dy[i] - d));
}

template <class C>
[[gnu::noinline]] void col_max(C *__restrict m, const C *x, int64_t sx, int64_t n, int64_t nb) {
    for (int64_t i = 0; i < n; ++i)
        for (int64_t l = 0; l < nb; ++l) {
            const C v = x[i * sx + l];
            m[l] = v > m[l] ? v : m[l];
        }
}

// s += e^(x - m) (FAST: e^x); the terms go to e (stride se) too unless it is null.
template <class C>
[[gnu::noinline]] void col_sum_exp(C *__restrict s, const C *__restrict m, const C *x, int64_t sx, C *e, int64_t se,
                                   int64_t n, int64_t nb, bool fast) {
    if (fast) {
        for (int64_t i = 0; i < n; ++i)
            for (int64_t l = 0; l < nb; ++l) {
                const C v = vexp(x[i * sx + l]);
                if (e) e[i * se + l] = v;
                s[l] += v;
            }
    } else if (e) {
        for (int64_t i = 0; i < n; ++i)
            for (int64_t l = 0; l < nb; ++l) {
                const C v = exp_le0(x[i * sx + l] - m[l]);
                e[i * se + l] = v;
                s[l] += v;
            }
    } else {
        for (int64_t i = 0; i < n; ++i)
            for (int64_t l = 0; l < nb; ++l) s[l] += exp_le0(x[i * sx + l] - m[l]);
    }
}

// The sums become the scales alpha / sum, or for LOG their logarithms.
template <class C>
[[gnu::noinline]] void col_finish(C *s, int64_t nb, C alpha, bool log) {
    for (int64_t l = 0; l < nb; ++l) s[l] = log ? vlog(s[l]) : alpha / s[l];
}

// y = e^(x - m) s (FAST: e^x s), e s with stored terms (stored: x is the
// terms), or for LOG alpha ((x - m) - s).
template <class C>
[[gnu::noinline]] void col_out(const C *__restrict m, const C *__restrict s, const C *x, int64_t sx, C *y, int64_t sy,
                               int64_t n, int64_t nb, C alpha, Alg alg, bool stored) {
    if (alg == Alg::log) {
        for (int64_t i = 0; i < n; ++i)
            for (int64_t l = 0; l < nb; ++l) y[i * sy + l] = alpha * ((x[i * sx + l] - m[l]) - s[l]);
    } else if (stored) {
        for (int64_t i = 0; i < n; ++i)
            for (int64_t l = 0; l < nb; ++l) y[i * sy + l] = x[i * sx + l] * s[l];
    } else if (alg == Alg::fast) {
        for (int64_t i = 0; i < n; ++i)
            for (int64_t l = 0; l < nb; ++l) y[i * sy + l] = vexp(x[i * sx + l]) * s[l];
    } else {
        for (int64_t i = 0; i < n; ++i)
            for (int64_t l = 0; l < nb; ++l) y[i * sy + l] = exp_le0(x[i * sx + l] - m[l]) * s[l];
    }
}

// d += dy, or dy y with y.
template <class C>
[[gnu::noinline]] void col_dot(C *__restrict d, const C *dy, int64_t sdy, const C *y, int64_t sy, int64_t n,
                               int64_t nb) {
    if (y) {
        for (int64_t i = 0; i < n; ++i)
            for (int64_t l = 0; l < nb; ++l) d[l] += dy[i * sdy + l] * y[i * sy + l];
    } else {
        for (int64_t i = 0; i < n; ++i)
            for (int64_t l = 0; l < nb; ++l) d[l] += dy[i * sdy + l];
    }
}

template <class C>
[[gnu::noinline]] void col_backward(const C *__restrict d, const C *dy, int64_t sdy, const C *y, int64_t sy, C *dx,
                                    int64_t sdx, int64_t n, int64_t nb, C alpha, bool log) {
    if (log) {
        for (int64_t i = 0; i < n; ++i)
            for (int64_t l = 0; l < nb; ++l)
                dx[i * sdx + l] = alpha * (dy[i * sdy + l] - vexp(y[i * sy + l]) * d[l]);
    } else {
        for (int64_t i = 0; i < n; ++i)
            for (int64_t l = 0; l < nb; ++l) dx[i * sdx + l] = alpha * (y[i * sy + l] * (dy[i * sdy + l] - d[l]));
    }
}

// ---- Staging ---------------------------------------------------------------

// Runs math(in, c) over the n elements of p (stride s) in the compute type:
// on p itself in one call when it is contiguous C, else chunk by chunk.
template <class C, class T, class M>
inline void staged_each(const T *p, int64_t s, int64_t n, M &&math) {
    if constexpr (std::is_same_v<T, C>) {
        if (s == 1) return math(p, n);
    }
    alignas(64) C buf[kStage];
    for (int64_t i = 0; i < n; i += kStage) {
        const int64_t c = imin_(kStage, n - i);
        math(staged_in(p + i * s, s, c, buf), c);
    }
}

// Runs math(in, out, c) from the n elements of in (stride si) to those of out
// (stride so): on the operands in one call when both are contiguous C and
// nothing is blended, else through L1 buffers.
template <class C, class T, class M>
inline void staged_map(const T *in, int64_t si, T *out, int64_t so, int64_t n, C beta, bool blend, M &&math) {
    if constexpr (std::is_same_v<T, C>) {
        if (si == 1 && so == 1 && !blend) return math(in, out, n);
    }
    alignas(64) C bi[kStage], bo[kStage];
    for (int64_t i = 0; i < n; i += kStage) {
        const int64_t c = imin_(kStage, n - i);
        math(staged_in(in + i * si, si, c, bi), bo, c);
        staged_out(out + i * so, so, bo, c, beta, blend, false);
    }
}

// ---- Forward ---------------------------------------------------------------

// store: e^(x - max) goes to y in the sum pass (y holds the compute type,
// beta is 0, not LOG).
struct ForwardCase {
    Alg alg;
    bool store, blend;
};

// One softmax whose elements are the row at offsets base (0 = y, 1 = x).
template <class T, class C>
void forward_row(const StridedLoop &row, const int64_t *base, const T *x, T *y, ForwardCase fc, C alpha, C beta) {
    const int64_t sy = row.inner_stride(0), sx = row.inner_stride(1);
    const bool fast = fc.alg == Alg::fast;
    C m = 0;  // FAST does not subtract the max
    if (!fast) {
        m = -std::numeric_limits<C>::infinity();
        row_runs(row, base, [&](const int64_t *off, int64_t n) {
            staged_each<C>(x + off[1], sx, n, [&](const C *in, int64_t c) {
                const C v = row_max(in, c);
                m = v > m ? v : m;
            });
        });
    }
    C sum = 0;
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        if (fc.store)
            staged_map<C>(x + off[1], sx, y + off[0], sy, n, C(0), false,
                          [&](const C *in, C *out, int64_t c) { sum += row_sum_exp(in, c, m, fast, out); });
        else
            staged_each<C>(x + off[1], sx, n,
                           [&](const C *in, int64_t c) { sum += row_sum_exp<C>(in, c, m, fast, nullptr); });
    });
    const C log_sum = fc.alg == Alg::log ? vlog(sum) : C(0), scale = alpha / sum;
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        T *yp = y + off[0];
        if (fc.alg == Alg::log)
            staged_map<C>(x + off[1], sx, yp, sy, n, beta, fc.blend,
                          [&](const C *in, C *out, int64_t c) { row_log(in, out, c, m, log_sum, alpha); });
        else if (fc.store)
            staged_map<C>(yp, sy, yp, sy, n, beta, false,
                          [&](const C *in, C *out, int64_t c) { row_scale(in, out, c, scale); });
        else
            staged_map<C>(x + off[1], sx, yp, sy, n, beta, fc.blend,
                          [&](const C *in, C *out, int64_t c) { row_exp_scale(in, out, c, m, scale, fast); });
    });
}

// nb <= kColumns neighbouring softmaxes of n <= kColumnSteps elements (x,
// y: strides sx, sy), beta 0, y beyond the cache: the block is computed in
// L1 and streamed to y, so that y is written once and never read (its lines
// are nb elements, 256 bytes for f32: no partial lines but the ends). The
// caller fences (for_each_softmax).
template <class C>
void forward_columns_streamed(const C *x, int64_t sx, C *y, int64_t sy, int64_t n, int64_t nb, Alg alg, C alpha) {
    const bool fast = alg == Alg::fast, log = alg == Alg::log;
    C m[kColumns], s[kColumns];
    for (int64_t l = 0; l < nb; ++l) {
        m[l] = fast ? C(0) : -std::numeric_limits<C>::infinity();
        s[l] = 0;
    }
    alignas(64) C buf[kColumns * kColumnSteps];
    if (!fast) col_max(m, x, sx, n, nb);
    col_sum_exp(s, m, x, sx, log ? nullptr : buf, nb, n, nb, fast);
    col_finish(s, nb, alpha, log);
    if (log) {
        col_out(m, s, x, sx, buf, nb, n, nb, alpha, alg, false);
        for (int64_t i = 0; i < n; ++i) stream_copy(y + i * sy, buf + i * nb, nb);
        return;
    }
    for (int64_t i = 0; i < n; ++i) stream_map(y + i * sy, buf + i * nb, s, nb, [](auto e, auto k) { return e * k; });
}

// A full block of kColumns neighbouring softmaxes (ACCURATE or LOG, beta 0,
// C float) of n elements at strides sx, sy, with the block's maxima and sums
// held in registers: written with vector types rather than left to the
// vectorizer, whose col_max and col_sum_exp load and store m[l] and s[l]
// with every element they read (NCHW channels: 2.4 cycles an element). When
// stream (y beyond the cache, n <= kColumnSteps), the terms stay in an L1
// buffer and the results stream to y; otherwise the terms go to y and are
// scaled there.
template <class C>
void columns_block(const C *x, int64_t sx, C *y, int64_t sy, int64_t n, bool log, C alpha, bool stream) {
    using V = vec_t<C>;
    constexpr int W = kVectorBytes / sizeof(C), NV = kColumns / W;
    const auto load = [](const C *p) { return load_vec<V>(p); };
    alignas(64) C buf[kColumns * kColumnSteps];
    C *e = stream ? buf : y;
    const int64_t se = stream ? kColumns : sy;
    // Streaming stores go to whole lines (kColumns values of a step are
    // whole lines from a line's start); otherwise y stores plainly.
    const bool nt = stream && line_aligned(y) && sy * int64_t(sizeof(C)) % kStreamLineBytes == 0;
    const auto put = [nt](C *p, V v) {
        if (nt) stream_vector(p, v);
        else std::memcpy(p, &v, sizeof v);
    };
    V m[NV], s[NV];
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) m[v] = V{} - std::numeric_limits<C>::infinity(), s[v] = V{};
    for (int64_t i = 0; i < n; ++i) {
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) {
            m[v] = vmath_detail::max_lanes(load(x + i * sx + v * W), m[v]);  // a NaN never becomes the max
        }
    }
    // The terms, kept (ACCURATE) or only summed (LOG). Streaming, the max
    // pass waits on memory (64 strided runs of 256 bytes defeat the hardware
    // prefetcher: the pass took 40% of the time), so this pass, the long
    // one, fetches the lines of the block after next (the thread's next
    // blocks are most often the next kColumns softmaxes; a line beyond the
    // tensor is only a hint). Into L2 (prefetcht1): a core keeps only some
    // two dozen L1 misses in flight, too few for the 256 lines of a block in
    // the time of this pass; to L1 the max pass still waited for a quarter
    // of the time (16x64x128x128, one thread: 7.7 ms, the next block into
    // L2 6.5, the block after next 6.05; two threads 3.96 -> 3.49).
    const auto sum_pass = [&](auto keep) {
        for (int64_t i = 0; i < n; ++i) {
#pragma GCC unroll 16
            for (int v = 0; v < NV; ++v) {
                const C *p = x + i * sx + v * W;
                if (stream) prefetch_l2(p, 2 * kColumns * int64_t(sizeof(C)));
                const V t = exp_le0(load(p) - m[v]);
                if constexpr (keep()) std::memcpy(e + i * se + v * W, &t, sizeof t);
                s[v] += t;
            }
        }
    };
    if (log) sum_pass(std::false_type{});
    else sum_pass(std::true_type{});
    if (log) {
        alignas(64) C ls[kColumns];
        std::memcpy(ls, s, sizeof ls);
        for (int64_t l = 0; l < kColumns; ++l) ls[l] = vlog(ls[l]);
        std::memcpy(s, ls, sizeof ls);
        for (int64_t i = 0; i < n; ++i) {
#pragma GCC unroll 16
            for (int v = 0; v < NV; ++v) put(y + i * sy + v * W, alpha * ((load(x + i * sx + v * W) - m[v]) - s[v]));
        }
        return;
    }
#pragma GCC unroll 16
    for (int v = 0; v < NV; ++v) s[v] = alpha / s[v];
    for (int64_t i = 0; i < n; ++i) {
#pragma GCC unroll 16
        for (int v = 0; v < NV; ++v) put(y + i * sy + v * W, load(e + i * se + v * W) * s[v]);
    }
}

// nb <= kColumns neighbouring softmaxes, contiguous in every operand from
// offsets base; row steps through their elements. With the compute type and
// no blending the math runs on the operands a run at a time; otherwise one
// step (nb elements) at a time through L1.
template <class T, class C>
void forward_columns(const StridedLoop &row, const int64_t *base, int64_t nb, const T *x, T *y, ForwardCase fc,
                     C alpha, C beta) {
    const int64_t sy = row.inner_stride(0), sx = row.inner_stride(1);
    const bool fast = fc.alg == Alg::fast;
    C m[kColumns], s[kColumns];
    for (int64_t l = 0; l < nb; ++l) {
        m[l] = fast ? C(0) : -std::numeric_limits<C>::infinity();
        s[l] = 0;
    }
    alignas(64) C bx[kColumns], by[kColumns];
    if (!fast) {
        row_runs(row, base, [&](const int64_t *off, int64_t n) {
            const T *xp = x + off[1];
            if constexpr (std::is_same_v<T, C>) {
                if (!fc.blend) return col_max(m, xp, sx, n, nb);
            }
            for (int64_t i = 0; i < n; ++i) col_max(m, staged_in(xp + i * sx, 1, nb, bx), 0, 1, nb);
        });
    }
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        const T *xp = x + off[1];
        if constexpr (std::is_same_v<T, C>) {
            if (!fc.blend) return col_sum_exp(s, m, xp, sx, fc.store ? y + off[0] : nullptr, sy, n, nb, fast);
        }
        for (int64_t i = 0; i < n; ++i)
            col_sum_exp<C>(s, m, staged_in(xp + i * sx, 1, nb, bx), 0, nullptr, 0, 1, nb, fast);
    });
    col_finish(s, nb, alpha, fc.alg == Alg::log);
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        T *yp = y + off[0];
        if constexpr (std::is_same_v<T, C>) {
            if (!fc.blend) return col_out(m, s, fc.store ? yp : x + off[1], fc.store ? sy : sx, yp, sy, n, nb, alpha,
                                       fc.alg, fc.store);
        }
        for (int64_t i = 0; i < n; ++i) {
            col_out(m, s, staged_in(x + off[1] + i * sx, 1, nb, bx), 0, by, 0, 1, nb, alpha, fc.alg, false);
            staged_out(yp + i * sy, 1, by, nb, beta, fc.blend, false);
        }
    });
}

// ---- Backward --------------------------------------------------------------

// dx = alpha * y (dy - sum(dy y)), or for LOG alpha * (dy - e^y sum(dy)).
// Offsets: 0 = dx, 1 = dy, 2 = y.
template <class T, class C>
void backward_row(const StridedLoop &row, const int64_t *base, const T *y, const T *dy, T *dx, bool log, bool blend,
                  C alpha, C beta) {
    const int64_t sdx = row.inner_stride(0), sdy = row.inner_stride(1), sy = row.inner_stride(2);
    alignas(64) C bdy[kStage], by[kStage], out[kStage];
    C d = 0;
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        const T *dyp = dy + off[1], *yp = y + off[2];
        if constexpr (std::is_same_v<T, C>) {
            if (sdy == 1 && sy == 1) {
                d += row_sum(dyp, log ? nullptr : yp, n);
                return;
            }
        }
        for (int64_t i = 0; i < n; i += kStage) {
            const int64_t c = imin_(kStage, n - i);
            d += row_sum(staged_in(dyp + i * sdy, sdy, c, bdy), log ? nullptr : staged_in(yp + i * sy, sy, c, by), c);
        }
    });
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        const T *dyp = dy + off[1], *yp = y + off[2];
        T *dxp = dx + off[0];
        if constexpr (std::is_same_v<T, C>) {
            if (sdx == 1 && sdy == 1 && sy == 1 && !blend) return row_backward(dyp, yp, dxp, n, d, alpha, log);
        }
        for (int64_t i = 0; i < n; i += kStage) {
            const int64_t c = imin_(kStage, n - i);
            row_backward(staged_in(dyp + i * sdy, sdy, c, bdy), staged_in(yp + i * sy, sy, c, by), out, c, d, alpha, log);
            staged_out(dxp + i * sdx, sdx, out, c, beta, blend, false);
        }
    });
}

template <class T, class C>
void backward_columns(const StridedLoop &row, const int64_t *base, int64_t nb, const T *y, const T *dy, T *dx,
                      bool log, bool blend, C alpha, C beta) {
    const int64_t sdx = row.inner_stride(0), sdy = row.inner_stride(1), sy = row.inner_stride(2);
    C d[kColumns];
    for (int64_t l = 0; l < nb; ++l) d[l] = 0;
    alignas(64) C bdy[kColumns], by[kColumns], out[kColumns];
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        const T *dyp = dy + off[1], *yp = y + off[2];
        if constexpr (std::is_same_v<T, C>) {
            col_dot(d, dyp, sdy, log ? nullptr : yp, sy, n, nb);
        } else {
            for (int64_t i = 0; i < n; ++i)
                col_dot(d, staged_in(dyp + i * sdy, 1, nb, bdy), 0, log ? nullptr : staged_in(yp + i * sy, 1, nb, by),
                        0, 1, nb);
        }
    });
    row_runs(row, base, [&](const int64_t *off, int64_t n) {
        const T *dyp = dy + off[1], *yp = y + off[2];
        T *dxp = dx + off[0];
        if constexpr (std::is_same_v<T, C>) {
            if (!blend) return col_backward(d, dyp, sdy, yp, sy, dxp, sdx, n, nb, alpha, log);
        }
        for (int64_t i = 0; i < n; ++i) {
            col_backward(d, staged_in(dyp + i * sdy, 1, nb, bdy), 0, staged_in(yp + i * sy, 1, nb, by), 0, out, 0, 1,
                         nb, alpha, log);
            staged_out(dxp + i * sdx, 1, out, nb, beta, blend, false);
        }
    });
}

// ---- Drivers -----------------------------------------------------------------

bool unit_inner(const StridedLoop &L) {
    for (int k = 0; k < L.nops; ++k)
        if (L.inner_stride(k) != 1) return false;
    return true;
}

// Runs rows(off, n) for every run of n softmaxes (the first at offsets off,
// the next ones a step of outer.inner_stride(k) on), or block(off, nb) for
// every block of neighbouring softmaxes when columns, over the handle's
// threads.
template <class Rows, class Block>
void for_each_softmax(const ExecContext &ctx, const SoftmaxLoops &loops, bool columns, Rows &&rows, Block &&block) {
    const StridedLoop &outer = loops.outer;
    const int64_t len = loops.row.total();
    if (!columns) {
        const int64_t grain = imin_(outer.total(), kGrain / len + 1);
        parallel_ranges(ctx, outer.total(), grain,
                        [&](int64_t begin, int64_t end) { for_each_run(outer, begin, end, rows); });
        return;
    }
    const int64_t inner = outer.inner(), blocks = (inner + kColumns - 1) / kColumns;
    const int64_t items = outer.total() / inner * blocks;
    const int64_t grain = imin_(items, kGrain / (len * kColumns) + 1);
    parallel_ranges(ctx, items, grain, [&](int64_t begin, int64_t end) {
        for (int64_t item = begin; item < end; ++item) {
            const int64_t first = item / blocks * inner + item % blocks * kColumns;
            const int64_t last = first + imin_(kColumns, inner - item % blocks * kColumns);
            for_each_run(outer, first, last, block);
        }
        // Once per thread, not per block: a fence waits for the streamed
        // lines still in flight, and after each 16 KiB block it stalled the
        // thread for 12% of an NCHW channel softmax.
        streaming_fence();
    });
}

// Calls one(base) for each softmax of a run of n from offsets off.
template <class One>
inline void each_row(const StridedLoop &outer, const int64_t *off, int64_t n, One &&one) {
    int64_t base[kMaxOperands];
    for (int64_t i = 0; i < n; ++i) {
        for (int k = 0; k < outer.nops; ++k) base[k] = off[k] + i * outer.inner_stride(k);
        one(base);
    }
}

// Columns pay off when the softmaxes are contiguous and their elements are not.
bool use_columns(const SoftmaxLoops &loops) {
    return !unit_inner(loops.row) && unit_inner(loops.outer) && loops.outer.inner() >= 8;
}

template <class T>
void forward_typed(const ExecContext &ctx, const SoftmaxForwardArgs &a, Alg alg) {
    using C = compute_t<T>;
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const T *x = static_cast<const T *>(a.x);
    T *y = static_cast<T *>(a.y);
    const StridedLoop &row = a.loops.row;
    const bool columns = use_columns(a.loops), blend = beta != C(0);
    if constexpr (std::is_same_v<T, C>) {
        const int64_t len = row.total();
        if (!blend && !columns && unit_inner(row) && row.nd == 1 && len <= kStreamingChunk) {
            // Contiguous rows short enough for L1: the fused passes of
            // rows_forward, on y itself or, beyond the cache, on an L1 buffer
            // streamed to y; adjacent rows (NHWC channels) a chunk at a time.
            const StridedLoop &outer = a.loops.outer;
            const bool stream = use_streaming_stores(outer.total() * len * int64_t(sizeof(T)), y, x);
            const int64_t sy = outer.inner_stride(0), sx = outer.inner_stride(1);
            const int64_t group = sy == len && sx == len ? imin_(kRowGroup, kStreamingChunk / len) : 1;
            for_each_softmax(
                ctx, a.loops, false,
                [&](const int64_t *off, int64_t n) {
                    if (alg == Alg::accurate && sy == len && sx == len &&
                        rows_in_registers(x + off[1], y + off[0], n, len, alpha, stream)) {
                        if (stream) streaming_fence();
                        return;
                    }
                    alignas(64) C buf[kStreamingChunk];
                    for (int64_t i = 0; i < n; i += group) {
                        const int64_t rows = imin_(group, n - i);
                        C *yp = y + off[0] + i * sy;
                        rows_forward(x + off[1] + i * sx, stream ? buf : yp, stream ? yp : nullptr, rows, len, alg,
                                     alpha);
                    }
                    if (stream) streaming_fence();
                },
                [](const int64_t *, int64_t) {});
            return;
        }
    }
    // Storing e^(x - max) in y needs y to hold it exactly and nothing in y to keep.
    const ForwardCase fc{alg, std::is_same_v<T, C> && alg != Alg::log && !blend, blend};
    const StridedLoop &outer = a.loops.outer;
    const bool stream_columns = std::is_same_v<T, C> && columns && !blend && row.nd == 1 &&
                                row.total() <= kColumnSteps &&
                                use_streaming_stores(outer.total() * row.total() * int64_t(sizeof(T)), y, x);
    for_each_softmax(
        ctx, a.loops, columns,
        [&](const int64_t *off, int64_t n) {
            each_row(outer, off, n, [&](const int64_t *base) { forward_row(row, base, x, y, fc, alpha, beta); });
        },
        [&](const int64_t *base, int64_t nb) {
            if constexpr (std::is_same_v<T, float> && kVectorBytes >= 32) {
                if (alg != Alg::fast && !blend && nb == kColumns && row.nd == 1)
                    return columns_block(x + base[1], row.inner_stride(1), y + base[0], row.inner_stride(0),
                                         row.total(), alg == Alg::log, alpha, stream_columns);
            }
            if constexpr (std::is_same_v<T, C>) {
                if (stream_columns)
                    return forward_columns_streamed(x + base[1], row.inner_stride(1), y + base[0],
                                                    row.inner_stride(0), row.total(), nb, alg, alpha);
            }
            forward_columns(row, base, nb, x, y, fc, alpha, beta);
        });
}

template <class T>
void backward_typed(const ExecContext &ctx, const SoftmaxBackwardArgs &a, bool log) {
    using C = compute_t<T>;
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const T *y = static_cast<const T *>(a.y), *dy = static_cast<const T *>(a.dy);
    T *dx = static_cast<T *>(a.dx);
    const StridedLoop &row = a.loops.row;
    const bool columns = use_columns(a.loops), blend = beta != C(0);
    const StridedLoop &outer = a.loops.outer;
    for_each_softmax(
        ctx, a.loops, columns,
        [&](const int64_t *off, int64_t n) {
            each_row(outer, off, n,
                     [&](const int64_t *base) { backward_row(row, base, y, dy, dx, log, blend, alpha, beta); });
        },
        [&](const int64_t *base, int64_t nb) { backward_columns(row, base, nb, y, dy, dx, log, blend, alpha, beta); });
}

void forward(const ExecContext &ctx, const SoftmaxForwardArgs &a) {
    visit_float_dtype(a.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        switch (a.algo) {
        case ANYDNN_SOFTMAX_FAST: forward_typed<T>(ctx, a, Alg::fast); break;
        case ANYDNN_SOFTMAX_ACCURATE: forward_typed<T>(ctx, a, Alg::accurate); break;
        case ANYDNN_SOFTMAX_LOG: forward_typed<T>(ctx, a, Alg::log); break;
        }
    });
}

void backward(const ExecContext &ctx, const SoftmaxBackwardArgs &a) {
    visit_float_dtype(a.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        backward_typed<T>(ctx, a, a.algo == ANYDNN_SOFTMAX_LOG);
    });
}

}  // namespace

extern const SoftmaxKernels softmax = {forward, backward};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
