// DIRECT for first layers (few_channels in src/cpu/conv_exec.cpp): 2-D,
// one group, C <= kFewChannelsMax input channels. As GEMMs these layers
// reduce over only C * taps values (27 for a 3x3 RGB filter) per output,
// through an im2col copy or per-tap products of k = C; here the reduction
// runs in registers: a strip of output pixels times two vectors of output
// channels accumulates every tap, each x value broadcast once per pixel and
// each filter vector loaded once per strip step.
#include <algorithm>

#include "cpu/conv.hpp"
#include "cpu/kernels/util/conv_common.hpp"
#include "cpu/kernels/util/transpose.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

// f(integral_constant<int, n>) for 1 <= n <= N.
template <int N, class F>
inline void with_count(int64_t n, F &&f) {
    if constexpr (N > 1) {
        if (n < N) return with_count<N - 1>(n, f);
    }
    f(std::integral_constant<int, N>{});
}

// ---- y channels last: vectors of output channels x pixels ------------------------------

// Two vectors of output channels by 6 pixels: 12 accumulators of the 16
// registers of AVX2 (and SSE2), + 2 filter vectors + 1 broadcast; by 12
// pixels on AVX-512's 32. Two FMA pipes of 4-cycle latency need 8 or more
// independent sums.
constexpr int kStripVectors = 2;
constexpr int kStripPixels = kVectorBytes == 64 ? 12 : 6;

// P output pixels x NV vectors of output channels, stored as alpha times
// the sums to out[p * out_step + lane]. x: the padded input of the first
// pixel's first tap; kh_count filter rows, kh_step elements apart in x,
// each a run of KW * C values (pixels pix_step apart); w: the packed
// filter from the strip's first lane, a row of `lanes` per value of a run.
template <int NV, int P, class C>
[[gnu::noinline]] void few_channels_strip(const C *x, int64_t kh_step, int64_t kh_count, int64_t run,
                                          int64_t pix_step, const C *w, int64_t lanes, C *out, int64_t out_step,
                                          C alpha) {
    using V = vec_t<C>;
    constexpr int W = kVectorBytes / sizeof(C);
    V acc[P][NV];
#pragma GCC unroll 16
    for (int p = 0; p < P; ++p)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) acc[p][v] = V{};
    for (int64_t kh = 0; kh < kh_count; ++kh) {
        const C *xr = x + kh * kh_step, *wr = w + kh * run * lanes;
        for (int64_t j = 0; j < run; ++j) {
            V wv[NV];
#pragma GCC unroll 4
            for (int v = 0; v < NV; ++v) wv[v] = load_vec<V>(wr + j * lanes + v * W);
#pragma GCC unroll 16
            for (int p = 0; p < P; ++p) {
                const C s = xr[p * pix_step + j];
#pragma GCC unroll 4
                for (int v = 0; v < NV; ++v) acc[p][v] += s * wv[v];
            }
        }
    }
#pragma GCC unroll 16
    for (int p = 0; p < P; ++p)
#pragma GCC unroll 4
        for (int v = 0; v < NV; ++v) store_vec(out + p * out_step + v * W, acc[p][v] * alpha);
}

// One output row: x at the padded row of its first filter row, the output
// channels [0, ocg) in blocks of two vectors (the filter's lanes past ocg
// are zeros), pixels in strips of kStripPixels and the rest in one strip.
template <class C>
void few_channels_row(const ops::ConvGeometry &g, const FewChannels &f, const C *x, const C *wpk, C *out,
                      int64_t out_step, C alpha) {
    constexpr int NB = kStripVectors * (kVectorBytes / sizeof(C));
    const int64_t run = g.k[2] * g.icg, kh_step = g.dil[1] * f.row_elems, pix_step = g.stride[2] * g.icg;
    for (int64_t c0 = 0; c0 < g.ocg; c0 += NB) {
        const auto strip = [&](auto pixels, int64_t ow) {
            few_channels_strip<kStripVectors, decltype(pixels)::value>(x + ow * pix_step, kh_step, g.k[1], run,
                                                                       pix_step, wpk + c0, f.lanes,
                                                                       out + ow * out_step + c0, out_step, alpha);
        };
        int64_t ow = 0;
        for (; ow + kStripPixels <= g.out[2]; ow += kStripPixels)
            strip(std::integral_constant<int, kStripPixels>{}, ow);
        if (ow < g.out[2]) with_count<kStripPixels - 1>(g.out[2] - ow, [&](auto pixels) { strip(pixels, ow); });
    }
}

// x's row at xrow as a padded row: pixel u of the row_elems / C holds x's
// column u - pad (zeros outside x), its C values side by side.
template <class T, class C>
void pad_row_channels_last(const ops::ConvGeometry &g, const FewChannels &f, const T *xrow, C *dst) {
    const int64_t c_count = g.icg, pad = g.pad[2], wp = f.row_elems / c_count;
    const int64_t lo = std::clamp<int64_t>(pad, 0, wp), hi = std::clamp<int64_t>(pad + g.in[2], lo, wp);
    std::memset(dst, 0, static_cast<std::size_t>(lo * c_count) * sizeof(C));
    std::memset(dst + hi * c_count, 0, static_cast<std::size_t>((wp - hi) * c_count) * sizeof(C));
    if (std::is_same_v<T, C> && g.xs[1] == 1 && g.xs[4] == c_count) {
        std::memcpy(dst + lo * c_count, xrow + (lo - pad) * c_count,
                    static_cast<std::size_t>((hi - lo) * c_count) * sizeof(C));
        return;
    }
    for (int64_t c = 0; c < c_count; ++c)
        for (int64_t u = lo; u < hi; ++u) dst[u * c_count + c] = load<C>(xrow + c * g.xs[1] + (u - pad) * g.xs[4]);
}

// ---- y channels first: vectors of pixels x output channels ------------------------------

// 4 output channels by 3 vectors of pixels: 12 accumulators + 3 x vectors
// + 1 broadcast of AVX2's 16 registers; 8 channels (24 accumulators) on
// AVX-512's 32.
constexpr int kColumnChannels = kVectorBytes == 64 ? 8 : 4;
constexpr int kColumnVectors = 3;

// KB output channels x PV vectors of pixels, alpha times the sums stored to
// out[k * out_ld + pixel] for the first kn channels, the last vector's
// first `tail` pixels. Products j < count: x + xoff[j] (the strip's first
// pixel in the padded rows of (c, kh), phase kw % s, shifted by kw / s)
// times the KB weights w[j * KB + k] (the strip's block of the packed
// filter). One flat loop: per (c, kh, phase) loops ran 1-4 steps.
template <int KB, int PV, class C>
[[gnu::noinline]] void few_channels_column_strip(const C *x, const int32_t *xoff, int64_t count, const C *w, C *out,
                                                 int64_t out_ld, int64_t kn, int64_t tail, C alpha) {
    using V = vec_t<C>;
    constexpr int W = kVectorBytes / sizeof(C);
    V acc[KB][PV];
#pragma GCC unroll 8
    for (int k = 0; k < KB; ++k)
#pragma GCC unroll 4
        for (int v = 0; v < PV; ++v) acc[k][v] = V{};
    for (int64_t j = 0; j < count; ++j) {
        const C *xj = x + xoff[j], *wj = w + j * KB;
        V xv[PV];
#pragma GCC unroll 4
        for (int v = 0; v < PV; ++v) xv[v] = load_vec<V>(xj + v * W);
#pragma GCC unroll 8
        for (int k = 0; k < KB; ++k) {
            const C wv = wj[k];
#pragma GCC unroll 4
            for (int v = 0; v < PV; ++v) acc[k][v] += wv * xv[v];
        }
    }
#pragma GCC unroll 8
    for (int k = 0; k < KB; ++k) {
        if (k >= kn) break;
        C *o = out + k * out_ld;
#pragma GCC unroll 4
        for (int v = 0; v < PV - 1; ++v) store_vec(o + v * W, acc[k][v] * alpha);
        if (tail == W) {
            store_vec(o + (PV - 1) * W, acc[k][PV - 1] * alpha);
        } else {
            C last[W];
            store_vec(last, acc[k][PV - 1] * alpha);
            std::memcpy(o + (PV - 1) * W, last, static_cast<std::size_t>(tail) * sizeof(C));
        }
    }
}

// One output row: x at channel 0's padded row of the row's first filter
// row; channels in blocks of kColumnChannels, pixels in strips of
// kColumnVectors vectors and the rest (whole vectors and a part) in one.
template <class C>
void few_channels_column_row(const ops::ConvGeometry &g, const FewChannels &f, const C *x, const int32_t *xoff,
                             const C *wpk, C *out, int64_t out_ld, C alpha) {
    constexpr int W = kVectorBytes / sizeof(C), step = kColumnVectors * W;
    const int64_t count = g.icg * g.taps(), out_w = g.out[2];
    for (int64_t k0 = 0; k0 < g.ocg; k0 += kColumnChannels) {
        const auto strip = [&](auto vectors, int64_t ow, int64_t tail) {
            few_channels_column_strip<kColumnChannels, decltype(vectors)::value>(
                x + ow, xoff, count, wpk + k0 * count, out + k0 * out_ld + ow, out_ld,
                imin_(kColumnChannels, g.ocg - k0), tail, alpha);
        };
        int64_t ow = 0;
        for (; ow + step <= out_w; ow += step) strip(std::integral_constant<int, kColumnVectors>{}, ow, W);
        if (ow < out_w) {
            const int64_t vectors = ceil_div(out_w - ow, W), tail = out_w - ow - (vectors - 1) * W;
            with_count<kColumnVectors>(vectors, [&](auto v) { strip(v, ow, tail); });
        }
    }
}

// x's row at xrow (channel 0) as C padded rows, each split by column phase:
// phase a's element i holds padded column u = i * s + a, x's column u - pad
// (zeros outside x and past the row's last vector). With stride the row is
// padded in `scratch` first (row_elems), then split.
template <class T, class C>
void pad_row_channels_first(const ops::ConvGeometry &g, const FewChannels &f, const T *xrow, C *dst, C *scratch) {
    const int64_t s = g.stride[2], pad = g.pad[2], n = f.row_elems, chan_step = f.padded_rows * n;
    const int64_t lo = std::clamp<int64_t>(pad, 0, n), hi = std::clamp<int64_t>(pad + g.in[2], lo, n);
    for (int64_t c = 0; c < g.icg; ++c) {
        C *d = dst + c * chan_step, *row = s == 1 ? d : scratch;
        const T *xc = xrow + c * g.xs[1];
        std::memset(row, 0, static_cast<std::size_t>(lo) * sizeof(C));
        std::memset(row + hi, 0, static_cast<std::size_t>(n - hi) * sizeof(C));
        if (std::is_same_v<T, C> && g.xs[4] == 1)
            std::memcpy(row + lo, xc + lo - pad, static_cast<std::size_t>(hi - lo) * sizeof(C));
        else
            for (int64_t u = lo; u < hi; ++u) row[u] = load<C>(xc + (u - pad) * g.xs[4]);
        if (s == 2) {
            deinterleave_pair(row, f.phase_elems, d, d + f.phase_elems);
        } else if (s > 2) {
            for (int64_t a = 0; a < s; ++a)
                for (int64_t i = 0; i < f.phase_elems; ++i) d[a * f.phase_elems + i] = row[i * s + a];
        }
    }
}

// ---- The driver -------------------------------------------------------------------------

// The padded rows that output rows [oh0, oh0 + nb) of image ximg read,
// into xp (rows outside x zero).
template <class T, class C>
void pad_band(const ops::ConvGeometry &g, const FewChannels &f, const T *ximg, int64_t oh0, int64_t nb, C *xp,
              C *scratch) {
    const int64_t top = oh0 * g.stride[1] - g.pad[1], hp = (nb - 1) * g.stride[1] + (g.k[1] - 1) * g.dil[1] + 1;
    const int64_t copies = f.channels_first ? g.icg : 1, chan_elems = f.padded_rows * f.row_elems;
    for (int64_t r = 0; r < hp; ++r) {
        const int64_t ih = top + r;
        C *dst = xp + r * f.row_elems;
        if (ih < 0 || ih >= g.in[1]) {
            for (int64_t c = 0; c < copies; ++c)
                std::memset(dst + c * chan_elems, 0, static_cast<std::size_t>(f.row_elems) * sizeof(C));
        } else if (f.channels_first) {
            pad_row_channels_first(g, f, ximg + ih * g.xs[3], dst, scratch);
        } else {
            pad_row_channels_last(g, f, ximg + ih * g.xs[3], dst);
        }
    }
}

// Workers take (image, band) items in order. Per item: the padded rows,
// the strips of each output row, storing alpha * sums straight into y when
// the epilogue is plain (channels last: and the strips' blocks of channels
// whole), else the band's sums into the worker's buffer for the epilogue.
template <class T, class C>
void few_channels_typed(const ExecContext &ctx, const ops::ConvForwardProblem &p, const FewChannels &f,
                        const ConvOperands &o, void *workspace) {
    const ops::ConvGeometry &g = p.geo;
    const Epilogue<T, C> epi = full_epilogue<T, C>(p, o);
    constexpr int NB = kStripVectors * (kVectorBytes / sizeof(C));
    const int64_t icg = g.icg, ocg = g.ocg, taps = g.taps(), out_w = g.out[2];
    const int64_t bands = ceil_div(g.out[1], f.band), items = g.n * bands;
    const bool direct = f.channels_first ? epi.plain(1) : epi.plain(g.ys[1]) && ocg % NB == 0;
    const C alpha = direct ? epi.alpha : C(1);

    // The packed filter: (c, tap t)'s lane k from w's (k, c, t); channels
    // first, a strip's block of kColumnChannels lanes whole.
    WorkspaceCursor cur(workspace);
    C *wpk = cur.take<C>(f.filter_elems);
    void *buffers = cur.at;
    const T *w = static_cast<const T *>(o.w);
    for (int64_t t = 0; t < taps; ++t)
        for (int64_t c = 0; c < icg; ++c) {
            const T *wt = w + c * g.ws[1] + tap_filter_offset(g, t);
            for (int64_t k = 0; k < f.lanes; ++k) {
                const int64_t at = f.channels_first ? (k - k % kColumnChannels) * icg * taps +
                                                          (c * taps + t) * kColumnChannels + k % kColumnChannels
                                                    : (t * icg + c) * f.lanes + k;
                wpk[at] = k < ocg ? load<C>(wt + k * g.ws[0]) : C(0);
            }
        }

    const int64_t item_macs = f.band * out_w * ocg * taps * icg;
    const int workers =
        static_cast<int>(std::clamp<int64_t>(imin_(ctx.threads, items / conv_grain(item_macs)), 1, 64));
    const int64_t chan_elems = f.channels_first ? f.padded_rows * f.row_elems : 0;
    // Channels first: the products' x offsets in the packed filter's order.
    int32_t xoff[kFewChannelsMaxProducts];
    if (f.channels_first)
        for (int64_t c = 0, j = 0; c < icg; ++c)
            for (int64_t t = 0; t < taps; ++t, ++j) {
                const int64_t kh = t / g.k[2], kw = t % g.k[2];
                xoff[j] = static_cast<int32_t>(c * chan_elems + kh * g.dil[1] * f.row_elems +
                                               kw % g.stride[2] * f.phase_elems + kw / g.stride[2]);
            }
    parallel_workers(workers, [&](int t) {
        WorkspaceCursor wc(buffers);
        C *xp = nullptr;
        for (int k = 0; k <= t; ++k) xp = wc.take<C>(f.worker_elems);
        C *sums = xp + f.padded_rows * f.row_elems * (f.channels_first ? icg : 1);
        C *scratch = sums + f.band * out_w * f.lanes;  // channels first: a padded row
        const int64_t sums_ld = f.band * out_w;  // channels first: between the sums' channels
        for (int64_t q = items * t / workers; q < items * (t + 1) / workers; ++q) {
            const int64_t img = q / bands, oh0 = q % bands * f.band, nb = imin_(f.band, g.out[1] - oh0);
            pad_band(g, f, static_cast<const T *>(o.x) + img * g.xs[0], oh0, nb, xp, scratch);
            C *y = reinterpret_cast<C *>(o.y) + img * g.ys[0];
            for (int64_t r = 0; r < nb; ++r) {
                const C *x = xp + r * g.stride[1] * f.row_elems;
                const int64_t oh = oh0 + r;
                if (f.channels_first) {
                    if (direct) few_channels_column_row(g, f, x, xoff, wpk, y + oh * g.ys[3], g.ys[1], alpha);
                    else few_channels_column_row(g, f, x, xoff, wpk, sums + r * out_w, sums_ld, alpha);
                } else {
                    if (direct) few_channels_row(g, f, x, wpk, y + oh * g.ys[3], g.ys[4], alpha);
                    else few_channels_row(g, f, x, wpk, sums + r * out_w * f.lanes, f.lanes, alpha);
                }
            }
            if (direct) continue;
            if (f.channels_first) {
                epilogue_channel_rows(epi, p, sums, sums_ld, img, 0, ocg, oh0, nb);
                continue;
            }
            for (int64_t i = 0; i < nb * out_w; ++i) {
                const int64_t oh = oh0 + i / out_w, ow = i % out_w;
                epi.run(sums + i * f.lanes, ocg, img * g.ys[0] + oh * g.ys[3] + ow * g.ys[4], g.ys[1],
                        img * p.zs[0] + oh * p.zs[3] + ow * p.zs[4], p.zs[1], 0, 1);
            }
        }
    });
}

void few_channels_run(const ExecContext &ctx, const ops::ConvForwardProblem &p, const FewChannels &f,
                      const ConvOperands &o, void *ws) {
    visit_types(p.geo.dt, [&](auto t, auto c) {
        few_channels_typed<typename decltype(t)::type, typename decltype(c)::type>(ctx, p, f, o, ws);
    });
}

}  // namespace

extern const ConvFewChannelsKernels conv_few_channels = {few_channels_run};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
