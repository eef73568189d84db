// Backward-filter convolution kernels, compiled once per ISA level:
// BWD_FILTER_ALGO_1, one batch-reduce GEMM per filter tap over the images'
// planes (ConvBackwardPlan in src/cpu/conv.hpp), and BWD_FILTER_ALGO_0,
// direct loops. The sum over images and pixels runs in an order fixed by the
// problem alone (images per GEMM are set by memory, the GEMM's blocking by
// its sizes): deterministic for any thread count.
#include <omp.h>

#include "cpu/kernels/util/conv_common.hpp"
#include "cpu/kernels/util/conv_im2col.hpp"
#include "cpu/kernels/util/transpose.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

template <class T, class C>
void gemm_typed(const ExecContext &ctx, const ops::ConvBackwardProblem &p, const ConvBackwardPlan &bp,
                const ConvBwdFilterOperands &o, void *workspace) {
    const ops::ConvGeometry &g = p.geo;
    const ConvPrecompPlan &pl = bp.planes;
    const GemmKernels<C> &gk = isa_gemm<C>();
    const int64_t taps = pl.taps, icg = g.icg, ocg = g.ocg, nb_max = bp.images;

    WorkspaceCursor cur(workspace);
    C *sums = pl.w_direct ? nullptr : cur.take<C>(pl.wr_elems);  // [group][tap][oc][ic]
    C *partial = cur.take<C>(bp.partial_elems);                   // [gemm][part][oc][n]
    C *dy_packed = cur.take<C>(g.groups * bp.k_parts * bp.dy_pack_elems);  // [group][part]
    C *planes = cur.take<C>(nb_max * pl.image_elems);
    C *grid = cur.take<C>(nb_max * bp.dy_image_elems);
    struct Worker {
        const C **a, **b;
        void *gemm_ws;
        C *dyt;  // pixel_ranges with taps: dy^T of a segment, packed
    };
    Worker workers[64];
    const int nworkers = bp.workers < 64 ? bp.workers : 64;
    for (int t = 0; t < nworkers; ++t) {
        workers[t].a = cur.take<const C *>(nb_max);
        workers[t].b = cur.take<const C *>(nb_max);
        workers[t].gemm_ws = cur.take<unsigned char>(static_cast<int64_t>(bp.gemm_ws_bytes));
        workers[t].dyt = cur.take<C>(bp.dyt_pack_elems);
    }
    const C alpha = static_cast<C>(p.alpha), beta = static_cast<C>(p.beta);
    const T *x = static_cast<const T *>(o.x), *dy = static_cast<const T *>(o.dy);
    const int64_t plane_rows = pl.channels_last ? pl.phases * pl.L[0] * pl.L[1]
                                                : g.groups * icg * pl.phases * pl.L[0] * pl.L[1];
    const int64_t grid_rows = dy_grid_rows(g, bp);

    for (int64_t i0 = 0; i0 < g.n; i0 += nb_max) {
        const int64_t nb = imin_(nb_max, g.n - i0);
        if (!pl.x_direct) {
            const int64_t grain = 1 + kElementwiseGrain / (pl.L[2] * (pl.channels_last ? g.groups * icg : 1));
            parallel_ranges(ctx, nb * plane_rows, grain, [&](int64_t b, int64_t e) {
                for (int64_t q = b; q < e;) {
                    const int64_t img = q / plane_rows, r = q % plane_rows, stop = imin_(e - img * plane_rows, plane_rows);
                    fill_planes(g, pl, x + (i0 + img) * g.xs[0], planes + img * pl.image_elems, r, stop);
                    q = img * plane_rows + stop;
                }
            });
        }
        if (!bp.dy_direct) {
            const int64_t grain = 1 + kElementwiseGrain / (pl.L[2] * (pl.channels_last ? g.groups * ocg : 1));
            parallel_ranges(ctx, nb * grid_rows, grain, [&](int64_t b, int64_t e) {
                for (int64_t q = b; q < e;) {
                    const int64_t img = q / grid_rows, r = q % grid_rows, stop = imin_(e - img * grid_rows, grid_rows);
                    fill_dy_grid(g, bp, dy + (i0 + img) * g.ys[0], grid + img * bp.dy_image_elems, r, stop);
                    q = img * grid_rows + stop;
                }
            });
        }
        // dW_t of group grp over the chunk's images (or of the filter row q
        // when merge_w_taps): one batch-reduce GEMM, or k_parts of them over
        // parts of the pixels whose sums are added afterwards.
        const int64_t row_taps = bp.merge_w_taps ? g.k[2] : 1;
        const int64_t gemms = g.groups * taps / row_taps, parts = bp.k_parts, n_cols = icg * row_taps;
        // Where GEMM q's result goes, and how it blends: the filter itself
        // takes alpha and beta; the sums get them when written out.
        struct Dest {
            C *c;
            int64_t ldc;
            C alpha, beta;
        };
        auto dest = [&](int64_t q) {
            const int64_t grp = q * row_taps / taps, t = q * row_taps % taps;
            if (pl.w_direct)
                return Dest{reinterpret_cast<C *>(o.dw) + grp * ocg * g.ws[0] + pl.tap_w[t], g.ws[0], alpha,
                            i0 == 0 ? beta : C(1)};
            return Dest{sums + (grp * taps + t) * ocg * icg, icg, C(1), i0 == 0 ? C(0) : C(1)};
        };
        // Group grp of the chunk's image i at pixel pix: x (or its planes,
        // phase 0) and dy (or its grid).
        auto x_at = [&](int64_t i, int64_t grp, int64_t pix) {
            const C *xi = pl.x_direct ? reinterpret_cast<const C *>(x) + (i0 + i) * g.xs[0] : planes + i * pl.image_elems;
            return xi + grp * icg * pl.chan_stride + pix * pl.pix_stride;
        };
        auto dy_at = [&](int64_t i, int64_t grp, int64_t pix) {
            const C *di = bp.dy_direct ? reinterpret_cast<const C *>(dy) + (i0 + i) * g.ys[0]
                                       : grid + i * bp.dy_image_elems;
            return di + grp * ocg * (pl.channels_last ? 1 : bp.dy_chan_stride) +
                   pix * (pl.channels_last ? bp.dy_pix_stride : 1);
        };
        // The dy of group grp's part of the pixels, [k0, k1) of each image.
        auto dy_part = [&](int64_t grp, int64_t k0, const C **a_ptr) {
            for (int64_t i = 0; i < nb; ++i) a_ptr[i] = dy_at(i, grp, k0);
        };
        const bool trans_a = pl.channels_last;
        const int64_t lda = pl.channels_last ? bp.dy_pix_stride : bp.dy_chan_stride;
        // Every GEMM of a group multiplies the same dy: packed once per group
        // and part (ConvBackwardPlan::dy_pack_elems), 3-8% of a strided 3x3.
        if (bp.dy_pack_elems != 0)
            for (int64_t gp = 0; gp < g.groups * parts; ++gp) {
                const int64_t grp = gp / parts, part = gp % parts;
                const int64_t k0 = pl.m_virtual * part / parts, k1 = pl.m_virtual * (part + 1) / parts;
                dy_part(grp, k0, workers[0].a);
                gk.pack_a(ctx, trans_a, ocg, k1 - k0, nb, workers[0].a, lda, dy_packed + gp * bp.dy_pack_elems);
            }
        // Work item w: GEMM q = w / parts over its pixels' part w % parts.
        auto item = [&](int64_t w, const C **a_ptr, const C **b_ptr, void *gemm_ws, const ExecContext &inner) {
            const int64_t q = w / parts, part = w % parts;
            const int64_t grp = q * row_taps / taps, t = q * row_taps % taps;
            const int64_t k0 = pl.m_virtual * part / parts, k1 = pl.m_virtual * (part + 1) / parts;
            for (int64_t i = 0; i < nb; ++i)
                b_ptr[i] = x_at(i, grp, pl.tap_pixel[t] + k0) + pl.tap_phase[t] * pl.phase_stride;
            dy_part(grp, k0, a_ptr);
            BrgemmArgs<C> a;
            a.m = ocg;
            a.n = n_cols;
            a.k = k1 - k0;
            a.batch = nb;
            a.a = a_ptr;
            a.b = b_ptr;
            a.trans_a = trans_a, a.lda = lda;
            if (bp.dy_pack_elems != 0) a.a_packed = dy_packed + (grp * parts + part) * bp.dy_pack_elems;
            if (pl.channels_last) a.ldb = pl.pix_stride;
            else a.trans_b = true, a.ldb = bp.merge_w_taps ? 1 : pl.chan_stride;
            const Dest d = dest(q);
            if (parts == 1) {
                a.c = d.c, a.ldc = d.ldc, a.alpha = d.alpha, a.beta = d.beta;
            } else {
                a.c = partial + w * ocg * n_cols, a.ldc = n_cols, a.alpha = 1, a.beta = 0;
            }
            gk.brgemm(inner, a, gemm_ws);
        };
        // A 1x1 filter's part w % parts of group w / parts in pixel_ranges:
        // the range [k0, k1) of the chunk's nb * m_virtual pixels, image
        // after image, in one GEMM per image it spans (one for all when
        // they lie back to back), each adding to the C of the one before.
        // With several taps (channels first), each image segment's dy^T is
        // packed once and every tap's GEMM dW_t^T += x_t dy^T reads it.
        auto range_item = [&](int64_t w, const Worker &wk, const ExecContext &inner) {
            const int64_t grp = w / parts, part = w % parts, pixels = nb * pl.m_virtual;
            const int64_t k0 = pixels * part / parts, k1 = pixels * (part + 1) / parts;
            for (int64_t s = k0; s < k1;) {
                const int64_t img = bp.images_back_to_back ? 0 : s / pl.m_virtual, p0 = s - img * pl.m_virtual;
                const int64_t len = bp.images_back_to_back ? k1 - s : imin_(pl.m_virtual - p0, k1 - s);
                const C *xs = x_at(img, grp, p0), *ds = dy_at(img, grp, p0);
                if (bp.dyt_pack_elems != 0) gk.pack_b(inner, true, ocg, len, 1, &ds, bp.dy_chan_stride, wk.dyt);
                for (int64_t t = 0; t < taps; ++t) {
                    const int64_t q = grp * taps + t;
                    GemmArgs<C> a;
                    a.k = len;
                    if (bp.swap_filter_gemm) {
                        // dW_t^T = x_t dy^T (channels first), x_t's rows read in place.
                        a.m = icg, a.n = ocg, a.lda = pl.chan_stride;
                        a.a = xs + pl.tap_phase[t] * pl.phase_stride + pl.tap_pixel[t] * pl.pix_stride;
                        a.b = ds, a.trans_b = true, a.ldb = bp.dy_chan_stride;
                        if (bp.dyt_pack_elems != 0) a.b_packed = wk.dyt;
                    } else {
                        a.m = ocg, a.n = icg, a.a = ds, a.trans_a = trans_a, a.lda = lda;
                        a.b = xs, a.trans_b = !pl.channels_last;
                        a.ldb = pl.channels_last ? pl.pix_stride : pl.chan_stride;
                    }
                    if (parts == 1) {
                        const Dest d = dest(q);
                        a.c = d.c, a.ldc = d.ldc, a.alpha = d.alpha, a.beta = s == k0 ? d.beta : C(1);
                    } else {
                        a.c = partial + (q * parts + part) * ocg * icg, a.ldc = a.n, a.alpha = 1;
                        a.beta = s == k0 ? C(0) : C(1);
                    }
                    gk.gemm(inner, a, wk.gemm_ws);
                }
                s += len;
            }
        };
        auto run_item = [&](int64_t w, const Worker &wk, const ExecContext &inner) {
            if (bp.pixel_ranges) range_item(w, wk, inner);
            else item(w, wk.a, wk.b, wk.gemm_ws, inner);
        };
        const int64_t items = (bp.pixel_ranges ? g.groups : gemms) * parts;
        if (bp.outer_parallel) {
            // Whole GEMMs or parts per thread: no GEMM splits its small C, nor packs an operand twice.
#pragma omp parallel num_threads(nworkers)
            {
                const int tid = omp_get_thread_num(), team = omp_get_num_threads();
                for (int64_t w = tid; w < items; w += team) run_item(w, workers[tid], ExecContext{1});
            }
        } else {
            for (int64_t w = 0; w < items; ++w) run_item(w, workers[0], ctx);
        }
        if (parts == 1) continue;
        if (bp.swap_filter_gemm) {
            // The parts of dW^T (icg x ocg each) added in part order into
            // dW: 16 output channels at a time, a line of each partial row.
            constexpr int64_t kOcBlock = 16;
            const int64_t oblocks = (ocg + kOcBlock - 1) / kOcBlock;
            parallel_ranges(ctx, gemms * oblocks, conv_grain(n_cols * kOcBlock), [&](int64_t begin, int64_t end) {
                for (int64_t r = begin; r < end; ++r) {
                    const int64_t q = r / oblocks, oc0 = r % oblocks * kOcBlock, on = imin_(kOcBlock, ocg - oc0);
                    const Dest d = dest(q);
                    const C *src = partial + q * parts * ocg * n_cols + oc0;
                    for (int64_t j = 0; j < n_cols; ++j) {
                        C v[kOcBlock];
                        for (int64_t l = 0; l < on; ++l) v[l] = src[j * ocg + l];
                        for (int64_t part = 1; part < parts; ++part)
                            for (int64_t l = 0; l < on; ++l) v[l] += src[(part * n_cols + j) * ocg + l];
                        for (int64_t l = 0; l < on; ++l) {
                            C *out = d.c + (oc0 + l) * d.ldc + j;
                            *out = d.beta == C(0) ? d.alpha * v[l] : d.alpha * v[l] + d.beta * *out;
                        }
                    }
                }
            });
            continue;
        }
        // The parts of each GEMM added in part order (the same bits on any thread count).
        parallel_ranges(ctx, gemms * ocg, conv_grain(n_cols), [&](int64_t begin, int64_t end) {
            for (int64_t r = begin; r < end; ++r) {
                const int64_t q = r / ocg, oc = r % ocg;
                const Dest d = dest(q);
                C *out = d.c + oc * d.ldc;
                const C *src = partial + (q * parts * ocg + oc) * n_cols;
                for (int64_t j = 0; j < n_cols; ++j) {
                    C v = src[j];
                    for (int64_t part = 1; part < parts; ++part) v += src[part * ocg * n_cols + j];
                    out[j] = d.beta == C(0) ? d.alpha * v : d.alpha * v + d.beta * out[j];
                }
            }
        });
    }
    if (pl.w_direct) return;
    Epilogue<T, C> e;
    e.alpha = alpha;
    e.beta = beta;
    e.y = static_cast<T *>(o.dw);
    parallel_ranges(ctx, g.groups * taps * ocg, conv_grain(icg), [&](int64_t begin, int64_t end) {
        for (int64_t q = begin; q < end; ++q) {
            const int64_t oc = q % ocg, t = q / ocg % taps, grp = q / (ocg * taps);
            e.run(sums + q * icg, icg, (grp * ocg + oc) * g.ws[0] + pl.tap_w[t], g.ws[1], 0, 0, 0, 0);
        }
    });
}

// ALGO_1's im2col path (ConvBackwardPlan::im2col_cols).
template <class T, class C>
void im2col_typed(const ExecContext &ctx, const ops::ConvBackwardProblem &p, const ConvBackwardPlan &bp,
                  const ConvBwdFilterOperands &o, void *workspace) {
    const ops::ConvGeometry &g = p.geo;
    const GemmKernels<C> &gk = isa_gemm<C>();
    const int64_t cols = bp.im2col_cols, ocg = g.ocg, nr = gk.blocking.nr, pixels = g.out_pixels();
    const int64_t chunks = g.n * bp.im2col_chunks, parts = bp.k_parts;
    const int64_t cols_padded = (cols + nr - 1) / nr * nr;
    WorkspaceCursor cur(workspace);
    C *partial = cur.take<C>(bp.partial_elems);  // [part][oc][col]
    struct Worker {
        C *packed;
        T *x_image;
        void *gemm_ws;
    };
    Worker workers[64];
    const int nworkers = bp.workers < 64 ? bp.workers : 64;
    for (int t = 0; t < nworkers; ++t) {
        workers[t].packed = cur.take<C>(cols_padded * bp.im2col_chunk);
        workers[t].x_image = cur.take<T>(bp.im2col_x_image);
        workers[t].gemm_ws = cur.take<unsigned char>(static_cast<int64_t>(bp.gemm_ws_bytes));
    }
    const T *x = static_cast<const T *>(o.x), *dy = static_cast<const T *>(o.dy);
    // x channels first: the gather reads a channels-last copy of the image
    // (ConvBackwardPlan::im2col_x_image), geometry gx.
    ops::ConvGeometry gx = g;
    if (bp.im2col_x_image != 0) {
        gx.xs[1] = 1, gx.xs[4] = g.icg, gx.xs[3] = g.in[2] * g.icg, gx.xs[2] = g.in[1] * g.in[2] * g.icg;
        gx.xs[0] = bp.im2col_x_image;
    }
    const int64_t pixels_in = g.in[0] * g.in[1] * g.in[2];
    // Part w: the chunks [chunks * w / parts, chunks * (w + 1) / parts), in order.
    auto part = [&](int64_t w, const Worker &wk) {
        C *c = partial + w * ocg * cols;
        const int64_t c0 = chunks * w / parts, c1 = chunks * (w + 1) / parts;
        int64_t copied = -1;  // the image in wk.x_image
        for (int64_t q = c0; q < c1; ++q) {
            const int64_t img = q / bp.im2col_chunks, p0 = q % bp.im2col_chunks * bp.im2col_chunk;
            const int64_t k = imin_(bp.im2col_chunk, pixels - p0);
            const T *ximg = x + img * g.xs[0];
            if (bp.im2col_x_image != 0) {
                if (img != copied) {
                    transpose_elements(sizeof(T), ximg, g.xs[1], wk.x_image, g.icg, pixels_in, g.icg);
                    copied = img;
                }
                ximg = wk.x_image;
            }
            OutputPixel px(g, p0);
            for (int64_t r = 0; r < k; ++r, px.next(g)) im2col_row(gx, ximg, px.od, px.oh, px.ow, nr, k, r, wk.packed);
            GemmArgs<C> a;
            a.m = ocg;
            a.n = cols;
            a.k = k;
            // dy^T: channels-last dy is pixels x K (each pixel's channels
            // contiguous), channels-first K x pixels (each channel's pixels).
            a.trans_a = g.ys[1] == 1;
            a.a = reinterpret_cast<const C *>(dy) + img * g.ys[0] + p0 * g.ys[4];
            a.lda = a.trans_a ? g.ys[4] : g.ys[1];
            a.b = wk.packed;  // with b_packed the engine reads only that
            a.b_packed = wk.packed;
            a.ldb = cols;
            a.beta = q == c0 ? C(0) : C(1);
            a.c = c;
            a.ldc = cols;
            gk.gemm(ExecContext{1}, a, wk.gemm_ws);
        }
    };
    if (bp.outer_parallel) {
#pragma omp parallel num_threads(nworkers)
        {
            const int tid = omp_get_thread_num(), team = omp_get_num_threads();
            for (int64_t w = tid; w < parts; w += team) part(w, workers[tid]);
        }
    } else {
        for (int64_t w = 0; w < parts; ++w) part(w, workers[0]);
    }
    // dW = alpha * (the parts added in part order) + beta * dW.
    Epilogue<T, C> e;
    e.alpha = static_cast<C>(p.alpha);
    e.beta = static_cast<C>(p.beta);
    e.y = static_cast<T *>(o.dw);
    const int64_t taps = g.taps();
    parallel_ranges(ctx, ocg * taps, conv_grain(g.icg * parts), [&](int64_t begin, int64_t end) {
        C sum[kConvIm2colMaxCols];
        for (int64_t q = begin; q < end; ++q) {
            const int64_t oc = q / taps, t = q % taps;
            const C *src = partial + oc * cols + t * g.icg;
            for (int64_t c = 0; c < g.icg; ++c) {
                C v = src[c];
                for (int64_t w = 1; w < parts; ++w) v += src[w * ocg * cols + c];
                sum[c] = v;
            }
            e.run(sum, g.icg, oc * g.ws[0] + tap_filter_offset(g, t), g.ws[1], 0, 0, 0, 0);
        }
    });
}

constexpr int64_t kIcBlock = 64;

// For each filter element: the sum over images and output pixels of dy
// times the input pixel its tap meets.
template <class T, class C>
void direct_typed(const ExecContext &ctx, const ops::ConvBackwardProblem &p, const ConvBwdFilterOperands &o) {
    const ops::ConvGeometry &g = p.geo;
    Epilogue<T, C> e;
    e.alpha = static_cast<C>(p.alpha);
    e.beta = static_cast<C>(p.beta);
    e.y = static_cast<T *>(o.dw);
    const T *x = static_cast<const T *>(o.x), *dy = static_cast<const T *>(o.dy);
    const int64_t taps = g.taps(), rows = g.groups * g.ocg * taps;
    parallel_ranges(ctx, rows, conv_grain(g.n * g.out_pixels() * g.icg), [&](int64_t begin, int64_t end) {
        C acc[kIcBlock];
        for (int64_t q = begin; q < end; ++q) {
            const int64_t t = q % taps, oc = q / taps, grp = oc / g.ocg;
            const int64_t kw = t % g.k[2], kh = t / g.k[2] % g.k[1], kd = t / (g.k[2] * g.k[1]);
            const int64_t shift = kw * g.dil[2] - g.pad[2];
            const int64_t lo_raw = div_ceil(-shift, g.stride[2]);
            const int64_t lo = lo_raw < 0 ? 0 : lo_raw, hi = imin_(g.out[2], div_ceil(g.in[2] - shift, g.stride[2]));
            for (int64_t c0 = 0; c0 < g.icg; c0 += kIcBlock) {
                const int64_t nb = imin_(kIcBlock, g.icg - c0);
                for (int64_t j = 0; j < nb; ++j) acc[j] = C(0);
                for (int64_t img = 0; img < g.n; ++img) {
                    for (int64_t od = 0; od < g.out[0]; ++od) {
                        const int64_t id = od * g.stride[0] + kd * g.dil[0] - g.pad[0];
                        if (id < 0 || id >= g.in[0]) continue;
                        for (int64_t oh = 0; oh < g.out[1]; ++oh) {
                            const int64_t ih = oh * g.stride[1] + kh * g.dil[1] - g.pad[1];
                            if (ih < 0 || ih >= g.in[1]) continue;
                            const T *dyp = dy + img * g.ys[0] + oc * g.ys[1] + od * g.ys[2] + oh * g.ys[3];
                            const T *xp = x + img * g.xs[0] + (grp * g.icg + c0) * g.xs[1] + id * g.xs[2] +
                                          ih * g.xs[3];
                            for (int64_t ow = lo; ow < hi; ++ow) {
                                const C dv = load<C>(dyp + ow * g.ys[4]);
                                const T *xw = xp + (ow * g.stride[2] + shift) * g.xs[4];
                                for (int64_t j = 0; j < nb; ++j) acc[j] += dv * load<C>(xw + j * g.xs[1]);
                            }
                        }
                    }
                }
                e.run(acc, nb, oc * g.ws[0] + c0 * g.ws[1] + g.filter_offset(kd, kh, kw), g.ws[1], 0, 0, 0, 0);
            }
        }
    });
}

void gemm(const ExecContext &ctx, const ops::ConvBackwardProblem &p, const ConvBackwardPlan &bp,
          const ConvBwdFilterOperands &o, void *ws) {
    visit_types(p.geo.dt, [&](auto t, auto c) {
        using T = typename decltype(t)::type;
        using C = typename decltype(c)::type;
        if (bp.im2col_cols > 0) im2col_typed<T, C>(ctx, p, bp, o, ws);
        else gemm_typed<T, C>(ctx, p, bp, o, ws);
    });
}

void direct(const ExecContext &ctx, const ops::ConvBackwardProblem &p, const ConvBwdFilterOperands &o) {
    visit_types(p.geo.dt, [&](auto t, auto c) {
        direct_typed<typename decltype(t)::type, typename decltype(c)::type>(ctx, p, o);
    });
}

}  // namespace

extern const ConvBwdFilterKernels conv_bwd_filter = {gemm, direct};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
