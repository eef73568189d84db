// Forward convolution kernels, compiled once per ISA level: the planes copy
// and batch-reduce GEMM driver of IMPLICIT_PRECOMP_GEMM, the direct loops of
// IMPLICIT_GEMM and DIRECT (depthwise), and the fused epilogue they share
// (alpha/beta blend, bias, z, activation, conversion to the storage type).
#include <omp.h>

#include <algorithm>

#include "cpu/conv.hpp"
#include "cpu/gemm.hpp"
#include "cpu/kernels/util/conv_common.hpp"
#include "cpu/kernels/util/conv_im2col.hpp"
#include "cpu/kernels/util/depthwise_columns.hpp"
#include "cpu/kernels/util/gemm_dots.hpp"
#include "cpu/kernels/util/transpose.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

// ---- IMPLICIT_PRECOMP_GEMM ------------------------------------------------------------

template <class T, class C>
struct PrecompPostCtx {
    const ops::ConvGeometry *geo;
    const ConvPrecompPlan *plan;
    Epilogue<T, C> epi;
    int64_t y_base, z_base;  // the image's offsets in y and z
    const int64_t *zs;
    int64_t group, i0;       // the GEMM's group and first pixel
};

// The GEMM post-op: a finished block of C (raw sums in the scratch, or y
// itself when y_direct) through the epilogue into y, skipping junk pixels.
template <class T, class C>
void precomp_post(C *c, int64_t ldc, int64_t m, int64_t n, int64_t row0, int64_t col0, const void *vctx) noexcept {
    const auto &x = *static_cast<const PrecompPostCtx<T, C> *>(vctx);
    const ops::ConvGeometry &g = *x.geo;
    const ConvPrecompPlan &pl = *x.plan;
    // b_gather's columns are y's pixels, the others' the planes'.
    const int64_t L1 = pl.b_gather ? g.out[1] : pl.L[1], L2 = pl.b_gather ? g.out[2] : pl.L[2];
    const int64_t *ys = g.ys, *zs = x.zs;
    if (!pl.filter_a) {
        const int64_t oc0 = x.group * g.ocg + col0;
        for (int64_t r = 0; r < m; ++r) {
            const int64_t i = x.i0 + row0 + r, ow = i % L2, oh = i / L2 % L1, od = i / (L2 * L1);
            if (ow >= g.out[2] || oh >= g.out[1]) continue;
            x.epi.run(c + r * ldc, n, x.y_base + oc0 * ys[1] + od * ys[2] + oh * ys[3] + ow * ys[4], ys[1],
                      x.z_base + oc0 * zs[1] + od * zs[2] + oh * zs[3] + ow * zs[4], zs[1], oc0, 1);
        }
        return;
    }
    for (int64_t r = 0; r < m; ++r) {
        const int64_t oc = x.group * g.ocg + row0 + r;
        for (int64_t j = 0; j < n;) {
            const int64_t i = x.i0 + col0 + j, ow = i % L2, oh = i / L2 % L1, od = i / (L2 * L1);
            const int64_t run = imin_(n - j, L2 - ow);
            if (oh < g.out[1] && ow < g.out[2])
                x.epi.run(c + r * ldc + j, imin_(run, g.out[2] - ow),
                          x.y_base + oc * ys[1] + od * ys[2] + oh * ys[3] + ow * ys[4], ys[4],
                          x.z_base + oc * zs[1] + od * zs[2] + oh * zs[3] + ow * zs[4], zs[4], oc, 0);
            j += run;
        }
    }
}

#if ANYDNN_ISA_avx512
// x's pixel rows for the dot products: output pixel j (images one after
// the other) gets its receptive field at xr + j * ld in the filter's
// reduction order (taps_inner: (channel, tap), else (tap, channel)), zeros
// for taps in the padding and past the reduction to the next multiple of
// 16 (the tiles' last vector). A 1x1 filter on packed channels-first x
// with every input pixel an output pixel is a transpose of each image, in
// ranges of channels.
inline void pixel_dots_rows(const ops::ConvGeometry &g, const float *x, bool taps_inner, int64_t ld, float *xr) {
    const int64_t ic = g.icg, taps = g.taps(), op = g.out_pixels(), k_total = ic * taps,
                  width = round_up(k_total, 16);
    const bool same_pixels = g.in[0] == g.out[0] && g.in[1] == g.out[1] && g.in[2] == g.out[2] &&
                             g.pad[0] == 0 && g.pad[1] == 0 && g.pad[2] == 0;
    if (taps == 1 && g.xs[1] != 1 && same_pixels && g.xs[4] == 1 && conv_packed_spatial(g.in, g.xs, 1)) {
        constexpr int64_t kChannels = 64;
        const int64_t ranges = ceil_div(ic, kChannels);
        for (int64_t q = 0; q < g.n * ranges; ++q) {
            const int64_t img = q / ranges, c0 = q % ranges * kChannels, cn = imin_(kChannels, ic - c0);
            float *rows = xr + img * op * ld;
            transpose_elements(sizeof(float), x + img * g.xs[0] + c0 * g.xs[1], g.xs[1], rows + c0, ld, op, cn);
            if (c0 + cn == ic)
                for (int64_t j = 0; j < op; ++j)
                    for (int64_t c = ic; c < width; ++c) rows[j * ld + c] = 0.0f;
        }
        return;
    }
    const int64_t m = g.n * op;
    int64_t off[kConvMaxTaps];  // tap t's input pixel's offset in the image, or -1 in the padding
    const auto offsets = [&](int64_t j) {
        const OutputPixel px(g, j % op);
        for (int64_t kd = 0, t = 0; kd < g.k[0]; ++kd)
            for (int64_t kh = 0; kh < g.k[1]; ++kh)
                for (int64_t kw = 0; kw < g.k[2]; ++kw, ++t) {
                    const int64_t id = px.od * g.stride[0] - g.pad[0] + kd * g.dil[0],
                                  ih = px.oh * g.stride[1] - g.pad[1] + kh * g.dil[1],
                                  iw = px.ow * g.stride[2] - g.pad[2] + kw * g.dil[2];
                    off[t] = id >= 0 && id < g.in[0] && ih >= 0 && ih < g.in[1] && iw >= 0 && iw < g.in[2]
                                 ? id * g.xs[2] + ih * g.xs[3] + iw * g.xs[4]
                                 : -1;
                }
        return x + j / op * g.xs[0];
    };
    if (taps_inner) {
        // kPlanes channels at a time for every pixel: their planes stay in
        // L1 (a pixel at a time over all channels ran every plane through L1
        // for each pixel: 11% of res5bc_branch2b channels first).
        constexpr int64_t kPlanes = 16;
        for (int64_t c0 = 0; c0 < ic; c0 += kPlanes)
            for (int64_t j = 0; j < m; ++j) {
                const float *ximg = offsets(j);
                float *row = xr + j * ld;
                for (int64_t c = c0; c < imin_(c0 + kPlanes, ic); ++c)
                    for (int64_t t = 0; t < taps; ++t)
                        row[c * taps + t] = off[t] >= 0 ? ximg[off[t] + c * g.xs[1]] : 0.0f;
            }
    } else {
        for (int64_t j = 0; j < m; ++j) {
            const float *ximg = offsets(j);
            float *row = xr + j * ld;
            for (int64_t t = 0; t < taps; ++t) {
                float *dst = row + t * ic;
                if (off[t] < 0) std::memset(dst, 0, static_cast<std::size_t>(ic) * sizeof(float));
                else if (g.xs[1] == 1) std::memcpy(dst, ximg + off[t], static_cast<std::size_t>(ic) * sizeof(float));
                else
                    for (int64_t c = 0; c < ic; ++c) dst[c] = ximg[off[t] + c * g.xs[1]];
            }
        }
    }
    for (int64_t j = 0; j < m; ++j)
        for (int64_t c = k_total; c < width; ++c) xr[j * ld + c] = 0.0f;
}

// IMPLICIT_PRECOMP_GEMM by dot products (ConvPrecompPlan::pixel_dots):
// x's pixel rows against the filter's rows in place. The workers each copy
// x's rows for themselves (or read x in place), then take ranges of output
// channels, kDotCols at a time, their sums in the workspace, and run the
// epilogue on them: one parallel region, no barrier. (Halves of one copy,
// a barrier, then both reading all of it: channels first on 2 threads
// MobileNet-v2's b14_project took 85 us against 54 by the GEMM, the rows
// crossing between the cores; a region for the copy and another for the
// products cost a tenth of it in the second fork.) The reduction goes in
// blocks that keep a tile's filter rows in L1 (dot_rows).
void precomp_pixel_dots(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvPrecompPlan &pl,
                        const ConvOperands &o, void *workspace) {
    const ops::ConvGeometry &g = p.geo;
    const int64_t op = g.out_pixels(), m = g.n * op, ld = pl.dots_ld, k_total = g.icg * g.taps();
    const float *x = static_cast<const float *>(o.x), *w = static_cast<const float *>(o.w);
    WorkspaceCursor cur(workspace);
    float *sums = cur.take<float>(m * g.ocg), *xr = pl.x_direct ? nullptr : cur.take<float>(pl.workers * m * ld);
    const Epilogue<float, float> epi = full_epilogue<float, float>(p, o);
    const int64_t blocks = ceil_div(g.ocg, kDotCols);
    const int64_t workers = imin_(imin_(ctx.threads, pl.workers), blocks / conv_grain(m * kDotCols * k_total));
    const auto work = [&](int64_t t, int64_t team) {
        const float *rows = x;
        if (!pl.x_direct) {
            float *own = xr + t * m * ld;
            pixel_dots_rows(g, x, pl.dots_taps_inner, ld, own);
            rows = own;
        }
        const int64_t k0 = blocks * t / team * kDotCols, kn = imin_(blocks * (t + 1) / team * kDotCols, g.ocg) - k0;
        dot_rows(rows, ld, m, w + k0 * g.ws[0], g.ws[0], kn, k_total, sums + k0, g.ocg);
        for (int64_t j = 0; j < m; ++j) {
            const OutputPixel px(g, j % op);
            const int64_t img = j / op;
            epi.run(sums + j * g.ocg + k0, kn,
                    img * g.ys[0] + px.od * g.ys[2] + px.oh * g.ys[3] + px.ow * g.ys[4] + k0 * g.ys[1], g.ys[1],
                    img * p.zs[0] + px.od * p.zs[2] + px.oh * p.zs[3] + px.ow * p.zs[4] + k0 * p.zs[1], p.zs[1], k0,
                    1);
        }
    };
    if (workers <= 1) {
        work(0, 1);
        return;
    }
#pragma omp parallel num_threads(static_cast<int>(workers))
    work(omp_get_thread_num(), omp_get_num_threads());
}

#endif  // ANYDNN_ISA_avx512

template <class T, class C>
void precomp_typed(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvPrecompPlan &pl,
                   const ConvOperands &o, void *workspace) {
#if ANYDNN_ISA_avx512
    if constexpr (std::is_same_v<T, float> && std::is_same_v<C, float>) {
        if (pl.pixel_dots) return precomp_pixel_dots(ctx, p, pl, o, workspace);
    }
#endif
    const ops::ConvGeometry &g = p.geo;
    const GemmKernels<C> &gk = isa_gemm<C>();
    const int64_t taps = pl.taps, icg = g.icg, ocg = g.ocg, ic = g.groups * icg;

    // Workspace: the reordered filter, the packed filter, then per worker
    // its planes, scratch, tap pointers and GEMM workspace, each 64-byte
    // aligned.
    WorkspaceCursor cur(workspace);
    C *wr = pl.w_direct ? nullptr : cur.take<C>(pl.wr_elems);
    C *wpk = pl.wpk_group_elems > 0 ? cur.take<C>(g.groups * pl.wpk_group_elems) : nullptr;
    struct Worker {
        C *planes, *scratch;
        const C **a, **b;
        void *gemm_ws;
    };
    Worker workers[64];
    const int nworkers = pl.workers < 64 ? pl.workers : 64;
    for (int t = 0; t < nworkers; ++t) {
        Worker &wk = workers[t];
        wk.planes = cur.take<C>(pl.image_elems + pl.chunk * pl.im2col_ld);  // planes or an im2col chunk
        wk.scratch = cur.take<C>(pl.scratch_elems);
        wk.a = cur.take<const C *>(taps);
        wk.b = cur.take<const C *>(taps);
        wk.gemm_ws = cur.take<unsigned char>(static_cast<int64_t>(pl.gemm_ws_bytes));
    }

    const T *w = static_cast<const T *>(o.w);
    if (!pl.w_direct && !pl.b_gather) reorder_filter(ctx, g, pl, w, wr);
    auto filter_tap = [&](int64_t grp, int64_t t) -> const C * {
        if (pl.w_direct) return reinterpret_cast<const C *>(w) + grp * ocg * g.ws[0] + pl.tap_w[t];
        if (pl.wr_taps_inner) return wr + (grp * ocg * taps + t) * icg;
        return wr + (grp * taps + t) * ocg * icg;
    };
    const int64_t w_ld = pl.w_ld;
    if (wpk != nullptr)
        for (int64_t grp = 0; grp < g.groups; ++grp) {
            const C **taps_w = workers[0].b;  // the first worker's tap pointers, free until its first image
            for (int64_t t = 0; t < taps; ++t) taps_w[t] = filter_tap(grp, t);
            if (!pl.filter_a) gk.pack_b(ctx, true, ocg, icg, taps, taps_w, w_ld, wpk + grp * pl.wpk_group_elems);
            else gk.pack_a(ctx, false, ocg, icg, taps, taps_w, w_ld, wpk + grp * pl.wpk_group_elems);
        }

    // The epilogue: in the post-op from the scratch, or (y_direct) partly in
    // the GEMM (alpha, beta, z == y as beta) and the rest in place on y.
    Epilogue<T, C> post = full_epilogue<T, C>(p, o);
    C gemm_alpha = 1, gemm_beta = 0;
    bool need_post = true;
    if (pl.y_direct) {
        gemm_alpha = post.alpha;
        gemm_beta = p.fused ? (p.z_is_y ? post.alpha2 : C(0)) : post.beta;
        post.alpha = 1;
        post.beta = 0;
        if (p.z_is_y) post.z = nullptr;
        need_post = p.fused && (post.bias != nullptr || post.z != nullptr || post.act != nullptr);
    }

    // C of GEMM a, pixels [i0, i0 + len) of image img and group grp: y itself
    // (y_direct) or the worker's scratch, through the post-op at pc when
    // needed.
    auto set_output = [&](auto &a, Worker &wk, int64_t img, int64_t grp, int64_t i0, int64_t len,
                          PrecompPostCtx<T, C> &pc) {
        a.alpha = gemm_alpha;
        a.beta = gemm_beta;
        if (pl.y_direct) {
            C *y = static_cast<C *>(o.y) + img * g.ys[0] + grp * ocg * g.ys[1];
            a.c = !pl.filter_a ? y + i0 * g.ys[4] : y + i0;
            a.ldc = !pl.filter_a ? g.ys[4] : g.ys[1];
        } else {
            a.c = wk.scratch;
            a.ldc = !pl.filter_a ? ocg : len;
        }
        pc = PrecompPostCtx<T, C>{&g, &pl, post, img * g.ys[0], img * p.zs[0], p.zs, grp, i0};
        if (need_post) {
            a.epilogue.post_op = &precomp_post<T, C>;
            a.epilogue.post_op_ctx = &pc;
        }
    };

    if (pl.im2col_cols > 0) {
        // One group, channels last: chunk q of image img is rows [i0, i0 +
        // len) of the im2col matrix (in the worker's planes) times the
        // packed filter.
        const int64_t chunks = (pl.m_virtual + pl.chunk - 1) / pl.chunk, items = g.n * chunks;
        const ExecContext inner{pl.outer_parallel ? 1 : ctx.threads};
        auto chunk = [&](Worker &wk, int64_t item) {
            const int64_t img = item / chunks, i0 = item % chunks * pl.chunk, len = imin_(pl.chunk, pl.m_virtual - i0);
            const T *x = static_cast<const T *>(o.x) + img * g.xs[0];
            OutputPixel px(g, i0);
            for (int64_t r = 0; r < len; ++r, px.next(g))
                im2col_row(g, x, px.od, px.oh, px.ow, pl.im2col_ld, len, r, wk.planes);
            GemmArgs<C> a;
            a.m = len, a.n = ocg, a.k = pl.im2col_cols;
            a.a = wk.planes, a.lda = pl.im2col_ld;
            a.b = a.b_packed = wpk, a.ldb = ocg;
            PrecompPostCtx<T, C> pc;
            set_output(a, wk, img, 0, i0, len, pc);
            gk.gemm(inner, a, wk.gemm_ws);
        };
        if (pl.outer_parallel) {
#pragma omp parallel num_threads(nworkers)
            {
                const int t = omp_get_thread_num(), team = omp_get_num_threads();
                for (int64_t item = t; item < items; item += team) chunk(workers[t], item);
            }
        } else {
            for (int64_t item = 0; item < items; ++item) chunk(workers[0], item);
        }
        return;
    }

    // Image img's planes: x itself, or filled into the worker's.
    const int64_t rows = pl.channels_last ? pl.phases * pl.L[0] * pl.L[1] : ic * pl.phases * pl.L[0] * pl.L[1];
    auto image_planes = [&](Worker &wk, int64_t img, const ExecContext &inner) -> const C * {
        if (pl.x_direct) return reinterpret_cast<const C *>(o.x) + img * g.xs[0];
        const T *x = static_cast<const T *>(o.x) + img * g.xs[0];
        const int64_t grain = imin_(rows, 1 + kElementwiseGrain / (pl.L[2] * (pl.channels_last ? ic : 1)));
        parallel_ranges(inner, rows, grain, [&](int64_t b, int64_t e) { fill_planes(g, pl, x, wk.planes, b, e); });
        return wk.planes;
    };

    if (pl.b_gather) {
        // One image, one group: B's element (k, j) is reduction step k (tap t
        // and channel c in the filter's order) of y's pixel j, at row_off[k]
        // + col_off[j] in the planes; packed by them, one GEMM.
        const int64_t k_total = taps * icg, n = pl.m_virtual;
        int64_t *row_off = cur.take<int64_t>(k_total), *col_off = cur.take<int64_t>(n);
        C *bpk = cur.take<C>(static_cast<int64_t>(gk.packed_b_size(n, k_total) / sizeof(C)));
        for (int64_t t = 0; t < taps; ++t)
            for (int64_t c = 0; c < icg; ++c)
                row_off[pl.channels_last ? t * icg + c : c * taps + t] =
                    pl.tap_phase[t] * pl.phase_stride + pl.tap_pixel[t] * pl.pix_stride + c * pl.chan_stride;
        int64_t j = 0;
        for (int64_t od = 0; od < g.out[0]; ++od)
            for (int64_t oh = 0; oh < g.out[1]; ++oh)
                for (int64_t ow = 0; ow < g.out[2]; ++ow)
                    col_off[j++] = ((od * pl.L[1] + oh) * pl.L[2] + ow) * pl.pix_stride;
        gk.pack_b_gather(ctx, n, k_total, image_planes(workers[0], 0, ctx), row_off, col_off, bpk);
        GemmArgs<C> a;
        a.m = ocg, a.n = n, a.k = k_total;
        a.a = reinterpret_cast<const C *>(w), a.lda = pl.w_ld;
        a.b = a.b_packed = bpk, a.ldb = n;
        PrecompPostCtx<T, C> pc;
        set_output(a, workers[0], 0, 0, 0, n, pc);
        gk.gemm(ctx, a, workers[0].gemm_ws);
        return;
    }

    auto image = [&](Worker &wk, int64_t img, const ExecContext &inner) {
        const C *planes = image_planes(wk, img, inner);
        for (int64_t grp = 0; grp < g.groups; ++grp) {
            for (int64_t i0 = 0; i0 < pl.m_virtual; i0 += pl.chunk) {
                const int64_t len = imin_(pl.chunk, pl.m_virtual - i0);
                BrgemmArgs<C> a;
                a.k = icg;
                a.batch = taps;
                const C *x_grp = planes + grp * icg * pl.chan_stride;
                for (int64_t t = 0; t < taps; ++t) {
                    const C *xt = x_grp + pl.tap_phase[t] * pl.phase_stride + (i0 + pl.tap_pixel[t]) * pl.pix_stride;
                    if (!pl.filter_a) {
                        wk.a[t] = xt;
                        wk.b[t] = filter_tap(grp, t);
                    } else {
                        wk.a[t] = filter_tap(grp, t);
                        wk.b[t] = xt;
                    }
                }
                a.a = wk.a;
                a.b = wk.b;
                const C *wpk_grp = wpk != nullptr ? wpk + grp * pl.wpk_group_elems : nullptr;
                (!pl.filter_a ? a.b_packed : a.a_packed) = wpk_grp;
                if (!pl.filter_a) {
                    a.m = len, a.n = ocg, a.lda = pl.pix_stride, a.trans_b = true, a.ldb = w_ld;
                } else {
                    // x's planes as B: [ic][pixel], or [pixel][ic] (B^T) channels last.
                    a.m = ocg, a.n = len, a.lda = w_ld;
                    a.trans_b = pl.channels_last;
                    a.ldb = pl.channels_last ? pl.pix_stride : pl.chan_stride;
                }
                PrecompPostCtx<T, C> pc;
                set_output(a, wk, img, grp, i0, len, pc);
                gk.brgemm(inner, a, wk.gemm_ws);
            }
        }
    };

    if (pl.outer_parallel) {
#pragma omp parallel num_threads(nworkers)
        {
            const int t = omp_get_thread_num(), team = omp_get_num_threads();
            for (int64_t img = t; img < g.n; img += team) image(workers[t], img, ExecContext{1});
        }
    } else {
        for (int64_t img = 0; img < g.n; ++img) image(workers[0], img, ctx);
    }
}

// ---- IMPLICIT_GEMM: direct loops, no workspace ----------------------------------------

constexpr int64_t kOcBlock = 64;

template <class T, class C>
void implicit_typed(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvOperands &o) {
    const ops::ConvGeometry &g = p.geo;
    const Epilogue<T, C> epi = full_epilogue<T, C>(p, o);
    const T *x = static_cast<const T *>(o.x), *w = static_cast<const T *>(o.w);
    const int64_t rows = g.n * g.groups * g.out[0] * g.out[1];
    parallel_ranges(ctx, rows, conv_grain(g.out[2] * g.ocg * g.icg * g.taps()), [&](int64_t begin, int64_t end) {
        C acc[kOcBlock];
        for (int64_t q = begin; q < end; ++q) {
            const int64_t oh = q % g.out[1], od = q / g.out[1] % g.out[0];
            const int64_t grp = q / (g.out[1] * g.out[0]) % g.groups, img = q / (g.out[1] * g.out[0] * g.groups);
            for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                for (int64_t oc0 = 0; oc0 < g.ocg; oc0 += kOcBlock) {
                    const int64_t nb = imin_(kOcBlock, g.ocg - oc0), oc_first = grp * g.ocg + oc0;
                    for (int64_t j = 0; j < nb; ++j) acc[j] = C(0);
                    for_each_inside_tap(g, od, oh, ow, [&](int64_t kd, int64_t kh, int64_t kw, int64_t id, int64_t ih,
                                                           int64_t iw) {
                        const T *xp = x + img * g.xs[0] + grp * g.icg * g.xs[1] + id * g.xs[2] + ih * g.xs[3] +
                                      iw * g.xs[4];
                        const T *wp = w + oc_first * g.ws[0] + g.filter_offset(kd, kh, kw);
                        for (int64_t c = 0; c < g.icg; ++c) {
                            const C xv = load<C>(xp + c * g.xs[1]);
                            const T *wc = wp + c * g.ws[1];
                            for (int64_t j = 0; j < nb; ++j) acc[j] += xv * load<C>(wc + j * g.ws[0]);
                        }
                    });
                    epi.run(acc, nb, img * g.ys[0] + oc_first * g.ys[1] + od * g.ys[2] + oh * g.ys[3] + ow * g.ys[4],
                            g.ys[1], img * p.zs[0] + oc_first * p.zs[1] + od * p.zs[2] + oh * p.zs[3] + ow * p.zs[4],
                            p.zs[1], oc_first, 1);
                }
            }
        }
    });
}

// ---- DIRECT: depthwise (C/groups == 1) ------------------------------------------------

// wr[t * K + oc]: the filter by tap, channels contiguous.
template <class T, class C>
void depthwise_filter(const ExecContext &ctx, const ops::ConvGeometry &g, const T *w, C *wr) {
    const int64_t oc_total = g.groups * g.ocg;
    parallel_ranges(ctx, g.taps(), conv_grain(g.groups * g.ocg), [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
            const int64_t off = tap_filter_offset(g, t);
            for (int64_t oc = 0; oc < oc_total; ++oc) wr[t * oc_total + oc] = load<C>(w + oc * g.ws[0] + off);
        }
    });
}

// out[t * ld + j] = tap t of channel j < n of w (channels ws[0] apart,
// one output channel each), the filter of a chunk or block of channels as
// its kernel reads it: a transpose of the channels' tap rows when the taps
// lie in order (taps_in_order: g.taps_at(1), cross-correlation, packed);
// element by element it was a third of a 7 x 7 layer's time (b15_dw).
template <class C>
void depthwise_chunk_filter(const ops::ConvGeometry &g, const C *w, int64_t n, bool taps_in_order, C *out,
                            int64_t ld) {
    if (taps_in_order) return transpose_elements(sizeof(C), w, g.ws[0], out, ld, g.taps(), n);
    for (int64_t t = 0; t < g.taps(); ++t) {
        const int64_t off = tap_filter_offset(g, t);
        for (int64_t j = 0; j < n; ++j) out[t * ld + j] = w[j * g.ws[0] + off];
    }
}

// Channels innermost, with channel multipliers (output channel c reads x
// channel c / multiplier): a block of output pixels x channels accumulates
// in L1 while every tap adds its contribution in one loop over the channels.
template <class T, class C>
void depthwise_channels_inner(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvOperands &o,
                              const C *wr) {
    const ops::ConvGeometry &g = p.geo;
    const Epilogue<T, C> epi = full_epilogue<T, C>(p, o);
    const T *x = static_cast<const T *>(o.x);
    const int64_t oc_total = g.groups * g.ocg;
    constexpr int64_t kAccElems = 4096;
    const int64_t cb = imin_(oc_total, kAccElems), wb = kAccElems / cb;
    const int64_t row_macs = g.out[2] * oc_total * g.taps();
    parallel_ranges(ctx, g.n * g.out[0] * g.out[1], conv_grain(row_macs), [&](int64_t begin, int64_t end) {
        C acc[kAccElems];
        for (int64_t q = begin; q < end; ++q) {
            const int64_t oh = q % g.out[1], od = q / g.out[1] % g.out[0], img = q / (g.out[1] * g.out[0]);
            for (int64_t c0 = 0; c0 < oc_total; c0 += cb) {
                const int64_t nc = imin_(cb, oc_total - c0);
                for (int64_t ow0 = 0; ow0 < g.out[2]; ow0 += wb) {
                    const int64_t nw = imin_(wb, g.out[2] - ow0);
                    for (int64_t j = 0; j < nw * nc; ++j) acc[j] = C(0);
                    for (int64_t kd = 0; kd < g.k[0]; ++kd) {
                        const int64_t id = od * g.stride[0] + kd * g.dil[0] - g.pad[0];
                        if (id < 0 || id >= g.in[0]) continue;
                        for (int64_t kh = 0; kh < g.k[1]; ++kh) {
                            const int64_t ih = oh * g.stride[1] + kh * g.dil[1] - g.pad[1];
                            if (ih < 0 || ih >= g.in[1]) continue;
                            const T *xrow = x + img * g.xs[0] + id * g.xs[2] + ih * g.xs[3];
                            for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                                const C *wt = wr + ((kd * g.k[1] + kh) * g.k[2] + kw) * oc_total + c0;
                                // Outputs ow with 0 <= ow * s + kw * dil - pad < in.
                                const int64_t shift = kw * g.dil[2] - g.pad[2];
                                const int64_t lo = std::max(ow0, div_ceil(-shift, g.stride[2]));
                                const int64_t hi = imin_(ow0 + nw, div_ceil(g.in[2] - shift, g.stride[2]));
                                for (int64_t ow = lo; ow < hi; ++ow) {
                                    const T *xp = xrow + (ow * g.stride[2] + shift) * g.xs[4];
                                    C *a = acc + (ow - ow0) * nc;
                                    for (int64_t j = 0; j < nc; ++j)
                                        a[j] += load<C>(xp + (c0 + j) / g.ocg * g.xs[1]) * wt[j];
                                }
                            }
                        }
                    }
                    for (int64_t ow = ow0; ow < ow0 + nw; ++ow)
                        epi.run(acc + (ow - ow0) * nc, nc,
                                img * g.ys[0] + c0 * g.ys[1] + od * g.ys[2] + oh * g.ys[3] + ow * g.ys[4], g.ys[1],
                                img * p.zs[0] + c0 * p.zs[1] + od * p.zs[2] + oh * p.zs[3] + ow * p.zs[4], p.zs[1], c0,
                                1);
                }
            }
        }
    });
}

// One output pixel's channels [c0, c0 + NB) over every tap, the sums held
// in registers (NB is a compile-time width: 64 floats are 4 zmm).
template <int NB, class T, class C>
ANYDNN_ALWAYS_INLINE void depthwise_pixel(const ops::ConvGeometry &g, const T *ximg, const C *wr, int64_t oc_total,
                                          int64_t c0, int64_t od, int64_t oh, int64_t ow, C *out) {
    C acc[NB];
    for (int j = 0; j < NB; ++j) acc[j] = C(0);
    for_each_inside_tap(g, od, oh, ow, [&](int64_t kd, int64_t kh, int64_t kw, int64_t id, int64_t ih, int64_t iw) {
        const T *xp = ximg + id * g.xs[2] + ih * g.xs[3] + iw * g.xs[4] + c0;
        const C *wt = wr + ((kd * g.k[1] + kh) * g.k[2] + kw) * oc_total + c0;
        for (int j = 0; j < NB; ++j) acc[j] += load<C>(xp + j) * wt[j];
    });
    for (int j = 0; j < NB; ++j) out[j] = acc[j];
}

// PW neighbouring output pixels [ow, ow + PW) of one row, channels [c0, c0
// + NB), the sums in registers (GCC vector types, PW x NB / W of them), each
// tap's weights loaded once for the PW pixels. Written as alpha times the
// sums to out[p * out_step + j]. Checked: each pixel skips its taps outside
// x along the width (the row's ends); otherwise every tap is inside (the
// interior). C float or double, x of C.
template <int NB, int PW, bool Checked, class C>
[[gnu::noinline]] void depthwise_strip(const ops::ConvGeometry &g, const C *ximg, const C *wr, int64_t oc_total,
                                       int64_t c0, int64_t od, int64_t oh, int64_t ow, C *out, int64_t out_step,
                                       C alpha) {
    using V = vec_t<C>;
    constexpr int W = kVectorBytes / sizeof(C), NV = NB / W;
    static_assert(NB % W == 0);
    const auto load = [](const C *p) { return load_vec<V>(p); };
    V acc[PW][NV];
#pragma GCC unroll 16
    for (int p = 0; p < PW; ++p)
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[p][v] = V{};
    for_each_inside_row(g, od, oh, [&](int64_t kd, int64_t kh, int64_t id, int64_t ih) {
        const C *xrow = ximg + id * g.xs[2] + ih * g.xs[3] + c0;
        for (int64_t kw = 0; kw < g.k[2]; ++kw) {
            const int64_t iw = ow * g.stride[2] + kw * g.dil[2] - g.pad[2];
            if (Checked && (iw + (PW - 1) * g.stride[2] < 0 || iw >= g.in[2])) continue;
            const C *wt = wr + ((kd * g.k[1] + kh) * g.k[2] + kw) * oc_total + c0;
            V wv[NV];
#pragma GCC unroll 8
            for (int v = 0; v < NV; ++v) wv[v] = load(wt + v * W);
            if constexpr (Checked) {
#pragma GCC unroll 16
                for (int p = 0; p < PW; ++p) {
                    const int64_t iwp = iw + p * g.stride[2];
                    if (iwp < 0 || iwp >= g.in[2]) continue;
                    const C *xp = xrow + iwp * g.xs[4];
#pragma GCC unroll 8
                    for (int v = 0; v < NV; ++v) acc[p][v] += load(xp + v * W) * wv[v];
                }
            } else {
                const C *xp = xrow + iw * g.xs[4];
                const int64_t step = g.stride[2] * g.xs[4];
#pragma GCC unroll 16
                for (int p = 0; p < PW; ++p)
#pragma GCC unroll 8
                    for (int v = 0; v < NV; ++v) acc[p][v] += load(xp + p * step + v * W) * wv[v];
            }
        }
    });
#pragma GCC unroll 16
    for (int p = 0; p < PW; ++p)
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) store_vec(out + p * out_step + v * W, acc[p][v] * alpha);
}

// PW pixels from ow, all channels (a multiple of 16) in blocks of 64 (4
// pixels at a time; PW at most 4, or 8 on AVX-512) and 16 (Checked: see
// depthwise_strip). Below AVX-512 the interior strips take 16-channel
// blocks only, of 6 pixels (kDepthwiseInterior): on AVX2, 12 accumulators
// and 2 weight vectors in 16 registers, where the 4 x 64 strips' 32 spill (16 x 6
// against 64 x 4: 7-10% less time on MobileNet-v2's 28 to 112 wide layers,
// A/B; 16 x 4 was 10-20% slower: too few sums, the weights loaded for 4
// pixels). y: where the epilogue is plain (Epilogue::plain), pixel ow's
// channel 0 in y, pixels y_step apart, and the strips store alpha * sums
// there; else null, and they go to out, which emit(first pixel, pixels,
// c0, nb) then writes (a call per pixel and block: a third of a 112x112
// layer's time when every output took it).
template <int PW, bool Checked, class C, class Emit>
inline void depthwise_strips(const ops::ConvGeometry &g, const C *ximg, const C *wr, int64_t oc_total, int64_t od,
                             int64_t oh, int64_t ow, C *y, int64_t y_step, C alpha, C *out, Emit &&emit) {
    constexpr int P64 = PW < 4 ? PW : 4;
    const auto strip = [&](auto nb, auto pixels, int64_t c0, int h) {
        constexpr int NB = decltype(nb)::value, P = decltype(pixels)::value;
        if (y != nullptr) {
            depthwise_strip<NB, P, Checked>(g, ximg, wr, oc_total, c0, od, oh, ow + h, y + h * y_step + c0, y_step,
                                            alpha);
        } else {
            depthwise_strip<NB, P, Checked>(g, ximg, wr, oc_total, c0, od, oh, ow + h, out, NB, C(1));
            emit(h, P, c0, NB);
        }
    };
    int64_t c0 = 0;
    if constexpr (kVectorBytes == 64 || Checked)
        for (; c0 + 64 <= oc_total; c0 += 64)
            for (int h = 0; h < PW; h += P64)
                strip(std::integral_constant<int, 64>{}, std::integral_constant<int, P64>{}, c0, h);
    for (; c0 < oc_total; c0 += 16) strip(std::integral_constant<int, 16>{}, std::integral_constant<int, PW>{}, c0, 0);
}

// The pixels of a row from ow in strips: kDepthwiseInterior or 4 of the
// interior [lo, hi) (depthwise_interior), else up to 4 Checked ones (the
// row's ends, and what is left of the interior there). Returns the strip's
// width.
constexpr int kDepthwiseInterior = kVectorBytes == 64 ? 8 : 6;
template <class C, class Emit>
inline int64_t depthwise_row_strip(const ops::ConvGeometry &g, const C *ximg, const C *wr, int64_t oc_total,
                                   int64_t od, int64_t oh, int64_t ow, int64_t lo, int64_t hi, C *y, int64_t y_step,
                                   C alpha, C *out, Emit &&emit) {
    const auto run = [&](auto pw, auto checked) {
        constexpr int PW = decltype(pw)::value;
        depthwise_strips<PW, decltype(checked)::value>(g, ximg, wr, oc_total, od, oh, ow, y, y_step, alpha, out, emit);
        return PW;
    };
    using std::integral_constant;
    if (ow >= lo && ow + kDepthwiseInterior <= hi)
        return run(integral_constant<int, kDepthwiseInterior>{}, std::false_type{});
    if (ow >= lo && ow + 4 <= hi) return run(integral_constant<int, 4>{}, std::false_type{});
    switch (imin_(4, g.out[2] - ow)) {
    case 4: return run(integral_constant<int, 4>{}, std::true_type{});
    case 3: return run(integral_constant<int, 3>{}, std::true_type{});
    case 2: return run(integral_constant<int, 2>{}, std::true_type{});
    default: return run(integral_constant<int, 1>{}, std::true_type{});
    }
}

// The output columns [lo, hi) whose taps all lie inside x along the width.
inline void depthwise_interior(const ops::ConvGeometry &g, int64_t &lo, int64_t &hi) {
    lo = imin_(g.out[2], div_ceil(g.pad[2], g.stride[2]));
    const int64_t last = g.in[2] - 1 + g.pad[2] - (g.k[2] - 1) * g.dil[2];  // ow * stride <= last
    hi = last < 0 ? 0 : imin_(g.out[2], last / g.stride[2] + 1);
    if (hi < lo) hi = lo;
}

// Output row (od, oh) of image ximg by depthwise_columns_strip over
// `channels` channels (x's channel 0 at ximg, the filter w as [tap][channel]),
// in strips of 4 to 8 pixels as even as the row allows (a 7-wide row is one
// strip, a 28-wide row 4 of 7); those at the row's ends skip the padding's
// columns. y: output pixel ow's channel c, times alpha, goes to y[ow *
// y_step + c]; or null, and a strip of pw pixels from ow leaves its sums
// in sums[(pixel - ow) * channels + c] (kDepthwiseColumnsMaxStrip x
// channels), then calls emit(ow, pw).
template <int SW, class Emit>
void depthwise_columns_row(const ops::ConvGeometry &g, const float *ximg, const float *w, int64_t channels,
                           int64_t od, int64_t oh, float *y, int64_t y_step, float alpha, float *sums, Emit &&emit) {
    DepthwiseColumnsRows rows;
    for_each_inside_row(g, od, oh, [&](int64_t kd, int64_t kh, int64_t id, int64_t ih) {
        rows.x[rows.n] = ximg + id * g.xs[2] + ih * g.xs[3];
        rows.w[rows.n] = w + (kd * g.k[1] + kh) * g.k[2] * channels;
        ++rows.n;
    });
    int64_t lo, hi;
    depthwise_interior(g, lo, hi);
    const int64_t strips = ceil_div(g.out[2], kDepthwiseColumnsMaxStrip);
    for (int64_t s = 0; s < strips; ++s) {
        const int64_t ow = g.out[2] * s / strips, pw = g.out[2] * (s + 1) / strips - ow;
        const auto run = [&](auto pixels, auto edge) {
            constexpr int PW = decltype(pixels)::value;
            constexpr bool Edge = decltype(edge)::value;
            const int64_t iw0 = ow * SW - g.pad[2];
            if (y != nullptr) {
                depthwise_columns_strip<PW, SW, Edge>(rows, channels, iw0, g.in[2], g.xs[4], y + ow * y_step, y_step,
                                                      alpha);
                return;
            }
            depthwise_columns_strip<PW, SW, Edge>(rows, channels, iw0, g.in[2], g.xs[4], sums, channels, 1.0f);
            emit(ow, PW);
        };
        using std::integral_constant;
        const auto dispatch = [&](auto edge) {
            switch (pw) {
            case 4: return run(integral_constant<int, 4>{}, edge);
            case 5: return run(integral_constant<int, 5>{}, edge);
            case 6: return run(integral_constant<int, 6>{}, edge);
            case 7: return run(integral_constant<int, 7>{}, edge);
            default: return run(integral_constant<int, 8>{}, edge);
            }
        };
        if (ow < lo || ow + pw > hi) dispatch(std::true_type{});
        else dispatch(std::false_type{});
    }
}

// x channels last, float (depthwise_columns): items are (chunk of
// channels, output row), chunk by chunk, so that a 7 x 7 image's rows and
// a wide one's alike share out evenly (7 rows on 2 threads left one idle
// for a seventh of the time) and each worker reorders just its chunks'
// filter, [tap][channel], on its stack (a pass over the whole filter before
// the rows, its own parallel region, took a sixth of a 7 x 7 layer's time).
// Chunks of about kDepthwiseColumnsChunk channels, multiples of the vector
// but the last, each at least a vector. The sums go straight to y (times
// alpha) when the epilogue is plain, else to a strip's buffer on the stack
// that the epilogue then reads a pixel at a time.
constexpr int64_t kDepthwiseColumnsChunk = 64;
constexpr int64_t kDepthwiseColumnsMaxChunk = kDepthwiseColumnsChunk + kVectorBytes / sizeof(float);
inline bool depthwise_columns(const ops::ConvGeometry &g) {
    constexpr int64_t W = kVectorBytes / sizeof(float);
    return depthwise_columns_fit(g) && g.groups >= W;
}

void depthwise_columns_nhwc(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvOperands &o) {
    constexpr int64_t W = kVectorBytes / sizeof(float);
    const ops::ConvGeometry &g = p.geo;
    const Epilogue<float, float> epi = full_epilogue<float, float>(p, o);
    const bool direct = epi.plain(g.ys[1]);
    const int64_t channels = g.groups, taps = g.taps(), rows = g.n * g.out[0] * g.out[1];
    const int64_t chunks = ceil_div(channels, kDepthwiseColumnsChunk);
    const auto chunk_start = [&](int64_t i) { return i == chunks ? channels : channels * i / chunks / W * W; };
    const int64_t row_macs = g.out[2] * channels * taps / chunks;
    const bool taps_in_order = g.taps_at(1);
    parallel_ranges(ctx, chunks * rows, conv_grain(row_macs), [&](int64_t begin, int64_t end) {
        alignas(64) float wl[kDepthwiseColumnsMaxChunk * kDepthwiseColumnsMaxRows * kDepthwiseColumnsTaps];
        alignas(64) float sums[kDepthwiseColumnsMaxStrip * kDepthwiseColumnsMaxChunk];
        int64_t loaded = -1;
        for (int64_t q = begin; q < end; ++q) {
            const int64_t chunk = q / rows, row = q % rows;
            const int64_t c0 = chunk_start(chunk), cn = chunk_start(chunk + 1) - c0;
            if (chunk != loaded) {
                depthwise_chunk_filter(g, static_cast<const float *>(o.w) + c0 * g.ws[0], cn, taps_in_order, wl, cn);
                loaded = chunk;
            }
            const int64_t oh = row % g.out[1], od = row / g.out[1] % g.out[0], img = row / (g.out[1] * g.out[0]);
            const float *ximg = static_cast<const float *>(o.x) + img * g.xs[0] + c0;
            const int64_t y_row = img * g.ys[0] + od * g.ys[2] + oh * g.ys[3] + c0 * g.ys[1];
            const int64_t z_row = img * p.zs[0] + od * p.zs[2] + oh * p.zs[3] + c0 * p.zs[1];
            float *y = direct ? static_cast<float *>(o.y) + y_row : nullptr;
            const auto emit = [&](int64_t ow, int64_t pw) {
                for (int64_t j = 0; j < pw; ++j)
                    epi.run(sums + j * cn, cn, y_row + (ow + j) * g.ys[4], g.ys[1], z_row + (ow + j) * p.zs[4], p.zs[1],
                            c0, 1);
            };
            if (g.stride[2] == 1) depthwise_columns_row<1>(g, ximg, wl, cn, od, oh, y, g.ys[4], epi.alpha, sums, emit);
            else depthwise_columns_row<2>(g, ximg, wl, cn, od, oh, y, g.ys[4], epi.alpha, sums, emit);
        }
    });
}

// Channels innermost with one x channel per output channel, contiguous
// (NHWC, no multiplier). When x holds the compute type and the channels are
// a multiple of 16, a row goes in strips of 8 or 4 pixels
// (depthwise_strip: 4 x 64 or 8 x 16 channels in registers, a tap's weights
// loaded once per strip), those at the row's ends checking each pixel's
// taps (they went a pixel at a time: 7-wide rows took 4 + 3 x 1 and
// reloaded the weights for each); otherwise pixel by pixel in channel blocks
// of 64, 16, then 1. With each pixel's taps bounds-checked and its weights
// reloaded, the loads cost more than the FMAs: MobileNet-v2's depthwise
// layers ran 2-6x oneDNN's time.
template <class T, class C>
void depthwise_pixels(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvOperands &o,
                      const C *wr) {
    const ops::ConvGeometry &g = p.geo;
    const Epilogue<T, C> epi = full_epilogue<T, C>(p, o);
    const int64_t oc_total = g.groups * g.ocg;
    const int64_t row_macs = g.out[2] * oc_total * g.taps();
    int64_t lo, hi;
    depthwise_interior(g, lo, hi);
    const bool strips = std::is_same_v<T, C> && oc_total % 16 == 0, direct = epi.plain(g.ys[1]);
    parallel_ranges(ctx, g.n * g.out[0] * g.out[1], conv_grain(row_macs), [&](int64_t begin, int64_t end) {
        alignas(64) C out[8 * 64];
        for (int64_t q = begin; q < end; ++q) {
            const int64_t oh = q % g.out[1], od = q / g.out[1] % g.out[0], img = q / (g.out[1] * g.out[0]);
            const T *ximg = static_cast<const T *>(o.x) + img * g.xs[0];
            for (int64_t ow = 0; ow < g.out[2]; ++ow) {
                const int64_t y_off = img * g.ys[0] + od * g.ys[2] + oh * g.ys[3] + ow * g.ys[4];
                const int64_t z_off = img * p.zs[0] + od * p.zs[2] + oh * p.zs[3] + ow * p.zs[4];
                if constexpr (std::is_same_v<T, C>) {
                    if (strips) {
                        // Pixel ow + first + j's channels [c0, c0 + nb) from out (nb apart).
                        const auto emit = [&](int64_t first, int64_t n, int64_t c0, int64_t nb) {
                            for (int64_t j = 0; j < n; ++j)
                                epi.run(out + j * nb, nb, y_off + (first + j) * g.ys[4] + c0 * g.ys[1], g.ys[1],
                                        z_off + (first + j) * p.zs[4] + c0 * p.zs[1], p.zs[1], c0, 1);
                        };
                        C *y = direct ? static_cast<T *>(o.y) + y_off : nullptr;
                        const int64_t pixels = depthwise_row_strip(g, ximg, wr, oc_total, od, oh, ow, lo, hi, y,
                                                                   g.ys[4], epi.alpha, out, emit);
                        ow += pixels - 1;
                        continue;
                    }
                }
                int64_t c0 = 0;
                for (; c0 + 64 <= oc_total; c0 += 64) {
                    depthwise_pixel<64, T, C>(g, ximg, wr, oc_total, c0, od, oh, ow, out);
                    epi.run(out, 64, y_off + c0 * g.ys[1], g.ys[1], z_off + c0 * p.zs[1], p.zs[1], c0, 1);
                }
                for (; c0 + 16 <= oc_total; c0 += 16) {
                    depthwise_pixel<16, T, C>(g, ximg, wr, oc_total, c0, od, oh, ow, out);
                    epi.run(out, 16, y_off + c0 * g.ys[1], g.ys[1], z_off + c0 * p.zs[1], p.zs[1], c0, 1);
                }
                for (; c0 < oc_total; ++c0) {
                    depthwise_pixel<1, T, C>(g, ximg, wr, oc_total, c0, od, oh, ow, out);
                    epi.run(out, 1, y_off + c0 * g.ys[1], g.ys[1], z_off + c0 * p.zs[1], p.zs[1], c0, 1);
                }
            }
        }
    });
}

// x channels last (x's channel stride 1): float's column strips (which
// read the filter as the caller has it: wr is not made for them), the
// pixel strips without a channel multiplier, else the L1 blocks of pixels x
// channels.
template <class T, class C>
void depthwise_channels_last(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvOperands &o,
                             const C *wr) {
    if constexpr (std::is_same_v<T, float> && std::is_same_v<C, float>) {
        if (depthwise_columns(p.geo)) return depthwise_columns_nhwc(ctx, p, o);
    }
    if (p.geo.ocg == 1) depthwise_pixels<T, C>(ctx, p, o, wr);
    else depthwise_channels_inner<T, C>(ctx, p, o, wr);
}

// x channels first where depthwise_rows and depthwise_blocks decline
// (rows under 32 pixels with a channel multiplier or f16/bf16 storage, 3-D,
// strides over 2, more than 64 taps, dilation along h taller than a band,
// x's rows or pixels not packed): each image is copied channels last (a
// blocked transpose when its pixels are packed), the channels-innermost loops run
// on the copy, and their sums come back channels first the same way when y
// is packed channels first in the compute type: a transpose straight into y
// when the epilogue is the identity, else into a scratch that the epilogue
// then reads a row at a time. MobileNet-v2's 7x7 and 14x14 depthwise layers channels first ran
// 5-8x oneDNN's time with each pixel's channels gathered (and scattered)
// one value at a time; 3-5x this way.
template <class T, class C>
void depthwise_channels_first(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvOperands &o,
                              const C *wr, void *copies) {
    const ops::ConvGeometry &g = p.geo;
    const int64_t ic = g.groups * g.icg, oc = g.groups * g.ocg, pixels = g.in[0] * g.in[1] * g.in[2];
    const int64_t out_pixels = g.out_pixels();
    const bool x_packed = conv_packed_spatial(g.in, g.xs, 1);
    const DepthwiseCopies cp = depthwise_copies(g);
    T *xc = static_cast<T *>(copies);
    C *yc = reinterpret_cast<C *>(reinterpret_cast<unsigned char *>(copies) + cp.y_offset);
    C *yt = yc + oc * out_pixels;  // the sums channels first, when the epilogue reads them
    ops::ConvForwardProblem one = p;
    one.geo.n = 1;
    one.geo.xs[1] = 1;
    one.geo.xs[4] = ic;
    one.geo.xs[3] = ic * g.in[2];
    one.geo.xs[2] = ic * g.in[2] * g.in[1];
    one.geo.xs[0] = ic * pixels;
    // The raw sums channels last into yc: alpha 1, beta 0, nothing fused.
    ops::ConvForwardProblem raw = one;
    if (cp.y_back) {
        raw.alpha = 1, raw.beta = 0, raw.fused = false;
        raw.geo.ys[1] = 1;
        raw.geo.ys[4] = oc;
        raw.geo.ys[3] = oc * g.out[2];
        raw.geo.ys[2] = oc * g.out[2] * g.out[1];
        raw.geo.ys[0] = oc * out_pixels;
    }
    const bool identity = !p.fused && p.alpha == 1 && p.beta == 0;
    const Epilogue<T, C> epi = full_epilogue<T, C>(p, o);
    for (int64_t img = 0; img < g.n; ++img) {
        const T *x = static_cast<const T *>(o.x) + img * g.xs[0];
        parallel_ranges(ctx, pixels, 1 + kElementwiseGrain / ic, [&](int64_t begin, int64_t end) {
            if (x_packed) {
                transpose_elements(sizeof(T), x + begin, g.xs[1], xc + begin * ic, ic, end - begin, ic);
                return;
            }
            for (int64_t q = begin; q < end; ++q) {
                const int64_t iw = q % g.in[2], ih = q / g.in[2] % g.in[1], id = q / (g.in[2] * g.in[1]);
                const T *s = x + id * g.xs[2] + ih * g.xs[3] + iw * g.xs[4];
                for (int64_t c = 0; c < ic; ++c) xc[q * ic + c] = s[c * g.xs[1]];
            }
        });
        ConvOperands oi = o;
        oi.x = xc;
        oi.y = static_cast<T *>(o.y) + img * g.ys[0];
        if (o.z != nullptr) oi.z = static_cast<const T *>(o.z) + img * p.zs[0];
        if (cp.y_back) oi.y = yc;  // (T is C)
        depthwise_channels_last<T, C>(ctx, cp.y_back ? raw : one, oi, wr);
        if (!cp.y_back) continue;
        C *y = static_cast<C *>(o.y) + img * g.ys[0];
        parallel_ranges(ctx, oc, 1 + kElementwiseGrain / out_pixels, [&](int64_t begin, int64_t end) {
            if (identity) {
                transpose_elements(sizeof(C), yc + begin, oc, y + begin * g.ys[1], g.ys[1], end - begin, out_pixels);
                return;
            }
            transpose_elements(sizeof(C), yc + begin, oc, yt + begin * out_pixels, out_pixels, end - begin,
                               out_pixels);
            epilogue_channel_rows(epi, p, yt + begin * out_pixels, out_pixels, img, begin, end - begin, 0,
                                  g.out[0] * g.out[1]);
        });
    }
}

// One output row of a block (depthwise_blocks_typed's padded planes: every
// tap inside), a vector of channels at a time in strips of 14, 7, 4 and
// then the last 1-3 pixels, each pixel's sums in one register: a 7 x 7 or
// 14 x 14 layer's row is one strip (strips of 4 and 3 on 7-pixel rows spent
// half their time entering and leaving). Float with 3 taps along w takes
// the column strips instead (depthwise_columns_row).
template <class C>
void depthwise_block_row(const ops::ConvGeometry &g, const C *xp, const C *w, int64_t lanes, int64_t oh, C *y,
                         C alpha) {
    constexpr int W = kVectorBytes / sizeof(C);
    if constexpr (std::is_same_v<C, float>) {
        if (depthwise_columns(g)) {
            const auto no_emit = [](int64_t, int64_t) {};
            if (g.stride[2] == 1) depthwise_columns_row<1>(g, xp, w, lanes, 0, oh, y, lanes, alpha, nullptr, no_emit);
            else depthwise_columns_row<2>(g, xp, w, lanes, 0, oh, y, lanes, alpha, nullptr, no_emit);
            return;
        }
    }
    for (int64_t c0 = 0; c0 < lanes; c0 += W) {
        const auto strip = [&](auto pixels, int64_t ow) {
            depthwise_strip<W, decltype(pixels)::value, false>(g, xp, w, lanes, c0, 0, oh, ow, y + ow * lanes + c0,
                                                               lanes, alpha);
            return decltype(pixels)::value;
        };
        using std::integral_constant;
        int64_t ow = 0;
        while (ow + 14 <= g.out[2]) ow += strip(integral_constant<int, 14>{}, ow);
        if (ow + 7 <= g.out[2]) ow += strip(integral_constant<int, 7>{}, ow);
        if (ow + 4 <= g.out[2]) ow += strip(integral_constant<int, 4>{}, ow);
        switch (g.out[2] - ow) {
        case 3: strip(integral_constant<int, 3>{}, ow); break;
        case 2: strip(integral_constant<int, 2>{}, ow); break;
        case 1: strip(integral_constant<int, 1>{}, ow); break;
        default: break;
        }
    }
}

// x channels first, planned by depthwise_blocks (2-D): a worker takes
// (image, block of channels, band of output rows) items. It transposes the
// input rows the band reads, channels last, into padded planes (the side
// borders zero from the start, the rows outside x zeroed per item; a
// transpose into a buffer and a copy from it into the planes took a
// quarter of a stride-2 layer's time), runs the pixel strips over them
// (depthwise_block_row: no tap to check; the lanes past a last block's
// channels have zero weights) into a second buffer, and transposes the sums
// back: alpha * sums straight into y when the epilogue is plain and y's
// planes packed, else the raw sums into a third buffer, channels first,
// that the epilogue reads a row at a time. A block stays in L2 from one
// transpose to the other.
template <class C>
void depthwise_blocks_typed(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvOperands &o,
                            const DepthwiseBlocks &db, void *buffers) {
    const ops::ConvGeometry &g = p.geo;
    const Epilogue<C, C> epi = full_epilogue<C, C>(p, o);
    const int64_t block = db.block, band = db.band, wp = db.padded[1];
    const int64_t blocks = ceil_div(g.groups, block), bands = ceil_div(g.out[1], band);
    const int64_t items = g.n * blocks * bands;
    // The input columns inside the padded rows.
    const int64_t cols_in = std::clamp<int64_t>(wp - g.pad[2], 0, g.in[2]);
    const bool direct = epi.plain(1) && conv_packed_spatial(g.out, g.ys, 1);
    const bool taps_in_order = g.taps_at(1);
    const int64_t item_macs = band * g.out[2] * block * g.taps();
    const int workers =
        static_cast<int>(std::clamp<int64_t>(imin_(ctx.threads, items / conv_grain(item_macs)), 1, 64));
    parallel_workers(workers, [&](int t) {
        WorkspaceCursor cur(buffers);
        C *xp = nullptr;
        for (int k = 0; k <= t; ++k) xp = cur.take<C>(db.worker_elems);
        C *yb = xp + db.padded[0] * wp * block;
        C *yt = yb + band * g.out[2] * block, *wb = yt + band * g.out[2] * block;
        ops::ConvGeometry gp = g;
        int64_t zeroed = 0;  // the lanes of the layout whose side borders are zero
        gp.n = 1, gp.in[2] = wp, gp.pad[1] = gp.pad[2] = 0;
        for (int64_t q = items * t / workers; q < items * (t + 1) / workers; ++q) {
            const int64_t img = q / (blocks * bands), c0 = q / bands % blocks * block, oh0 = q % bands * band;
            const int64_t cb = imin_(block, g.groups - c0), lanes = round_up(cb, 16), nb = imin_(band, g.out[1] - oh0);
            // The band's padded rows r read x's row top + r; those inside x are [r_lo, r_hi).
            const int64_t hp = (nb - 1) * g.stride[1] + (g.k[1] - 1) * g.dil[1] + 1, top = oh0 * g.stride[1] - g.pad[1];
            const int64_t r_lo = std::clamp<int64_t>(-top, 0, hp), r_hi = std::clamp<int64_t>(g.in[1] - top, r_lo, hp);
            // The side borders stay zero from item to item while the
            // layout's lanes do (a last block's narrower layout puts its
            // borders where the wider one held x), and the lanes past cb
            // are zeros, not whatever the workspace held (NaN, denormals).
            if (lanes != zeroed) {
                std::memset(xp, 0, static_cast<std::size_t>(yb - xp) * sizeof(C));
                zeroed = lanes;
            }
            // The block's filter as wb[tap * lanes + channel], zero past cb.
            depthwise_chunk_filter(g, static_cast<const C *>(o.w) + c0 * g.ws[0], cb, taps_in_order, wb, lanes);
            for (int64_t k = 0; k < g.taps(); ++k)
                for (int64_t j = cb; j < lanes; ++j) wb[k * lanes + j] = C(0);
            // x's rows straight into the padded rows, channels last.
            const C *xc = static_cast<const C *>(o.x) + img * g.xs[0] + c0 * g.xs[1];
            for (int64_t r = 0; r < hp; ++r)
                if (r < r_lo || r >= r_hi)
                    std::memset(xp + r * wp * lanes, 0, static_cast<std::size_t>(wp * lanes) * sizeof(C));
            if (r_hi > r_lo)
                transpose_pixels_to_rows(xc + (top + r_lo) * g.in[2], g.xs[1], g.in[2], r_hi - r_lo, cols_in, cb,
                                         xp + (r_lo * wp + g.pad[2]) * lanes, wp * lanes, lanes);
            gp.groups = lanes, gp.in[1] = hp;
            gp.xs[4] = lanes, gp.xs[3] = lanes * wp, gp.xs[2] = gp.xs[3] * hp, gp.xs[1] = 1;
            const C alpha = direct ? epi.alpha : C(1);
            for (int64_t r = 0; r < nb; ++r)
                depthwise_block_row(gp, xp, wb, lanes, r, yb + r * g.out[2] * lanes, alpha);
            const int64_t pixels = nb * g.out[2];
            if (direct) {
                transpose_elements(sizeof(C), yb, lanes,
                                   static_cast<C *>(o.y) + img * g.ys[0] + c0 * g.ys[1] + oh0 * g.out[2], g.ys[1], cb,
                                   pixels);
                continue;
            }
            transpose_elements(sizeof(C), yb, lanes, yt, pixels, cb, pixels);
            epilogue_channel_rows(epi, p, yt, pixels, img, c0, cb, oh0, nb);
        }
    });
}

template <class T, class C>
void depthwise_typed(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvOperands &o,
                     void *workspace) {
    const ops::ConvGeometry &g = p.geo;
    C *wr = reinterpret_cast<C *>(align64(static_cast<unsigned char *>(workspace)));
    if constexpr (std::is_same_v<T, C>) {
        DepthwiseBlocks db;
        if (depthwise_blocks(g, ctx.threads, &db)) {
            depthwise_blocks_typed<C>(ctx, p, o, db, workspace);
            return;
        }
    }
    if (!std::is_same_v<T, float> || !std::is_same_v<C, float> || !depthwise_columns(g))
        depthwise_filter<T, C>(ctx, g, static_cast<const T *>(o.w), wr);
    if (g.xs[1] != 1) {
        void *rest = align64(reinterpret_cast<unsigned char *>(wr + g.taps() * g.groups * g.ocg));
        depthwise_channels_first<T, C>(ctx, p, o, wr, rest);
    } else {
        depthwise_channels_last<T, C>(ctx, p, o, wr);
    }
}

// p (its geometry channels last) on channels-last copies of the caller's
// packed channels-first x and y (ConvPrecompPlan::copy_x_elems): x
// transposed in, y too when beta or z = y blends it (z is read where the
// caller has it, by p.zs), the GEMMs on the copies, y transposed back out.
template <class T, class C>
void precomp_copies_typed(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvPrecompPlan &pl,
                          const ConvOperands &o, void *workspace) {
    const ops::ConvGeometry &g = p.geo;
    const int64_t ic = g.groups * g.icg, oc = g.groups * g.ocg, ip = g.in_pixels(), op = g.out_pixels();
    WorkspaceCursor cur(workspace);
    T *x_t = cur.take<T>(pl.copy_x_elems), *y_t = cur.take<T>(pl.copy_y_elems);
    ConvOperands copies = o;
    copies.x = x_t;
    copies.y = y_t;
    with_channels_last_copies(ctx, g.n, static_cast<const T *>(o.x), ic, ip, static_cast<T *>(o.y), oc, op,
                              p.fused ? p.z_is_y : p.beta != 0, x_t, y_t,
                              [&] { precomp_typed<T, C>(ctx, p, pl, copies, cur.at); });
}

void precomp(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvPrecompPlan &pl,
             const ConvOperands &o, void *ws) {
    visit_types(p.geo.dt, [&](auto t, auto c) {
        using T = typename decltype(t)::type;
        using C = typename decltype(c)::type;
        if (pl.copy_x_elems > 0) precomp_copies_typed<T, C>(ctx, p, pl, o, ws);
        else precomp_typed<T, C>(ctx, p, pl, o, ws);
    });
}

void implicit(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvOperands &o) {
    visit_types(p.geo.dt, [&](auto t, auto c) {
        implicit_typed<typename decltype(t)::type, typename decltype(c)::type>(ctx, p, o);
    });
}

void depthwise(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvOperands &o, void *ws) {
    visit_types(p.geo.dt, [&](auto t, auto c) {
        depthwise_typed<typename decltype(t)::type, typename decltype(c)::type>(ctx, p, o, ws);
    });
}

}  // namespace

extern const ConvKernels conv = {precomp, implicit, depthwise};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
