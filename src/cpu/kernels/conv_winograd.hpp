// Forward convolution by Winograd F(4x4, 3x3), non-fused (WINOGRAD_NONFUSED),
// compiled once per ISA level: the filter and output transforms (the input
// transform and the matrices are util/winograd.hpp's) as plain loops over up
// to kLanes channels (vectorized along the channels) and 36 GEMMs per block
// of tiles on the GEMM engine. ConvWinogradPlan (src/cpu/conv.hpp) describes
// the tiling; docs/ARCHITECTURE.md ("WINOGRAD_NONFUSED") the error bound.
#include <omp.h>

#include "cpu/kernels/util/transpose.hpp"
#include "cpu/kernels/util/winograd.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

// The filter transform, written straight into the GEMM engine's packed
// layout of op(B) = U_point (icg x ocg; GemmKernels::pack_b, documented in
// docs/ARCHITECTURE.md, "B (or A) packed once for many products"): the
// reduction (input channels) in the engine's balanced blocks of `step`.
// whole: all of a group's U_point at dst, block pc at + pc * round_up(ocg,
// NR), in it the NR-column sliver j at + j * kc, row c - pc of the sliver at
// + (c - pc) * NR. Writing U first and packing it after moved 36 icg ocg
// values twice more (res5: 38 MB). Not whole: only the sliver's rows of
// the reduction block holding [c0, c0 + cn), row c - pc at dst + (c - pc) *
// NR (a worker's buffer, by_slivers). Points i * 6 .. i * 6 + 5 for the
// rows i in [i0, i1) of the 6 x 6 points, point_stride apart.
// One item: group grp, the sliver of output channels [j, j + NR) (zero
// past ocg), input channels [c0, c0 + cn), cn <= kFilterCb.
constexpr int64_t kFilterCb = 8;

template <class T, class C>
void filter_transform_packed(const ops::ConvGeometry &g, const T *w, int64_t grp, int64_t j, int64_t c0, int64_t cn,
                             int64_t nr, int64_t step, int64_t point_stride, C *dst_base, bool whole, int64_t i0,
                             int64_t i1) {
    const int64_t icg = g.icg, ocg = g.ocg, nk = imin_(nr, ocg - j), ocg_padded = (ocg + nr - 1) / nr * nr;
    const int64_t cbn = kFilterCb * kMaxGemmNr;
    alignas(64) C gt[9 * kFilterCb * kMaxGemmNr];
    // gt: the sliver's channels side by side, tap (r, s) of input channel
    // c0 + c at c * cs + off[r][s], off = the tap's slot times ts. KRSC and
    // KCRS filters in the compute type are transposed there from whole rows
    // (tap after tap, or c's 9 taps), the slot the tap's place in memory;
    // else gathered one value at a time, [tap][c], slot r * 3 + s. Gathering every filter one value at a time was
    // two cycles a value, half of a 14 x 14 layer's time at mb1.
    int64_t cs = kMaxGemmNr, ts = cbn, unit = 0;
    if constexpr (std::is_same_v<T, C>) {
        if (g.ws[1] == 1 && g.ws[4] == icg && g.ws[3] == 3 * icg) unit = icg;
        else if (g.ws[4] == 1 && g.ws[3] == 3 && g.ws[1] == 9) unit = 1, cs = 9 * kMaxGemmNr, ts = kMaxGemmNr;
    }
    int64_t off[3][3];
    for (int64_t r = 0; r < 3; ++r)
        for (int64_t s = 0; s < 3; ++s) off[r][s] = (unit != 0 ? g.filter_offset(0, r, s) / unit : r * 3 + s) * ts;
    const T *src = w + (grp * ocg + j) * g.ws[0] + c0 * g.ws[1];
    if (unit == icg)
        for (int64_t q = 0; q < 9; ++q)
            transpose_elements(sizeof(C), src + q * icg, g.ws[0], gt + q * ts, kMaxGemmNr, cn, nk);
    else if (unit == 1)
        transpose_elements(sizeof(C), src, g.ws[0], gt, kMaxGemmNr, 9 * cn, nk);
    for (int64_t r = 0; r < 3; ++r)
        for (int64_t s = 0; s < 3; ++s)
            for (int64_t c = 0; c < cn; ++c) {
                C *d = gt + c * cs + off[r][s];
                if (unit == 0)
                    for (int64_t k = 0; k < nk; ++k)
                        d[k] = load<C>(src + g.filter_offset(0, r, s) + c * g.ws[1] + k * g.ws[0]);
                for (int64_t k = nk; k < nr; ++k) d[k] = C(0);
            }
    // U = G g G^T a vector of output channels at a time, t = G g (along r)
    // held in registers, then each of the rows [i0, i1) of t G^T (along s)
    // into its packed matrices: through memory (6 + 36 stores a vector)
    // the two passes were a quarter of res4's time at mb1.
    using V = vec_t<C>;
    constexpr int64_t W = kVectorBytes / sizeof(C);  // nr is a multiple of W (NR = 3 W, or the generic tile's)
    for (int64_t c = 0; c < cn; ++c) {
        const int64_t ci = c0 + c, pc = ci / step * step, kc = imin_(step, icg - pc);
        C *dst = dst_base + (whole ? pc * ocg_padded + j * kc : 0) + (ci - pc) * nr;
        const C *gc = gt + c * cs;
        for (int64_t v = 0; v < nr; v += W) {
            V t[6][3], o[6];
            for (int s = 0; s < 3; ++s) {
                wino_g_vec<C>(load_vec<V>(gc + off[0][s] + v), load_vec<V>(gc + off[1][s] + v),
                           load_vec<V>(gc + off[2][s] + v), o);
                for (int i = 0; i < 6; ++i) t[i][s] = o[i];
            }
            for (int64_t i = i0; i < i1; ++i) {
                wino_g_vec<C>(t[i][0], t[i][1], t[i][2], o);
                for (int q = 0; q < 6; ++q) store_vec(dst + (i * 6 + q) * point_stride + v, o[q]);
            }
        }
    }
}

// The output transform of tiles [t_begin, t_end) of the block starting at
// q0 from m[point][tile - q0][oc] (ld ocg, point stride mps), through the
// epilogue into y.
template <class T, class C>
void output_transform(const ops::ConvForwardProblem &p, const ConvWinogradPlan &pl, const Epilogue<T, C> &epi,
                      int64_t grp, int64_t q0, int64_t t_begin, int64_t t_end, const C *m, int64_t mps) {
    const ops::ConvGeometry &g = p.geo;
    const int64_t ocg = g.ocg, per_image = pl.tiles_h * pl.tiles_w;
    const int64_t *ys = g.ys, *zs = p.zs;
    C s[24 * kLanes], o[16 * kLanes], ot[16 * kLanes];
    // y channels first (w stride 1): written a channel's tile row at a time
    // (each pixel's channels a plane apart, one value per store and
    // epilogue call, took a quarter of VGG-16's conv1_2).
    const bool channels_first = ys[4] == 1 && ys[1] != 1, plain = channels_first && epi.plain(1);
    for (int64_t q = t_begin; q < t_end; ++q) {
        const int64_t img = q / per_image, r = q % per_image, th = r / pl.tiles_w, tw = r % pl.tiles_w;
        const int64_t oh0 = th * 4, ow0 = tw * 4;
        const int64_t rows = imin_(4, g.out[1] - oh0), cols = imin_(4, g.out[2] - ow0);
        for (int64_t k0 = 0; k0 < ocg; k0 += kLanes) {
            const int64_t n = imin_(kLanes, ocg - k0);
            const C *mt = m + (q - q0) * ocg + k0;
            // Along the point rows (the 6 columns side by side), then along the columns.
            for (int64_t j = 0; j < 6; ++j) wino_at(mt + j * mps, 6 * mps, s + j * kLanes, 6 * kLanes, n);
            for (int64_t i = 0; i < rows; ++i) wino_at(s + i * 6 * kLanes, kLanes, o + i * 4 * kLanes, kLanes, n);
            const int64_t oc = grp * ocg + k0;
            if (channels_first) {
                // Each channel's rows of the tile: alpha * o straight into y
                // (a plain epilogue), else o transposed for the epilogue.
                const int64_t y0 = img * ys[0] + oc * ys[1] + oh0 * ys[3] + ow0;
                const int64_t z0 = img * zs[0] + oc * zs[1] + oh0 * zs[3] + ow0 * zs[4];
                if (plain) {
                    for (int64_t k = 0; k < n; ++k)
                        for (int64_t i = 0; i < rows; ++i)
                            for (int64_t j = 0; j < cols; ++j)
                                store(epi.y + y0 + k * ys[1] + i * ys[3] + j, epi.alpha * o[(i * 4 + j) * kLanes + k]);
                    continue;
                }
                for (int64_t k = 0; k < n; ++k)
                    for (int64_t px = 0; px < rows * 4; ++px) ot[k * 16 + px] = o[px * kLanes + k];
                for (int64_t k = 0; k < n; ++k)
                    for (int64_t i = 0; i < rows; ++i)
                        epi.run(ot + k * 16 + i * 4, cols, y0 + k * ys[1] + i * ys[3], 1,
                                z0 + k * zs[1] + i * zs[3], zs[4], oc + k, 0);
                continue;
            }
            for (int64_t i = 0; i < rows; ++i)
                for (int64_t j = 0; j < cols; ++j) {
                    const int64_t oh = oh0 + i, ow = ow0 + j;
                    epi.run(o + (i * 4 + j) * kLanes, n, img * ys[0] + oc * ys[1] + oh * ys[3] + ow * ys[4], ys[1],
                            img * zs[0] + oc * zs[1] + oh * zs[3] + ow * zs[4], zs[1], oc, 1);
                }
        }
    }
}

template <class T, class C>
void winograd_typed(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvWinogradPlan &pl,
                    const ConvOperands &o, void *workspace) {
    const ops::ConvGeometry &g = p.geo;
    const GemmKernels<C> &gk = isa_gemm<C>();
    const int64_t icg = g.icg, ocg = g.ocg;
    (void)ctx;  // the plan's workers are the team

    // Workspace: the packed filter of every (group, point) (by_slivers: a
    // sliver buffer per worker instead), V and M per block in flight (one
    // per worker when workers take whole blocks, else one shared), then
    // each worker's GEMM workspace.
    WorkspaceCursor cur(workspace);
    T *x_copy = pl.x_copy_elems > 0 ? cur.take<T>(pl.x_copy_elems) : nullptr;
    const int nworkers = pl.workers < 64 ? pl.workers : 64;
    // All of U packed, or (by_slivers) each worker's sliver of it.
    C *wpk = pl.by_slivers ? nullptr : cur.take<C>(g.groups * kP * pl.wpk_elems);
    C *us[64];
    for (int t = 0; pl.by_slivers && t < nworkers; ++t) us[t] = cur.take<C>(kP * pl.u_stride);
    const int nsets = pl.outer_parallel ? nworkers : 1;
    const int64_t vps = pl.v_stride, mps = pl.m_stride;
    C *vs[64], *ms[64];
    void *gws[64];
    for (int t = 0; t < nsets; ++t) {
        vs[t] = cur.take<C>(kP * vps);
        ms[t] = cur.take<C>(kP * mps);
    }
    for (int t = 0; t < nworkers; ++t) gws[t] = cur.take<unsigned char>(static_cast<int64_t>(pl.gemm_ws_bytes));

    const T *w = static_cast<const T *>(o.w);
    const Epilogue<T, C> epi = full_epilogue<T, C>(p, o);
    const T *x = static_cast<const T *>(o.x);
    // The input transform's view of x: x itself, or its channels-last copy.
    const int64_t ic = g.groups * icg, pixels = g.in[1] * g.in[2];
    ops::ConvGeometry gx = g;
    if (x_copy != nullptr) {
        gx.xs[0] = pixels * ic, gx.xs[1] = 1, gx.xs[2] = pixels * ic, gx.xs[3] = g.in[2] * ic, gx.xs[4] = ic;
        x = x_copy;
    }
    const ExecContext one{1};
    auto gemm = [&](int64_t grp, int xi, int64_t nt, const C *v, C *m, void *ws) {
        GemmArgs<C> a;
        a.m = nt;
        a.n = ocg;
        a.k = icg;
        a.a = v + xi * vps;
        a.lda = icg;
        a.b_packed = wpk + (grp * kP + xi) * pl.wpk_elems;
        a.trans_b = true;
        a.b = a.b_packed;  // with b_packed the engine reads only that
        a.ldb = icg;
        a.c = m + xi * mps;
        a.ldc = ocg;
        gk.gemm(one, a, ws);
    };

    // One parallel region: every fork and join costs a scheduler round on a
    // busy machine. The GEMMs are single-threaded (their bits do not depend
    // on it).
#pragma omp parallel num_threads(nworkers) if (nworkers > 1)
    {
        const int t = omp_get_thread_num(), team = omp_get_num_threads();
        auto share = [&](int64_t count, int64_t *b, int64_t *e) {
            *b = count * t / team;
            *e = count * (t + 1) / team;
        };
        int64_t b, e;
        if (x_copy != nullptr) {
            // Pieces of 256 pixels of an image.
            const int64_t pieces = ceil_div(pixels, 256);
            share(g.n * pieces, &b, &e);
            for (int64_t q = b; q < e; ++q) {
                const int64_t img = q / pieces, p0 = q % pieces * 256, np = imin_(256, pixels - p0);
                transpose_elements(sizeof(T), static_cast<const T *>(o.x) + img * g.xs[0] + p0, g.xs[1],
                                   x_copy + (img * pixels + p0) * ic, ic, np, ic);
            }
        }
        const int64_t nr = gk.blocking.nr, slivers = (ocg + nr - 1) / nr, step = gemm_kc_step(gk.blocking.kc, icg);
        if (!pl.by_slivers) {
            const int64_t cblocks = (icg + kFilterCb - 1) / kFilterCb;
            share(g.groups * slivers * cblocks, &b, &e);
            for (int64_t q = b; q < e; ++q) {
                const int64_t cb = q % cblocks, sl = q / cblocks % slivers, grp = q / (cblocks * slivers);
                filter_transform_packed(g, w, grp, sl * nr, cb * kFilterCb, imin_(kFilterCb, icg - cb * kFilterCb), nr,
                                        step, pl.wpk_elems, wpk + grp * kP * pl.wpk_elems, true, 0, 6);
            }
        }
#pragma omp barrier
        if (pl.by_slivers) {
            // One block: the workers share the pairs (sliver of output
            // channels, row of the 6 x 6 points), slivers outer, each pair
            // weighted by its columns (the last sliver may be narrow): a worker
            // gathers the filter of its slivers only, and at most one sliver is
            // shared between two workers by rows of points. For each sliver,
            // one reduction block at a time: its U into the worker's buffer
            // (1.8 MB at most: about an L2), then the products that read
            // it. The same blocks and tiles as the GEMM over all of U: the
            // same bits.
            const int64_t nt = pl.tiles;
            for (int64_t grp = 0; grp < g.groups; ++grp) {
                share(nt, &b, &e);
                input_transform(gx, pl.tiles_h, pl.tiles_w, x, grp, 0, b, e, vs[0], vps);
#pragma omp barrier
                for (int64_t sl = 0; sl < slivers; ++sl) {
                    // Pair (sl, r) goes to the worker whose share of the 6 ocg
                    // columns holds its middle; ours are rows [r0, r1).
                    int64_t r0 = 6, r1 = 0;
                    for (int64_t r = 0; r < 6; ++r) {
                        const int64_t mid2 = 2 * 6 * sl * nr + (2 * r + 1) * imin_(nr, ocg - sl * nr);
                        if (imin_(mid2 * team / (2 * 6 * ocg), team - 1) != t) continue;
                        r0 = imin_(r0, r);
                        r1 = r + 1;
                    }
                    if (r0 >= r1) continue;
                    const int64_t j = sl * nr;
                    for (int64_t pc = 0; pc < icg; pc += step) {
                        const int64_t kc = imin_(step, icg - pc);
                        for (int64_t c0 = pc; c0 < pc + kc; c0 += kFilterCb)
                            filter_transform_packed(g, w, grp, j, c0, imin_(kFilterCb, pc + kc - c0), nr, step,
                                                    pl.u_stride, us[t], false, r0, r1);
                        for (int64_t xi = 6 * r0; xi < 6 * r1; ++xi) {
                            GemmArgs<C> a;
                            a.m = nt, a.n = imin_(nr, ocg - j), a.k = kc;
                            a.a = vs[0] + xi * vps + pc, a.lda = icg;
                            a.b = a.b_packed = us[t] + xi * pl.u_stride;
                            a.trans_b = true, a.ldb = kc;
                            a.c = ms[0] + xi * mps + j, a.ldc = ocg;
                            a.beta = pc == 0 ? C(0) : C(1);
                            gk.gemm(one, a, gws[t]);
                        }
                    }
                }
#pragma omp barrier
                share(nt, &b, &e);
                output_transform(p, pl, epi, grp, 0, b, e, ms[0], mps);
#pragma omp barrier
            }
        } else if (pl.outer_parallel) {
            share(pl.blocks, &b, &e);
            for (int64_t blk = b; blk < e; ++blk) {
                const int64_t q0 = blk * pl.block, nt = imin_(pl.block, pl.tiles - q0);
                for (int64_t grp = 0; grp < g.groups; ++grp) {
                    input_transform(gx, pl.tiles_h, pl.tiles_w, x, grp, q0, q0, q0 + nt, vs[t], vps);
                    for (int xi = 0; xi < kP; ++xi) gemm(grp, xi, nt, vs[t], ms[t], gws[t]);
                    output_transform(p, pl, epi, grp, q0, q0, q0 + nt, ms[t], mps);
                }
            }
        } else {
            for (int64_t blk = 0; blk < pl.blocks; ++blk) {
                const int64_t q0 = blk * pl.block, nt = imin_(pl.block, pl.tiles - q0);
                for (int64_t grp = 0; grp < g.groups; ++grp) {
                    share(nt, &b, &e);
                    input_transform(gx, pl.tiles_h, pl.tiles_w, x, grp, q0, q0 + b, q0 + e, vs[0], vps);
#pragma omp barrier
                    share(kP, &b, &e);
                    for (int64_t xi = b; xi < e; ++xi) gemm(grp, static_cast<int>(xi), nt, vs[0], ms[0], gws[t]);
#pragma omp barrier
                    share(nt, &b, &e);
                    output_transform(p, pl, epi, grp, q0, q0 + b, q0 + e, ms[0], mps);
#pragma omp barrier
                }
            }
        }
    }
}

void winograd(const ExecContext &ctx, const ops::ConvForwardProblem &p, const ConvWinogradPlan &pl,
              const ConvOperands &o, void *ws) {
    visit_types(p.geo.dt, [&](auto t, auto c) {
        winograd_typed<typename decltype(t)::type, typename decltype(c)::type>(ctx, p, pl, o, ws);
    });
}

}  // namespace

extern const ConvWinogradKernels conv_winograd = {winograd};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
