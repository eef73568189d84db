// Depthwise strips that load each input column once (channels last, float,
// three taps along w, dilation 1 along w, stride 1 or 2 along w): pixel p
// of a strip reads, in each filter row, the columns p * SW + kw (kw < 3) of
// the strip's (PW - 1) * SW + 3, so one load of a column vector feeds
// every (pixel, tap) pair that reads it. Per filter row and vector of
// channels that is PW + 2 loads (2 PW + 1 at stride 2) and 3 weight loads
// for 3 PW FMAs, where a load per (pixel, tap) (depthwise_strip) made the
// loads, not the FMAs, the bound, and with the per-row address arithmetic
// it ran at half the FMA peak (MobileNet-v2's depthwise layers 1.3-1.9x
// oneDNN's time, channels last).
#pragma once

#include "cpu/conv.hpp"
#include "cpu/kernels/util/conv_common.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {

// One output row's filter rows that lie inside x: x[r] is input row r's
// pixel 0, channel 0; w[r] its first tap's weights (wr's [tap][channel]
// layout, tap kw at w[r] + kw * channels).
struct DepthwiseColumnsRows {
    const float *x[kDepthwiseColumnsMaxRows];
    const float *w[kDepthwiseColumnsMaxRows];
    int n = 0;
};

// Pixels [0, PW) of a strip whose first input column is iw0 (column j of
// the strip is x's column iw0 + j, its pixels xs_w apart), every channel in
// [0, channels) (channels >= a vector; the last vector overlaps the one
// before it where channels is not a multiple of it, and stores the same
// sums again). Edge: the columns outside [0, in_w) are skipped (the row's
// padding); otherwise all are inside. Pixel p's sums of channel c, times
// alpha, go to out[p * out_step + c].
template <int PW, int SW, bool Edge>
[[gnu::noinline]] void depthwise_columns_strip(const DepthwiseColumnsRows &rows, int64_t channels, int64_t iw0,
                                               int64_t in_w, int64_t xs_w, float *out, int64_t out_step, float alpha) {
    using V = vec_t<float>;
    constexpr int W = kVectorBytes / sizeof(float), K = kDepthwiseColumnsTaps, NC = (PW - 1) * SW + K;
    // Bit j: the strip's column j lies inside x (a test per column; range
    // compares against j became a chain of branches).
    static_assert(NC < 32);
    const uint32_t inside = Edge ? ((iw0 + NC <= in_w ? ~0u : (1u << std::max<int64_t>(in_w - iw0, 0)) - 1) &
                                    (iw0 >= 0 ? ~0u : ~((1u << imin_(-iw0, NC)) - 1)))
                                 : ~0u;
    for (int64_t c0 = 0; c0 < channels; c0 += W) {
        const int64_t c = imin_(c0, channels - W);
        V acc[PW];
#pragma GCC unroll 8
        for (int p = 0; p < PW; ++p) acc[p] = V{};
        for (int r = 0; r < rows.n; ++r) {
            const float *x = rows.x[r] + iw0 * xs_w + c, *w = rows.w[r] + c;
            V wv[K];
#pragma GCC unroll 3
            for (int kw = 0; kw < K; ++kw) wv[kw] = load_vec<V>(w + kw * channels);
#pragma GCC unroll 32
            for (int j = 0; j < NC; ++j, x += xs_w) {
                if (Edge && !(inside >> j & 1)) continue;
                V xv = load_vec<V>(x);
#if ANYDNN_ISA_avx512
                // Once in a register: GCC otherwise folds the load into each
                // of the column's FMAs, 3 loads where one will do, and on Zen
                // 4 the zmm loads (one a cycle) were the bound: MobileNet-v2's
                // depthwise layers 1.03-1.50x oneDNN -> 0.83-1.15 (1 thread).
                // With AVX2 (two ymm loads a cycle) it made no difference.
                asm("" : "+v"(xv));
#endif
                // The pairs (p, kw) with p * SW + kw == j.
#pragma GCC unroll 3
                for (int kw = 0; kw < K; ++kw) {
                    const int q = j - kw;
                    if (q >= 0 && q % SW == 0 && q / SW < PW) acc[q / SW] += xv * wv[kw];
                }
            }
        }
#pragma GCC unroll 8
        for (int p = 0; p < PW; ++p) store_vec(out + p * out_step + c, acc[p] * alpha);
    }
}

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
