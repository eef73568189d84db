// RNN cell kernels (src/cpu/rnn_cell.hpp), compiled once per ISA level.
// One pass over a step's rows after its recurrent GEMM: the four LSTM gates
// of hidden unit j lie H apart in the row, so the GEMM's store, which sees
// column blocks, cannot finish a unit, and the cell runs as its own
// row-parallel pass (docs/ARCHITECTURE.md, "Recurrent networks").
#include "cpu/kernels/util/common.hpp"
#include "cpu/kernels/util/vmath.hpp"
#include "cpu/rnn_cell.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

template <class C>
ANYDNN_ALWAYS_INLINE C clip_state(C c, const RnnCellArgs<C> &a) {
    if (!(c == c)) return a.propagate_nan ? c : a.lclip;
    return c < a.lclip ? a.lclip : (c > a.rclip ? a.rclip : c);
}

template <RnnCellMode M, bool Clip, class C>
void forward_rows(const RnnCellArgs<C> &a, int64_t r0, int64_t r1) {
    const int64_t H = a.hidden;
    for (int64_t r = r0; r < r1; ++r) {
        C *__restrict g = a.g + r * a.ldg;
        C *__restrict h = a.h + r * a.ldh;
        if constexpr (M == RnnCellMode::relu || M == RnnCellMode::tanh) {
            for (int64_t j = 0; j < H; ++j) {
                const C v = M == RnnCellMode::relu ? (g[j] > C(0) ? g[j] : C(0)) : vtanh(g[j]);
                g[j] = v;
                h[j] = v;
            }
        } else if constexpr (M == RnnCellMode::lstm) {
            const C *__restrict cp = a.c_prev + r * H;
            C *__restrict c = a.c + r * H;
            for (int64_t j = 0; j < H; ++j) {
                const C i = vsigmoid(g[j]), f = vsigmoid(g[H + j]), gg = vtanh(g[2 * H + j]),
                        o = vsigmoid(g[3 * H + j]);
                g[j] = i;
                g[H + j] = f;
                g[2 * H + j] = gg;
                g[3 * H + j] = o;
                C cn = f * cp[j] + i * gg;
                if constexpr (Clip) cn = clip_state(cn, a);
                c[j] = cn;
                h[j] = o * vtanh(cn);
            }
        } else {
            const C *__restrict hr = a.hr + r * a.ldg;
            const C *__restrict hp = a.h_prev + r * a.ld_h_prev;
            for (int64_t j = 0; j < H; ++j) {
                const C rr = vsigmoid(g[j] + hr[j]), z = vsigmoid(g[H + j] + hr[H + j]);
                const C n = vtanh(g[2 * H + j] + rr * hr[2 * H + j]);
                g[j] = rr;
                g[H + j] = z;
                g[2 * H + j] = n;
                h[j] = (C(1) - z) * n + z * hp[j];
            }
        }
    }
}

template <RnnCellMode M, bool Clip, class C>
void backward_rows(const RnnCellArgs<C> &a, int64_t r0, int64_t r1) {
    const int64_t H = a.hidden;
    for (int64_t r = r0; r < r1; ++r) {
        const C *__restrict g = a.g + r * a.ldg;
        const C *__restrict dh = a.dh + r * a.ld_dh;
        C *__restrict dg = a.dg + r * a.ldg;
        if constexpr (M == RnnCellMode::relu || M == RnnCellMode::tanh) {
            for (int64_t j = 0; j < H; ++j)
                dg[j] = M == RnnCellMode::relu ? (g[j] > C(0) ? dh[j] : C(0)) : dh[j] * (C(1) - g[j] * g[j]);
        } else if constexpr (M == RnnCellMode::lstm) {
            const C *__restrict cp = a.c_prev + r * H;
            const C *__restrict c = a.c + r * H;
            C *__restrict dc = a.dc + r * H;
            for (int64_t j = 0; j < H; ++j) {
                const C i = g[j], f = g[H + j], gg = g[2 * H + j], o = g[3 * H + j];
                const C tc = vtanh(c[j]);
                C d = dc[j] + dh[j] * o * (C(1) - tc * tc);
                if constexpr (Clip) {
                    // The clamp was active where the unclipped state (recomputed
                    // as the forward pass did) lies outside [lclip, rclip] or is NaN.
                    const C raw = f * cp[j] + i * gg;
                    d = raw >= a.lclip && raw <= a.rclip ? d : C(0);
                }
                dg[j] = d * gg * i * (C(1) - i);
                dg[H + j] = d * cp[j] * f * (C(1) - f);
                dg[2 * H + j] = d * i * (C(1) - gg * gg);
                dg[3 * H + j] = dh[j] * tc * o * (C(1) - o);
                dc[j] = d * f;
            }
        } else {
            const C *__restrict hr = a.hr + r * a.ldg;
            const C *__restrict hp = a.h_prev + r * a.ld_h_prev;
            C *__restrict dgr = a.dgr + r * a.ldg;
            C *__restrict dhp = a.dh_prev + r * a.ld_dh_prev;
            for (int64_t j = 0; j < H; ++j) {
                const C rr = g[j], z = g[H + j], n = g[2 * H + j];
                const C dn = dh[j] * (C(1) - z) * (C(1) - n * n);
                const C dr = dn * hr[2 * H + j] * rr * (C(1) - rr);
                const C dz = dh[j] * (hp[j] - n) * z * (C(1) - z);
                dg[j] = dr;
                dg[H + j] = dz;
                dg[2 * H + j] = dn;
                dgr[j] = dr;
                dgr[H + j] = dz;
                dgr[2 * H + j] = dn * rr;
                dhp[j] = dh[j] * z;
            }
        }
    }
}

template <bool Forward, RnnCellMode M, bool Clip, class C>
void run_mode(const ExecContext &ctx, const RnnCellArgs<C> &a) {
    // A row's work is a few transcendentals per gate: split rows once a
    // thread gets ~16K of them.
    const int64_t per_row = a.hidden * 4;
    const int64_t grain = per_row > 0 ? (kElementwiseGrain + per_row - 1) / per_row : 1;
    parallel_ranges(ctx, a.rows, grain, [&](int64_t r0, int64_t r1) {
        if constexpr (Forward) forward_rows<M, Clip>(a, r0, r1);
        else backward_rows<M, Clip>(a, r0, r1);
    });
}

template <bool Forward, class C>
void run(const ExecContext &ctx, const RnnCellArgs<C> &a) {
    switch (a.mode) {
    case RnnCellMode::relu: run_mode<Forward, RnnCellMode::relu, false>(ctx, a); break;
    case RnnCellMode::tanh: run_mode<Forward, RnnCellMode::tanh, false>(ctx, a); break;
    case RnnCellMode::lstm:
        if (a.clip) run_mode<Forward, RnnCellMode::lstm, true>(ctx, a);
        else run_mode<Forward, RnnCellMode::lstm, false>(ctx, a);
        break;
    case RnnCellMode::gru: run_mode<Forward, RnnCellMode::gru, false>(ctx, a); break;
    }
}

}  // namespace

extern const RnnCellKernels<float> rnn_cell_f32 = {run<true, float>, run<false, float>};
extern const RnnCellKernels<double> rnn_cell_f64 = {run<true, double>, run<false, double>};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
