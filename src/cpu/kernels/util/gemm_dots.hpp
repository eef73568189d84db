// Products of rows by dot products: out[i][j] = sum_k a[i][k] * b[j][k] for
// rows of A and of B both contiguous along k. A convolution whose few output
// pixels meet a large filter is such a product: each pixel's receptive field
// gathered in the filter's reduction order (a 1x1's x channels last as it
// is) against the filter's output channels, KRSC's (tap, channel) or KCRS's
// (channel, tap) rows. The GEMM engine wants B's columns contiguous, so it
// packed (transposed) the whole filter at every call, a read and a write of
// 4 MB against 49 pixels at ResNet-50's res5 (22% of res5bc_branch2a); here
// the filter is read once, in place, each register tile's sums are folded
// across lanes once at its end (a reduction of hundreds of channels), and
// only A, small, is copied.
#pragma once

#include <utility>

#include "cpu/kernels/util/common.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {

// AVX-512 only (the plan's forward_pixel_dots says why): the other levels
// compile none of it.
#if ANYDNN_ISA_avx512

// The register tile: kDotRows rows of A by kDotCols rows of B: 24 sums, 4
// A vectors and a B vector in the 32 registers; a load per 2.4 FMAs (Zen 4
// loads one zmm a cycle). 4 x 6 ran res5bc_branch2a's product at 111
// GFLOP/s on one thread (95% of peak) standalone, 5 x 5 at 118 but 106-108
// against 114 where the reduction is shorter (576 and 960); 3 x 8 and 2 x
// 12, more loads, 58 and 32. Tiles of 3 rows for the last 9 of 49 (no tile
// of one row) made no difference.
constexpr int kDotRows = 4, kDotCols = 6;

// Two vectors' half-folds in one: in each block of 2H lanes, lane l < H
// gets a's lanes l and l + H of the block summed, lane H + l b's.
template <int H, class V, size_t... J>
ANYDNN_ALWAYS_INLINE V fold_pair(V a, V b, std::index_sequence<J...>) {
    constexpr int W = sizeof...(J);
    const V lo = __builtin_shufflevector(a, b, (J % (2 * H) < H ? J : J - H + W)...);
    const V hi = __builtin_shufflevector(a, b, (J % (2 * H) < H ? J + H : J + W)...);
    return lo + hi;
}

// v[0..N) (N a power of two up to the width) folded into v[0], quantity k
// in its k-th block of W / N lanes, each lane of it the whole sum: pairs k
// and k + N / 2 at each level leave the quantities in order. W - 1 pair
// folds (2 shuffles and an add each) for W vectors, where folding each
// alone took 4 shuffles and 4 adds per vector: a fifth of a 4 x 6 tile's
// time at a reduction of 512 (ResNet-50's res5_branch2c).
template <int N, int H, class V>
ANYDNN_ALWAYS_INLINE void fold_group(V *v) {
    constexpr int W = sizeof(V) / sizeof(v[0][0]);
    if constexpr (N > 1) {
#pragma GCC unroll 16
        for (int i = 0; i < N / 2; ++i) v[i] = fold_pair<H>(v[i], v[i + N / 2], std::make_index_sequence<W>());
        fold_group<N / 2, H / 2>(v);
    } else if constexpr (H >= 1) {
        v[0] = fold_pair<H>(v[0], v[0], std::make_index_sequence<W>());
        fold_group<1, H / 2>(v);
    }
}

// out[k] = the sum of v[k]'s lanes, k < N; v is overwritten.
template <int N, class V>
ANYDNN_ALWAYS_INLINE void fold_sums(V *v, float *out) {
    constexpr int W = sizeof(V) / sizeof(float);
    constexpr int G = N >= W ? W : N >= 8 ? 8 : N >= 4 ? 4 : N >= 2 ? 2 : 1;
    fold_group<G, W / 2>(v);
    alignas(64) float lanes[W];
    store_vec(lanes, v[0]);
#pragma GCC unroll 16
    for (int k = 0; k < G; ++k) out[k] = lanes[k * (W / G)];
    if constexpr (N > G) fold_sums<N - G>(v + G, out + G);
}

// R rows of A (lda apart) by S rows of B (ldb apart): vectors [0, k_vec)
// of each row, then, where b_tail is given, one more vector: A's (A's rows
// hold zeros past the reduction) times b_tail's (S vectors, zeros past it:
// B's own tail would read past its rows). out[i * ld_out + j] = the sum,
// or (add) plus the sum.
template <int R, int S>
[[gnu::noinline]] void dot_tile(const float *a, int64_t lda, const float *b, int64_t ldb, int64_t k_vec,
                                const float *b_tail, float *out, int64_t ld_out, bool add) {
    using V = vec_t<float>;
    constexpr int W = kVectorBytes / sizeof(float);
    V acc[R][S];
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i)
#pragma GCC unroll 8
        for (int j = 0; j < S; ++j) acc[i][j] = V{};
    const auto step = [&](int64_t k, const float *bp, int64_t ld) {
        V av[R];
#pragma GCC unroll 8
        for (int i = 0; i < R; ++i) av[i] = load_vec<V>(a + i * lda + k);
#pragma GCC unroll 8
        for (int j = 0; j < S; ++j) {
            const V bv = load_vec<V>(bp + j * ld);
#pragma GCC unroll 8
            for (int i = 0; i < R; ++i) acc[i][j] += av[i] * bv;
        }
    };
    for (int64_t k = 0; k < k_vec; k += W) step(k, b + k, ldb);
    if (b_tail != nullptr) step(k_vec, b_tail, W);
    float sums[R * S];
    fold_sums<R * S>(&acc[0][0], sums);
#pragma GCC unroll 8
    for (int i = 0; i < R; ++i)
#pragma GCC unroll 8
        for (int j = 0; j < S; ++j) out[i * ld_out + j] = add ? out[i * ld_out + j] + sums[i * S + j] : sums[i * S + j];
}

using DotTileFn = void (*)(const float *, int64_t, const float *, int64_t, int64_t, const float *, float *, int64_t,
                           bool);

// dot_tile<r, s> at [(r - 1) * kDotCols + s - 1]: the full tile and the
// partial ones at A's and B's ends.
template <int... I>
constexpr DotTileFn kDotTiles[] = {&dot_tile<I / kDotCols + 1, I % kDotCols + 1>...};
template <int... I>
constexpr const DotTileFn *dot_tiles(std::integer_sequence<int, I...>) {
    return kDotTiles<I...>;
}

// The reduction's blocks: at most this many values, so that a tile's B
// rows (kDotCols x 4 KiB) stay in L1 while A's stream past them from L2.
// Whole rows at once (18 KiB each at res5's 3x3) read every operand from
// L2, 10 vectors per 24 FMAs: half of Zen 5's peak, its L2 giving about a
// vector a cycle. On Zen 5, one thread, res5bc_branch2b (k = 4608) ran
// 1.41 ms whole, 1.19 / 1.07 / 1.02 / 1.23 / 1.24 ms in blocks of 256 /
// 512 / 1024 / 1536 / 2048 (session 31).
constexpr int64_t kDotBlock = 1024;

// out[i * ld_out + j] = the dot product of row i < m of A (lda apart, zeros
// from k to the next multiple of the vector) and row j < n of B (ldb apart,
// k values each), tile by tile, block by block of the reduction (the blocks
// depend on k only: the sums' order does not depend on the split).
inline void dot_rows(const float *a, int64_t lda, int64_t m, const float *b, int64_t ldb, int64_t n, int64_t k,
                     float *out, int64_t ld_out) {
    constexpr int W = kVectorBytes / sizeof(float);
    constexpr const DotTileFn *tiles = dot_tiles(std::make_integer_sequence<int, kDotRows * kDotCols>());
    if (k <= 0) {
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) out[i * ld_out + j] = 0.0f;
        return;
    }
    const int64_t k_vec = k / W * W, nb = ceil_div(k, kDotBlock), kb = (ceil_div(k, nb) + W - 1) / W * W;
    alignas(64) float tail[kDotCols * W];
    for (int64_t j0 = 0; j0 < n; j0 += kDotCols) {
        const int64_t s = imin_(kDotCols, n - j0);
        const float *b_tail = nullptr;
        if (k_vec < k) {
            for (int64_t j = 0; j < s; ++j)
                for (int64_t c = 0; c < W; ++c) tail[j * W + c] = k_vec + c < k ? b[(j0 + j) * ldb + k_vec + c] : 0.0f;
            b_tail = tail;
        }
        for (int64_t k0 = 0; k0 < k; k0 += kb) {
            const int64_t len = imin_(kb, k_vec - k0);
            const bool last = k0 + kb >= k;
            for (int64_t i0 = 0; i0 < m; i0 += kDotRows) {
                const int64_t r = imin_(kDotRows, m - i0);
                tiles[(r - 1) * kDotCols + s - 1](a + i0 * lda + k0, lda, b + j0 * ldb + k0, ldb, len,
                                                  last ? b_tail : nullptr, out + i0 * ld_out + j0, ld_out, k0 > 0);
            }
        }
    }
}

#endif  // ANYDNN_ISA_avx512

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
