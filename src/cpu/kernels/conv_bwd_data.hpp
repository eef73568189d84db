// Backward-data convolution kernels, compiled once per ISA level:
// BWD_DATA_ALGO_1, batch-reduce GEMMs into dx's planes (ConvBackwardPlan in
// src/cpu/conv.hpp), and BWD_DATA_ALGO_0, direct loops. Both compute each
// dx element in one place, in a fixed order: deterministic for any thread count.
#include <omp.h>

#include "cpu/kernels/util/conv_common.hpp"
#include "cpu/kernels/util/streaming_store.hpp"
#include "cpu/kernels/util/transpose.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

template <class T, class C>
Epilogue<T, C> blend_epilogue(const ops::ConvBackwardProblem &p, void *out) {
    Epilogue<T, C> e;
    e.alpha = static_cast<C>(p.alpha);
    e.beta = static_cast<C>(p.beta);
    e.y = static_cast<T *>(out);
    return e;
}

// dx elements that no tap reaches: alpha * 0 + beta * dx.
template <class T, class C>
void blend_zero(const Epilogue<T, C> &e, int64_t off, int64_t len, int64_t stride) {
    for (int64_t j = 0; j < len; ++j) {
        T *d = e.y + off + j * stride;
        store(d, e.beta != C(0) ? e.beta * load<C>(d) : C(0));
    }
}

// Where dx position i of dimension d sits in the planes: its row r, or -1
// when its residue is read by no tap or the row is beyond the planes.
inline int64_t plane_row(const ops::ConvGeometry &g, const ConvPrecompPlan &pl, int d, int64_t i, int64_t *phase) {
    const int64_t u = i + g.pad[d], a = u % g.stride[d], r = u / g.stride[d];
    const int64_t idx = pl.residue_of[d][a];
    if (pl.residue_value[d][idx] != a || r >= pl.L[d]) return -1;
    *phase = idx;
    return r;
}

// dx = alpha * planes + beta * dx for dx rows [begin, end) of one image:
// channels-last rows are (id, ih) with every channel, channels-first rows
// (c, id, ih).
template <class T, class C>
void read_out_planes(const ops::ConvGeometry &g, const ConvPrecompPlan &pl, const C *planes,
                     const Epilogue<T, C> &e, int64_t dx_base, int64_t begin, int64_t end) {
    const int64_t ic = g.groups * g.icg, rows = g.in[0] * g.in[1];
    const int64_t *xs = g.xs;
    // Channels first, strided: each dx row is put together in row (the
    // residue classes' runs interleaved, zeros where no tap reaches) and
    // stored contiguously. A large dense dx (beta 0) is streamed: the rows
    // gather into chunks of about kStreamingChunk values (dx's rows follow
    // each other) that go out with streaming stores, no line read first.
    const int64_t s = g.stride[2];
    const bool dense_rows = conv_packed_spatial(g.in, xs, 1) && xs[1] == rows * g.in[2];
    const bool stream = std::is_same_v<T, C> && !pl.channels_last && s > 1 && e.beta == C(0) && dense_rows &&
                        use_streaming_stores(g.n * ic * rows * g.in[2] * int64_t(sizeof(T)), e.y, planes);
    KernelArray<C> row(!pl.channels_last && s > 1 ? g.in[2] + (stream ? kStreamingChunk : 0) : 0);
    int64_t chunk_off = 0, chunk_len = 0;  // the streamed chunk's dx offset and values in row
    // Channels first, the residue classes aw along w (the same for every row):
    // first position, count, plane column r2 (-1: no tap) and its phase, the
    // values the planes hold.
    struct Run {
        const C *src;
        int64_t iw0, count, valid, r2, pw;
    } runs[kConvMaxStride];
    for (int64_t aw = 0; !pl.channels_last && aw < s; ++aw) {
        Run &u = runs[aw];
        u.iw0 = ((aw - g.pad[2]) % s + s) % s;
        u.count = u.iw0 < g.in[2] ? (g.in[2] - 1 - u.iw0) / s + 1 : 0;
        u.pw = 0;
        u.r2 = u.count > 0 ? plane_row(g, pl, 2, u.iw0, &u.pw) : -1;
        u.valid = u.r2 >= 0 ? imin_(u.count, pl.L[2] - u.r2) : 0;
    }
    // Plane row and phase of each ih: rows of 7 spent most of their time
    // in plane_row's divisions.
    KernelArray<int64_t> h_rows(2 * g.in[1]);
    for (int64_t ih = 0; ih < g.in[1]; ++ih) {
        h_rows.data()[2 * ih + 1] = 0;
        h_rows.data()[2 * ih] = plane_row(g, pl, 1, ih, &h_rows.data()[2 * ih + 1]);
    }
    int64_t c = pl.channels_last ? 0 : begin / rows, id = begin % rows / g.in[1], ih = begin % g.in[1] - 1;
    int64_t pd = 0, r0 = plane_row(g, pl, 0, id, &pd);
    for (int64_t q = begin; q < end; ++q) {
        if (++ih == g.in[1]) {
            ih = 0;
            if (++id == g.in[0]) id = 0, ++c;
            r0 = plane_row(g, pl, 0, id, &pd);
        }
        const int64_t r1 = h_rows.data()[2 * ih], ph = h_rows.data()[2 * ih + 1];
        const int64_t row_off = dx_base + c * xs[1] + id * xs[2] + ih * xs[3];
        if (pl.channels_last) {
            for (int64_t iw = 0; iw < g.in[2]; ++iw) {
                int64_t pw = 0;
                const int64_t r2 = plane_row(g, pl, 2, iw, &pw);
                if (r0 < 0 || r1 < 0 || r2 < 0) {
                    blend_zero(e, row_off + iw * xs[4], ic, xs[1]);
                    continue;
                }
                const int64_t phase = (pd * pl.residues[1] + ph) * pl.residues[2] + pw;
                const C *src = planes + phase * pl.phase_stride + ((r0 * pl.L[1] + r1) * pl.L[2] + r2) * pl.pix_stride;
                e.run(src, ic, row_off + iw * xs[4], xs[1], 0, 0, 0, 0);
            }
            continue;
        }
        // Channels-first: the positions of one residue class aw are a
        // contiguous run of a plane row (src, its first `valid` values).
        for (int64_t aw = 0; aw < s; ++aw) {
            Run &u = runs[aw];
            u.src = nullptr;
            if (r0 < 0 || r1 < 0 || u.r2 < 0) continue;
            const int64_t phase = (pd * pl.residues[1] + ph) * pl.residues[2] + u.pw;
            u.src = planes + c * pl.chan_stride + phase * pl.phase_stride + (r0 * pl.L[1] + r1) * pl.L[2] + u.r2;
        }
        if (s == 1) {
            const Run &u = runs[0];
            const int64_t valid = u.src != nullptr ? u.valid : 0;
            if (valid > 0) e.run(u.src, valid, row_off, xs[4], 0, 0, 0, 0);
            blend_zero(e, row_off + valid * xs[4], u.count - valid, xs[4]);
            continue;
        }
        if (chunk_len == 0) chunk_off = row_off;
        C *r = row.data() + chunk_len;
        int64_t done = 0;  // values of each run already in row
        if (s == 2 && g.in[2] >= 2) {
            const Run &ev = runs[0].iw0 == 0 ? runs[0] : runs[1], &od = runs[0].iw0 == 0 ? runs[1] : runs[0];
            constexpr int64_t W = kVectorBytes / sizeof(C);
            const int64_t ne = ev.src != nullptr ? ev.valid : ev.count, no = od.src != nullptr ? od.valid : od.count;
            done = imin_(ne, no) / W * W;
            interleave_pair(ev.src, od.src, done, r);
        }
        for (int64_t aw = 0; aw < s; ++aw) {
            const Run &u = runs[aw];
            const int64_t valid = u.src != nullptr ? u.valid : 0;
            for (int64_t j = done; j < u.count; ++j) r[u.iw0 + j * s] = j < valid ? u.src[j] : C(0);
        }
        if (!stream) {
            e.run(r, g.in[2], row_off, xs[4], 0, 0, 0, 0);
            continue;
        }
        chunk_len += g.in[2];
        if (chunk_len < kStreamingChunk && q + 1 < end) continue;
        if constexpr (std::is_same_v<T, C>)
            stream_map(e.y + chunk_off, row.data(), chunk_len, [a = e.alpha](auto v) { return v * a; });
        chunk_len = 0;
    }
    if (stream) streaming_fence();
}

// The plane pixels [lo, hi) of a phase that hold dx positions (the rest is
// padding, never read out): the first and last such pixel, row-major.
void phase_range(const ops::ConvGeometry &g, const ConvPrecompPlan &pl, int64_t phase, int64_t *lo, int64_t *hi) {
    const int64_t idx[3] = {phase / (pl.residues[2] * pl.residues[1]), phase / pl.residues[2] % pl.residues[1],
                            phase % pl.residues[2]};
    int64_t rlo[3], rhi[3];
    for (int d = 0; d < 3; ++d) {
        const int64_t a = pl.residue_value[d][idx[d]], s = g.stride[d];
        rlo[d] = div_ceil(g.pad[d] - a, s);
        rlo[d] = rlo[d] < 0 ? 0 : rlo[d];
        rhi[d] = imin_(pl.L[d], div_ceil(g.pad[d] + g.in[d] - a, s));
        if (rhi[d] <= rlo[d]) {
            *lo = *hi = 0;
            return;
        }
    }
    *lo = (rlo[0] * pl.L[1] + rlo[1]) * pl.L[2] + rlo[2];
    *hi = ((rhi[0] - 1) * pl.L[1] + rhi[1] - 1) * pl.L[2] + rhi[2];
}

template <class T, class C>
void gemm_typed(const ExecContext &ctx, const ops::ConvBackwardProblem &p, const ConvBackwardPlan &bp,
                const ConvBwdDataOperands &o, void *workspace) {
    const ops::ConvGeometry &g = p.geo;
    const ConvPrecompPlan &pl = bp.planes;
    const GemmKernels<C> &gk = isa_gemm<C>();
    const int64_t taps = pl.taps, icg = g.icg, ocg = g.ocg;

    WorkspaceCursor cur(workspace);
    C *wr = pl.w_direct ? nullptr : cur.take<C>(pl.wr_elems);
    C *wpk = bp.wpk_group_elems > 0 ? cur.take<C>(g.groups * bp.wpk_group_elems) : nullptr;
    struct Worker {
        C *planes, *grid;
        const C **a, **b;
        void *gemm_ws;
    };
    Worker workers[64];
    const int nworkers = bp.workers < 64 ? bp.workers : 64;
    for (int t = 0; t < nworkers; ++t) {
        Worker &wk = workers[t];
        wk.planes = cur.take<C>(pl.image_elems);
        wk.grid = cur.take<C>(bp.dy_image_elems);
        wk.a = cur.take<const C *>(taps);
        wk.b = cur.take<const C *>(taps);
        wk.gemm_ws = cur.take<unsigned char>(static_cast<int64_t>(bp.gemm_ws_bytes));
    }
    const T *w = static_cast<const T *>(o.w);
    if (!pl.w_direct) reorder_filter(ctx, g, pl, w, wr);
    auto filter_tap = [&](int64_t grp, int64_t t) -> const C * {
        if (pl.w_direct) return reinterpret_cast<const C *>(w) + grp * ocg * g.ws[0] + pl.tap_w[t];
        return wr + (grp * taps + t) * ocg * icg;
    };

    // The taps of each phase, in x order.
    int64_t phase_taps[kConvMaxTaps], phase_first[kConvMaxTaps + 1];
    for (int64_t ph = 0, n = 0; ph < pl.phases; ++ph) {
        phase_first[ph] = n;
        for (int64_t t = 0; t < taps; ++t)
            if (pl.tap_phase[t] == ph) phase_taps[n++] = t;
        phase_first[ph + 1] = n;
    }
    // The filter packed once per group and phase (the taps of a phase are
    // one batch-reduce GEMM's operand), for every image's GEMMs.
    const int64_t wpk_tap = taps > 0 ? bp.wpk_group_elems / taps : 0;
    for (int64_t grp = 0; wpk != nullptr && grp < g.groups; ++grp)
        for (int64_t ph = 0; ph < pl.phases; ++ph) {
            const C **taps_w = workers[0].b;  // the first worker's tap pointers, free until its first image
            const int64_t first = phase_first[ph], count = phase_first[ph + 1] - first;
            for (int64_t i = 0; i < count; ++i) taps_w[i] = filter_tap(grp, phase_taps[first + i]);
            C *dst = wpk + grp * bp.wpk_group_elems + first * wpk_tap;
            if (pl.channels_last) gk.pack_b(ctx, false, icg, ocg, count, taps_w, pl.w_ld, dst);
            else gk.pack_a(ctx, true, icg, ocg, count, taps_w, pl.w_ld, dst);
        }
    const Epilogue<T, C> epi = blend_epilogue<T, C>(p, o.dx);
    const C gemm_alpha = pl.x_direct ? epi.alpha : C(1), gemm_beta = pl.x_direct ? epi.beta : C(0);

    auto image = [&](Worker &wk, int64_t img, const ExecContext &inner) {
        const C *grid;
        if (bp.dy_direct) {
            grid = reinterpret_cast<const C *>(o.dy) + img * g.ys[0];
        } else {
            const T *dy = static_cast<const T *>(o.dy) + img * g.ys[0];
            const int64_t rows = dy_grid_rows(g, bp);
            const int64_t grain = 1 + kElementwiseGrain / (pl.L[2] * (pl.channels_last ? g.groups * ocg : 1));
            parallel_ranges(inner, rows, grain, [&](int64_t b, int64_t e) { fill_dy_grid(g, bp, dy, wk.grid, b, e); });
            grid = wk.grid;
        }
        C *planes = pl.x_direct ? static_cast<C *>(o.dx) + img * g.xs[0] : wk.planes;
        for (int64_t grp = 0; grp < g.groups; ++grp) {
            for (int64_t ph = 0; ph < pl.phases; ++ph) {
                int64_t lo = 0, hi = pl.plane_pixels;
                if (!pl.x_direct) phase_range(g, pl, ph, &lo, &hi);
                if (hi <= lo) continue;
                BrgemmArgs<C> a;
                a.k = ocg;
                a.batch = phase_first[ph + 1] - phase_first[ph];
                a.alpha = gemm_alpha;
                a.beta = gemm_beta;
                for (int64_t i = 0; i < a.batch; ++i) {
                    const int64_t t = phase_taps[phase_first[ph] + i];
                    const int64_t pix = bp.dy_front + lo - pl.tap_pixel[t];
                    if (pl.channels_last) {
                        wk.a[i] = grid + grp * ocg + pix * bp.dy_pix_stride;
                        wk.b[i] = filter_tap(grp, t);
                    } else {
                        wk.a[i] = filter_tap(grp, t);
                        wk.b[i] = grid + grp * ocg * bp.dy_chan_stride + pix;
                    }
                }
                a.a = wk.a;
                a.b = wk.b;
                if (wpk != nullptr)
                    (pl.channels_last ? a.b_packed : a.a_packed) =
                        wpk + grp * bp.wpk_group_elems + phase_first[ph] * wpk_tap;
                C *out = planes + grp * icg * pl.chan_stride + ph * pl.phase_stride + lo * pl.pix_stride;
                if (pl.channels_last) {
                    a.m = hi - lo, a.n = icg, a.lda = bp.dy_pix_stride, a.ldb = pl.w_ld, a.ldc = pl.pix_stride;
                } else {
                    a.m = icg, a.n = hi - lo, a.trans_a = true, a.lda = pl.w_ld, a.ldb = bp.dy_chan_stride;
                    a.ldc = pl.chan_stride;
                }
                a.c = out;
                gk.brgemm(inner, a, wk.gemm_ws);
            }
        }
        if (pl.x_direct) return;
        const int64_t rows = g.in[0] * g.in[1] * (pl.channels_last ? 1 : g.groups * icg);
        const int64_t grain = 1 + kElementwiseGrain / (g.in[2] * (pl.channels_last ? g.groups * icg : 1));
        parallel_ranges(inner, rows, grain, [&](int64_t b, int64_t e) {
            read_out_planes(g, pl, wk.planes, epi, img * g.xs[0], b, e);
        });
    };

    if (bp.outer_parallel) {
#pragma omp parallel num_threads(nworkers)
        {
            const int t = omp_get_thread_num(), team = omp_get_num_threads();
            for (int64_t img = t; img < g.n; img += team) image(workers[t], img, ExecContext{1});
        }
    } else {
        for (int64_t img = 0; img < g.n; ++img) image(workers[0], img, ctx);
    }
}

constexpr int64_t kIcBlock = 64;

// Adds row r of col (cols = C * taps values of output pixel (od, oh, ow),
// column ((kd * KH + kh) * KW + kw) * C + c) into sums, one image of dx
// channels-last ([id][ih][iw][c]), at the input pixel each tap meets.
template <class C>
void col2im_row(const ops::ConvGeometry &g, const C *col, int64_t od, int64_t oh, int64_t ow, C *sums) {
    const int64_t run = g.k[2] * g.icg, iw0 = ow * g.stride[2] - g.pad[2];
    const bool inside_w = g.dil[2] == 1 && iw0 >= 0 && iw0 + g.k[2] <= g.in[2];
    for (int64_t kd = 0; kd < g.k[0]; ++kd) {
        const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dil[0];
        if (id < 0 || id >= g.in[0]) continue;
        for (int64_t kh = 0; kh < g.k[1]; ++kh) {
            const int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dil[1];
            if (ih < 0 || ih >= g.in[1]) continue;
            const C *src = col + (kd * g.k[1] + kh) * run;
            C *row = sums + ((id * g.in[1] + ih) * g.in[2]) * g.icg;
            if (inside_w) {
                // The row's taps meet C * KW contiguous sums.
                C *dst = row + iw0 * g.icg;
                for (int64_t j = 0; j < run; ++j) dst[j] += src[j];
                continue;
            }
            for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                const int64_t iw = iw0 + kw * g.dil[2];
                if (iw < 0 || iw >= g.in[2]) continue;
                for (int64_t c = 0; c < g.icg; ++c) row[iw * g.icg + c] += src[kw * g.icg + c];
            }
        }
    }
}

// ALGO_1's col2im path for first layers (ConvBackwardPlan::im2col_cols).
template <class T, class C>
void col2im_typed(const ExecContext &ctx, const ops::ConvBackwardProblem &p, const ConvBackwardPlan &bp,
                  const ConvBwdDataOperands &o, void *workspace) {
    const ops::ConvGeometry &g = p.geo;
    const GemmKernels<C> &gk = isa_gemm<C>();
    const int64_t cols = bp.im2col_cols, ocg = g.ocg, taps = g.taps(), pixels = g.out_pixels();
    const int64_t in_pixels = g.in[0] * g.in[1] * g.in[2];
    WorkspaceCursor cur(workspace);
    C *wr = cur.take<C>(ocg * cols);  // W' [k][col]
    C *wpk = cur.take<C>(bp.wpk_group_elems);
    struct Worker {
        C *sums, *col;
        void *gemm_ws;
    };
    Worker workers[64];
    const int nworkers = bp.workers < 64 ? bp.workers : 64;
    for (int t = 0; t < nworkers; ++t) {
        workers[t].sums = cur.take<C>(g.icg * in_pixels);
        workers[t].col = cur.take<C>(bp.im2col_chunk * cols);
        workers[t].gemm_ws = cur.take<unsigned char>(static_cast<int64_t>(bp.gemm_ws_bytes));
    }
    // W' = the filter's taps as columns (CONVOLUTION mode: flipped), packed once as B.
    const T *w = static_cast<const T *>(o.w);
    parallel_ranges(ctx, ocg * taps, conv_grain(g.icg), [&](int64_t begin, int64_t end) {
        for (int64_t q = begin; q < end; ++q) {
            const int64_t k = q / taps, t = q % taps;
            const T *src = w + k * g.ws[0] + tap_filter_offset(g, t);
            C *dst = wr + k * cols + t * g.icg;
            for (int64_t c = 0; c < g.icg; ++c) dst[c] = load<C>(src + c * g.ws[1]);
        }
    });
    const C *wr_const = wr;
    gk.pack_b(ctx, false, cols, ocg, 1, &wr_const, cols, wpk);

    const Epilogue<T, C> e = blend_epilogue<T, C>(p, o.dx);
    const C *dy = reinterpret_cast<const C *>(o.dy);
    auto image = [&](int64_t img, const Worker &wk, const ExecContext &inner) {
        for (int64_t i = 0; i < g.icg * in_pixels; ++i) wk.sums[i] = C(0);
        for (int64_t q = 0; q < bp.im2col_chunks; ++q) {
            const int64_t p0 = q * bp.im2col_chunk, len = imin_(bp.im2col_chunk, pixels - p0);
            GemmArgs<C> a;
            a.m = len;
            a.n = cols;
            a.k = ocg;
            // dy: channels-last dy is pixels x K, channels-first K x pixels.
            a.trans_a = g.ys[1] != 1;
            a.a = dy + img * g.ys[0] + p0 * g.ys[4];
            a.lda = a.trans_a ? g.ys[1] : g.ys[4];
            a.b = wr;
            a.ldb = cols;
            a.b_packed = wpk;
            a.c = wk.col;
            a.ldc = cols;
            gk.gemm(inner, a, wk.gemm_ws);
            OutputPixel px(g, p0);
            for (int64_t r = 0; r < len; ++r, px.next(g)) col2im_row(g, wk.col + r * cols, px.od, px.oh, px.ow, wk.sums);
        }
        // dx = alpha * sums + beta * dx, a pixel's channels at a time.
        for (int64_t pix = 0; pix < in_pixels; ++pix) {
            const int64_t iw = pix % g.in[2], ih = pix / g.in[2] % g.in[1], id = pix / (g.in[2] * g.in[1]);
            e.run(wk.sums + pix * g.icg, g.icg, img * g.xs[0] + id * g.xs[2] + ih * g.xs[3] + iw * g.xs[4], g.xs[1],
                  0, 0, 0, 0);
        }
    };
    if (bp.outer_parallel) {
#pragma omp parallel num_threads(nworkers)
        {
            const int tid = omp_get_thread_num(), team = omp_get_num_threads();
            for (int64_t img = tid; img < g.n; img += team) image(img, workers[tid], ExecContext{1});
        }
    } else {
        for (int64_t img = 0; img < g.n; ++img) image(img, workers[0], ctx);
    }
}

// Gathers, for each dx pixel, the dy pixels whose taps reach it: output o
// along a dimension meets input i through tap k when o * s + k * dil - pad == i.
template <class T, class C>
void direct_typed(const ExecContext &ctx, const ops::ConvBackwardProblem &p, const ConvBwdDataOperands &o) {
    const ops::ConvGeometry &g = p.geo;
    const Epilogue<T, C> epi = blend_epilogue<T, C>(p, o.dx);
    const T *dy = static_cast<const T *>(o.dy), *w = static_cast<const T *>(o.w);
    auto output_of = [&](int d, int64_t i, int64_t k) -> int64_t {
        const int64_t num = i + g.pad[d] - k * g.dil[d];
        if (num < 0 || num % g.stride[d] != 0) return -1;
        const int64_t out = num / g.stride[d];
        return out < g.out[d] ? out : -1;
    };
    const int64_t rows = g.n * g.groups * g.in[0] * g.in[1];
    parallel_ranges(ctx, rows, conv_grain(g.in[2] * g.ocg * g.icg * g.taps()), [&](int64_t begin, int64_t end) {
        C acc[kIcBlock];
        for (int64_t q = begin; q < end; ++q) {
            const int64_t ih = q % g.in[1], id = q / g.in[1] % g.in[0];
            const int64_t grp = q / (g.in[1] * g.in[0]) % g.groups, img = q / (g.in[1] * g.in[0] * g.groups);
            for (int64_t iw = 0; iw < g.in[2]; ++iw) {
                for (int64_t c0 = 0; c0 < g.icg; c0 += kIcBlock) {
                    const int64_t nb = imin_(kIcBlock, g.icg - c0);
                    for (int64_t j = 0; j < nb; ++j) acc[j] = C(0);
                    for (int64_t kd = 0; kd < g.k[0]; ++kd) {
                        const int64_t od = output_of(0, id, kd);
                        if (od < 0) continue;
                        for (int64_t kh = 0; kh < g.k[1]; ++kh) {
                            const int64_t oh = output_of(1, ih, kh);
                            if (oh < 0) continue;
                            for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                                const int64_t ow = output_of(2, iw, kw);
                                if (ow < 0) continue;
                                const T *dyp = dy + img * g.ys[0] + grp * g.ocg * g.ys[1] + od * g.ys[2] +
                                               oh * g.ys[3] + ow * g.ys[4];
                                const T *wp = w + grp * g.ocg * g.ws[0] + g.filter_offset(kd, kh, kw) + c0 * g.ws[1];
                                for (int64_t oc = 0; oc < g.ocg; ++oc) {
                                    const C dv = load<C>(dyp + oc * g.ys[1]);
                                    const T *wc = wp + oc * g.ws[0];
                                    for (int64_t j = 0; j < nb; ++j) acc[j] += dv * load<C>(wc + j * g.ws[1]);
                                }
                            }
                        }
                    }
                    epi.run(acc, nb,
                            img * g.xs[0] + (grp * g.icg + c0) * g.xs[1] + id * g.xs[2] + ih * g.xs[3] + iw * g.xs[4],
                            g.xs[1], 0, 0, 0, 0);
                }
            }
        }
    });
}

// p (its geometry channels last) on channels-last copies of the caller's
// packed channels-first dy and dx (ConvBackwardPlan::copy_dy_elems): dy
// transposed in, dx in too when beta blends it, the GEMMs on the copies, dx
// transposed back out; an image per item.
template <class T, class C>
void channels_last_copies_typed(const ExecContext &ctx, const ops::ConvBackwardProblem &p,
                                const ConvBackwardPlan &bp, const ConvBwdDataOperands &o, void *workspace) {
    const ops::ConvGeometry &g = p.geo;
    const int64_t ic = g.groups * g.icg, oc = g.groups * g.ocg, ip = g.in_pixels(), op = g.out_pixels();
    WorkspaceCursor cur(workspace);
    T *dy_t = cur.take<T>(bp.copy_dy_elems), *dx_t = cur.take<T>(bp.copy_dx_elems);
    ConvBwdDataOperands copies = o;
    copies.dy = dy_t;
    copies.dx = dx_t;
    with_channels_last_copies(ctx, g.n, static_cast<const T *>(o.dy), oc, op, static_cast<T *>(o.dx), ic, ip,
                              p.beta != 0, dy_t, dx_t, [&] { gemm_typed<T, C>(ctx, p, bp, copies, cur.at); });
}

void gemm(const ExecContext &ctx, const ops::ConvBackwardProblem &p, const ConvBackwardPlan &bp,
          const ConvBwdDataOperands &o, void *ws) {
    visit_types(p.geo.dt, [&](auto t, auto c) {
        using T = typename decltype(t)::type;
        using C = typename decltype(c)::type;
        if (bp.im2col_cols > 0) col2im_typed<T, C>(ctx, p, bp, o, ws);
        else if (bp.copy_dy_elems > 0) channels_last_copies_typed<T, C>(ctx, p, bp, o, ws);
        else gemm_typed<T, C>(ctx, p, bp, o, ws);
    });
}

void direct(const ExecContext &ctx, const ops::ConvBackwardProblem &p, const ConvBwdDataOperands &o) {
    visit_types(p.geo.dt, [&](auto t, auto c) {
        direct_typed<typename decltype(t)::type, typename decltype(c)::type>(ctx, p, o);
    });
}

}  // namespace

extern const ConvBwdDataKernels conv_bwd_data = {gemm, direct};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
