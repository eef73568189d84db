// Backward filter by Winograd F(4x4, 3x3), non-fused
// (BWD_FILTER_ALGO_WINOGRAD_NONFUSED), compiled once per ISA level: the
// input and output-gradient transforms of each block of tiles as plain loops
// over up to kLanes channels, 36 GEMMs per block on the GEMM engine summing
// the points' products over the blocks, and the transform of those sums back
// to the 3x3 taps. ConvWinogradFilterPlan (src/cpu/conv.hpp) gives the math
// and the blocking; util/winograd.hpp the matrices.
#include <omp.h>

#include "cpu/kernels/util/winograd.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

// The output-gradient transform of tiles [t_begin, t_end) of the block
// starting at tile q0: e[point][tile - q0][oc] = (A dY A^T) (ld ocg, point
// stride es) for group grp, dY's 4x4 tile at (4 th, 4 tw), zeros past the
// output's edge.
template <class T, class C>
void dy_transform(const ops::ConvGeometry &g, int64_t tiles_h, int64_t tiles_w, const T *dy, int64_t grp, int64_t q0,
                  int64_t t_begin, int64_t t_end, C *e, int64_t es) {
    const int64_t ocg = g.ocg, per_image = tiles_h * tiles_w;
    const int64_t *ys = g.ys;
    C d[16 * kLanes], t[24 * kLanes];
    for (int64_t q = t_begin; q < t_end; ++q) {
        const int64_t img = q / per_image, r = q % per_image, th = r / tiles_w, tw = r % tiles_w;
        const int64_t oh0 = th * 4, ow0 = tw * 4;
        const int64_t rows = imin_(4, g.out[1] - oh0), cols = imin_(4, g.out[2] - ow0);
        const T *dyimg = dy + img * ys[0] + grp * ocg * ys[1];
        for (int64_t c0 = 0; c0 < ocg; c0 += kLanes) {
            const int64_t n = imin_(kLanes, ocg - c0);
            for (int64_t i = 0; i < 4; ++i)
                for (int64_t j = 0; j < 4; ++j) {
                    C *dp = d + (i * 4 + j) * kLanes;
                    if (i >= rows || j >= cols) {
                        for (int64_t c = 0; c < n; ++c) dp[c] = C(0);
                        continue;
                    }
                    const T *s = dyimg + (oh0 + i) * ys[3] + (ow0 + j) * ys[4] + c0 * ys[1];
                    if (ys[1] == 1)
                        for (int64_t c = 0; c < n; ++c) dp[c] = load<C>(s + c);
                    else
                        for (int64_t c = 0; c < n; ++c) dp[c] = load<C>(s + c * ys[1]);
                }
            // Along i (the 4 columns side by side), then along j into e.
            for (int64_t j = 0; j < 4; ++j) wino_a(d + j * kLanes, 4 * kLanes, t + j * kLanes, 4 * kLanes, n);
            C *et = e + (q - q0) * ocg + c0;
            for (int64_t i = 0; i < 6; ++i) wino_a(t + i * 4 * kLanes, kLanes, et + i * 6 * es, es, n);
        }
    }
}

// dW of output channel oc of group grp = alpha G^T S G + beta dW, from the
// points' sums s[point][oc][ic] (ld icg, point stride ss).
template <class T, class C>
void filter_gradient(const ops::ConvGeometry &g, const Epilogue<T, C> &epi, int64_t grp, int64_t oc, const C *s,
                     int64_t ss) {
    const int64_t icg = g.icg;
    C t[18 * kLanes], o[9 * kLanes];
    for (int64_t c0 = 0; c0 < icg; c0 += kLanes) {
        const int64_t n = imin_(kLanes, icg - c0);
        const C *sp = s + oc * icg + c0;
        // Along the point columns (each row's 6 points), then along the rows.
        for (int64_t i = 0; i < 6; ++i) wino_gt(sp + i * 6 * ss, ss, t + i * 3 * kLanes, kLanes, n);
        for (int64_t j = 0; j < 3; ++j) wino_gt(t + j * kLanes, 3 * kLanes, o + j * kLanes, 3 * kLanes, n);
        const int64_t w0 = (grp * g.ocg + oc) * g.ws[0] + c0 * g.ws[1];
        for (int64_t r = 0; r < 3; ++r)
            for (int64_t q = 0; q < 3; ++q)
                epi.run(o + (r * 3 + q) * kLanes, n, w0 + g.filter_offset(0, r, q), g.ws[1], 0, 0, 0, 0);
    }
}

template <class T, class C>
void winograd_typed(const ExecContext &ctx, const ops::ConvBackwardProblem &p, const ConvWinogradFilterPlan &pl,
                    const ConvBwdFilterOperands &o, void *workspace) {
    const ops::ConvGeometry &g = p.geo;
    const GemmKernels<C> &gk = isa_gemm<C>();
    const int64_t icg = g.icg, ocg = g.ocg;
    (void)ctx;  // the plan's workers are the team

    // Workspace: the sums S of every (group, point), one block's V and E,
    // then each worker's GEMM workspace.
    WorkspaceCursor cur(workspace);
    C *sums = cur.take<C>(g.groups * kP * pl.s_stride);
    C *v = cur.take<C>(kP * pl.v_stride);
    C *e = cur.take<C>(kP * pl.e_stride);
    const int nworkers = pl.workers < 64 ? pl.workers : 64;
    void *gws[64];
    for (int t = 0; t < nworkers; ++t) gws[t] = cur.take<unsigned char>(static_cast<int64_t>(pl.gemm_ws_bytes));

    const T *x = static_cast<const T *>(o.x), *dy = static_cast<const T *>(o.dy);
    Epilogue<T, C> epi;
    epi.alpha = static_cast<C>(p.alpha);
    epi.beta = static_cast<C>(p.beta);
    epi.y = static_cast<T *>(o.dw);
    const ExecContext one{1};

    // One parallel region (every fork and join costs a scheduler round on a
    // busy machine); the GEMMs are single-threaded, a point per call.
#pragma omp parallel num_threads(nworkers) if (nworkers > 1)
    {
        const int t = omp_get_thread_num(), team = omp_get_num_threads();
        auto share = [&](int64_t count, int64_t *b, int64_t *end) {
            *b = count * t / team;
            *end = count * (t + 1) / team;
        };
        int64_t b, end;
        for (int64_t blk = 0; blk < pl.blocks; ++blk) {
            const int64_t q0 = blk * pl.block, nt = imin_(pl.block, pl.tiles - q0);
            for (int64_t grp = 0; grp < g.groups; ++grp) {
                share(nt, &b, &end);
                input_transform(g, pl.tiles_h, pl.tiles_w, x, grp, q0, q0 + b, q0 + end, v, pl.v_stride);
                dy_transform(g, pl.tiles_h, pl.tiles_w, dy, grp, q0, q0 + b, q0 + end, e, pl.e_stride);
#pragma omp barrier
                share(kP, &b, &end);
                for (int64_t xi = b; xi < end; ++xi) {
                    GemmArgs<C> a;
                    a.m = ocg;
                    a.n = icg;
                    a.k = nt;
                    a.trans_a = true;  // E is tiles x ocg
                    a.a = e + xi * pl.e_stride;
                    a.lda = ocg;
                    a.b = v + xi * pl.v_stride;
                    a.ldb = icg;
                    a.beta = blk == 0 ? C(0) : C(1);
                    a.c = sums + (grp * kP + xi) * pl.s_stride;
                    a.ldc = icg;
                    gk.gemm(one, a, gws[t]);
                }
#pragma omp barrier
            }
        }
        share(g.groups * ocg, &b, &end);
        for (int64_t q = b; q < end; ++q) {
            const int64_t grp = q / ocg;
            filter_gradient(g, epi, grp, q % ocg, sums + grp * kP * pl.s_stride, pl.s_stride);
        }
    }
}

void winograd(const ExecContext &ctx, const ops::ConvBackwardProblem &p, const ConvWinogradFilterPlan &pl,
              const ConvBwdFilterOperands &o, void *ws) {
    visit_types(p.geo.dt, [&](auto t, auto c) {
        winograd_typed<typename decltype(t)::type, typename decltype(c)::type>(ctx, p, pl, o, ws);
    });
}

}  // namespace

extern const ConvWinogradFilterKernels conv_winograd_bwd_filter = {winograd};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
