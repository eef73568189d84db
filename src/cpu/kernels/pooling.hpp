// Pooling kernels, compiled once per ISA level.
//
// Forward: one pass over x. Each output element reduces its window's valid
// taps (padding is never read); up to kLanes neighbouring outputs advance
// together, one vector lane each:
// - channel lanes (NHWC): the channels of one output pixel, contiguous in x
//   and y; every tap is one contiguous vector load per block.
// - row lanes (NCHW): a block of one output row; for each tap the lanes whose
//   input column is inside x form one range, so the inner loop has no
//   bounds test (whole-vector loads when x's rows are contiguous and the
//   pooling stride is 1 or 2).
// Backward: see PoolingBackwardArgs and PoolingRing (src/cpu/pooling.hpp):
// per work item a ring of input slabs in the compute type gathers the
// gradient, channel lanes as in the forward.
//
// MAX and its NaN option: max_step() is the one rule that folds a tap into
// the best so far (a NaN wins under PROPAGATE_NAN; otherwise NaNs are
// skipped, and a window of NaNs only gives NaN). The backward pass finds the
// max with it too, then gives the gradient to the first tap in scan order
// equal to it (the first NaN for a NaN max).
#include "cpu/kernels/util/common.hpp"
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

// Writes lane l's result r (already scaled) to yp[l * sy], blended with y.
template <class T, class C>
inline void store_lanes(T *yp, int64_t sy, const C *r, int64_t nb, C beta, bool blend) {
    if (blend)
        for (int64_t l = 0; l < nb; ++l) store(yp + l * sy, r[l] + beta * load<C>(yp + l * sy));
    else
        for (int64_t l = 0; l < nb; ++l) store(yp + l * sy, r[l]);
}

// Items: (n, od, oh); every output pixel of the row, channels in blocks of
// kLanes, whose loops have a constant trip count (whole vectors, no
// remainder code per tap); a last partial block takes forward_channels_block
// with Fixed = 0 (a run-time count).
template <class R, bool Unit, int64_t Fixed, class T, class C>
inline void forward_channels_block(const T *x, const int64_t *xs, int64_t sxc, int64_t base, const TapRange &td,
                                   const TapRange &th, const TapRange &tw, int64_t nb_run, C *__restrict acc) {
    const int64_t nb = Fixed ? Fixed : nb_run, sc = Unit ? 1 : sxc;
    ANYDNN_LANE_LOOP
    for (int64_t l = 0; l < nb; ++l) acc[l] = R::template start<C>();
    for (int64_t id = td.lo; id < td.hi; ++id)
        for (int64_t ih = th.lo; ih < th.hi; ++ih)
            for (int64_t iw = tw.lo; iw < tw.hi; ++iw) {
                const T *xp = x + base + id * xs[2] + ih * xs[3] + iw * xs[4];
                ANYDNN_LANE_LOOP
                for (int64_t l = 0; l < nb; ++l) acc[l] = R::step(acc[l], load<C>(xp + l * sc));
            }
}

template <class R, bool Unit, class T, class C>
void forward_channels(const PoolingForwardArgs &a, int64_t begin, int64_t end) {
    const ops::PoolGeometry &g = a.g;
    const int64_t *xs = a.xs.s, *ys = a.ys.s;
    const int64_t sxc = Unit ? 1 : xs[1], syc = Unit ? 1 : ys[1];
    const T *x = static_cast<const T *>(a.x);
    T *y = static_cast<T *>(a.y);
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const bool blend = a.beta != 0, exclude = g.kind == PoolKind::avg_exclude_padding;
    const bool is_max = g.kind == PoolKind::max;
    for (int64_t item = begin; item < end; ++item) {
        const int64_t oh = item % g.out[1], od = item / g.out[1] % g.out[0], n = item / (g.out[1] * g.out[0]);
        const TapRange td = taps(g, 0, od), th = taps(g, 1, oh);
        for (int64_t ow = 0; ow < g.out[2]; ++ow) {
            const TapRange tw = taps(g, 2, ow);
            const int64_t count =
                exclude ? (td.hi - td.lo) * (th.hi - th.lo) * (tw.hi - tw.lo) : g.window_size();
            const C scale = is_max ? alpha : alpha / static_cast<C>(count);
            for (int64_t c0 = 0; c0 < g.c; c0 += kLanes) {
                const int64_t nb = imin_(kLanes, g.c - c0);
                C acc[kLanes];
                const int64_t base = n * xs[0] + c0 * sxc;
                if (nb == kLanes) forward_channels_block<R, Unit, kLanes>(x, xs, sxc, base, td, th, tw, nb, acc);
                else forward_channels_block<R, Unit, 0>(x, xs, sxc, base, td, th, tw, nb, acc);
                for (int64_t l = 0; l < nb; ++l) acc[l] *= scale;
                store_lanes(y + n * ys[0] + c0 * syc + od * ys[2] + oh * ys[3] + ow * ys[4], syc, acc, nb, beta,
                            blend);
            }
        }
    }
}

// Items: (n, c, od, oh); the output row in blocks of kLanes pixels. Step:
// the distance in x between neighbouring lanes as a constant (1 or 2: x's
// rows contiguous, pooling stride 1 or 2, which GCC loads with whole vectors
// and permutes), or 0 (run time: gathers).
template <class R, int64_t Step, class T, class C>
void forward_rows(const PoolingForwardArgs &a, int64_t begin, int64_t end) {
    const ops::PoolGeometry &g = a.g;
    const int64_t *xs = a.xs.s, *ys = a.ys.s;
    const int64_t sw = Step ? Step : g.stride[2], sxw = Step ? 1 : xs[4];
    const T *x = static_cast<const T *>(a.x);
    T *y = static_cast<T *>(a.y);
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const bool blend = a.beta != 0, exclude = g.kind == PoolKind::avg_exclude_padding;
    const bool is_max = g.kind == PoolKind::max;
    const int64_t W = g.in[2];
    for (int64_t item = begin; item < end; ++item) {
        const int64_t oh = item % g.out[1], od = item / g.out[1] % g.out[0];
        const int64_t c = item / (g.out[1] * g.out[0]) % g.c, n = item / (g.out[1] * g.out[0] * g.c);
        const TapRange td = taps(g, 0, od), th = taps(g, 1, oh);
        for (int64_t ow0 = 0; ow0 < g.out[2]; ow0 += kLanes) {
            const int64_t nb = imin_(kLanes, g.out[2] - ow0);
            C acc[kLanes];
            for (int64_t l = 0; l < nb; ++l) acc[l] = R::template start<C>();
            for (int64_t id = td.lo; id < td.hi; ++id)
                for (int64_t ih = th.lo; ih < th.hi; ++ih) {
                    const T *xr = x + n * xs[0] + c * xs[1] + id * xs[2] + ih * xs[3];
                    for (int64_t kw = 0; kw < g.window[2]; ++kw) {
                        // Lane l reads input column first + l * sw; keep those inside [0, W).
                        const int64_t first = ow0 * sw - g.pad[2] + kw;
                        const int64_t l_lo = first >= 0 ? 0 : (-first + sw - 1) / sw;
                        const int64_t l_hi = first > W - 1 ? 0 : imin_(nb, (W - 1 - first) / sw + 1);
                        if (l_lo >= l_hi) continue;
                        const T *xp = xr + (first + l_lo * sw) * sxw;
                        C *ap = acc + l_lo;
                        for (int64_t l = 0; l < l_hi - l_lo; ++l) ap[l] = R::step(ap[l], load<C>(xp + l * sw * sxw));
                    }
                }
            for (int64_t l = 0; l < nb; ++l) {
                C scale = alpha;
                if (!is_max) {
                    int64_t count = g.window_size();
                    if (exclude) {
                        const TapRange tw = taps(g, 2, ow0 + l);
                        count = (td.hi - td.lo) * (th.hi - th.lo) * (tw.hi - tw.lo);
                    }
                    scale = alpha / static_cast<C>(count);
                }
                acc[l] *= scale;
            }
            store_lanes(y + n * ys[0] + c * ys[1] + od * ys[2] + oh * ys[3] + ow0 * ys[4], ys[4], acc, nb, beta,
                        blend);
        }
    }
}

template <class R, class T>
void forward_typed(const ExecContext &ctx, const PoolingForwardArgs &a) {
    using C = compute_t<T>;
    const ops::PoolGeometry &g = a.g;
    const int64_t rows = g.n * g.out[0] * g.out[1];
    // Taps per output element (at most the window), to size the grain.
    const int64_t per_row = g.out[2] * g.window_size() * (a.channel_lanes ? g.c : 1);
    if (a.channel_lanes) {
        const bool unit = a.xs.s[1] == 1 && a.ys.s[1] == 1;
        parallel_ranges(ctx, rows, kGrain / per_row + 1, [&](int64_t begin, int64_t end) {
            if (unit) forward_channels<R, true, T, C>(a, begin, end);
            else forward_channels<R, false, T, C>(a, begin, end);
        });
    } else {
        const int64_t step = a.xs.s[4] == 1 && g.stride[2] <= 2 ? g.stride[2] : 0;
        parallel_ranges(ctx, rows * g.c, kGrain / per_row + 1, [&](int64_t begin, int64_t end) {
            if (step == 1) forward_rows<R, 1, T, C>(a, begin, end);
            else if (step == 2) forward_rows<R, 2, T, C>(a, begin, end);
            else forward_rows<R, 0, T, C>(a, begin, end);
        });
    }
}

void forward(const ExecContext &ctx, const PoolingForwardArgs &a) {
    visit_float_dtype(a.g.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (a.g.kind != PoolKind::max) forward_typed<Reduce<false, false>, T>(ctx, a);
        else if (a.g.propagate_nan) forward_typed<Reduce<true, true>, T>(ctx, a);
        else forward_typed<Reduce<true, false>, T>(ctx, a);
    });
}

// ---- Backward --------------------------------------------------------------

// dx = alpha * acc + beta * dx for the input slab `slab` (PoolingRing) of
// channels [c0, c0 + nb) of image n; acc is the slab's ring slot, which is
// zeroed for its next slab.
template <bool Unit, class T, class C>
void flush_slab(const PoolingBackwardArgs &a, const PoolingRing &ring, int64_t n, int64_t c0, int64_t nb,
                int64_t slab, C *__restrict acc) {
    const ops::PoolGeometry &g = a.g;
    const int64_t *dxs = a.dxs.s;
    const int64_t sdxc = Unit ? 1 : dxs[1];
    T *dx = static_cast<T *>(a.dx);
    const C alpha = static_cast<C>(a.alpha), beta = static_cast<C>(a.beta);
    const bool blend = a.beta != 0;
    const int64_t d0 = ring.dim == 0 ? slab : 0, d1 = ring.dim == 0 ? slab + 1 : 1;
    const int64_t h0 = ring.dim == 0 ? 0 : slab, h1 = ring.dim == 0 ? g.in[1] : slab + 1;
    C r[kLanes];
    for (int64_t id = d0; id < d1; ++id)
        for (int64_t ih = h0; ih < h1; ++ih) {
            C *ap = acc + (ring.dim == 0 ? ih * g.in[2] : 0) * a.lanes;
            T *dxp = dx + n * dxs[0] + c0 * sdxc + id * dxs[2] + ih * dxs[3];
            for (int64_t iw = 0; iw < g.in[2]; ++iw, ap += a.lanes) {
                for (int64_t l = 0; l < nb; ++l) {
                    r[l] = alpha * ap[l];
                    ap[l] = 0;
                }
                store_lanes(dxp + iw * dxs[4], sdxc, r, nb, beta, blend);
            }
        }
}

// The gradient of the channels [c0, c0 + nb) of image n: the outputs in scan
// order add into the ring (PoolingRing: the input slabs their windows
// touch), and each input slab is flushed to dx as soon as no later output
// touches it, so every dx element's sum runs in scan order while the ring
// stays in cache. Fixed: the lane count as a constant (whole vectors per
// tap), or 0.
template <bool IsMax, bool Propagate, bool Unit, int64_t Fixed, class T, class C>
void backward_item(const PoolingBackwardArgs &a, const PoolingRing &ring, int64_t n, int64_t c0, int64_t nb_run,
                   C *__restrict acc) {
    const ops::PoolGeometry &g = a.g;
    const int64_t nb = Fixed ? Fixed : nb_run;
    const int64_t lanes = a.lanes, W = g.in[2], rd = ring.dim;
    const int64_t *dys = a.dys.s, *xs = a.xs.s;
    const int64_t sdyc = Unit ? 1 : dys[1], sxc = Unit ? 1 : xs[1];
    const T *dy = static_cast<const T *>(a.dy), *x = static_cast<const T *>(a.x);
    const bool exclude = g.kind == PoolKind::avg_exclude_padding;
    const int64_t slot_elems = ring.slab * lanes;
    // The ring slot of input row (id, ih): its slab's slot, then the row in it.
    auto row_of = [&](int64_t id, int64_t ih) {
        const int64_t slab = rd == 0 ? id : ih;
        return acc + slab % g.window[rd] * slot_elems + (rd == 0 ? ih * W : 0) * lanes;
    };
    int64_t next = 0;  // the first slab not yet flushed
    auto flush_until = [&](int64_t end) {
        for (; next < end; ++next)
            flush_slab<Unit, T>(a, ring, n, c0, nb, next, acc + next % g.window[rd] * slot_elems);
    };
    for (int64_t o = 0; o < g.out[rd]; ++o) {
        // Slabs before this output's windows are final.
        const int64_t first = o * g.stride[rd] - g.pad[rd];
        flush_until(first < 0 ? 0 : first < g.in[rd] ? first : g.in[rd]);
        const int64_t od0 = rd == 0 ? o : 0, od1 = rd == 0 ? o + 1 : g.out[0];
        const int64_t oh0 = rd == 0 ? 0 : o, oh1 = rd == 0 ? g.out[1] : o + 1;
        for (int64_t od = od0; od < od1; ++od)
            for (int64_t oh = oh0; oh < oh1; ++oh)
                for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                    const TapRange td = taps(g, 0, od), th = taps(g, 1, oh), tw = taps(g, 2, ow);
                    const T *dyp = dy + n * dys[0] + c0 * sdyc + od * dys[2] + oh * dys[3] + ow * dys[4];
                    C grad[kLanes];
                    ANYDNN_LANE_LOOP
                    for (int64_t l = 0; l < nb; ++l) grad[l] = load<C>(dyp + l * sdyc);
                    if constexpr (IsMax) {
                        // The max as the forward pass finds it, then its first
                        // position: the first tap equal to it (NaN: the first
                        // NaN), two passes of vector code instead of a scatter.
                        C best[kLanes], placed[kLanes];  // placed: 1 once the gradient went to a tap
                        ANYDNN_LANE_LOOP
                        for (int64_t l = 0; l < nb; ++l) best[l] = max_start<Propagate, C>();
                        for (int64_t id = td.lo; id < td.hi; ++id)
                            for (int64_t ih = th.lo; ih < th.hi; ++ih) {
                                const T *xr = x + n * xs[0] + c0 * sxc + id * xs[2] + ih * xs[3];
                                for (int64_t iw = tw.lo; iw < tw.hi; ++iw) {
                                    const T *xp = xr + iw * xs[4];
                                    ANYDNN_LANE_LOOP
                                    for (int64_t l = 0; l < nb; ++l) {
                                        const C v = load<C>(xp + l * sxc);
                                        best[l] = max_step<Propagate>(best[l], v);
                                    }
                                }
                            }
                        C nan_max[kLanes];  // 1 where the max is NaN: the gradient goes to the first NaN
                        ANYDNN_LANE_LOOP
                        for (int64_t l = 0; l < nb; ++l) {
                            placed[l] = 0;
                            nan_max[l] = best[l] != best[l] ? 1 : 0;
                        }
                        for (int64_t id = td.lo; id < td.hi; ++id)
                            for (int64_t ih = th.lo; ih < th.hi; ++ih) {
                                const T *xr = x + n * xs[0] + c0 * sxc + id * xs[2] + ih * xs[3];
                                C *__restrict ar = row_of(id, ih);
                                for (int64_t iw = tw.lo; iw < tw.hi; ++iw) {
                                    const T *xp = xr + iw * xs[4];
                                    C *__restrict ap = ar + iw * lanes;
                                    ANYDNN_LANE_LOOP
                                    for (int64_t l = 0; l < nb; ++l) {
                                        const C v = load<C>(xp + l * sxc), m = best[l];
                                        const bool same = (v == m) | ((v != v) & (nan_max[l] != 0));
                                        const bool hit = same & (placed[l] == 0);
                                        ap[l] += hit ? grad[l] : C(0);
                                        placed[l] = hit ? 1 : placed[l];
                                    }
                                }
                            }
                    } else {
                        const int64_t count =
                            exclude ? (td.hi - td.lo) * (th.hi - th.lo) * (tw.hi - tw.lo) : g.window_size();
                        const C inv = C(1) / static_cast<C>(count);
                        ANYDNN_LANE_LOOP
                        for (int64_t l = 0; l < nb; ++l) grad[l] *= inv;
                        for (int64_t id = td.lo; id < td.hi; ++id)
                            for (int64_t ih = th.lo; ih < th.hi; ++ih) {
                                C *__restrict ar = row_of(id, ih);
                                for (int64_t iw = tw.lo; iw < tw.hi; ++iw) {
                                    C *__restrict ap = ar + iw * lanes;
                                    ANYDNN_LANE_LOOP
                                    for (int64_t l = 0; l < nb; ++l) ap[l] += grad[l];
                                }
                            }
                    }
                }
    }
    flush_until(g.in[rd]);
}

template <bool IsMax, bool Propagate, class T>
void backward_typed(const ExecContext &ctx, const PoolingBackwardArgs &a) {
    using C = compute_t<T>;
    const ops::PoolGeometry &g = a.g;
    const PoolingRing ring = pooling_ring(g);
    const int64_t blocks = (g.c + a.lanes - 1) / a.lanes, items = g.n * blocks;
    const bool unit = a.dys.s[1] == 1 && a.dxs.s[1] == 1 && (!IsMax || a.xs.s[1] == 1);
    C *scratch = static_cast<C *>(a.scratch);
    parallel_ranges(ctx, a.slots, 1, [&](int64_t begin, int64_t end) {
        for (int64_t s = begin; s < end; ++s) {
            C *acc = scratch + s * ring.elements() * a.lanes;
            for (int64_t i = 0, e = ring.elements() * a.lanes; i < e; ++i) acc[i] = 0;  // flushes re-zero
            for (int64_t item = items * s / a.slots; item < items * (s + 1) / a.slots; ++item) {
                const int64_t n = item / blocks, c0 = item % blocks * a.lanes, nb = imin_(a.lanes, g.c - c0);
                constexpr int64_t F = kPoolingBackwardMaxLanes;  // the constant-count fast path
                if (unit && nb == F) backward_item<IsMax, Propagate, true, F, T>(a, ring, n, c0, nb, acc);
                else if (unit) backward_item<IsMax, Propagate, true, 0, T>(a, ring, n, c0, nb, acc);
                else backward_item<IsMax, Propagate, false, 0, T>(a, ring, n, c0, nb, acc);
            }
        }
    });
}

void backward(const ExecContext &ctx, const PoolingBackwardArgs &a) {
    visit_float_dtype(a.g.dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if (a.g.kind != PoolKind::max) backward_typed<false, false, T>(ctx, a);
        else if (a.g.propagate_nan) backward_typed<true, true, T>(ctx, a);
        else backward_typed<true, false, T>(ctx, a);
    });
}

}  // namespace

#undef ANYDNN_LANE_LOOP

extern const PoolingKernels pooling = {forward, backward};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
