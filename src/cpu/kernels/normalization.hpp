// Normalization kernels, compiled once per ISA level: the four passes of
// src/cpu/normalization.hpp over one StridedLoop.
//
// Along a run the statistics and parameter keys step by 0 or 1 (or, for odd
// strides, anything: the StepN fallback). A key that stays put over the run
// sums in kLanes double lanes (element i into lane i % kLanes, lanes added in
// order at the end of the run); a key that moves adds each element to its
// own slot. Either way each sum runs in an order fixed by the shape.
#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/streaming_store.hpp"
#include "cpu/normalization.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

constexpr int64_t kLanes = 8;

// How a key moves along a run.
struct Step0 {
    static constexpr bool kZero = true;
    int64_t at(int64_t) const { return 0; }
};
struct Step1 {
    static constexpr bool kZero = false;
    int64_t at(int64_t i) const { return i; }
};
struct StepN {
    static constexpr bool kZero = false;
    int64_t s;
    int64_t at(int64_t i) const { return i * s; }
};

template <class Fn>
inline void with_steps(const NormArgs &a, Fn &&fn) {
    const int64_t ss = a.loop.inner_stride(kNormStat), ps = a.loop.inner_stride(kNormParam);
    if (ss == 0 && ps == 0) fn(Step0{}, Step0{});
    else if (ss == 0 && ps == 1) fn(Step0{}, Step1{});
    else if (ss == 1 && ps == 0) fn(Step1{}, Step0{});
    else if (ss == 1 && ps == 1) fn(Step1{}, Step1{});
    else fn(StepN{ss}, StepN{ps});
}

// One sum per key along a run (see the file comment).
template <class S>
struct Acc {
    double *dst;
    S step;
    double lane[kLanes] = {};
    void add(int64_t i, int64_t l, double v) {
        if constexpr (S::kZero) lane[l] += v;
        else dst[step.at(i)] += v;
    }
    void flush() {
        if constexpr (S::kZero) {
            double t = 0;
            for (int64_t l = 0; l < kLanes; ++l) t += lane[l];
            dst[0] += t;
        }
    }
};

// body(i, lane) for i in [0, len), in blocks of kLanes so that the lanes vectorize.
template <class Body>
inline void blocked(int64_t len, Body &&body) {
    int64_t i = 0;
    for (; i + kLanes <= len; i += kLanes)
        for (int64_t l = 0; l < kLanes; ++l) body(i + l, l);
    for (int64_t l = 0; i < len; ++i, ++l) body(i, l);
}

// fn(std::type_identity<C>) with the elementwise passes' compute type C:
// double for double data, and for float data when `wide`; float otherwise
// (NormArgs::wide is never set for 16-bit data).
template <class T, class Fn>
inline void with_compute(const NormArgs &a, Fn &&fn) {
    if constexpr (std::is_same_v<T, float>)
        if (a.wide) return fn(std::type_identity<double>{});
    fn(std::type_identity<compute_t<T>>{});
}

// The units the passes split their work in: rows of the loop's innermost
// dimension (NormArgs::by_rows), else elements.
inline int64_t units(const NormArgs &a) { return a.by_rows ? a.loop.total() / a.loop.inner() : a.loop.total(); }

// run(off, len, rows, rs) over the units [begin, end) (see units()): `rows`
// runs of len elements, run r at off[k] + r * rs[k] of each operand k, so
// that a pass can take several rows at once.
template <class Run>
inline void walk_rows(const NormArgs &a, int64_t begin, int64_t end, Run &&run) {
    const StridedLoop &L = a.loop;
    if (!a.by_rows) {
        for_each_run(L, begin, end, [&](const int64_t *off, int64_t len) { run(off, len, int64_t{1}, off); });
        return;
    }
    StridedLoop outer = L;  // the rows: every dimension but the innermost
    outer.nd = L.nd - 1;
    int64_t rs[kMaxOperands];
    for (int k = 0; k < L.nops; ++k) rs[k] = outer.inner_stride(k);
    for_each_run(outer, begin, end, [&](const int64_t *o, int64_t n) { run(o, L.inner(), n, rs); });
}

// run(off, len) for each of the rows that walk_rows hands over.
template <class Run>
inline void each_row(const NormArgs &a, const int64_t *o, int64_t len, int64_t rows, const int64_t *rs, Run &&run) {
    int64_t off[kMaxOperands];
    for (int64_t r = 0; r < rows; ++r) {
        for (int k = 0; k < a.loop.nops; ++k) off[k] = o[k] + r * rs[k];
        run(off, len);
    }
}

// run(off, len) for every run of walk_rows.
template <class Run>
inline void walk(const NormArgs &a, int64_t begin, int64_t end, Run &&run) {
    walk_rows(a, begin, end, [&](const int64_t *o, int64_t len, int64_t rows, const int64_t *rs) {
        each_row(a, o, len, rows, rs, run);
    });
}

// Runs fn(chunk, begin, end) for every chunk of the units, chunks spread
// over the threads.
template <class Fn>
inline void for_each_chunk(const ExecContext &ctx, const NormArgs &a, Fn &&fn) {
    const int64_t total = units(a);
    parallel_ranges(ctx, a.chunks, 1, [&](int64_t b0, int64_t b1) {
        for (int64_t b = b0; b < b1; ++b) fn(b, total * b / a.chunks, total * (b + 1) / a.chunks);
    });
}

// The elementwise passes' plain case: the parameters folded, no mask, runs
// of contiguous x, `in` (the other source: x, or dy) and out, in one
// statistics group (NCHW per channel) or each element in its own (NHWC per
// channel). The latter's rows share their groups: they go a block of rows
// per call with the coefficients in L1 (row by row through forward_run, the
// call and its setup for each pixel's 64 channels were a third of the
// pass). Both write with write_row, streaming beyond the cache.
inline bool plain_case(const NormArgs &a, NormOperand in) {
    const StridedLoop &L = a.loop;
    return L.inner_stride(kNormStat) <= 1 && L.inner_stride(kNormX) == 1 && L.inner_stride(in) == 1 &&
           L.inner_stride(kNormOut) == 1 && a.cscale == nullptr && a.mask == nullptr;
}
inline bool shared_rows(const NormArgs &a) {
    return a.by_rows && a.loop.nd > 1 && a.loop.inner_stride(kNormStat) == 1;
}

// Whether the out operand gets streaming stores (not blended, in T).
inline bool streams(const NormArgs &a, size_t size, const void *in) {
    return a.beta == 0 && !a.wide && use_streaming_stores(a.elements * int64_t(size), a.out, a.x, in);
}

// y[i] = f(i) (+ beta y[i] when blend) for i < len; stream: a chunk at a
// time into L1, then streamed out (T = C, not blended).
template <class T, class C, class F>
inline void write_row(T *y, int64_t len, C beta, bool blend, bool stream, F &&f) {
    if constexpr (std::is_same_v<T, C>) {
        if (stream) {
            for (int64_t i0 = 0; i0 < len; i0 += kStreamingChunk) {
                alignas(64) C t[kStreamingChunk];
                const int64_t n = imin_(kStreamingChunk, len - i0);
                for (int64_t i = 0; i < n; ++i) t[i] = f(i0 + i);
                stream_copy(y + i0, t, n);
            }
            return;
        }
    }
    if (blend)
        for (int64_t i = 0; i < len; ++i) store(y + i, f(i) + beta * load<C>(y + i));
    else
        for (int64_t i = 0; i < len; ++i) store(y + i, f(i));
}

// The elementwise passes: any split (nothing is summed). shared(o, len,
// rows, rs) takes the blocks of rows that share their groups when `rows`
// (plain_case and shared_rows), run(off, len) every other row; stream:
// the threads fence their streaming stores.
template <class Shared, class Run>
inline void for_each_unit(const ExecContext &ctx, const NormArgs &a, bool rows, bool stream, Shared &&shared,
                          Run &&run) {
    const int64_t grain = a.by_rows ? kElementwiseGrain / a.loop.inner() + 1 : kElementwiseGrain;
    parallel_ranges(ctx, units(a), grain, [&](int64_t begin, int64_t end) {
        walk_rows(a, begin, end, [&](const int64_t *o, int64_t len, int64_t n, const int64_t *rs) {
            if (rows && rs[kNormStat] == 0) shared(o, len, n, rs);
            else each_row(a, o, len, n, rs, run);
        });
        if (stream) streaming_fence();
    });
}

// ---- Forward ---------------------------------------------------------------

// kRowBlock rows at a time where every element of a row has its own group
// and the rows share them (NHWC per channel): each group's partial sums are
// read and written once per block rather than once per row.
constexpr int64_t kRowBlock = 8;

// fn(r, n) over the rows [0, rows) in blocks [r, r + n), n = kRowBlock but at
// the end (a compile-time constant).
template <class Fn>
inline void row_blocks(int64_t rows, Fn &&fn) {
    int64_t r = 0;
    for (; r + kRowBlock <= rows; r += kRowBlock) fn(r, std::integral_constant<int64_t, kRowBlock>{});
    for (; r < rows; ++r) fn(r, std::integral_constant<int64_t, 1>{});
}

// Whether the reductions over rows that share their groups prefetch each
// block's rows, and those along a run of one group the run's blocks
// (stats_same): x beyond the cache (16 MiB and more), where the next rows
// come from memory (BN NHWC backward 16x64x112x112: 7.9 -> 6.6 ms); for x
// in cache the prefetches only cost (16x1024x14x14: 1.2 -> 1.5x oneDNN).
template <class T>
inline bool prefetches(const NormArgs &a) {
    return a.elements * int64_t(sizeof(T)) >= kStreamingMinBytes;
}

// n values summed as d = x - x0 (ds = sum d, dq = sum d^2) back into the
// sums of x and x^2: sum x = n x0 + sum d, sum x^2 = n x0^2 + 2 x0 sum d +
// sum d^2, in double (the shifted float sums of stats_own and stats_same).
inline void add_unshifted(double n, double x0, double ds, double dq, double *sum, double *sq) {
    *sum += n * x0 + ds;
    *sq += n * x0 * x0 + 2 * x0 * ds + dq;
}

// The sums of rows [r, r + N) (row stride xr) into slots of their own,
// restrict-qualified as grad_sums_own; prefetch: see prefetches(). Blocks
// of float rows sum in float, shifted by their first row (BN NHWC forward
// 6% faster than in double).
template <class T, int64_t N>
void stats_own(int64_t len, const T *__restrict x, int64_t xs, int64_t xr, double *__restrict sum,
               double *__restrict sq, bool prefetch) {
    if (prefetch && xs == 1)
        for (int64_t r = 0; r < N; ++r) prefetch_stream_run(x + r * xr, len * int64_t(sizeof(T)));
    if constexpr (std::is_same_v<T, float> && N > 1) {
        // In float, shifted by the block's first row, as stats_same's runs
        // (with Inf in x a channel's sums may turn NaN where the double sums
        // gave Inf: that channel's outputs are not finite either way).
        for (int64_t i = 0; i < len; ++i) {
            const float x0 = x[i * xs];
            float s = 0, q = 0;
            for (int64_t r = 1; r < N; ++r) {
                const float d = x[r * xr + i * xs] - x0;
                s += d;
                q += d * d;
            }
            add_unshifted(double(N), x0, s, q, sum + i, sq + i);
        }
        return;
    }
    for (int64_t i = 0; i < len; ++i) {
        double s = 0, q = 0;
        for (int64_t r = 0; r < N; ++r) {
            const double v = load<double>(x + r * xr + i * xs);
            s += v;
            q += v * v;
        }
        sum[i] += s;
        sq[i] += q;
    }
}

// The sums along a run in one group (layer norm, NCHW per channel). GCC's
// SLP vectorizer leaves kLanes lane arrays (Acc) in scalar code once the
// float to double conversion is in the loop; `omp simd` lets the loop
// vectorizer reorder the sums instead, into two vector accumulators each.
// prefetch (x contiguous and beyond the cache, prefetches()): the run goes
// in blocks of kRunBlock elements, each asking for the bytes
// kStreamPrefetchBytes ahead; the hardware prefetchers alone left this
// pass at half the read bandwidth on a Zen 3 (the conversions to double
// keep too few loads in flight): BN NCHW 16x256x56x56's statistics about
// 15% faster. The order depends on the ISA level and the shape only.
// Contiguous float runs sum in float per block (below).
constexpr int64_t kRunBlock = 256;

template <class T, class Stride>
void stats_same(int64_t len, const T *__restrict x, Stride xs, double *__restrict sum, double *__restrict sq,
                bool prefetch) {
    if constexpr (std::is_same_v<T, float> && std::is_same_v<Stride, std::integral_constant<int64_t, 1>>) {
        // Contiguous floats: sums of d = x - x0 in float within each block
        // of kRunBlock, in double across them (half the vector width and two
        // conversions per element in double made these sums a third of a
        // layer norm's forward). The shift keeps the float sums small where
        // the values are close (a row of large mean and small spread;
        // add_unshifted undoes it). Each block shifted by its own first value (an outlier there
        // costs one block's precision, not the run's). A block whose float
        // sums are not finite (Inf or NaN in x, or d^2 past float's range)
        // sends the run to the double sums below, which give what they
        // always gave.
        double s = 0, q = 0;
        bool finite = true;
        for (int64_t i0 = 0; i0 < len && finite; i0 += kRunBlock) {
            const int64_t i1 = imin_(i0 + kRunBlock, len);
            if (prefetch) prefetch_stream_run(x + i0, (i1 - i0) * int64_t(sizeof(T)));
            const float x0 = x[i0];
            float bs = 0, bq = 0;
#pragma omp simd reduction(+ : bs, bq)
            for (int64_t i = i0; i < i1; ++i) {
                const float d = x[i] - x0;
                bs += d;
                bq += d * d;
            }
            finite = std::isfinite(bs) && std::isfinite(bq);
            add_unshifted(double(i1 - i0), x0, bs, bq, &s, &q);
        }
        if (finite) {
            *sum += s;
            *sq += q;
            return;
        }
    }
    double s = 0, q = 0;
    const int64_t block = prefetch ? kRunBlock : len;
    for (int64_t i0 = 0; i0 < len; i0 += block) {
        const int64_t i1 = imin_(i0 + block, len);
        if (prefetch) prefetch_stream_run(x + i0, (i1 - i0) * int64_t(sizeof(T)));
#pragma omp simd reduction(+ : s, q)
        for (int64_t i = i0; i < i1; ++i) {
            const double v = load<double>(x + i * xs);
            s += v;
            q += v * v;
        }
    }
    *sum += s;
    *sq += q;
}

template <class T, class SS>
void stats_run(const NormArgs &a, const int64_t *off, int64_t len, double *sum, double *sq, SS ss) {
    const T *x = static_cast<const T *>(a.x) + off[kNormX];
    const int64_t xs = a.loop.inner_stride(kNormX);
    if constexpr (std::is_same_v<SS, Step1>) {
        stats_own<T, 1>(len, x, xs, 0, sum + off[kNormStat], sq + off[kNormStat], false);
        return;
    }
    if constexpr (std::is_same_v<SS, Step0>) {
        if (xs == 1)
            stats_same(len, x, std::integral_constant<int64_t, 1>{}, sum + off[kNormStat], sq + off[kNormStat],
                       prefetches<T>(a));
        else stats_same(len, x, xs, sum + off[kNormStat], sq + off[kNormStat], false);
        return;
    }
    Acc<SS> s1{sum + off[kNormStat], ss}, s2{sq + off[kNormStat], ss};
    blocked(len, [&](int64_t i, int64_t l) {
        const double v = load<double>(x + i * xs);
        s1.add(i, l, v);
        s2.add(i, l, v * v);
    });
    s1.flush();
    s2.flush();
}

template <class T>
void stats_typed(const ExecContext &ctx, const NormArgs &a) {
    const bool own = a.loop.inner_stride(kNormStat) == 1, prefetch = prefetches<T>(a);
    for_each_chunk(ctx, a, [&](int64_t b, int64_t begin, int64_t end) {
        double *sum = a.stat_partial + b * 2 * a.nstats, *sq = sum + a.nstats;
        for (int64_t i = 0; i < 2 * a.nstats; ++i) sum[i] = 0;
        walk_rows(a, begin, end, [&](const int64_t *o, int64_t len, int64_t rows, const int64_t *rs) {
            if (own && rs[kNormStat] == 0) {  // the rows share their groups
                const T *x = static_cast<const T *>(a.x) + o[kNormX];
                const int64_t xs = a.loop.inner_stride(kNormX), so = o[kNormStat];
                row_blocks(rows, [&](int64_t r, auto n) {
                    stats_own<T, decltype(n)::value>(len, x + r * rs[kNormX], xs, rs[kNormX], sum + so, sq + so,
                                                     prefetch);
                });
                return;
            }
            each_row(a, o, len, rows, rs, [&](const int64_t *off, int64_t n) {
                with_steps(a, [&](auto ss, auto) { stats_run<T>(a, off, n, sum, sq, ss); });
            });
        });
    });
}

// The plain normalization along a run, without branches in the loop so that
// it vectorizes (GCC does not unswitch them). The group arrays are the
// exec's own (restrict: only x and y need a run-time alias check, y may be
// x). Params = false: folded into ca, cb (NormArgs).
template <bool Blend, bool Params, class T, class C, class SS, class PS>
void forward_plain(int64_t len, const T *x, int64_t xs, T *y, int64_t ys, const C *__restrict ca,
                   const C *__restrict cb, const C *__restrict scale, const C *__restrict bias, C alpha, C beta,
                   SS ss, PS ps) {
    for (int64_t i = 0; i < len; ++i) {
        const int64_t s = ss.at(i), p = ps.at(i);
        C v = load<C>(x + i * xs) * ca[s] + cb[s];
        if constexpr (Params) v = v * scale[p] + bias[p];
        v *= alpha;
        if constexpr (Blend) v += beta * load<C>(y + i * ys);
        store(y + i * ys, v);
    }
}

template <class T, class C, class SS, class PS>
void forward_run(const NormArgs &a, const int64_t *off, int64_t len, SS ss, PS ps) {
    const T *x = static_cast<const T *>(a.x) + off[kNormX];
    T *y = static_cast<T *>(a.out) + off[kNormOut];
    // Without z, x stands in (read, never used) so that the loop has no NULL.
    const T *z = a.add ? static_cast<const T *>(a.in2) + off[kNormIn2] : x;
    unsigned char *mask = a.mask != nullptr ? a.mask + off[kNormMask] : nullptr;
    const int64_t xs = a.loop.inner_stride(kNormX), ys = a.loop.inner_stride(kNormOut),
                  zs = a.add ? a.loop.inner_stride(kNormIn2) : xs, ms = a.loop.inner_stride(kNormMask);
    const bool params = a.cscale != nullptr;
    const C *ca = static_cast<const C *>(a.ca) + off[kNormStat];
    const C *cb = static_cast<const C *>(a.cb) + off[kNormStat];
    // Folded: the parameter arrays are not read (ca stands in, as z above).
    const C *scale = params ? static_cast<const C *>(a.cscale) + off[kNormParam] : ca;
    const C *bias = params ? static_cast<const C *>(a.cbias) + off[kNormParam] : ca;
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const bool add = a.add, relu = a.relu, blend = a.beta != 0;
    if (!add && !relu && mask == nullptr) {  // the fused forms below
        // Folded, the parameter key is never used: one instantiation for all its steps.
        if (!params) {
            if (blend) forward_plain<true, false>(len, x, xs, y, ys, ca, cb, scale, bias, alpha, beta, ss, Step0{});
            else forward_plain<false, false>(len, x, xs, y, ys, ca, cb, scale, bias, alpha, beta, ss, Step0{});
        } else {
            if (blend) forward_plain<true, true>(len, x, xs, y, ys, ca, cb, scale, bias, alpha, beta, ss, ps);
            else forward_plain<false, true>(len, x, xs, y, ys, ca, cb, scale, bias, alpha, beta, ss, ps);
        }
        return;
    }
    for (int64_t i = 0; i < len; ++i) {
        const int64_t s = ss.at(i), p = ps.at(i);
        C v = load<C>(x + i * xs) * ca[s] + cb[s];
        if (params) v = v * scale[p] + bias[p];
        if (add) v += load<C>(z + i * zs);
        if (mask != nullptr) mask[i * ms] = v > 0;
        if (relu) v = v > 0 ? v : C(0);
        v *= alpha;
        if (blend) v += beta * load<C>(y + i * ys);
        store(y + i * ys, v);
    }
}

template <class T>
void forward_typed(const ExecContext &ctx, const NormArgs &a) {
    const bool plain = plain_case(a, kNormX) && !a.add && !a.relu;
    const bool stream = plain && streams(a, sizeof(T), a.x);
    with_compute<T>(a, [&](auto compute) {
        using C = typename decltype(compute)::type;
        const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
        const auto shared = [&](const int64_t *o, int64_t len, int64_t n, const int64_t *rs) {
            const C *ca = static_cast<const C *>(a.ca) + o[kNormStat];
            const C *cb = static_cast<const C *>(a.cb) + o[kNormStat];
            for (int64_t r = 0; r < n; ++r) {
                const T *x = static_cast<const T *>(a.x) + o[kNormX] + r * rs[kNormX];
                write_row(static_cast<T *>(a.out) + o[kNormOut] + r * rs[kNormOut], len, beta, a.beta != 0, stream,
                          [&](int64_t i) { return (load<C>(x + i) * ca[i] + cb[i]) * alpha; });
            }
        };
        for_each_unit(ctx, a, plain && shared_rows(a), stream, shared, [&](const int64_t *off, int64_t len) {
            if (plain && a.loop.inner_stride(kNormStat) == 0) {  // one group along the run
                const T *x = static_cast<const T *>(a.x) + off[kNormX];
                const C ca = static_cast<const C *>(a.ca)[off[kNormStat]];
                const C cb = static_cast<const C *>(a.cb)[off[kNormStat]];
                write_row(static_cast<T *>(a.out) + off[kNormOut], len, beta, a.beta != 0, stream,
                          [&](int64_t i) { return (load<C>(x + i) * ca + cb) * alpha; });
                return;
            }
            with_steps(a, [&](auto ss, auto ps) { forward_run<T, C>(a, off, len, ss, ps); });
        });
    });
}

// ---- Forward, a statistics group per row ------------------------------------

// The statistics of one whole group, the contiguous row x: the sums
// (stats_same), then mean, variance and 1 / sqrt(variance + epsilon) by
// batch_stats's formulas (the sums' order differs: the last bits may too).
template <class T>
void row_statistics(const NormArgs &a, const T *x, int64_t len, double *mean, double *var, double *inv) {
    double s = 0, q = 0;
    stats_same(len, x, std::integral_constant<int64_t, 1>{}, &s, &q, prefetches<T>(a));
    *mean = a.rms ? 0.0 : s / double(len);
    const double v = q / double(len) - *mean * *mean;
    *var = v > 0 ? v : 0.0;
    *inv = 1.0 / std::sqrt(*var + a.epsilon);
}

// One row of forward_groups: its statistics (row_statistics), then y in
// float unless |mean| * inv calls for double (kFloatMeanRatio), the
// parameters' key stepping as PS.
template <class T, class PS>
void forward_group_row(const NormArgs &a, const int64_t *off, int64_t len, bool stream, PS) {
    const T *x = static_cast<const T *>(a.x) + off[kNormX];
    T *y = static_cast<T *>(a.out) + off[kNormOut];
    double mean, var, inv;
    row_statistics(a, x, len, &mean, &var, &inv);
    a.stat_partial[off[kNormStat]] = mean;
    a.stat_partial[a.nstats + off[kNormStat]] = var;
    const int64_t po = off[kNormParam];
    const auto run = [&](auto compute, const auto *scale, const auto *bias) {
        using C = typename decltype(compute)::type;
        const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
        if constexpr (PS::kZero) {
            // One parameter group per row: folded as BN's (run_forward), so
            // that the loop reads no array y might alias.
            const double fa = inv * a.dscale[po], fb = a.dbias[po] - mean * fa;
            const C ca = static_cast<C>(fa), cb = static_cast<C>(fb);
            write_row(y, len, beta, a.beta != 0, stream, [&](int64_t i) { return (load<C>(x + i) * ca + cb) * alpha; });
        } else {
            const C ca = static_cast<C>(inv), cb = static_cast<C>(-mean * inv);
            write_row(y, len, beta, a.beta != 0, stream, [&](int64_t i) {
                const int64_t p = po + i;
                return ((load<C>(x + i) * ca + cb) * static_cast<C>(scale[p]) + static_cast<C>(bias[p])) * alpha;
            });
        }
    };
    if constexpr (std::is_same_v<T, float>) {
        if (std::abs(mean) * inv <= kFloatMeanRatio) {
            run(std::type_identity<float>{}, static_cast<const float *>(a.cscale), static_cast<const float *>(a.cbias));
            return;
        }
    }
    run(std::type_identity<double>{}, a.dscale, a.dbias);
}

template <class T>
void forward_groups_typed(const ExecContext &ctx, const NormArgs &a) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        const bool stream = a.beta == 0 && use_streaming_stores(a.elements * int64_t(sizeof(T)), a.out, a.x);
        const bool params_move = a.loop.inner_stride(kNormParam) != 0;
        parallel_ranges(ctx, units(a), kElementwiseGrain / a.loop.inner() + 1, [&](int64_t begin, int64_t end) {
            walk(a, begin, end, [&](const int64_t *off, int64_t len) {
                if (params_move) forward_group_row<T>(a, off, len, stream, Step1{});
                else forward_group_row<T>(a, off, len, stream, Step0{});
            });
            if (stream) streaming_fence();
        });
    } else {
        (void)ctx, (void)a;  // 16-bit data: the exec takes the two passes
    }
}

// ---- Backward --------------------------------------------------------------

// grad_sums of rows [r, r + N) (row strides xr, dyr, dzr, mr) where every
// element of a row has its own groups and the rows share them (as
// stats_own): the arrays do not overlap, which the compiler must be told
// (more than 10 run-time alias checks otherwise, and no vectorization).
// The block's N terms sum in C, float where the elementwise passes compute
// in float (not NormArgs::wide), then join the double sums: half the
// vector width and two conversions per element made this pass twice the
// time of the dx pass (BN NHWC backward). sum dy (x - m) with m = mean
// rounded to C, minus (mean - m) sum dy in double: x - m is exact
// for close values, and inv multiplies once per block.
template <bool Fused, class C, class T, int64_t N>
void grad_sums_own(int64_t len, const T *__restrict x, int64_t xs, int64_t xr, const T *__restrict dy, int64_t dys,
                   int64_t dyr, T *__restrict dz, int64_t dzs, int64_t dzr, const unsigned char *__restrict mask,
                   int64_t ms, int64_t mr, const double *__restrict mean, const double *__restrict inv,
                   const double *__restrict scale, double *__restrict sg, double *__restrict sgx,
                   double *__restrict sd, double *__restrict sdx, bool prefetch) {
    if (prefetch && xs == 1 && dys == 1)
        for (int64_t r = 0; r < N; ++r) {
            prefetch_stream_run(x + r * xr, len * int64_t(sizeof(T)));
            prefetch_stream_run(dy + r * dyr, len * int64_t(sizeof(T)));
        }
    for (int64_t i = 0; i < len; ++i) {
        const C m = static_cast<C>(mean[i]);
        C s = 0, sx = 0;  // sum dy, sum dy (x - m) over the rows; g = dy * scale[i]
        for (int64_t r = 0; r < N; ++r) {
            C d = load<C>(dy + r * dyr + i * dys);
            if constexpr (Fused) {
                if (mask != nullptr) d = mask[r * mr + i * ms] ? d : C(0);
                if (dz != nullptr) store(dz + r * dzr + i * dzs, d);
            }
            s += d;
            sx += d * (load<C>(x + r * xr + i * xs) - m);
        }
        const double ds = s, dsx = (double(sx) - (mean[i] - double(m)) * ds) * inv[i];
        sg[i] += ds * scale[i];
        sgx[i] += dsx * scale[i];
        sd[i] += ds;
        sdx[i] += dsx;
    }
}

// grad_sums_own over rows [r, r + N) of the run at off.
template <class T, int64_t N>
void grad_sums_rows(const NormArgs &a, const int64_t *off, int64_t len, const int64_t *rs, double *stat,
                    double *param) {
    const StridedLoop &L = a.loop;
    const T *x = static_cast<const T *>(a.x) + off[kNormX];
    const T *dy = static_cast<const T *>(a.in2) + off[kNormIn2];
    T *dz = a.dz != nullptr ? static_cast<T *>(a.dz) + off[kNormDz] : nullptr;
    const unsigned char *mask = a.mask != nullptr ? a.mask + off[kNormMask] : nullptr;
    const int64_t so = off[kNormStat], po = off[kNormParam];
    const auto run = [&](auto fused, auto compute) {
        grad_sums_own<decltype(fused)::value, typename decltype(compute)::type, T, N>(
            len, x, L.inner_stride(kNormX), rs[kNormX], dy, L.inner_stride(kNormIn2), rs[kNormIn2], dz,
            L.inner_stride(kNormDz), rs[kNormDz], mask, L.inner_stride(kNormMask), rs[kNormMask], a.mean + so,
            a.inv + so, a.scale + po, stat + so, stat + a.nstats + so, param + po, param + a.nparams + po,
            N > 1 && prefetches<T>(a));
    };
    // Without the mask and dz the body has no branches, and vectorizes.
    const auto with_fused = [&](auto compute) {
        if (mask != nullptr || dz != nullptr) run(std::true_type{}, compute);
        else run(std::false_type{}, compute);
    };
    if constexpr (std::is_same_v<T, float>)
        if (!a.wide) return with_fused(std::type_identity<float>{});
    with_fused(std::type_identity<double>{});
}

// grad_sums along a run in one statistics group whose elements have
// parameter groups of their own (layer norm): the statistics sums as
// `omp simd` reductions (stats_same), the parameter ones
// restrict-qualified as in grad_sums_own.
template <bool Fused, class T, class XS, class DS>
void grad_sums_same(int64_t len, const T *__restrict x, XS xs, const T *__restrict dy, DS dys,
                    T *__restrict dz, int64_t dzs, const unsigned char *__restrict mask, int64_t ms, double mean,
                    double inv, const double *__restrict scale, double *__restrict sg, double *__restrict sgx,
                    double *__restrict sd, double *__restrict sdx) {
    double s = 0, sx = 0;
#pragma omp simd reduction(+ : s, sx)
    for (int64_t i = 0; i < len; ++i) {
        double d = load<double>(dy + i * dys);
        if constexpr (Fused) {
            if (mask != nullptr) d = mask[i * ms] ? d : 0.0;
            if (dz != nullptr) store(dz + i * dzs, d);
        }
        const double xh = (load<double>(x + i * xs) - mean) * inv, g = d * scale[i];
        s += g;
        sx += g * xh;
        sd[i] += d;
        sdx[i] += d * xh;
    }
    *sg += s;
    *sgx += sx;
}

// grad_sums along a run in one statistics and one parameter group (BN's
// NCHW per channel, without the mask): sum dy and sum dy xhat in two
// reductions as stats_same; g = dy * scale's sums are the scale times them.
// Through Acc's four lane arrays (g's and dy's sums apart) the loop ran at
// half width with twice the arithmetic.
template <class T, class Stride>
void grad_sums_fixed(int64_t len, const T *__restrict x, Stride xs, const T *__restrict dy, Stride dys, double mean,
                     double inv, double scale, double *sg, double *sgx, double *sd, double *sdx) {
    double s = 0, sx = 0;
#pragma omp simd reduction(+ : s, sx)
    for (int64_t i = 0; i < len; ++i) {
        const double d = load<double>(dy + i * dys);
        s += d;
        sx += d * ((load<double>(x + i * xs) - mean) * inv);
    }
    *sg += s * scale;
    *sgx += sx * scale;
    *sd += s;
    *sdx += sx;
}

template <class T, class SS, class PS>
void grad_sums_run(const NormArgs &a, const int64_t *off, int64_t len, double *stat, double *param, SS ss,
                   PS ps) {
    using C = double;  // every pass computes in double: see NormArgs
    const T *x = static_cast<const T *>(a.x) + off[kNormX];
    const T *dy = static_cast<const T *>(a.in2) + off[kNormIn2];
    T *dz = a.dz != nullptr ? static_cast<T *>(a.dz) + off[kNormDz] : nullptr;
    const unsigned char *mask = a.mask != nullptr ? a.mask + off[kNormMask] : nullptr;
    const int64_t xs = a.loop.inner_stride(kNormX), dys = a.loop.inner_stride(kNormIn2),
                  dzs = a.loop.inner_stride(kNormDz), ms = a.loop.inner_stride(kNormMask);
    const C *mean = a.mean + off[kNormStat];
    const C *inv = a.inv + off[kNormStat];
    const C *scale = a.scale + off[kNormParam];
    const int64_t so = off[kNormStat], po = off[kNormParam];
    if constexpr (std::is_same_v<SS, Step0> && std::is_same_v<PS, Step1>) {
        const auto run = [&](auto fused, auto x_stride, auto dy_stride) {
            grad_sums_same<decltype(fused)::value>(len, x, x_stride, dy, dy_stride, dz, dzs, mask, ms, mean[0],
                                                   inv[0], scale, stat + so, stat + a.nstats + so, param + po,
                                                   param + a.nparams + po);
        };
        // Contiguous x and dy as such: with run-time strides GCC gathers.
        const std::integral_constant<int64_t, 1> unit;
        if (mask != nullptr || dz != nullptr) run(std::true_type{}, xs, dys);
        else if (xs == 1 && dys == 1) run(std::false_type{}, unit, unit);
        else run(std::false_type{}, xs, dys);
        return;
    }
    if constexpr (std::is_same_v<SS, Step0> && std::is_same_v<PS, Step0>) {
        if (mask == nullptr && dz == nullptr) {
            double *const sums[4] = {stat + so, stat + a.nstats + so, param + po, param + a.nparams + po};
            if (xs == 1 && dys == 1) {
                const std::integral_constant<int64_t, 1> unit;
                grad_sums_fixed(len, x, unit, dy, unit, mean[0], inv[0], scale[0], sums[0], sums[1], sums[2], sums[3]);
            } else {
                grad_sums_fixed(len, x, xs, dy, dys, mean[0], inv[0], scale[0], sums[0], sums[1], sums[2], sums[3]);
            }
            return;
        }
    }
    Acc<SS> g1{stat + so, ss}, g2{stat + a.nstats + so, ss};
    Acc<PS> d1{param + po, ps}, d2{param + a.nparams + po, ps};
    // Without the mask and dz the body has no branches, and vectorizes.
    auto run = [&](auto fused) {
        blocked(len, [&](int64_t i, int64_t l) {
            const int64_t s = ss.at(i), p = ps.at(i);
            C d = load<C>(dy + i * dys);
            if constexpr (decltype(fused)::value) {
                if (mask != nullptr) d = mask[i * ms] ? d : C(0);
                if (dz != nullptr) store(dz + i * dzs, d);
            }
            const C xh = (load<C>(x + i * xs) - mean[s]) * inv[s];
            const C g = d * scale[p];
            g1.add(i, l, g);
            g2.add(i, l, g * xh);
            d1.add(i, l, d);
            d2.add(i, l, d * xh);
        });
    };
    if (mask != nullptr || dz != nullptr) run(std::true_type{});
    else run(std::false_type{});
    g1.flush();
    g2.flush();
    d1.flush();
    d2.flush();
}

template <class T>
void grad_sums_typed(const ExecContext &ctx, const NormArgs &a) {
    // Every element of a run has its own groups (NHWC per channel).
    const bool own = a.loop.inner_stride(kNormStat) == 1 && a.loop.inner_stride(kNormParam) == 1;
    for_each_chunk(ctx, a, [&](int64_t b, int64_t begin, int64_t end) {
        double *stat = a.stat_partial + b * 2 * a.nstats, *param = a.param_partial + b * 2 * a.nparams;
        for (int64_t i = 0; i < 2 * a.nstats; ++i) stat[i] = 0;
        for (int64_t i = 0; i < 2 * a.nparams; ++i) param[i] = 0;
        walk_rows(a, begin, end, [&](const int64_t *o, int64_t len, int64_t rows, const int64_t *rs) {
            if (own) {
                // Rows that share their groups go kRowBlock at a time, others one by one.
                const int64_t zero[kMaxOperands] = {};
                const bool shared = rs[kNormStat] == 0 && rs[kNormParam] == 0;
                row_blocks(shared ? rows : 0, [&](int64_t r, auto n) {
                    int64_t off[kMaxOperands];
                    for (int k = 0; k < a.loop.nops; ++k) off[k] = o[k] + r * rs[k];
                    grad_sums_rows<T, decltype(n)::value>(a, off, len, rs, stat, param);
                });
                if (!shared)
                    each_row(a, o, len, rows, rs, [&](const int64_t *off, int64_t n) {
                        grad_sums_rows<T, 1>(a, off, n, zero, stat, param);
                    });
                return;
            }
            each_row(a, o, len, rows, rs, [&](const int64_t *off, int64_t n) {
                with_steps(a, [&](auto ss, auto ps) { grad_sums_run<T>(a, off, n, stat, param, ss, ps); });
            });
        });
    });
}

// dx along a run without the mask: as forward_plain (dx may be dy or x).
template <bool Blend, bool Params, class T, class C, class SS, class PS>
void grad_input_plain(int64_t len, const T *x, int64_t xs, const T *dy, int64_t dys, T *dx, int64_t dxs,
                      const C *__restrict ca, const C *__restrict cb, const C *__restrict cc,
                      const C *__restrict scale, C beta, SS ss, PS ps) {
    for (int64_t i = 0; i < len; ++i) {
        const int64_t s = ss.at(i), p = ps.at(i);
        C g = load<C>(dy + i * dys);
        if constexpr (Params) g *= scale[p];
        C v = g * ca[s] + (load<C>(x + i * xs) * cb[s] + cc[s]);
        if constexpr (Blend) v += beta * load<C>(dx + i * dxs);
        store(dx + i * dxs, v);
    }
}

template <class T, class C, class SS, class PS>
void grad_input_run(const NormArgs &a, const int64_t *off, int64_t len, SS ss, PS ps) {
    const T *x = static_cast<const T *>(a.x) + off[kNormX];
    const T *dy = static_cast<const T *>(a.in2) + off[kNormIn2];
    T *dx = static_cast<T *>(a.out) + off[kNormOut];
    const unsigned char *mask = a.mask != nullptr ? a.mask + off[kNormMask] : nullptr;
    const int64_t xs = a.loop.inner_stride(kNormX), dys = a.loop.inner_stride(kNormIn2),
                  dxs = a.loop.inner_stride(kNormOut), ms = a.loop.inner_stride(kNormMask);
    const bool params = a.cscale != nullptr;
    const C *ca = static_cast<const C *>(a.ca) + off[kNormStat];
    const C *cb = static_cast<const C *>(a.cb) + off[kNormStat];
    const C *cc = static_cast<const C *>(a.cc) + off[kNormStat];
    // Folded: the scale is not read (ca stands in).
    const C *scale = params ? static_cast<const C *>(a.cscale) + off[kNormParam] : ca;
    const C beta = static_cast<C>(a.beta);
    const bool blend = a.beta != 0;
    if (mask == nullptr) {
        // Folded, the parameter key is never used: one instantiation for all its steps.
        if (!params) {
            if (blend) grad_input_plain<true, false>(len, x, xs, dy, dys, dx, dxs, ca, cb, cc, scale, beta, ss, Step0{});
            else grad_input_plain<false, false>(len, x, xs, dy, dys, dx, dxs, ca, cb, cc, scale, beta, ss, Step0{});
        } else {
            if (blend) grad_input_plain<true, true>(len, x, xs, dy, dys, dx, dxs, ca, cb, cc, scale, beta, ss, ps);
            else grad_input_plain<false, true>(len, x, xs, dy, dys, dx, dxs, ca, cb, cc, scale, beta, ss, ps);
        }
        return;
    }
    for (int64_t i = 0; i < len; ++i) {
        const int64_t s = ss.at(i), p = ps.at(i);
        C g = mask[i * ms] ? load<C>(dy + i * dys) : C(0);
        if (params) g *= scale[p];
        C v = g * ca[s] + (load<C>(x + i * xs) * cb[s] + cc[s]);
        if (blend) v += beta * load<C>(dx + i * dxs);
        store(dx + i * dxs, v);
    }
}

template <class T>
void grad_input_typed(const ExecContext &ctx, const NormArgs &a) {
    const bool plain = plain_case(a, kNormIn2);
    const bool stream = plain && streams(a, sizeof(T), a.in2), prefetch = prefetches<T>(a);
    with_compute<T>(a, [&](auto compute) {
        using C = typename decltype(compute)::type;
        const auto shared = [&](const int64_t *o, int64_t len, int64_t n, const int64_t *rs) {
            const int64_t so = o[kNormStat];
            const C *ca = static_cast<const C *>(a.ca) + so, *cb = static_cast<const C *>(a.cb) + so,
                    *cc = static_cast<const C *>(a.cc) + so;
            for (int64_t r = 0; r < n; ++r) {
                const T *x = static_cast<const T *>(a.x) + o[kNormX] + r * rs[kNormX];
                const T *dy = static_cast<const T *>(a.in2) + o[kNormIn2] + r * rs[kNormIn2];
                if (prefetch) {  // the rows ahead, from beyond the cache (see prefetches)
                    prefetch_stream_run(x, len * int64_t(sizeof(T)));
                    prefetch_stream_run(dy, len * int64_t(sizeof(T)));
                }
                write_row(static_cast<T *>(a.out) + o[kNormOut] + r * rs[kNormOut], len, static_cast<C>(a.beta),
                          a.beta != 0, stream,
                          [&](int64_t i) { return load<C>(dy + i) * ca[i] + (load<C>(x + i) * cb[i] + cc[i]); });
            }
        };
        for_each_unit(ctx, a, plain && shared_rows(a), stream, shared, [&](const int64_t *off, int64_t len) {
            if (plain && a.loop.inner_stride(kNormStat) == 0) {  // one group along the run
                const int64_t so = off[kNormStat];
                const C ca = static_cast<const C *>(a.ca)[so], cb = static_cast<const C *>(a.cb)[so],
                        cc = static_cast<const C *>(a.cc)[so];
                const T *x = static_cast<const T *>(a.x) + off[kNormX];
                const T *dy = static_cast<const T *>(a.in2) + off[kNormIn2];
                write_row(static_cast<T *>(a.out) + off[kNormOut], len, static_cast<C>(a.beta), a.beta != 0, stream,
                          [&](int64_t i) { return load<C>(dy + i) * ca + (load<C>(x + i) * cb + cc); });
                return;
            }
            with_steps(a, [&](auto ss, auto ps) { grad_input_run<T, C>(a, off, len, ss, ps); });
        });
    });
}

// ---- Backward, a statistics group per row -----------------------------------

// One row of grad_groups: its statistics (saved, else row_statistics), the sums of g = dy * scale and g xhat over the row and
// each parameter's {sum dy, sum dy xhat} into sums (nparams apart), all in
// double; then dx as grad_input's coefficients make it, in float unless
// the call (wide) or |mean| * inv calls for double.
template <class T, class PS>
void grad_group_row(const NormArgs &a, const int64_t *off, int64_t len, double *sums, PS) {
    const T *x = static_cast<const T *>(a.x) + off[kNormX];
    const T *dy = static_cast<const T *>(a.in2) + off[kNormIn2];
    T *dx = static_cast<T *>(a.out) + off[kNormOut];
    const int64_t so = off[kNormStat], po = off[kNormParam];
    double mean, var, inv;
    if (a.mean != nullptr) mean = a.rms ? 0.0 : a.mean[so], inv = a.inv[so];
    else row_statistics(a, x, len, &mean, &var, &inv);
    const double *scale = a.dscale + po;
    double *sd = sums + po, *sdx = sums + a.nparams + po;
    double c1 = 0, c2 = 0;
    if constexpr (PS::kZero) {
        double d1 = 0, d2 = 0;
#pragma omp simd reduction(+ : d1, d2)
        for (int64_t i = 0; i < len; ++i) {
            const double d = load<double>(dy + i);
            d1 += d;
            d2 += d * ((load<double>(x + i) - mean) * inv);
        }
        c1 = d1 * scale[0], c2 = d2 * scale[0];
        sd[0] += d1;
        sdx[0] += d2;
    } else {
#pragma omp simd reduction(+ : c1, c2)
        for (int64_t i = 0; i < len; ++i) {
            const double d = load<double>(dy + i), xh = (load<double>(x + i) - mean) * inv, g = d * scale[i];
            c1 += g;
            c2 += g * xh;
            sd[i] += d;
            sdx[i] += d * xh;
        }
    }
    const double n = double(len), m1 = a.rms ? 0.0 : c1 / n, m2 = c2 / n, ai = a.alpha * inv;
    const double ca = ai, cb = -ai * inv * m2, cc = ai * (mean * inv * m2 - m1);
    const auto run = [&](auto compute, const auto *sc) {
        using C = typename decltype(compute)::type;
        const C kb = static_cast<C>(cb), kc = static_cast<C>(cc), beta = static_cast<C>(a.beta);
        if constexpr (PS::kZero) {  // folded, as forward_group_row does
            const C ka = static_cast<C>(ca * scale[0]);
            write_row(dx, len, beta, a.beta != 0, false,
                      [&](int64_t i) { return load<C>(dy + i) * ka + (load<C>(x + i) * kb + kc); });
        } else {
            const C ka = static_cast<C>(ca);
            write_row(dx, len, beta, a.beta != 0, false, [&](int64_t i) {
                return load<C>(dy + i) * static_cast<C>(sc[po + i]) * ka + (load<C>(x + i) * kb + kc);
            });
        }
    };
    if constexpr (std::is_same_v<T, float>) {
        if (!a.wide && std::abs(mean) * inv <= kFloatMeanRatio) {
            run(std::type_identity<float>{}, static_cast<const float *>(a.cscale));
            return;
        }
    }
    run(std::type_identity<double>{}, a.dscale);
}

template <class T>
void grad_groups_typed(const ExecContext &ctx, const NormArgs &a) {
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
        const bool params_move = a.loop.inner_stride(kNormParam) != 0;
        for_each_chunk(ctx, a, [&](int64_t b, int64_t begin, int64_t end) {
            double *sums = a.param_partial + b * 2 * a.nparams;
            for (int64_t i = 0; i < 2 * a.nparams; ++i) sums[i] = 0;
            walk(a, begin, end, [&](const int64_t *off, int64_t len) {
                if (params_move) grad_group_row<T>(a, off, len, sums, Step1{});
                else grad_group_row<T>(a, off, len, sums, Step0{});
            });
        });
    } else {
        (void)ctx, (void)a;  // 16-bit data: the exec takes the two passes
    }
}

#define ANYDNN_NORM_ENTRY(name)                                                 \
    void name(const ExecContext &ctx, const NormArgs &a) {                      \
        visit_float_dtype(a.dt, [&](auto tag) {                                 \
            name##_typed<typename decltype(tag)::type>(ctx, a);                 \
        });                                                                     \
    }
ANYDNN_NORM_ENTRY(stats)
ANYDNN_NORM_ENTRY(forward)
ANYDNN_NORM_ENTRY(grad_sums)
ANYDNN_NORM_ENTRY(grad_input)
ANYDNN_NORM_ENTRY(forward_groups)
ANYDNN_NORM_ENTRY(grad_groups)
#undef ANYDNN_NORM_ENTRY

}  // namespace

extern const NormKernels normalization = {stats, forward, grad_sums, grad_input, forward_groups, grad_groups};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
