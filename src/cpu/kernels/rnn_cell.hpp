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
            // One transcendental per loop: with several (and their selects)
            // in one body GCC branched and left the loop scalar.
            const C *__restrict cp = a.c_prev + r * H;
            C *__restrict c = a.c + r * H;
            for (int64_t j = 0; j < 2 * H; ++j) g[j] = vsigmoid(g[j]);  // i, f
            for (int64_t j = 2 * H; j < 3 * H; ++j) g[j] = vtanh(g[j]);
            for (int64_t j = 3 * H; j < 4 * H; ++j) g[j] = vsigmoid(g[j]);
            for (int64_t j = 0; j < H; ++j) {
                const C cn = g[H + j] * cp[j] + g[j] * g[2 * H + j];
                c[j] = Clip ? clip_state(cn, a) : cn;
            }
            for (int64_t j = 0; j < H; ++j) h[j] = g[3 * H + j] * vtanh(c[j]);
        } else {
            const C *__restrict hr = a.hr + r * a.ldg;
            const C *__restrict hp = a.h_prev + r * a.ld_h_prev;
            for (int64_t j = 0; j < 2 * H; ++j) g[j] = vsigmoid(g[j] + hr[j]);  // r, z
            for (int64_t j = 0; j < H; ++j) g[2 * H + j] = vtanh(g[2 * H + j] + g[j] * hr[2 * H + j]);
            for (int64_t j = 0; j < H; ++j) h[j] = (C(1) - g[H + j]) * g[2 * H + j] + g[H + j] * hp[j];
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
            // One store stream per loop: with four stores into dg at runtime
            // offsets H apart GCC gave up on the dependences and stayed scalar.
            const C *__restrict gi = g, *__restrict gf = g + H, *__restrict gg = g + 2 * H,
                                *__restrict go = g + 3 * H;
            C *__restrict dgo = dg + 3 * H;
            for (int64_t j = 0; j < H; ++j) dgo[j] = vtanh(c[j]);  // tanh(c_t), parked
            for (int64_t j = 0; j < H; ++j) {
                const C tc = dgo[j];
                C d = dc[j] + dh[j] * go[j] * (C(1) - tc * tc);
                if constexpr (Clip) {
                    // The clamp was active where the unclipped state (recomputed
                    // as the forward pass did) lies outside [lclip, rclip] or is NaN.
                    const C raw = gf[j] * cp[j] + gi[j] * gg[j];
                    d = (raw >= a.lclip) & (raw <= a.rclip) ? d : C(0);
                }
                dc[j] = d;  // the gradient of c_t, until the last loop
                dgo[j] = dh[j] * tc * go[j] * (C(1) - go[j]);
            }
            for (int64_t j = 0; j < H; ++j) dg[j] = dc[j] * gg[j] * gi[j] * (C(1) - gi[j]);
            for (int64_t j = 0; j < H; ++j) dg[H + j] = dc[j] * cp[j] * gf[j] * (C(1) - gf[j]);
            for (int64_t j = 0; j < H; ++j) dg[2 * H + j] = dc[j] * gi[j] * (C(1) - gg[j] * gg[j]);
            for (int64_t j = 0; j < H; ++j) dc[j] *= gf[j];
        } else {
            const C *__restrict hrn = a.hr + r * a.ldg + 2 * H;
            const C *__restrict hp = a.h_prev + r * a.ld_h_prev;
            const C *__restrict gr = g, *__restrict gz = g + H, *__restrict gn = g + 2 * H;
            C *__restrict dgr = a.dgr + r * a.ldg;
            C *__restrict dhp = a.dh_prev + r * a.ld_dh_prev;
            for (int64_t j = 0; j < H; ++j) dg[2 * H + j] = dh[j] * (C(1) - gz[j]) * (C(1) - gn[j] * gn[j]);
            for (int64_t j = 0; j < H; ++j) dg[j] = dg[2 * H + j] * hrn[j] * gr[j] * (C(1) - gr[j]);
            for (int64_t j = 0; j < H; ++j) dg[H + j] = dh[j] * (hp[j] - gn[j]) * gz[j] * (C(1) - gz[j]);
            for (int64_t j = 0; j < 2 * H; ++j) dgr[j] = dg[j];
            for (int64_t j = 0; j < H; ++j) dgr[2 * H + j] = dg[2 * H + j] * gr[j];
            for (int64_t j = 0; j < H; ++j) dhp[j] = dh[j] * gz[j];
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
