// The im2col gather shared by the convolution kernels of every direction:
// one output pixel's receptive field (C * taps values, tap-major) written as
// a row of a packed GEMM operand (GemmKernels::pack_b's slivers) or of a
// row-major matrix (one sliver as wide as the row).
#pragma once

#include "cpu/kernels/util/conv_common.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

// n values from src to out: whole vectors, the last one overlapping the
// one before it when n is not a multiple (n >= a vector).
template <class T, class C>
ANYDNN_ALWAYS_INLINE void copy_values(const T *src, int64_t n, C *out) {
    if constexpr (std::is_same_v<T, C>) {
        using V = vec_t<C>;
        constexpr int64_t W = sizeof(V) / sizeof(C);
        if (n >= W) {
            for (int64_t j = 0; j < n - W; j += W) store_vec(out + j, load_vec<V>(src + j));
            store_vec(out + n - W, load_vec<V>(src + n - W));
            return;
        }
    }
    for (int64_t j = 0; j < n; ++j) out[j] = load<C>(src + j);
}

// Writes the columns of one row of a packed B (GemmKernels::pack_b, one
// reduction block of k rows) in order: column j of row r at sliver j / NR
// (each k * NR values) + r * NR + j % NR. Straight into the slivers: a
// gathered row stored and read back as vectors stalled on store forwarding
// (three quarters of the gather's time).
template <class C>
struct PackedRowCursor {
    C *sliver;  // the current sliver's row r
    int64_t lane, nr, step;

    template <class T>
    ANYDNN_ALWAYS_INLINE void put_run(const T *src, int64_t n) {
        while (n > 0) {
            const int64_t m = imin_(n, nr - lane);
            copy_values(src, m, sliver + lane);
            advance(m);
            src += m;
            n -= m;
        }
    }
    ANYDNN_ALWAYS_INLINE void put(C v) {
        sliver[lane] = v;
        advance(1);
    }
    ANYDNN_ALWAYS_INLINE void zeros(int64_t n) {
        while (n > 0) {
            const int64_t m = imin_(n, nr - lane);
            for (int64_t j = 0; j < m; ++j) sliver[lane + j] = C(0);
            advance(m);
            n -= m;
        }
    }
    ANYDNN_ALWAYS_INLINE void advance(int64_t m) {
        lane += m;
        if (lane == nr) {
            lane = 0;
            sliver += step;
        }
    }
};

// Row r of a chunk of k rows of x' packed as the GEMM engine packs B:
// output pixel (od, oh, ow) of image x, cols = C * taps values, column
// ((kd * KH + kh) * KW + kw) * C + c = x at the input pixel the tap (kd, kh,
// kw) meets, channel c (zero outside x), and zeros to the end of the last
// sliver. GCC turns the copy loops of a few dozen values into calls to
// memmove unless told not to.
template <class T, class C>
[[gnu::noinline, gnu::optimize("no-tree-loop-distribute-patterns")]] void im2col_row(
    const ops::ConvGeometry &g, const T *x, int64_t od, int64_t oh, int64_t ow, int64_t nr, int64_t k, int64_t r,
    C *packed) {
    PackedRowCursor<C> out{packed + r * nr, 0, nr, k * nr};
    const int64_t run = g.k[2] * g.icg;  // one filter row's columns
    // A filter row's taps read C * KW contiguous values in channels-last x
    // without dilation along w: copied as one run where all of it is inside.
    const bool runs = g.xs[1] == 1 && g.xs[4] == g.icg && g.dil[2] == 1;
    const int64_t iw0 = ow * g.stride[2] - g.pad[2];
    for (int64_t kd = 0; kd < g.k[0]; ++kd) {
        const int64_t id = od * g.stride[0] - g.pad[0] + kd * g.dil[0];
        for (int64_t kh = 0; kh < g.k[1]; ++kh) {
            const int64_t ih = oh * g.stride[1] - g.pad[1] + kh * g.dil[1];
            if (id < 0 || id >= g.in[0] || ih < 0 || ih >= g.in[1]) {
                out.zeros(run);
                continue;
            }
            const T *xr = x + id * g.xs[2] + ih * g.xs[3];
            if (runs && iw0 >= 0 && iw0 + g.k[2] <= g.in[2]) {
                out.put_run(xr + iw0 * g.xs[4], run);
                continue;
            }
            for (int64_t kw = 0; kw < g.k[2]; ++kw) {
                const int64_t iw = iw0 + kw * g.dil[2];
                if (iw < 0 || iw >= g.in[2]) {
                    out.zeros(g.icg);
                    continue;
                }
                for (int64_t c = 0; c < g.icg; ++c) out.put(load<C>(xr + iw * g.xs[4] + c * g.xs[1]));
            }
        }
    }
    if (out.lane != 0) out.zeros(nr - out.lane);
}

}  // namespace
}  // namespace anydnn::cpu::ANYDNN_ISA_NS
