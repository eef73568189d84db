// Pooling kernels, compiled once per ISA level.
//
// Forward: one pass over x. Each output element reduces its window's valid
// taps (padding is never read); up to kLanes neighbouring outputs advance
// together, one vector lane each:
// - channel lanes (NHWC): the channels of one output pixel, contiguous in x
//   and y; every tap is one contiguous vector load per block.
// - row lanes (NCHW): a block of one output row; the window's rows are
//   folded into one (contiguous vectors), then for each tap along it the
//   lanes whose input column is inside x form one range, so the inner loop
//   has no bounds test (whole-vector loads and permutes for pooling strides
//   1 and 2).
// - plane lanes (global pooling of NCHW): one output per channel, the
//   reduction of the channel's whole plane, contiguous in x; each plane is
//   summed with whole vectors and folded once.
// Backward: see PoolingBackwardArgs and PoolingRing (src/cpu/pooling.hpp):
// per work item a ring of input slabs in the compute type gathers the
// gradient, channel lanes as in the forward.
//
// MAX and its NaN option: max_step() is the one rule that folds a tap into
// the best so far (a NaN wins under PROPAGATE_NAN; otherwise NaNs are
// skipped, and a window of NaNs only gives NaN). The backward pass finds the
// max with it too, then gives the gradient to the first tap in scan order
// equal to it (the first NaN for a NaN max).
//
// Compile time: the window math (the reductions over a window's taps, the
// backward's gradient placement) is compiled once per mode (MAX, MAX with
// PROPAGATE_NAN, AVG: the mode is the inner loop's body) and compute type,
// on operands of the compute type with unit lane stride, and kept out of
// line. The drivers around it depend on the storage type only; 16-bit
// storage and strided lanes are staged through L1 buffers (util/staging.hpp),
// one window (or window row) at a time, and beta-blending is a run-time
// flag. Compiled into every mode x storage type x layout case, the same math
// made this unit 38 s of compile time for AVX-512.

#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/staging.hpp"
#include "cpu/kernels/util/transpose.hpp"
#include "cpu/pooling.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

using ops::PoolKind;

constexpr int64_t kLanes = 64;     // outputs reduced side by side in the forward pass
constexpr int64_t kGrain = 16384;  // x elements (taps) per thread, at least

// Before a loop over the lanes: GCC would unroll a constant-count lane loop
// completely before its vectorizer runs and then fail to vectorize the
// NaN-aware selects of the straight code (scalar vucomiss per lane); kept a
// loop, it becomes whole-vector code.
#define ANYDNN_LANE_LOOP _Pragma("GCC unroll 1")

// The max-pooling step: the best so far after tap value v. Two selects each,
// which vectorize (maxps, then a blend on the NaN test): with PROPAGATE a NaN
// v makes the best NaN for good (v > NaN is false); without, a NaN v is
// never taken and a NaN best (the start) is replaced by the next v.
template <bool Propagate, class C>
inline C max_step(C best, C v) {
    const C t = v > best ? v : best;
    if constexpr (Propagate) return v != v ? v : t;
    else return t != t ? v : t;
}

// The best-so-far before the first tap: -inf is beaten by any value (and a
// window of -inf keeps it, correctly); NaN is replaced by the first non-NaN.
template <bool Propagate, class C>
inline C max_start() {
    return Propagate ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::quiet_NaN();
}

// The valid taps of one output position o along dimension k: the input
// positions [lo, hi) of its window that are not padding.
struct TapRange {
    int64_t lo, hi;
};
inline TapRange taps(const ops::PoolGeometry &g, int k, int64_t o) {
    const int64_t start = o * g.stride[k] - g.pad[k], end = start + g.window[k];
    return {start < 0 ? 0 : start, end < g.in[k] ? end : g.in[k]};
}

// ---- Forward ---------------------------------------------------------------

// The reduction of one lane: Max<Propagate> or Avg (a sum; the count is
// applied in the final scale).
template <bool IsMax, bool Propagate>
struct Reduce {
    template <class C>
    static C start() {
        if constexpr (IsMax) return max_start<Propagate, C>();
        else return C(0);
    }
    template <class C>
    static C step(C acc, C v) {
        if constexpr (IsMax) return max_step<Propagate>(acc, v);
        else return acc + v;
    }
};

// The window math of the forward pass, once per mode and compute type.
// Channel lanes: acc[l] (l < nb) reduces x[id * sd + ih * sh + iw * sw + l]
// over the nd x nh x nw taps, from the start value when init (else it goes
// on from acc: a window staged a chunk at a time).
template <class C>
using ChannelsMath = void (*)(C *acc, const C *x, int64_t nb, int64_t nd, int64_t sd, int64_t nh, int64_t sh,
                              int64_t nw, int64_t sw, bool init);

// Fixed: the lane count as a constant (whole vectors per tap, no remainder
// code), or 0 (a run-time count: a last partial block).
// A whole block of kLanes runs in registers (vec_t): the accumulators are
// loaded and stored once per window rather than once per tap (NHWC max pool
// 3x3: the load and store of acc at each tap were half the work).
template <class R, int64_t Fixed, class C>
inline void channels_body(C *__restrict acc, const C *x, int64_t nb_run, int64_t nd, int64_t sd, int64_t nh,
                          int64_t sh, int64_t nw, int64_t sw, bool init) {
    constexpr int64_t NV = Fixed * int64_t(sizeof(C)) / kVectorBytes;
    if constexpr (NV > 0 && NV <= 8 && Fixed * int64_t(sizeof(C)) % kVectorBytes == 0) {
        using V = vec_t<C>;
        constexpr int64_t W = kVectorBytes / int64_t(sizeof(C));
        V v[NV];
#pragma GCC unroll 8
        for (int64_t k = 0; k < NV; ++k) v[k] = init ? V{} + R::template start<C>() : load_vec<V>(acc + k * W);
        for (int64_t id = 0; id < nd; ++id)
            for (int64_t ih = 0; ih < nh; ++ih)
                for (int64_t iw = 0; iw < nw; ++iw) {
                    const C *xp = x + id * sd + ih * sh + iw * sw;
#pragma GCC unroll 8
                    for (int64_t k = 0; k < NV; ++k) v[k] = R::step(v[k], load_vec<V>(xp + k * W));
                }
#pragma GCC unroll 8
        for (int64_t k = 0; k < NV; ++k) store_vec(acc + k * W, v[k]);
        return;
    }
    const int64_t nb = Fixed ? Fixed : nb_run;
    if (init) {
        ANYDNN_LANE_LOOP
        for (int64_t l = 0; l < nb; ++l) acc[l] = R::template start<C>();
    }
    for (int64_t id = 0; id < nd; ++id)
        for (int64_t ih = 0; ih < nh; ++ih)
            for (int64_t iw = 0; iw < nw; ++iw) {
                const C *xp = x + id * sd + ih * sh + iw * sw;
                ANYDNN_LANE_LOOP
                for (int64_t l = 0; l < nb; ++l) acc[l] = R::step(acc[l], xp[l]);
            }
}

template <class R, class C>
[[gnu::noinline]] void channels_math(C *acc, const C *x, int64_t nb, int64_t nd, int64_t sd, int64_t nh, int64_t sh,
                                     int64_t nw, int64_t sw, bool init) {
    if (nb == kLanes) channels_body<R, kLanes>(acc, x, nb, nd, sd, nh, sh, nw, sw, init);
    else channels_body<R, 0>(acc, x, nb, nd, sd, nh, sh, nw, sw, init);
}

// Row lanes: the window's rows are first folded into one, column by column
// (fold_rows: a pass of whole contiguous vectors per row), then acc[l]
// (l < nb) reduces the taps kw < nk of that row, the column first + kw + l *
// step, those inside [0, W) only. A 3x3 window with stride 2 is 2 folds and
// 3 strided taps instead of 9 strided taps, each a pass over an accumulator
// in memory (the forward max pool's time went there). A raw value folds like
// a partial result (see planes_math), so the order changes no max.
template <class C>
using FoldMath = void (*)(C *dst, const C *a, const C *b, int64_t n);

template <class R, class C>
[[gnu::noinline]] void fold_rows(C *dst, const C *a, const C *b, int64_t n) {
    prefetch_stream_run(b, n * int64_t(sizeof(C)));
    for (int64_t j = 0; j < n; ++j) dst[j] = R::step(a[j], b[j]);
}

template <class C>
using RowsMath = void (*)(C *acc, const C *row, int64_t first, int64_t step, int64_t nk, int64_t W, int64_t nb);

// Step: the step as a constant (1 or 2: pooling stride 1 or 2, which GCC
// loads with whole vectors and permutes), or 0 (run time: gathers).
template <class R, int64_t Step, class C>
inline void rows_body(C *__restrict acc, const C *row, int64_t first0, int64_t step_run, int64_t nk, int64_t W,
                      int64_t nb) {
    const int64_t sw = Step ? Step : step_run;
    for (int64_t kw = 0; kw < nk; ++kw) {
        // Lane l reads column first + l * sw; keep those inside [0, W).
        const int64_t first = first0 + kw;
        const int64_t l_lo = first >= 0 ? 0 : (-first + sw - 1) / sw;
        const int64_t l_hi = first > W - 1 ? 0 : imin_(nb, (W - 1 - first) / sw + 1);
        if (l_lo >= l_hi) continue;
        const C *xp = row + first + l_lo * sw;
        C *ap = acc + l_lo;
        for (int64_t l = 0; l < l_hi - l_lo; ++l) ap[l] = R::step(ap[l], xp[l * sw]);
    }
}

template <class R, class C>
[[gnu::noinline]] void rows_math(C *acc, const C *row, int64_t first, int64_t step, int64_t nk, int64_t W,
                                 int64_t nb) {
    for (int64_t l = 0; l < nb; ++l) acc[l] = R::template start<C>();
    if (step == 1) rows_body<R, 1>(acc, row, first, step, nk, W, nb);
    else if (step == 2) rows_body<R, 2>(acc, row, first, step, nk, W, nb);
    else rows_body<R, 0>(acc, row, first, step, nk, W, nb);
}

// The nb lanes of p (stride s) in the compute type: p itself when they are
// contiguous C. Strided C (NCHW's channel lanes of a global pooling) is
// gathered inline, rather than with a call per window tap.
template <class C, class T>
inline const C *lanes_in(const T *p, int64_t s, int64_t nb, C *buf) {
    if constexpr (std::is_same_v<T, C>) {
        if (s == 1) return p;
        for (int64_t l = 0; l < nb; ++l) buf[l] = p[l * s];
        return buf;
    } else {
        return staged_in(p, s, nb, buf);
    }
}

// Writes the nb results r (already scaled) to yp (stride sy), blended with y;
// inline for C without blending, as lanes_in.
template <class T, class C>
inline void store_results(T *yp, int64_t sy, const C *r, int64_t nb, C beta, bool blend) {
    if constexpr (std::is_same_v<T, C>) {
        if (!blend) {
            if (sy == 1)  // a whole-vector copy (NHWC's flushes); strided, scalar stores
                for (int64_t l = 0; l < nb; ++l) yp[l] = r[l];
            else
                for (int64_t l = 0; l < nb; ++l) yp[l * sy] = r[l];
            return;
        }
    }
    staged_out(yp, sy, r, nb, beta, blend, false);
}

// Items: (n, od, oh); every output pixel of the row, channels in blocks of
// kLanes. x is read in place when it holds C with unit channel stride, else
// staged a chunk of taps of one window row at a time.
template <class T, class C>
void forward_channels(const PoolingForwardArgs &a, ChannelsMath<C> math, int64_t begin, int64_t end) {
    const ops::PoolGeometry &g = a.g;
    const int64_t *xs = a.xs.s, *ys = a.ys.s;
    const int64_t sxc = xs[1], syc = ys[1];
    const T *x = static_cast<const T *>(a.x);
    T *y = static_cast<T *>(a.y);
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const bool blend = a.beta != 0, exclude = g.kind == PoolKind::avg_exclude_padding;
    const bool is_max = g.kind == PoolKind::max, direct = std::is_same_v<T, C> && sxc == 1;
    constexpr int64_t kChunk = kStage / kLanes;  // staged taps per math call
    for (int64_t item = begin; item < end; ++item) {
        const int64_t oh = item % g.out[1], od = item / g.out[1] % g.out[0], n = item / (g.out[1] * g.out[0]);
        const TapRange td = taps(g, 0, od), th = taps(g, 1, oh);
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            const TapRange tw = taps(g, 2, ow);
            const int64_t nd = td.hi - td.lo, nh = th.hi - th.lo, nw = tw.hi - tw.lo;
            const C scale = is_max ? alpha : alpha / static_cast<C>(exclude ? nd * nh * nw : g.window_size());
            for (int64_t c0 = 0; c0 < g.c; c0 += kLanes) {
                const int64_t nb = imin_(kLanes, g.c - c0);
                alignas(64) C acc[kLanes];
                const T *xw = x + n * xs[0] + c0 * sxc + td.lo * xs[2] + th.lo * xs[3] + tw.lo * xs[4];
                if (direct) {
                    math(acc, reinterpret_cast<const C *>(xw), nb, nd, xs[2], nh, xs[3], nw, xs[4], true);
                } else {
                    bool init = true;
                    for (int64_t id = 0; id < nd; ++id)
                        for (int64_t ih = 0; ih < nh; ++ih)
                            for (int64_t iw0 = 0; iw0 < nw; iw0 += kChunk) {
                                alignas(64) C buf[kStage];
                                const int64_t k = imin_(kChunk, nw - iw0);
                                for (int64_t t = 0; t < k; ++t)
                                    lanes_in(xw + id * xs[2] + ih * xs[3] + (iw0 + t) * xs[4], sxc, nb, buf + t * nb);
                                math(acc, buf, nb, 1, 0, 1, 0, k, nb, init);
                                init = false;
                            }
                    if (init) math(acc, acc, nb, 0, 0, 0, 0, 0, 0, true);  // no taps: the start value
                }
                for (int64_t l = 0; l < nb; ++l) acc[l] *= scale;
                store_results(y + n * ys[0] + c0 * syc + od * ys[2] + oh * ys[3] + ow * ys[4], syc, acc, nb, beta,
                              blend);
            }
        }
    }
}

// Items: (n, c, od, oh); the output row in blocks of kLanes pixels. The
// columns a block reads are folded over the window's rows into `folded`;
// rows are read in place when they are contiguous C, else staged.
template <class T, class C>
void forward_rows(const PoolingForwardArgs &a, FoldMath<C> fold, RowsMath<C> math, int64_t begin, int64_t end) {
    const ops::PoolGeometry &g = a.g;
    const int64_t *xs = a.xs.s, *ys = a.ys.s;
    const int64_t sw = g.stride[2], W = g.in[2];
    const T *x = static_cast<const T *>(a.x);
    T *y = static_cast<T *>(a.y);
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const bool blend = a.beta != 0, exclude = g.kind == PoolKind::avg_exclude_padding;
    const bool is_max = g.kind == PoolKind::max;
    // The columns of one block: (kLanes - 1) strides and a window.
    const int64_t cols = imin_(W, (kLanes - 1) * sw + g.window[2]);
    KernelArray<C> folded(cols), staged(cols);
    for (int64_t item = begin; item < end; ++item) {
        const int64_t oh = item % g.out[1], od = item / g.out[1] % g.out[0];
        const int64_t c = item / (g.out[1] * g.out[0]) % g.c, n = item / (g.out[1] * g.out[0] * g.c);
        const TapRange td = taps(g, 0, od), th = taps(g, 1, oh);
        const int64_t nd = td.hi - td.lo, nh = th.hi - th.lo;
        const T *xr = x + n * xs[0] + c * xs[1] + td.lo * xs[2] + th.lo * xs[3];
        for (int64_t ow0 = 0; ow0 < g.out[2]; ow0 += kLanes) {
            const int64_t nb = imin_(kLanes, g.out[2] - ow0), first = ow0 * sw - g.pad[2];
            // Columns [lo, hi) of each row (not empty: every window holds an
            // input element), folded as columns [0, hi - lo).
            const int64_t lo = first < 0 ? 0 : first, hi = imin_(W, first + (nb - 1) * sw + g.window[2]);
            const C *row = nullptr;
            for (int64_t id = 0; id < nd; ++id)
                for (int64_t ih = 0; ih < nh; ++ih) {
                    const T *xp = xr + id * xs[2] + ih * xs[3] + lo * xs[4];
                    if (!row) {
                        row = staged_in(xp, xs[4], hi - lo, folded.data());
                    } else {
                        fold(folded.data(), row, staged_in(xp, xs[4], hi - lo, staged.data()), hi - lo);
                        row = folded.data();
                    }
                }
            alignas(64) C acc[kLanes];
            math(acc, row, first - lo, sw, g.window[2], hi - lo, nb);
            for (int64_t l = 0; l < nb; ++l) {
                C scale = alpha;
                if (!is_max) {
                    int64_t count = g.window_size();
                    if (exclude) {
                        const TapRange tw = taps(g, 2, ow0 + l);
                        count = nd * nh * (tw.hi - tw.lo);
                    }
                    scale = alpha / static_cast<C>(count);
                }
                acc[l] *= scale;
            }
            store_results(y + n * ys[0] + c * ys[1] + od * ys[2] + oh * ys[3] + ow0 * ys[4], ys[4], acc, nb, beta,
                          blend);
        }
    }
}

// Plane lanes: acc[l] (l < nb) reduces the P contiguous values x[l * sc +
// i], from the start value when init (else it goes on from acc: a plane
// staged a chunk at a time).
template <class C>
using PlanesMath = void (*)(C *acc, const C *x, int64_t nb, int64_t sc, int64_t P, bool init);

// Each plane is reduced in W partial results, one vector (its values i,
// i + W, ...), whose lanes are then folded by rotations: whole-vector
// steps and one horizontal fold per plane rather than a gather per value
// (written as arrays, the fold went through the stack in scalar code, most
// of the time). The steps are associative enough: partial sums only round
// differently, and a partial max folds into another by max_step as a value
// would (a NaN partial is a NaN value under PROPAGATE, the start value
// otherwise).
#if ANYDNN_ISA_avx512
constexpr int kPlaneVector = 64;  // bytes: the level's register, so that no vector passes through memory
#elif ANYDNN_ISA_avx2
constexpr int kPlaneVector = 32;
#else
constexpr int kPlaneVector = 16;
#endif

template <class R, class C>
[[gnu::noinline]] void planes_math(C *acc, const C *x, int64_t nb, int64_t sc, int64_t P, bool init) {
    constexpr int W = kPlaneVector / sizeof(C);
    typedef C V __attribute__((vector_size(kPlaneVector)));
    typedef std::conditional_t<sizeof(C) == 4, int32_t, int64_t> Index __attribute__((vector_size(kPlaneVector)));
    constexpr int kLevels = W == 16 ? 4 : W == 8 ? 3 : W == 4 ? 2 : 1;
    Index rotate[kLevels];  // fold level k adds the lanes W / 2^(k+1) apart; built once, not per plane
    for (int k = 0, h = W / 2; k < kLevels; ++k, h /= 2)
        for (int j = 0; j < W; ++j) rotate[k][j] = (j + h) % W;
    for (int64_t l = 0; l < nb; ++l) {
        const C *xp = x + l * sc;
        V part, v;
        for (int j = 0; j < W; ++j) part[j] = R::template start<C>();
        int64_t i = 0;
        for (; i + W <= P; i += W) {
            std::memcpy(&v, xp + i, sizeof v);
            part = R::step(part, v);
        }
        C tail = R::template start<C>();  // in the vector, its lanes went through the stack
        for (; i < P; ++i) tail = R::step(tail, xp[i]);
        for (int k = 0; k < kLevels; ++k) part = R::step(part, __builtin_shuffle(part, rotate[k]));
        const C r = R::step(part[0], tail);
        acc[l] = init ? r : R::step(acc[l], r);
    }
}

// Items: (n, block of kLanes channels); each output reduces its channel's
// whole plane, P contiguous values of x (PoolLanes::planes), read in place
// when x holds C, else staged kStage values at a time.
template <class T, class C>
void forward_planes(const PoolingForwardArgs &a, PlanesMath<C> math, int64_t begin, int64_t end) {
    const ops::PoolGeometry &g = a.g;
    const int64_t *xs = a.xs.s, *ys = a.ys.s;
    const int64_t P = g.in_pixels(), blocks = (g.c + kLanes - 1) / kLanes;
    const T *x = static_cast<const T *>(a.x);
    T *y = static_cast<T *>(a.y);
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const bool exclude = g.kind == PoolKind::avg_exclude_padding;
    const C scale = g.kind == PoolKind::max ? alpha : alpha / static_cast<C>(exclude ? P : g.window_size());
    for (int64_t item = begin; item < end; ++item) {
        const int64_t n = item / blocks, c0 = item % blocks * kLanes, nb = imin_(kLanes, g.c - c0);
        const T *xp = x + n * xs[0] + c0 * xs[1];
        alignas(64) C acc[kLanes];
        if constexpr (std::is_same_v<T, C>) {
            math(acc, xp, nb, xs[1], P, true);
        } else {
            for (int64_t l = 0; l < nb; ++l)
                for (int64_t i = 0; i < P; i += kStage) {
                    alignas(64) C buf[kStage];
                    const int64_t k = imin_(kStage, P - i);
                    math(acc + l, staged_in(xp + l * xs[1] + i, 1, k, buf), 1, 0, k, i == 0);
                }
        }
        for (int64_t l = 0; l < nb; ++l) acc[l] *= scale;
        store_results(y + n * ys[0] + c0 * ys[1], ys[1], acc, nb, beta, a.beta != 0);
    }
}

// The window math of one mode, per compute type.
template <class C>
struct ForwardMath {
    ChannelsMath<C> channels;
    FoldMath<C> fold;
    RowsMath<C> rows;
    PlanesMath<C> planes;
};

template <class R, class C>
constexpr ForwardMath<C> kForwardMath = {&channels_math<R, C>, &fold_rows<R, C>, &rows_math<R, C>,
                                         &planes_math<R, C>};

template <class T, class C = compute_t<T>>
void forward_typed(const ExecContext &ctx, const PoolingForwardArgs &a, const ForwardMath<C> &math) {
    const ops::PoolGeometry &g = a.g;
    const int64_t n_rows = g.n * g.out[0] * g.out[1];
    // Taps per item (at most the window per output element), to size the grain.
    const int64_t per_row = g.out[2] * g.window_size();
    switch (a.lanes) {
    case PoolLanes::channels:
        parallel_ranges(ctx, n_rows, kGrain / (per_row * g.c) + 1,
                        [&](int64_t begin, int64_t end) { forward_channels<T>(a, math.channels, begin, end); });
        break;
    case PoolLanes::rows:
        parallel_ranges(ctx, n_rows * g.c, kGrain / per_row + 1,
                        [&](int64_t begin, int64_t end) { forward_rows<T>(a, math.fold, math.rows, begin, end); });
        break;
    case PoolLanes::planes:
        parallel_ranges(ctx, g.n * ((g.c + kLanes - 1) / kLanes), kGrain / (kLanes * g.in_pixels()) + 1,
                        [&](int64_t begin, int64_t end) { forward_planes<T>(a, math.planes, begin, end); });
        break;
    }
}

void forward(const ExecContext &ctx, const PoolingForwardArgs &a) {
    visit_float_dtype(a.g.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using C = compute_t<T>;
        if (a.g.kind != PoolKind::max) forward_typed<T>(ctx, a, kForwardMath<Reduce<false, false>, C>);
        else if (a.g.propagate_nan) forward_typed<T>(ctx, a, kForwardMath<Reduce<true, true>, C>);
        else forward_typed<T>(ctx, a, kForwardMath<Reduce<true, false>, C>);
    });
}

// ---- Backward --------------------------------------------------------------

// The backward math runs on channel-last operands of the compute type: a
// work item's `lanes` channels contiguous per pixel. Operands that are not
// (NCHW, 16-bit storage) are staged: x a slab at a time into a ring laid out
// as the gradient's (PoolingRing), dy an output row at a time, and dx
// written back a slab at a time. Channels-first runs of the compute type go
// through register transposes (util/transpose.hpp), so that each x, dy and
// dx line is read or written whole once; gathering a channel lane a plane
// apart per tap made NCHW max pooling 6.7x slower than oneDNN.

// dst[p * ld + l] = src[p * sp + l * sc] for pixels p < np, channels l < nb.
template <class T, class C>
[[gnu::noinline]] void gather_channels(const T *src, int64_t sc, int64_t sp, int64_t np, int64_t nb, C *dst,
                                       int64_t ld) {
    if constexpr (std::is_same_v<T, C>) {
        if (sp == 1 && sc != 1) return transpose_elements(sizeof(C), src, sc, dst, ld, np, nb);
    }
    for (int64_t p = 0; p < np; ++p)
        for (int64_t l = 0; l < nb; ++l) dst[p * ld + l] = load<C>(src + p * sp + l * sc);
}

// d[p] = alpha * r[p] (+ beta * d[p] when blend) for the n contiguous
// values of a row, p < n; r is scratch. stream: with streaming stores (T is
// C, no blend).
template <class T, class C>
inline void store_row(T *d, C *r, int64_t n, C alpha, C beta, bool blend, bool stream) {
    if constexpr (std::is_same_v<T, C>) {
        if (stream) return stream_map(d, r, n, [alpha](auto v) { return v * alpha; });
        if (!blend) {
            for (int64_t p = 0; p < n; ++p) d[p] = alpha * r[p];
            return;
        }
    }
    for (int64_t p = 0; p < n; ++p) r[p] *= alpha;
    for (int64_t p = 0; p < n; p += kStage) store_results(d + p, 1, r + p, imin_(kStage, n - p), beta, blend);
}

// dst[p * sp + l * sc] = alpha * src[p * ld + l] (+ beta * its old value
// when blend) for pixels p < np, channels l < nb; stream: with streaming
// stores (T is C, no blend).
template <class T, class C>
[[gnu::noinline]] void scatter_channels(const C *src, int64_t ld, int64_t np, int64_t nb, T *dst, int64_t sc,
                                        int64_t sp, C alpha, C beta, bool blend, bool stream) {
    const auto scaled = [alpha](auto v) { return v * alpha; };
    if (sp == 1 && sc != 1) {  // channels first: a tile of kTile channels x kRun pixels at a time
        constexpr int64_t kRun = 64;
        alignas(64) C t[kTile * kRun];
        for (int64_t l0 = 0; l0 < nb; l0 += kTile)
            for (int64_t p0 = 0; p0 < np; p0 += kRun) {
                const int64_t nl = imin_(kTile, nb - l0), nr = imin_(kRun, np - p0);
                transpose_elements(sizeof(C), src + p0 * ld + l0, ld, t, kRun, nl, nr);
                for (int64_t l = 0; l < nl; ++l)
                    store_row(dst + (l0 + l) * sc + p0, t + l * kRun, nr, alpha, beta, blend, stream);
            }
        return;
    }
    if constexpr (std::is_same_v<T, C>) {
        if (sc == 1 && stream) {  // channels contiguous (NHWC): one run when the pixels are too
            if (sp == nb && ld == nb) return stream_map(dst, src, np * nb, scaled);
            for (int64_t p = 0; p < np; ++p) stream_map(dst + p * sp, src + p * ld, nb, scaled);
            return;
        }
        if (sc == 1 && !blend) {  // whole-vector copies, not a call per pixel
            for (int64_t p = 0; p < np; ++p)
                for (int64_t l = 0; l < nb; ++l) dst[p * sp + l] = alpha * src[p * ld + l];
            return;
        }
    }
    alignas(64) C r[kPoolingBackwardMaxLanes];
    for (int64_t p = 0; p < np; ++p) {
        for (int64_t l = 0; l < nb; ++l) r[l] = alpha * src[p * ld + l];
        store_results(dst + p * sp, sc, r, nb, beta, blend);
    }
}

// One output's window for the backward math, in the compute type, lanes
// contiguous.
template <class C>
struct BackwardWindow {
    TapRange td, th, tw;
    int64_t nb;
    const C *dy;  // the output's gradient, nb values
    C scale;      // applied to dy
    // MAX: x's taps, in place (xring null: x is tap (td.lo, th.lo, tw.lo),
    // strides sd, sh, sw), or staged in xring, laid out as the ring.
    const C *x, *xring;
    int64_t sd, sh, sw;
    C *ring;                    // PoolingRing, pixels `lanes` apart
    const int64_t *slab_offset;  // of each input slab's slot in a ring (no division per row)
    int64_t rd, W, lanes;

    // Offset of input row (id, ih) in a ring: its slab's slot, then the row in it.
    int64_t row_offset(int64_t id, int64_t ih) const {
        return rd == 0 ? slab_offset[id] + ih * W * lanes : slab_offset[ih];
    }
    // x at tap (id, ih, tw.lo); taps along w are x_step() apart.
    const C *x_row(int64_t id, int64_t ih) const {
        return xring ? xring + row_offset(id, ih) + tw.lo * lanes : x + (id - td.lo) * sd + (ih - th.lo) * sh;
    }
    int64_t x_step() const { return xring ? lanes : sw; }
};

template <class C>
using BackwardMath = void (*)(const BackwardWindow<C> &w);

// Adds the window's gradient into the ring. MAX: the max as the forward
// pass finds it, then its first position: the first tap equal to it (NaN:
// the first NaN), two passes of vector code instead of a scatter. Fixed:
// the lane count as a constant, whose whole vectors stay in registers for
// the window (the best, the gradient, the lanes still open), or 0.
template <bool IsMax, bool Propagate, int64_t Fixed, class C>
inline void backward_body(const BackwardWindow<C> &w) {
    const TapRange td = w.td, th = w.th, tw = w.tw;
    const int64_t sw = w.x_step(), lanes = w.lanes;
    constexpr int64_t NV = Fixed * int64_t(sizeof(C)) / kVectorBytes;
    if constexpr (NV > 0 && NV <= 8 && Fixed * int64_t(sizeof(C)) % kVectorBytes == 0) {
        using V = vec_t<C>;
        using M = decltype(V{} < V{});
        constexpr int64_t VW = kVectorBytes / int64_t(sizeof(C));
        V grad[NV];
#pragma GCC unroll 8
        for (int64_t k = 0; k < NV; ++k) grad[k] = load_vec<V>(w.dy + k * VW) * w.scale;
        if constexpr (IsMax) {
            // One pass finds each lane's first max tap (argmax, a tap
            // counter) as max_step and the reference have it, with
            // row_argmax's rule: taken when greater than the best, or the
            // best is the start (NaN, without PROPAGATE) or v the first NaN
            // (with PROPAGATE: nothing after it); ties keep the first, and a
            // window of NaNs keeps tap 0, its first NaN. Two compares and
            // two blends per tap (a flag mask on the side took ten
            // operations). The second pass adds the gradient at the argmax.
            V best[NV];
            M arg[NV];
#pragma GCC unroll 8
            for (int64_t k = 0; k < NV; ++k) {
                best[k] = V{} + max_start<Propagate, C>();
                arg[k] = M{};
            }
            M tap = M{};
            for (int64_t id = td.lo; id < td.hi; ++id)
                for (int64_t ih = th.lo; ih < th.hi; ++ih) {
                    const C *xr = w.x_row(id, ih);
                    for (int64_t iw = 0; iw < tw.hi - tw.lo; ++iw, tap += 1)
#pragma GCC unroll 8
                        for (int64_t k = 0; k < NV; ++k) {
                            const V v = load_vec<V>(xr + iw * sw + k * VW);
                            const M open = ~(v <= best[k]);  // v > best, or either is NaN
                            const M take = Propagate ? open & (best[k] == best[k]) : open & (v == v);
                            best[k] = take ? v : best[k];
                            arg[k] = take ? tap : arg[k];
                        }
                }
            tap = M{};
            for (int64_t id = td.lo; id < td.hi; ++id)
                for (int64_t ih = th.lo; ih < th.hi; ++ih) {
                    C *ar = w.ring + w.row_offset(id, ih) + tw.lo * lanes;
                    for (int64_t iw = 0; iw < tw.hi - tw.lo; ++iw, tap += 1)
#pragma GCC unroll 8
                        for (int64_t k = 0; k < NV; ++k) {
                            C *ap = ar + iw * lanes + k * VW;
                            store_vec(ap, load_vec<V>(ap) + (arg[k] == tap ? grad[k] : V{}));
                        }
                }
        } else {
            for (int64_t id = td.lo; id < td.hi; ++id)
                for (int64_t ih = th.lo; ih < th.hi; ++ih) {
                    C *ar = w.ring + w.row_offset(id, ih) + tw.lo * lanes;
                    for (int64_t iw = 0; iw < tw.hi - tw.lo; ++iw)
#pragma GCC unroll 8
                        for (int64_t k = 0; k < NV; ++k) {
                            C *ap = ar + iw * lanes + k * VW;
                            store_vec(ap, load_vec<V>(ap) + grad[k]);
                        }
                }
        }
        return;
    }
    const int64_t nb = Fixed ? Fixed : w.nb;
    C grad[kPoolingBackwardMaxLanes];
    ANYDNN_LANE_LOOP
    for (int64_t l = 0; l < nb; ++l) grad[l] = w.dy[l] * w.scale;
    if constexpr (IsMax) {
        C best[kPoolingBackwardMaxLanes];
        C placed[kPoolingBackwardMaxLanes];  // 1 once the gradient went to a tap
        ANYDNN_LANE_LOOP
        for (int64_t l = 0; l < nb; ++l) best[l] = max_start<Propagate, C>();
        for (int64_t id = td.lo; id < td.hi; ++id)
            for (int64_t ih = th.lo; ih < th.hi; ++ih) {
                const C *xr = w.x_row(id, ih);
                for (int64_t iw = 0; iw < tw.hi - tw.lo; ++iw) {
                    const C *xp = xr + iw * sw;
                    ANYDNN_LANE_LOOP
                    for (int64_t l = 0; l < nb; ++l) best[l] = max_step<Propagate>(best[l], xp[l]);
                }
            }
        C nan_max[kPoolingBackwardMaxLanes];  // 1 where the max is NaN: the gradient goes to the first NaN
        ANYDNN_LANE_LOOP
        for (int64_t l = 0; l < nb; ++l) {
            placed[l] = 0;
            nan_max[l] = best[l] != best[l] ? 1 : 0;
        }
        for (int64_t id = td.lo; id < td.hi; ++id)
            for (int64_t ih = th.lo; ih < th.hi; ++ih) {
                const C *xr = w.x_row(id, ih);
                C *__restrict ar = w.ring + w.row_offset(id, ih) + tw.lo * lanes;
                for (int64_t iw = 0; iw < tw.hi - tw.lo; ++iw) {
                    const C *xp = xr + iw * sw;
                    C *__restrict ap = ar + iw * lanes;
                    ANYDNN_LANE_LOOP
                    for (int64_t l = 0; l < nb; ++l) {
                        const C v = xp[l], m = best[l];
                        const bool same = (v == m) | ((v != v) & (nan_max[l] != 0));
                        const bool hit = same & (placed[l] == 0);
                        ap[l] += hit ? grad[l] : C(0);
                        placed[l] = hit ? 1 : placed[l];
                    }
                }
            }
    } else {
        for (int64_t id = td.lo; id < td.hi; ++id)
            for (int64_t ih = th.lo; ih < th.hi; ++ih) {
                C *__restrict ar = w.ring + w.row_offset(id, ih) + tw.lo * lanes;
                for (int64_t iw = 0; iw < tw.hi - tw.lo; ++iw) {
                    C *__restrict ap = ar + iw * lanes;
                    ANYDNN_LANE_LOOP
                    for (int64_t l = 0; l < nb; ++l) ap[l] += grad[l];
                }
            }
    }
}

template <bool IsMax, bool Propagate, class C>
[[gnu::noinline]] void backward_math(const BackwardWindow<C> &w) {
    // The constant-count paths: NHWC's blocks and NCHW's (pooling_exec.cpp).
    constexpr int64_t kLast = kPoolingBackwardMaxLanes, kFirst = kPoolingBackwardChannelsFirstLanes;
    if (w.nb == kLast) backward_body<IsMax, Propagate, kLast>(w);
    else if (w.nb == kFirst) backward_body<IsMax, Propagate, kFirst>(w);
    else backward_body<IsMax, Propagate, 0>(w);
}

// A thread's buffers for the channel-last operands (null when read in place),
// and how dx is written.
template <class C>
struct BackwardBuffers {
    C *ring;   // the gradient's PoolingRing
    C *xring;  // MAX: x's slabs, as the ring
    C *dyrow;  // one output row of dy, pixels `lanes` apart
    const int64_t *slab_offset;  // BackwardWindow::slab_offset
    bool stream;                 // dx is written with streaming stores
};

// fn(id, ih, offset) for each input row (id, ih) of slab `slab`
// (PoolingRing), offset: the row's first pixel in the slab's slot, in
// values of `lanes` channels each.
template <class Fn>
inline void for_each_slab_row(const ops::PoolGeometry &g, const PoolingRing &ring, int64_t slab, int64_t lanes,
                              Fn &&fn) {
    const int64_t d0 = ring.dim == 0 ? slab : 0, d1 = ring.dim == 0 ? slab + 1 : 1;
    const int64_t h0 = ring.dim == 0 ? 0 : slab, h1 = ring.dim == 0 ? g.in[1] : slab + 1;
    for (int64_t id = d0; id < d1; ++id)
        for (int64_t ih = h0; ih < h1; ++ih) fn(id, ih, (ring.dim == 0 ? ih * g.in[2] : 0) * lanes);
}

// dx = alpha * acc + beta * dx for the input slab `slab` (PoolingRing) of
// channels [c0, c0 + nb) of image n; acc is the slab's ring slot, which is
// zeroed for its next slab.
template <class T, class C>
void flush_slab(const PoolingBackwardArgs &a, const PoolingRing &ring, int64_t n, int64_t c0, int64_t nb,
                int64_t slab, C *__restrict acc, bool stream) {
    const ops::PoolGeometry &g = a.g;
    const int64_t *dxs = a.dxs.s;
    T *dx = static_cast<T *>(a.dx) + n * dxs[0] + c0 * dxs[1];
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    for_each_slab_row(g, ring, slab, a.lanes, [&](int64_t id, int64_t ih, int64_t offset) {
        scatter_channels(acc + offset, a.lanes, g.in[2], nb, dx + id * dxs[2] + ih * dxs[3], dxs[1], dxs[4], alpha,
                         beta, a.beta != 0, stream);
    });
    for (int64_t i = 0, e = ring.slab * a.lanes; i < e; ++i) acc[i] = 0;
}

// x's input slab `slab` of channels [c0, c0 + nb) of image n into its ring slot.
template <class T, class C>
void stage_slab(const PoolingBackwardArgs &a, const PoolingRing &ring, int64_t n, int64_t c0, int64_t nb, C *slot,
                int64_t slab) {
    const ops::PoolGeometry &g = a.g;
    const int64_t *xs = a.xs.s;
    const T *x = static_cast<const T *>(a.x) + n * xs[0] + c0 * xs[1];
    for_each_slab_row(g, ring, slab, a.lanes, [&](int64_t id, int64_t ih, int64_t offset) {
        gather_channels(x + id * xs[2] + ih * xs[3], xs[1], xs[4], g.in[2], nb, slot + offset, a.lanes);
    });
}

// The gradient of the channels [c0, c0 + nb) of image n: the outputs in scan
// order add into the ring (PoolingRing: the input slabs their windows
// touch), and each input slab is flushed to dx as soon as no later output
// touches it, so every dx element's sum runs in scan order while the ring
// stays in cache. x and dy are read in place when they hold C with
// contiguous channels, else staged (BackwardBuffers).
template <class T, class C>
void backward_item(const PoolingBackwardArgs &a, BackwardMath<C> math, bool is_max, const PoolingRing &ring,
                   const BackwardBuffers<C> &buf, int64_t n, int64_t c0, int64_t nb) {
    const ops::PoolGeometry &g = a.g;
    const int64_t rd = ring.dim;
    const int64_t *dys = a.dys.s, *xs = a.xs.s;
    const T *dy = static_cast<const T *>(a.dy) + n * dys[0] + c0 * dys[1];
    const T *x = static_cast<const T *>(a.x) + n * xs[0] + c0 * xs[1];
    const bool exclude = g.kind == PoolKind::avg_exclude_padding;
    BackwardWindow<C> w{};
    w.nb = nb;
    w.xring = buf.xring;
    w.ring = buf.ring;
    w.slab_offset = buf.slab_offset;
    w.rd = rd;
    w.W = g.in[2];
    w.lanes = a.lanes;
    int64_t flushed = 0, staged = 0;  // the first slab not yet flushed, not yet staged
    for (int64_t o = 0; o < g.out[rd]; ++o) {
        // Slabs before this output's windows are final.
        const int64_t first = o * g.stride[rd] - g.pad[rd];
        const int64_t lo = first < 0 ? 0 : first < g.in[rd] ? first : g.in[rd];
        const int64_t hi = first + g.window[rd] < g.in[rd] ? first + g.window[rd] : g.in[rd];
        for (; flushed < lo; ++flushed)
            flush_slab<T>(a, ring, n, c0, nb, flushed, buf.ring + buf.slab_offset[flushed], buf.stream);
        if (is_max && buf.xring)
            for (staged = staged > lo ? staged : lo; staged < hi; ++staged)
                stage_slab<T>(a, ring, n, c0, nb, buf.xring + buf.slab_offset[staged], staged);
        const int64_t od0 = rd == 0 ? o : 0, od1 = rd == 0 ? o + 1 : g.out[0];
        const int64_t oh0 = rd == 0 ? 0 : o, oh1 = rd == 0 ? g.out[1] : o + 1;
        for (int64_t od = od0; od < od1; ++od)
            for (int64_t oh = oh0; oh < oh1; ++oh) {
                const T *dyr = dy + od * dys[2] + oh * dys[3];
                if (buf.dyrow) gather_channels(dyr, dys[1], dys[4], g.out[2], nb, buf.dyrow, a.lanes);
                for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                    w.td = taps(g, 0, od), w.th = taps(g, 1, oh), w.tw = taps(g, 2, ow);
                    const int64_t nd = w.td.hi - w.td.lo, nh = w.th.hi - w.th.lo, nw = w.tw.hi - w.tw.lo;
                    if constexpr (std::is_same_v<T, C>) w.dy = buf.dyrow ? buf.dyrow + ow * a.lanes : dyr + ow * dys[4];
                    else w.dy = buf.dyrow + ow * a.lanes;
                    w.scale = is_max ? C(1) : C(1) / static_cast<C>(exclude ? nd * nh * nw : g.window_size());
                    if constexpr (std::is_same_v<T, C>) {
                        if (is_max && !buf.xring) {
                            w.x = x + w.td.lo * xs[2] + w.th.lo * xs[3] + w.tw.lo * xs[4];
                            w.sd = xs[2], w.sh = xs[3], w.sw = xs[4];
                        }
                    }
                    math(w);
                }
            }
    }
    for (; flushed < g.in[rd]; ++flushed)
        flush_slab<T>(a, ring, n, c0, nb, flushed, buf.ring + buf.slab_offset[flushed], buf.stream);
}

// Average pooling with one window over the whole input (global pooling):
// every dx element of a channel is its gradient over the count, a
// broadcast. Items: (n, block of kLanes channels).
template <class T, class C>
void backward_broadcast(const PoolingBackwardArgs &a, int64_t begin, int64_t end) {
    const ops::PoolGeometry &g = a.g;
    const int64_t *dys = a.dys.s, *dxs = a.dxs.s;
    const int64_t blocks = (g.c + kLanes - 1) / kLanes;
    const T *dy = static_cast<const T *>(a.dy);
    T *dx = static_cast<T *>(a.dx);
    const int64_t count = g.kind == PoolKind::avg_exclude_padding ? g.in_pixels() : g.window_size();
    const C scale = static_cast<C>(a.alpha) / static_cast<C>(count), beta = static_cast<C>(a.beta);
    const bool blend = a.beta != 0;
    for (int64_t item = begin; item < end; ++item) {
        const int64_t n = item / blocks, c0 = item % blocks * kLanes, nb = imin_(kLanes, g.c - c0);
        alignas(64) C r[kLanes];
        const C *g_in = staged_in(dy + n * dys[0] + c0 * dys[1], dys[1], nb, r);  // r itself, or dy in place
        for (int64_t l = 0; l < nb; ++l) r[l] = g_in[l] * scale;
        T *dxp = dx + n * dxs[0] + c0 * dxs[1];
        if (dxs[1] == 1) {  // channels contiguous: a pixel at a time
            for (int64_t id = 0; id < g.in[0]; ++id)
                for (int64_t ih = 0; ih < g.in[1]; ++ih)
                    for (int64_t iw = 0; iw < g.in[2]; ++iw)
                        store_results(dxp + id * dxs[2] + ih * dxs[3] + iw * dxs[4], 1, r, nb, beta, blend);
            continue;
        }
        // Else a run of pixels of one channel at a time: its rows, or its
        // whole plane when that is contiguous (NCHW).
        const bool plane = dxs[4] == 1 && dxs[3] == g.in[2] && (g.in[0] == 1 || dxs[2] == g.in[1] * g.in[2]);
        const int64_t rows = plane ? 1 : g.in[0] * g.in[1], run = plane ? g.in_pixels() : g.in[2];
        for (int64_t l = 0; l < nb; ++l)
            for (int64_t i = 0; i < rows; ++i) {
                T *p = dxp + l * dxs[1] + i / g.in[1] * dxs[2] + i % g.in[1] * dxs[3];
                if constexpr (std::is_same_v<T, C>) {
                    if (!blend && dxs[4] == 1) {
                        for (int64_t j = 0; j < run; ++j) p[j] = r[l];
                        continue;
                    }
                }
                alignas(64) C v[kStage];
                for (int64_t j = 0; j < kStage; ++j) v[j] = r[l];
                for (int64_t j = 0; j < run; j += kStage)
                    store_results(p + j * dxs[4], dxs[4], v, imin_(kStage, run - j), beta, blend);
            }
    }
}

// ---- Backward, row lanes ---------------------------------------------------

// Rows of contiguous columns in the compute type (NCHW f32/f64, 2-D:
// backward_row_lanes) take their lanes along the output row, as the
// forward's row lanes: no transposes, every x, dy and dx row read or written
// whole once. An item is one channel plane. Per output row, pass 1 finds
// each output's argmax tap (MAX), a vector of outputs at a time; pass 2
// builds each window row's gradient a vector of input positions at a time,
// each position summing the taps that land on it (no scatter, no store
// followed by an overlapping load); the rows add into a ring of window-height
// input rows, each written to dx once the outputs move past it.
//
// The rows are split into the stride's phases (RowPhases), so that the tap
// of neighbouring outputs is one contiguous vector for any stride, and x's
// padding is a value that max pooling never takes.

// Phase p of a row holds the padded columns sw * j + p (j < len); padded
// column = column + lead, lead the left padding rounded up to whole strides.
// Tap kw of output ow is then position ow + offset(kw) of phase phase(kw).
struct RowPhases {
    int64_t sw, lead, skew;  // skew = lead - pad, in [0, sw)
    int64_t reach;           // the largest tap offset
    int64_t len;             // positions per phase: the outputs' (whole vectors) plus reach, every column, and
                             // a vector of slack (join_phases reads whole vectors)
    int64_t first;           // column 0's position (phase 0): lead / sw
    // Divisions, for tables: a 64-bit division per tap or row took more
    // time than the window's math.
    int64_t phase(int64_t kw) const { return (skew + kw) % sw; }
    int64_t offset(int64_t kw) const { return (skew + kw) / sw; }
};

inline RowPhases row_phases(const ops::PoolGeometry &g, int64_t vw) {
    const int64_t sw = g.stride[2], lead = (g.pad[2] + sw - 1) / sw * sw, skew = lead - g.pad[2];
    const int64_t reach = (skew + g.window[2] - 1) / sw;
    const int64_t outs = (g.out[2] + vw - 1) / vw * vw, cols = (g.in[2] - 1 + lead) / sw + 1;
    const int64_t need = outs + reach > cols ? outs + reach : cols;
    return {sw, lead, skew, reach, (need + vw - 1) / vw * vw + vw, lead / sw};
}

// The W columns of a row (contiguous) into their phases' positions; the
// padding positions are never written (filled once). Step: the stride as a
// constant (1, 2: vector loads and permutes), or 0.
template <int64_t Step, class C>
inline void split_phases_body(const C *__restrict src, int64_t W, const RowPhases &r, C *__restrict dst) {
    const int64_t sw = Step ? Step : r.sw;
    for (int64_t p = 0; p < sw && p < W; ++p) {
        C *d = dst + p * r.len + r.first;
        for (int64_t i = 0, n = (W - p + sw - 1) / sw; i < n; ++i) d[i] = src[i * sw + p];
    }
}

// The inverse: dst[c] = the row's value at column c, c < W.
template <int64_t Step, class C>
inline void join_phases_body(const C *__restrict src, int64_t W, const RowPhases &r, C *__restrict dst) {
    const int64_t sw = Step ? Step : r.sw;
    for (int64_t p = 0; p < sw && p < W; ++p) {
        const C *s = src + p * r.len + r.first;
        for (int64_t i = 0, n = (W - p + sw - 1) / sw; i < n; ++i) dst[i * sw + p] = s[i];
    }
}

// Stride 2: a vector pair of the row into a vector of each phase, and back,
// with two-source shuffles (GCC's loop vectorizer left the strided stores of
// the join scalar).
template <class C>
struct PairShuffles {
    using V = vec_t<C>;
    using IV = vec_t<std::conditional_t<sizeof(C) == 4, int32_t, int64_t>>;
    static constexpr int64_t VW = kVectorBytes / int64_t(sizeof(C));
    IV even, odd, low, high;  // the even and odd lanes of a pair; the interleaved halves of (even, odd)
    PairShuffles() {
        for (int64_t l = 0; l < VW; ++l) {
            even[l] = 2 * l, odd[l] = 2 * l + 1;
            low[l] = l / 2 + (l % 2) * VW, high[l] = VW / 2 + l / 2 + (l % 2) * VW;
        }
    }
};

template <class C>
[[gnu::noinline]] void split_phases(const C *src, int64_t W, const RowPhases &r, C *dst) {
    prefetch_stream_run(src, W * int64_t(sizeof(C)));
    if (r.sw == 2 && W >= 2 * PairShuffles<C>::VW) {
        using V = vec_t<C>;
        constexpr int64_t VW = PairShuffles<C>::VW;
        const PairShuffles<C> s;
        C *e = dst + r.first, *o = dst + r.len + r.first;
        // Whole pairs; the last one ends at W rounded down to even (it may
        // overlap the one before), and an odd W's last column is alone.
        for (int64_t i = 0;; i += 2 * VW) {
            if (i > W - 2 * VW) i = (W - 2 * VW) & ~int64_t(1);
            const V a = load_vec<V>(src + i), b = load_vec<V>(src + i + VW);
            store_vec(e + i / 2, __builtin_shuffle(a, b, s.even));
            store_vec(o + i / 2, __builtin_shuffle(a, b, s.odd));
            if (i + 2 * VW >= W - 1) break;
        }
        if (W % 2) e[W / 2] = src[W - 1];
        return;
    }
    if (r.sw == 1) split_phases_body<1>(src, W, r, dst);
    else split_phases_body<0>(src, W, r, dst);
}

// dst: W values rounded up to whole vector pairs.
template <class C>
[[gnu::noinline]] void join_phases(const C *src, int64_t W, const RowPhases &r, C *dst) {
    if (r.sw == 2) {
        using V = vec_t<C>;
        constexpr int64_t VW = PairShuffles<C>::VW;
        const PairShuffles<C> s;
        const C *e = src + r.first, *o = src + r.len + r.first;
        for (int64_t i = 0; i < W; i += 2 * VW) {
            const V a = load_vec<V>(e + i / 2), b = load_vec<V>(o + i / 2);
            store_vec(dst + i, __builtin_shuffle(a, b, s.low));
            store_vec(dst + i + VW, __builtin_shuffle(a, b, s.high));
        }
        return;
    }
    if (r.sw == 1) join_phases_body<1>(src, W, r, dst);
    else join_phases_body<0>(src, W, r, dst);
}

// A tap index per output, the element width of C (a vector of them is C's
// comparison mask).
template <class C>
using TapIndex = std::conditional_t<sizeof(C) == 4, int32_t, int64_t>;

// Pass 1 (MAX): arg[ow] = the first max tap (kh * window + kw, kh counted
// from the first of the nh valid window rows, `rows`, each split in phases)
// of the outputs ow < outs (whole vectors), with backward_body's one-pass
// rule. A lane starts at its first tap inside x: x's padding positions hold
// a value never taken (-inf with PROPAGATE, NaN without), so neither are
// the taps beyond x's last column. tap_at[kw]: tap kw's offset in a row.
// NB vectors of outputs side by side: each one's max is a chain of a compare
// and a blend per tap, which alone left the core idle most of the time.
template <bool Propagate, int NB, class C>
inline void argmax_vectors(const C *const *rows, int64_t nh, const int64_t *tap_at, int64_t nw, int64_t pad,
                           int64_t sw, int64_t ow0, TapIndex<C> *arg) {
    using V = vec_t<C>;
    using I = TapIndex<C>;
    using M = vec_t<I>;
    constexpr int64_t VW = kVectorBytes / int64_t(sizeof(C));
    M lane;
    for (int64_t l = 0; l < VW; ++l) lane[l] = I(l);
    V best[NB];
    M at[NB];
#pragma GCC unroll 4
    for (int k = 0; k < NB; ++k) {
        const M skipped = I(pad) - I(sw) * (I(ow0 + k * VW) + lane);  // padding taps before the lane's first column
        best[k] = V{} + max_start<Propagate, C>();
        at[k] = skipped > 0 ? skipped : M{};
    }
    M tap = M{};
    for (int64_t kh = 0; kh < nh; ++kh) {
        const C *row = rows[kh] + ow0;
        for (int64_t kw = 0; kw < nw; ++kw, tap += 1)
#pragma GCC unroll 4
            for (int k = 0; k < NB; ++k) {
                // Taken: greater than the best, or the best is the start (NaN:
                // without PROPAGATE) or v is the first NaN (with); ties keep
                // the first. Once a NaN is taken under PROPAGATE (best NaN),
                // nothing is. Two compares and two blends per tap.
                const V v = load_vec<V>(row + tap_at[kw] + k * VW);
                const M open = ~(v <= best[k]);  // v > best, or either is NaN
                const M take = Propagate ? open & (best[k] == best[k]) : open & (v == v);
                best[k] = take ? v : best[k];
                at[k] = take ? tap : at[k];
            }
    }
#pragma GCC unroll 4
    for (int k = 0; k < NB; ++k) store_vec(arg + ow0 + k * VW, at[k]);
}

template <bool Propagate, class C>
[[gnu::noinline]] void row_argmax(const C *const *rows, int64_t nh, const int64_t *tap_at, int64_t nw, int64_t pad,
                                  int64_t sw, int64_t outs, TapIndex<C> *arg) {
    constexpr int64_t VW = kVectorBytes / int64_t(sizeof(C));
    int64_t ow0 = 0;
    for (; ow0 + 4 * VW <= outs; ow0 += 4 * VW) argmax_vectors<Propagate, 4>(rows, nh, tap_at, nw, pad, sw, ow0, arg);
    for (; ow0 < outs; ow0 += VW) argmax_vectors<Propagate, 1>(rows, nh, tap_at, nw, pad, sw, ow0, arg);
}

// Pass 2: adds the gradient of window row kh (taps kh * nw + kw) into the
// ring row `acc` (phases), positions [0, positions): each tap adds
// grad[j - offset] where (MAX) arg[j - offset] is the tap, a pass over the
// positions per tap (the same vectors of acc each time: no store followed by
// an overlapping load). grad and arg are indexed from -reach (zero and -1
// outside the outputs).
template <bool IsMax, class C>
[[gnu::noinline]] void row_gradient(C *acc, const C *grad, const TapIndex<C> *arg, int64_t kh, int64_t nw,
                                    const RowPhases &r, int64_t positions) {
    using V = vec_t<C>;
    using I = TapIndex<C>;
    using M = vec_t<I>;
    constexpr int64_t VW = kVectorBytes / int64_t(sizeof(C));
    for (int64_t kw = 0, p = r.skew, q = 0; kw < nw; ++kw) {  // tap kw: phase p, offset q
        C *a = acc + p * r.len;
        const C *g = grad - q;
        const TapIndex<C> *at = arg - q;
        const M tap = M{} + I(kh * nw + kw);
        for (int64_t j = 0; j < positions; j += VW) {
            V v = load_vec<V>(g + j);
            if constexpr (IsMax) v = load_vec<M>(at + j) == tap ? v : V{};
            store_vec(a + j, load_vec<V>(a + j) + v);
        }
        if (++p == r.sw) p = 0, ++q;
    }
}

// One mode's row-lane math, per compute type.
template <class C>
struct RowsBackwardMath {
    void (*argmax)(const C *const *, int64_t, const int64_t *, int64_t, int64_t, int64_t, int64_t, TapIndex<C> *);
    void (*gradient)(C *, const C *, const TapIndex<C> *, int64_t, int64_t, const RowPhases &, int64_t);
};

// A thread's buffers: x's ring (MAX) and the gradient's, window-height rows
// of phases each; one output row's gradient and argmax (from -reach); the
// window rows of x; a joined row; the taps' offsets in a row.
template <class C>
struct RowsBackwardBuffers {
    int64_t slots, row;  // ring rows, values per ring row (sw phases)
    KernelArray<C> xring, ring, grad, joined;
    KernelArray<TapIndex<C>> arg;
    KernelArray<const C *> rows;
    KernelArray<int64_t> tap_at, slot;  // slot: each input row's offset in the rings

    RowsBackwardBuffers(const ops::PoolGeometry &g, const RowPhases &r, bool is_max)
        : slots(g.window[1]), row(r.sw * r.len), xring(is_max ? slots * row : 0), ring(slots * row),
          grad(r.reach + r.len), joined(g.in[2] + 2 * PairShuffles<C>::VW), arg(r.reach + r.len), rows(slots),
          tap_at(g.window[2]),
          slot(g.in[1]) {
        // x's padding: never taken by the max (row_argmax).
        const C fill = g.propagate_nan ? -std::numeric_limits<C>::infinity() : std::numeric_limits<C>::quiet_NaN();
        for (int64_t i = 0; i < (is_max ? slots * row : 0); ++i) xring.data()[i] = fill;
        for (int64_t i = 0; i < slots * row; ++i) ring.data()[i] = 0;
        for (int64_t i = 0; i < r.reach + r.len; ++i) grad.data()[i] = 0, arg.data()[i] = -1;
        for (int64_t kw = 0; kw < g.window[2]; ++kw) tap_at.data()[kw] = r.phase(kw) * r.len + r.offset(kw);
        for (int64_t ih = 0; ih < g.in[1]; ++ih) slot.data()[ih] = ih % slots * row;
    }
    C *xrow(int64_t ih) { return xring.data() + slot.data()[ih]; }
    C *acc(int64_t ih) { return ring.data() + slot.data()[ih]; }
};

// The gradient of channel c of image n, output rows in order.
template <class C>
void backward_rows_item(const PoolingBackwardArgs &a, const RowsBackwardMath<C> &math, const RowPhases &r,
                        RowsBackwardBuffers<C> &b, bool stream, int64_t n, int64_t c) {
    constexpr int64_t VW = kVectorBytes / int64_t(sizeof(C));
    const ops::PoolGeometry &g = a.g;
    const int64_t W = g.in[2], OW = g.out[2], nw = g.window[2];
    const int64_t outs = (OW + VW - 1) / VW * VW, positions = (OW + r.reach + VW - 1) / VW * VW;
    const bool is_max = g.kind == PoolKind::max, exclude = g.kind == PoolKind::avg_exclude_padding;
    const C *x = static_cast<const C *>(a.x) + n * a.xs.s[0] + c * a.xs.s[1];
    const C *dy = static_cast<const C *>(a.dy) + n * a.dys.s[0] + c * a.dys.s[1];
    C *dx = static_cast<C *>(a.dx) + n * a.dxs.s[0] + c * a.dxs.s[1];
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const TapRange td = taps(g, 0, 0);
    C *grad = b.grad.data() + r.reach;
    TapIndex<C> *arg = b.arg.data() + r.reach;
    const auto flush = [&](int64_t ih) {
        C *acc = b.acc(ih);
        join_phases(acc, W, r, b.joined.data());
        store_row(dx + ih * a.dxs.s[3], b.joined.data(), W, alpha, beta, a.beta != 0, stream);
        for (int64_t i = 0; i < b.row; ++i) acc[i] = 0;
    };
    int64_t flushed = 0, staged = 0;  // the first row not yet flushed, not yet staged
    for (int64_t oh = 0; oh < g.out[1]; ++oh) {
        const TapRange th = taps(g, 1, oh);
        const int64_t nh = th.hi - th.lo;
        for (; flushed < th.lo; ++flushed) flush(flushed);
        const C *dyr = dy + oh * a.dys.s[3];
        prefetch_stream_run(dyr, OW * int64_t(sizeof(C)));
        if (exclude) {
            for (int64_t ow = 0; ow < OW; ++ow) {
                const TapRange tw = taps(g, 2, ow);
                grad[ow] = dyr[ow] * (C(1) / static_cast<C>((td.hi - td.lo) * nh * (tw.hi - tw.lo)));
            }
        } else {
            const C scale = is_max ? C(1) : C(1) / static_cast<C>(g.window_size());
            for (int64_t ow = 0; ow < OW; ++ow) grad[ow] = dyr[ow] * scale;
        }
        if (is_max) {
            for (staged = staged > th.lo ? staged : th.lo; staged < th.hi; ++staged)
                split_phases(x + staged * a.xs.s[3], W, r, b.xrow(staged));
            for (int64_t kh = 0; kh < nh; ++kh) b.rows.data()[kh] = b.xrow(th.lo + kh);
            math.argmax(b.rows.data(), nh, b.tap_at.data(), nw, g.pad[2], r.sw, outs, arg);
        }
        for (int64_t kh = 0; kh < nh; ++kh) math.gradient(b.acc(th.lo + kh), grad, arg, kh, nw, r, positions);
    }
    for (; flushed < g.in[1]; ++flushed) flush(flushed);
}

// Items: the n x c channel planes.
template <class C>
void backward_rows(const ExecContext &ctx, const PoolingBackwardArgs &a, const RowsBackwardMath<C> &math) {
    const ops::PoolGeometry &g = a.g;
    const RowPhases r = row_phases(g, kVectorBytes / int64_t(sizeof(C)));
    const bool is_max = g.kind == PoolKind::max;
    const bool stream =
        a.beta == 0 && use_streaming_stores(g.n * g.c * g.in_pixels() * int64_t(sizeof(C)), a.dx, a.dy, a.x);
    const int64_t per_item = g.in_pixels() + g.out_pixels() * g.window_size();
    parallel_ranges(ctx, g.n * g.c, kGrain / per_item + 1, [&](int64_t begin, int64_t end) {
        RowsBackwardBuffers<C> b(g, r, is_max);
        for (int64_t item = begin; item < end; ++item)
            backward_rows_item(a, math, r, b, stream, item / g.c, item % g.c);
        if (stream) streaming_fence();
    });
}

template <bool IsMax, bool Propagate, class C>
constexpr RowsBackwardMath<C> kRowsBackwardMath = {&row_argmax<Propagate, C>, &row_gradient<IsMax, C>};

template <class T, class C = compute_t<T>>
void backward_typed(const ExecContext &ctx, const PoolingBackwardArgs &a, BackwardMath<C> math,
                    const RowsBackwardMath<C> &rows_math) {
    if constexpr (std::is_same_v<T, C>) {
        if (a.rows) return backward_rows(ctx, a, rows_math);
    }
    const ops::PoolGeometry &g = a.g;
    const PoolingRing ring = pooling_ring(g);
    const int64_t blocks = (g.c + a.lanes - 1) / a.lanes, items = g.n * blocks;
    const bool is_max = g.kind == PoolKind::max;
    if (!is_max && whole_image(g)) {
        parallel_ranges(ctx, g.n * ((g.c + kLanes - 1) / kLanes), kGrain / (kLanes * g.in_pixels()) + 1,
                        [&](int64_t begin, int64_t end) { backward_broadcast<T, C>(a, begin, end); });
        return;
    }
    // Read in place: operands of C whose channels are contiguous.
    const bool stage_x = is_max && !(std::is_same_v<T, C> && a.xs.s[1] == 1);
    const bool stage_dy = !(std::is_same_v<T, C> && a.dys.s[1] == 1);
    const bool stream = std::is_same_v<T, C> && a.beta == 0 &&
                        use_streaming_stores(g.n * g.c * g.in_pixels() * int64_t(sizeof(T)), a.dx, a.dy, a.x);
    C *scratch = static_cast<C *>(a.scratch);
    parallel_ranges(ctx, a.slots, 1, [&](int64_t begin, int64_t end) {
        KernelArray<C> xring(stage_x ? ring.elements() * a.lanes : 0), dyrow(stage_dy ? g.out[2] * a.lanes : 0);
        KernelArray<int64_t> slab_offset(g.in[ring.dim]);
        for (int64_t i = 0; i < g.in[ring.dim]; ++i) slab_offset.data()[i] = i % ring.slots * ring.slab * a.lanes;
        for (int64_t s = begin; s < end; ++s) {
            const BackwardBuffers<C> buf{scratch + s * ring.elements() * a.lanes, xring.data(), dyrow.data(),
                                         slab_offset.data(), stream};
            for (int64_t i = 0, e = ring.elements() * a.lanes; i < e; ++i) buf.ring[i] = 0;  // flushes re-zero
            for (int64_t item = items * s / a.slots; item < items * (s + 1) / a.slots; ++item) {
                const int64_t n = item / blocks, c0 = item % blocks * a.lanes;
                backward_item<T>(a, math, is_max, ring, buf, n, c0, imin_(a.lanes, g.c - c0));
            }
        }
        if (stream) streaming_fence();
    });
}

void backward(const ExecContext &ctx, const PoolingBackwardArgs &a) {
    visit_float_dtype(a.g.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        using C = compute_t<T>;
        if (a.g.kind != PoolKind::max)
            backward_typed<T>(ctx, a, &backward_math<false, false, C>, kRowsBackwardMath<false, false, C>);
        else if (a.g.propagate_nan)
            backward_typed<T>(ctx, a, &backward_math<true, true, C>, kRowsBackwardMath<true, true, C>);
        else backward_typed<T>(ctx, a, &backward_math<true, false, C>, kRowsBackwardMath<true, false, C>);
    });
}

}  // namespace

#undef ANYDNN_LANE_LOOP

extern const PoolingKernels pooling = {forward, backward};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
