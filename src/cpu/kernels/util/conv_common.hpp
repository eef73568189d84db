// Pieces shared by the convolution kernel families (forward, backward data,
// backward filter), compiled once per ISA level with them: the output
// epilogue, the OpenMP grain, the tap walk, the planes copy of
// IMPLICIT_PRECOMP_GEMM (src/cpu/conv.hpp explains the planes), the filter
// reorder and workspace carving.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cpu/conv.hpp"
#include "cpu/gemm.hpp"
#include "cpu/kernels/util/act_math.hpp"
#include "cpu/kernels/util/common.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

template <class C>
using ActRowFn = void (*)(C *v, int64_t n, Params<C> p);

template <Act M, class C>
void act_row(C *v, int64_t n, Params<C> p) {
    for (int64_t i = 0; i < n; ++i) v[i] = act_forward<M>(v[i], p);
}

// The in-place activation of a row of values; nullptr for IDENTITY.
template <class C>
ActRowFn<C> act_row_fn(const ops::Activation &a) {
    if (a.mode == ANYDNN_ACTIVATION_IDENTITY) return nullptr;
    ActRowFn<C> f = nullptr;
    visit_act(ActivationOp{a.mode, a.propagate_nan, a.coef, a.swish_beta},
              [&](auto mode) { f = &act_row<decltype(mode)::value, C>; });
    return f;
}

// out = act(alpha * acc + bias + alpha2 * z + beta * y), stored to y. A null
// bias or z, or beta == 0, leaves that term out (y is then not read).
template <class T, class C>
struct Epilogue {
    C alpha = 1, beta = 0, alpha2 = 0;
    const T *bias = nullptr;
    int64_t bias_stride = 0;
    const T *z = nullptr;
    T *y = nullptr;
    ActRowFn<C> act = nullptr;
    Params<C> params{};

    // Whether the outputs are alpha * acc alone, stored as C where ys == 1:
    // the plain convolution's contiguous output.
    bool plain(int64_t ys) const {
        return std::is_same_v<T, C> && ys == 1 && beta == C(0) && bias == nullptr && z == nullptr && act == nullptr;
    }

    // len outputs from acc[j]: y[y_off + j * ys], z[z_off + j * zs] and the
    // bias of channel b0 + j * bstep. acc may be y's own memory.
    void run(const C *acc, int64_t len, int64_t y_off, int64_t ys, int64_t z_off, int64_t zs, int64_t b0,
             int64_t bstep) const {
        if constexpr (std::is_same_v<T, C>) {
            // plain(): no staging of v (a depthwise pixel's 64 channels spent
            // a third of their time here). Vectors by hand: acc may be y
            // itself, so GCC kept this loop scalar (43% of a 112x112
            // depthwise layer's time).
            if (plain(ys)) {
                using V = vec_t<C>;
                constexpr int64_t W = sizeof(V) / sizeof(C);
                T *yp = y + y_off;
                int64_t j = 0;
                for (; j + W <= len; j += W) store_vec(yp + j, load_vec<V>(acc + j) * alpha);
                for (; j < len; ++j) yp[j] = alpha * acc[j];
                return;
            }
        }
        constexpr int64_t kPiece = 64;
        C v[kPiece];
        for (int64_t j0 = 0; j0 < len; j0 += kPiece) {
            const int64_t n = imin_(kPiece, len - j0);
            T *yp = y + y_off + j0 * ys;
            for (int64_t j = 0; j < n; ++j) v[j] = alpha * acc[j0 + j];
            if (bias != nullptr) {
                if (bstep == 0) {
                    const C b = load<C>(bias + b0 * bias_stride);
                    for (int64_t j = 0; j < n; ++j) v[j] += b;
                } else {
                    for (int64_t j = 0; j < n; ++j) v[j] += load<C>(bias + (b0 + (j0 + j) * bstep) * bias_stride);
                }
            }
            if (z != nullptr) {
                const T *zp = z + z_off + j0 * zs;
                for (int64_t j = 0; j < n; ++j) v[j] += alpha2 * load<C>(zp + j * zs);
            }
            if (beta != C(0))
                for (int64_t j = 0; j < n; ++j) v[j] += beta * load<C>(yp + j * ys);
            if (act != nullptr) act(v, n, params);
            if (ys == 1)
                for (int64_t j = 0; j < n; ++j) store(yp + j, v[j]);
            else
                for (int64_t j = 0; j < n; ++j) store(yp + j * ys, v[j]);
        }
    }
};

// The whole output computation of p after the raw sum acc = conv(x, w).
template <class T, class C>
Epilogue<T, C> full_epilogue(const ops::ConvForwardProblem &p, const ConvOperands &o) {
    Epilogue<T, C> e;
    e.alpha = static_cast<C>(p.alpha);
    e.y = static_cast<T *>(o.y);
    if (!p.fused) {
        e.beta = static_cast<C>(p.beta);
        return e;
    }
    e.bias = static_cast<const T *>(o.bias);
    e.bias_stride = p.bias_stride;
    if (p.has_z) {
        e.z = static_cast<const T *>(o.z);
        e.alpha2 = static_cast<C>(p.alpha2);
    }
    e.act = act_row_fn<C>(p.act);
    e.params = Params<C>{static_cast<C>(p.act.coef), static_cast<C>(p.act.swish_beta)};
    return e;
}

// The epilogue over raw sums channels first: channels [c0, c0 + cb) of
// image img, output rows [r0, r0 + rows) (r = od * out[1] + oh), the sums
// of channel c0 + j at sums + j * ld, row after row of out[2].
template <class T, class C>
void epilogue_channel_rows(const Epilogue<T, C> &epi, const ops::ConvForwardProblem &p, const C *sums, int64_t ld,
                           int64_t img, int64_t c0, int64_t cb, int64_t r0, int64_t rows) {
    const ops::ConvGeometry &g = p.geo;
    for (int64_t c = c0; c < c0 + cb; ++c)
        for (int64_t r = r0; r < r0 + rows; ++r) {
            const int64_t od = r / g.out[1], oh = r % g.out[1];
            epi.run(sums + (c - c0) * ld + (r - r0) * g.out[2], g.out[2],
                    img * g.ys[0] + c * g.ys[1] + od * g.ys[2] + oh * g.ys[3], g.ys[4],
                    img * p.zs[0] + c * p.zs[1] + od * p.zs[2] + oh * p.zs[3], p.zs[4], c, 0);
        }
}

// Grain (in work items of `macs` multiply-adds each) that keeps a thread's
// share above kConvGrainMacs, so that small problems skip OpenMP's fork.
constexpr int64_t kConvGrainMacs = 1 << 16;
inline int64_t conv_grain(int64_t macs) { return 1 + kConvGrainMacs / (macs > 0 ? macs : 1); }

inline int64_t div_floor(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
inline int64_t div_ceil(int64_t a, int64_t b) { return -div_floor(-a, b); }

// The element offset in w of filter tap t, the taps numbered (kd * KH + kh)
// * KW + kw in x order (flipped in CONVOLUTION mode).
inline int64_t tap_filter_offset(const ops::ConvGeometry &g, int64_t t) {
    return g.filter_offset(t / (g.k[2] * g.k[1]), t / g.k[2] % g.k[1], t % g.k[2]);
}

// Output pixel p of an image as (od, oh, ow), stepped in pixel order.
struct OutputPixel {
    int64_t od, oh, ow;
    OutputPixel(const ops::ConvGeometry &g, int64_t p)
        : od(p / (g.out[2] * g.out[1])), oh(p / g.out[2] % g.out[1]), ow(p % g.out[2]) {}
    void next(const ops::ConvGeometry &g) {
        if (++ow < g.out[2]) return;
        ow = 0;
        if (++oh < g.out[1]) return;
        oh = 0;
        ++od;
    }
};

// Calls fn(kd, kh, id, ih) for each filter row (kd, kh) of output row (od,
// oh) whose input row (id, ih) is inside x (not padding).
template <class Fn>
ANYDNN_ALWAYS_INLINE void for_each_inside_row(const ops::ConvGeometry &g, int64_t od, int64_t oh, Fn &&fn) {
    for (int64_t kd = 0; kd < g.k[0]; ++kd) {
        const int64_t id = od * g.stride[0] + kd * g.dil[0] - g.pad[0];
        if (id < 0 || id >= g.in[0]) continue;
        for (int64_t kh = 0; kh < g.k[1]; ++kh) {
            const int64_t ih = oh * g.stride[1] + kh * g.dil[1] - g.pad[1];
            if (ih < 0 || ih >= g.in[1]) continue;
            fn(kd, kh, id, ih);
        }
    }
}

// Calls fn(kd, kh, kw, id, ih, iw) for each filter tap of output pixel
// (od, oh, ow) whose input pixel (id, ih, iw) is inside x (not padding).
template <class Fn>
ANYDNN_ALWAYS_INLINE void for_each_inside_tap(const ops::ConvGeometry &g, int64_t od, int64_t oh, int64_t ow,
                                              Fn &&fn) {
    for_each_inside_row(g, od, oh, [&](int64_t kd, int64_t kh, int64_t id, int64_t ih) {
        for (int64_t kw = 0; kw < g.k[2]; ++kw) {
            const int64_t iw = ow * g.stride[2] + kw * g.dil[2] - g.pad[2];
            if (iw < 0 || iw >= g.in[2]) continue;
            fn(kd, kh, kw, id, ih, iw);
        }
    });
}

// Rows [begin, end) of one image's planes (see ConvPrecompPlan). A row is
// L[2] pixels: channels-last rows are (phase, r0, r1) with all channels of
// each pixel, channels-first rows are (channel, phase, r0, r1).
template <class T, class C>
void fill_planes(const ops::ConvGeometry &g, const ConvPrecompPlan &pl, const T *x, C *planes, int64_t begin,
                 int64_t end) {
    if (begin >= end) return;
    const int64_t L0 = pl.L[0], L1 = pl.L[1], L2 = pl.L[2];
    const int64_t ic = g.groups * g.icg;
    const int64_t rows_per_phase = L0 * L1;
    // The row's coordinates, decomposed once and then counted up: a
    // channels-first row is a few dozen pixels, and the divisions per row
    // took longer than its copy (a quarter of a strided 3x3's filter
    // gradient at mb16).
    int64_t rest = begin;
    int64_t c = pl.channels_last ? 0 : rest / (pl.phases * rows_per_phase);
    if (!pl.channels_last) rest %= pl.phases * rows_per_phase;
    int64_t phase = rest / rows_per_phase, r0 = rest % rows_per_phase / L1, r1 = rest % L1;
    int64_t cached_phase = -1, aw = 0, rd = 0, rh = 0, lo_in = 0, hi_in = 0;
    for (int64_t q = begin; q < end; ++q) {
        if (phase != cached_phase) {
            const int64_t pw = phase % pl.residues[2], ph = phase / pl.residues[2] % pl.residues[1],
                          pd = phase / (pl.residues[2] * pl.residues[1]);
            aw = pl.residue_value[2][pw], rd = pl.residue_value[0][pd], rh = pl.residue_value[1][ph];
            // Pixels r2 in [lo_in, hi_in) of a row inside x read x; the rest is padding.
            const int64_t first = div_ceil(g.pad[2] - aw, g.stride[2]);
            lo_in = imin_(L2, first < 0 ? 0 : first);
            const int64_t hi_raw = div_ceil(g.in[2] + g.pad[2] - aw, g.stride[2]);
            hi_in = hi_raw < lo_in ? lo_in : imin_(L2, hi_raw);
            cached_phase = phase;
        }
        const int64_t id = r0 * g.stride[0] + rd - g.pad[0];
        const int64_t ih = r1 * g.stride[1] + rh - g.pad[1];
        C *dst = planes + c * pl.chan_stride + phase * pl.phase_stride + (r0 * L1 + r1) * L2 * pl.pix_stride;
        const bool row_in = id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1];
        const int64_t lo = row_in ? lo_in : L2, hi = row_in ? hi_in : L2;
        const T *src = x + c * g.xs[1] + id * g.xs[2] + ih * g.xs[3];
        if (pl.channels_last) {
            std::memset(dst, 0, static_cast<std::size_t>(lo * ic) * sizeof(C));
            for (int64_t r2 = lo; r2 < hi; ++r2) {
                const T *s = src + (r2 * g.stride[2] + aw - g.pad[2]) * g.xs[4];
                C *d = dst + r2 * ic;
                if constexpr (std::is_same_v<T, C>) {
                    if (g.xs[1] == 1) {
                        std::memcpy(d, s, static_cast<std::size_t>(ic) * sizeof(C));
                        continue;
                    }
                }
                for (int64_t k = 0; k < ic; ++k) d[k] = load<C>(s + k * g.xs[1]);
            }
            std::memset(dst + hi * ic, 0, static_cast<std::size_t>((L2 - hi) * ic) * sizeof(C));
        } else {
            for (int64_t r2 = 0; r2 < lo; ++r2) dst[r2] = C(0);
            const T *s = src + (aw - g.pad[2]) * g.xs[4];
            const int64_t step = g.stride[2] * g.xs[4];
            // Constant steps of 1 and 2 vectorize (a stride-2 phase row is
            // two loads and a permute per vector); any step is scalar.
            if (step == 1)
                for (int64_t r2 = lo; r2 < hi; ++r2) dst[r2] = load<C>(s + r2);
            else if (step == 2)
                for (int64_t r2 = lo; r2 < hi; ++r2) dst[r2] = load<C>(s + 2 * r2);
            else
                for (int64_t r2 = lo; r2 < hi; ++r2) dst[r2] = load<C>(s + r2 * step);
            for (int64_t r2 = hi; r2 < L2; ++r2) dst[r2] = C(0);
        }
        if (++r1 == L1) {
            r1 = 0;
            if (++r0 == L0) {
                r0 = 0;
                if (++phase == pl.phases) phase = 0, ++c;
            }
        }
    }
}

inline unsigned char *align64(unsigned char *p) {
    return reinterpret_cast<unsigned char *>((reinterpret_cast<std::uintptr_t>(p) + 63) & ~std::uintptr_t{63});
}

// This ISA level's own GEMM table (the shared gemm_kernels<C>(isa), an
// inline template, would be a weak symbol outside this namespace).
template <class C>
const GemmKernels<C> &isa_gemm() {
    if constexpr (sizeof(C) == 4) return gemm_f32;
    else return gemm_f64;
}

// Carves 64-byte aligned pieces off a workspace, in order.
struct WorkspaceCursor {
    unsigned char *at;
    explicit WorkspaceCursor(void *ws) : at(align64(static_cast<unsigned char *>(ws))) {}
    template <class U>
    U *take(int64_t count) {
        U *r = reinterpret_cast<U *>(at);
        at = align64(at + static_cast<std::size_t>(count) * sizeof(U));
        return r;
    }
};

// The filter as wr[group][tap][oc][ic] (tap in x order, flipped for
// CONVOLUTION), in the compute type: each tap an ocg x icg matrix; with
// pl.wr_taps_inner as wr[group][oc][tap][ic], the same matrices pl.w_ld
// apart.
template <class T, class C>
void reorder_filter(const ExecContext &ctx, const ops::ConvGeometry &g, const ConvPrecompPlan &pl, const T *w,
                    C *wr) {
    const int64_t taps = pl.taps, icg = g.icg, ocg = g.ocg;
    // An output channel at a time: its taps x icg values (a KCRS row, 18 KiB
    // for res5's 3x3) stay in L1 while every tap reads them. Tap after tap
    // over the whole filter, each pass read a KCRS filter's lines for 1 of
    // its 9 values (58% of res5bc_branch2b NCHW at mb1).
    parallel_ranges(ctx, g.groups * ocg, conv_grain(taps * icg), [&](int64_t begin, int64_t end) {
        for (int64_t q = begin; q < end; ++q) {
            const int64_t grp = q / ocg, oc = q % ocg;
            const T *s = w + q * g.ws[0];
            for (int64_t t = 0; t < taps; ++t) {
                C *d = pl.wr_taps_inner ? wr + (q * taps + t) * icg : wr + ((grp * taps + t) * ocg + oc) * icg;
                for (int64_t k = 0; k < icg; ++k) d[k] = load<C>(s + pl.tap_w[t] + k * g.ws[1]);
            }
        }
    });
}

// Rows [begin, end) of one image's dy grid (ConvBackwardPlan), from dy
// (y's strides in g) to the compute type. A grid row is the L[2] pixels of
// one (r0, r1) of the planes' extents; rows with r0 >= out[0] or r1 >=
// out[1], and the pixels past out[2], are junk and get zeros. Channels-last
// rows hold every channel of each pixel, channels-first rows are (k, r0, r1).
// The zero front of dy_front pixels is filled by the row of channel k
// whose r0 = r1 = 0.
template <class T, class C>
void fill_dy_grid(const ops::ConvGeometry &g, const ConvBackwardPlan &bp, const T *dy, C *grid, int64_t begin,
                  int64_t end) {
    const ConvPrecompPlan &pl = bp.planes;
    const int64_t L1 = pl.L[1], L2 = pl.L[2], rows = pl.L[0] * L1, oc = g.groups * g.ocg;
    for (int64_t q = begin; q < end; ++q) {
        const int64_t k = pl.channels_last ? 0 : q / rows, r = q % rows, r0 = r / L1, r1 = r % L1;
        const bool row_in = r0 < g.out[0] && r1 < g.out[1];
        const T *src = dy + k * g.ys[1] + r0 * g.ys[2] + r1 * g.ys[3];
        if (pl.channels_last) {
            C *dst = grid + (bp.dy_front + r * L2) * oc;
            if (r == 0) std::memset(grid, 0, static_cast<std::size_t>(bp.dy_front * oc) * sizeof(C));
            const int64_t valid = row_in ? g.out[2] : 0;
            for (int64_t w = 0; w < valid; ++w)
                for (int64_t c = 0; c < oc; ++c) dst[w * oc + c] = load<C>(src + w * g.ys[4] + c * g.ys[1]);
            std::memset(dst + valid * oc, 0, static_cast<std::size_t>((L2 - valid) * oc) * sizeof(C));
        } else {
            C *chan = grid + k * bp.dy_chan_stride;
            if (r == 0)
                for (int64_t i = 0; i < bp.dy_front; ++i) chan[i] = C(0);
            C *dst = chan + bp.dy_front + r * L2;
            const int64_t valid = row_in ? g.out[2] : 0;
            for (int64_t w = 0; w < valid; ++w) dst[w] = load<C>(src + w * g.ys[4]);
            for (int64_t w = valid; w < L2; ++w) dst[w] = C(0);
        }
    }
}

// Grid rows per image (fill_dy_grid's row count).
inline int64_t dy_grid_rows(const ops::ConvGeometry &g, const ConvBackwardPlan &bp) {
    const int64_t rows = bp.planes.L[0] * bp.planes.L[1];
    return bp.planes.channels_last ? rows : rows * g.groups * g.ocg;
}

template <class Fn>
void visit_types(anydnnDataType_t dt, Fn &&fn) {
    visit_float_dtype(dt, [&](auto tag) {
        using T = typename decltype(tag)::type;
        fn(TypeTag<T>{}, TypeTag<compute_t<T>>{});
    });
}

}  // namespace
}  // namespace anydnn::cpu::ANYDNN_ISA_NS
