// Winograd F(4x4, 3x3) (Lavin & Gray 2016, points 0, -1, 1, -2, 2, inf),
// shared by the forward (conv_winograd.hpp; backward data runs as a forward)
// and backward filter (conv_winograd_bwd_filter.hpp) kernels, compiled once
// per ISA level with them: the transforms as plain loops over n channels
// side by side (GCC vectorizes them along the channels) and the input
// transform of a block of tiles.
//
//   B^T = [4  0 -5  0 1 0]   G = [ 1/4     0    0 ]   A^T = [1 1  1 1  1 0]
//         [0 -4 -4  1 1 0]       [-1/6  -1/6 -1/6 ]         [0 1 -1 2 -2 0]
//         [0  4 -4 -1 1 0]       [-1/6   1/6 -1/6 ]         [0 1  1 4  4 0]
//         [0 -2 -1  2 1 0]       [ 1/24 1/12  1/6 ]         [0 1 -1 8 -8 1]
//         [0  2 -1 -2 1 0]       [ 1/24 -1/12 1/6 ]
//         [0  4  0 -5 0 1]       [ 0      0    1  ]
// Forward: Y = A^T [(G g G^T) .* (B^T d B)] A is the 4x4 cross-correlation
// of the 6x6 input window d with the 3x3 filter g. Y is linear in g, so the
// filter's gradient over the tiles is dg = sum G^T [(A dY A^T) .* (B^T d B)] G.
#pragma once

#include "cpu/conv.hpp"
#include "cpu/gemm.hpp"
#include "cpu/kernels/util/conv_common.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

constexpr int64_t kLanes = 64;  // channels per transform step
constexpr int kP = kWinogradPoints;

// out[i * os + j] = (B^T d)_i for the 6 rows d[i * ds + j], j < n.
template <class C>
ANYDNN_ALWAYS_INLINE void wino_bt(const C *d, int64_t ds, C *out, int64_t os, int64_t n) {
    // (out's rows never overlap the input's: ivdep lets GCC vectorize without alias checks)
#pragma GCC ivdep
    for (int64_t j = 0; j < n; ++j) {
        const C d0 = d[j], d1 = d[ds + j], d2 = d[2 * ds + j], d3 = d[3 * ds + j], d4 = d[4 * ds + j],
                d5 = d[5 * ds + j];
        const C s12 = d1 + d2, s34 = d3 + d4, a42 = d4 - d2;
        out[j] = C(4) * d0 - C(5) * d2 + d4;
        out[os + j] = s34 - C(4) * s12;
        out[2 * os + j] = C(4) * (d1 - d2) + (d4 - d3);
        out[3 * os + j] = C(2) * (d3 - d1) + a42;
        out[4 * os + j] = C(2) * (d1 - d3) + a42;
        out[5 * os + j] = C(4) * d1 - C(5) * d3 + d5;
    }
}

// out[i * os + j] = (A^T m)_i, i < 4, for the 6 rows m[i * ms + j].
template <class C>
ANYDNN_ALWAYS_INLINE void wino_at(const C *m, int64_t ms, C *out, int64_t os, int64_t n) {
    // (out's rows never overlap the input's: ivdep lets GCC vectorize without alias checks)
#pragma GCC ivdep
    for (int64_t j = 0; j < n; ++j) {
        const C m0 = m[j], m1 = m[ms + j], m2 = m[2 * ms + j], m3 = m[3 * ms + j], m4 = m[4 * ms + j],
                m5 = m[5 * ms + j];
        const C p12 = m1 + m2, d12 = m1 - m2, p34 = m3 + m4, d34 = m3 - m4;
        out[j] = m0 + p12 + p34;
        out[os + j] = d12 + C(2) * d34;
        out[2 * os + j] = p12 + C(4) * p34;
        out[3 * os + j] = d12 + C(8) * d34 + m5;
    }
}

// out[i] = (G g)_i, i < 6, for the 3 rows g0, g1, g2 of vectors V (of
// C): the filter transform along one axis. Products with the rounded
// reciprocals (a division per value cost more than the rest of the filter
// transform).
template <class C, class V>
ANYDNN_ALWAYS_INLINE void wino_g_vec(V g0, V g1, V g2, V *out) {
    const C q = C(0.25), s6 = C(1) / C(6), s12 = C(1) / C(12), s24 = C(1) / C(24);
    const V s02 = g0 + g2, e = g0 * s24 + g2 * s6, o = g1 * s12;
    out[0] = g0 * q;
    out[1] = -(s02 + g1) * s6;
    out[2] = (g1 - s02) * s6;
    out[3] = e + o;
    out[4] = e - o;
    out[5] = g2;
}

// out[i * os + j] = (A y)_i, i < 6, for the 4 rows y[i * ys + j] (A = (A^T)^T:
// a tile's output gradient into the points).
template <class C>
ANYDNN_ALWAYS_INLINE void wino_a(const C *y, int64_t ys, C *out, int64_t os, int64_t n) {
    // (out's rows never overlap the input's: ivdep lets GCC vectorize without alias checks)
#pragma GCC ivdep
    for (int64_t j = 0; j < n; ++j) {
        const C y0 = y[j], y1 = y[ys + j], y2 = y[2 * ys + j], y3 = y[3 * ys + j];
        const C e = y0 + y2, o = y1 + y3, e4 = y0 + C(4) * y2, o2 = C(2) * y1 + C(8) * y3;
        out[j] = y0;
        out[os + j] = e + o;
        out[2 * os + j] = e - o;
        out[3 * os + j] = e4 + o2;
        out[4 * os + j] = e4 - o2;
        out[5 * os + j] = y3;
    }
}

// out[i * os + j] = (G^T m)_i, i < 3, for the 6 rows m[i * ms + j] (the
// points' filter gradient back to the taps).
template <class C>
ANYDNN_ALWAYS_INLINE void wino_gt(const C *m, int64_t ms, C *out, int64_t os, int64_t n) {
    const C q = C(0.25), s6 = C(1) / C(6), s12 = C(1) / C(12), s24 = C(1) / C(24);
    // (out's rows never overlap the input's: ivdep lets GCC vectorize without alias checks)
#pragma GCC ivdep
    for (int64_t j = 0; j < n; ++j) {
        const C m0 = m[j], m1 = m[ms + j], m2 = m[2 * ms + j], m3 = m[3 * ms + j], m4 = m[4 * ms + j],
                m5 = m[5 * ms + j];
        const C p12 = m1 + m2, p34 = m3 + m4;
        out[j] = m0 * q - p12 * s6 + p34 * s24;
        out[os + j] = (m2 - m1) * s6 + (m3 - m4) * s12;
        out[2 * os + j] = (p34 - p12) * s6 + m5;
    }
}

// The input transform of tiles [t_begin, t_end) of the block starting at
// tile q0 (numbered across the images, tiles_h x tiles_w per image; tile
// (th, tw) reads the 6x6 window at (4 th - pad_h, 4 tw - pad_w), zeros
// outside x): v[point][tile - q0][ic] (ld icg, point stride vps) for group grp.
template <class T, class C>
void input_transform(const ops::ConvGeometry &g, int64_t tiles_h, int64_t tiles_w, const T *x, int64_t grp, int64_t q0,
                     int64_t t_begin, int64_t t_end, C *v, int64_t vps) {
    const int64_t icg = g.icg, per_image = tiles_h * tiles_w;
    const int64_t *xs = g.xs;
    C d[36 * kLanes], t[36 * kLanes];
    for (int64_t q = t_begin; q < t_end; ++q) {
        const int64_t img = q / per_image, r = q % per_image, th = r / tiles_w, tw = r % tiles_w;
        const int64_t ih0 = th * 4 - g.pad[1], iw0 = tw * 4 - g.pad[2];
        const T *ximg = x + img * xs[0] + grp * icg * xs[1];
        for (int64_t c0 = 0; c0 < icg; c0 += kLanes) {
            const int64_t n = imin_(kLanes, icg - c0);
            for (int64_t i = 0; i < 6; ++i) {
                const int64_t ih = ih0 + i;
                const bool row_in = ih >= 0 && ih < g.in[1];
                for (int64_t j = 0; j < 6; ++j) {
                    const int64_t iw = iw0 + j;
                    C *dp = d + (i * 6 + j) * kLanes;
                    if (!row_in || iw < 0 || iw >= g.in[2]) {
                        for (int64_t c = 0; c < n; ++c) dp[c] = C(0);
                        continue;
                    }
                    const T *s = ximg + ih * xs[3] + iw * xs[4] + c0 * xs[1];
                    if (xs[1] == 1)
                        for (int64_t c = 0; c < n; ++c) dp[c] = load<C>(s + c);
                    else
                        for (int64_t c = 0; c < n; ++c) dp[c] = load<C>(s + c * xs[1]);
                }
            }
            // Along i (columns j side by side), then along j into v.
            for (int64_t j = 0; j < 6; ++j) wino_bt(d + j * kLanes, 6 * kLanes, t + j * kLanes, 6 * kLanes, n);
            C *vt = v + (q - q0) * icg + c0;
            for (int64_t i = 0; i < 6; ++i) wino_bt(t + i * 6 * kLanes, kLanes, vt + i * 6 * vps, vps, n);
        }
    }
}

}  // namespace
}  // namespace anydnn::cpu::ANYDNN_ISA_NS
