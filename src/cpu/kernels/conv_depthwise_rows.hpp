// DIRECT for depthwise convolutions with x's rows contiguous: channels
// first, or one channel (depthwise_rows in src/cpu/conv_exec.cpp): 2-D,
// stride 1 or 2 along h and w, output rows of 32 pixels or more. A worker
// takes (image, input channel, band of output rows) items. It copies the
// input rows the band reads into padded planes in L1, split by the strides' phases: padded
// pixel (U, u) goes to plane (U % sh, u % sw), row U / sh, column u / sw,
// each plane row `pitch` wide. Output (oh, ow) of the band is then virtual
// pixel i = (oh - oh0) pitch + ow, and tap (kh, kw), dilated to (dh, dw),
// reads plane (dh % sh, dw % sw) at i + (dh / sh) pitch + dw / sw: each
// tap is one contiguous run over the whole band, so the band's sums are a
// single pass of vector FMAs (depthwise_taps_row), the columns past out_w
// junk that the epilogue skips.
#include <algorithm>
#include <cstring>

#include "cpu/conv.hpp"
#include "cpu/kernels/util/conv_common.hpp"
#include "cpu/kernels/util/transpose.hpp"

namespace anydnn::cpu::ANYDNN_ISA_NS {
namespace {

// sums[j .. j + NV W) = sum over taps t of w[t] * src[t][j ..],
// held in registers: a load and an FMA per tap and vector.
template <int NV, class C>
ANYDNN_ALWAYS_INLINE void depthwise_taps_block(const C *const *src, const C *w, int taps, int64_t j, C *sums) {
    using V = vec_t<C>;
    constexpr int W = kVectorBytes / sizeof(C);
    V acc[NV];
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) acc[v] = V{};
    for (int t = 0; t < taps; ++t) {
        const C *s = src[t] + j;
        const C wt = w[t];
#pragma GCC unroll 8
        for (int v = 0; v < NV; ++v) acc[v] += load_vec<V>(s + v * W) * wt;
    }
#pragma GCC unroll 8
    for (int v = 0; v < NV; ++v) store_vec(sums + j + v * W, acc[v]);
}

// The sums of n virtual pixels whose tap t reads the contiguous run
// src[t][0 .. n) into sums[0, n) and a little past (whole vectors: each
// src[t] and sums must hold n rounded up to a vector), 8 vectors at a time
// and the rest, 1 to 8 vectors, in one block.
template <class C>
[[gnu::noinline]] void depthwise_taps_row(const C *const *src, const C *w, int taps, int64_t n, C *sums) {
    constexpr int W = kVectorBytes / sizeof(C);
    int64_t j = 0;
    for (; n - j > 7 * W; j += 8 * W) depthwise_taps_block<8>(src, w, taps, j, sums);
    switch ((n - j + W - 1) / W) {
    case 7: return depthwise_taps_block<7>(src, w, taps, j, sums);
    case 6: return depthwise_taps_block<6>(src, w, taps, j, sums);
    case 5: return depthwise_taps_block<5>(src, w, taps, j, sums);
    case 4: return depthwise_taps_block<4>(src, w, taps, j, sums);
    case 3: return depthwise_taps_block<3>(src, w, taps, j, sums);
    case 2: return depthwise_taps_block<2>(src, w, taps, j, sums);
    case 1: return depthwise_taps_block<1>(src, w, taps, j, sums);
    default: return;
    }
}

// d[0, n) = x's s[0, n) in the compute type.
template <class T, class C>
void copy_row(const T *s, int64_t n, C *d) {
    if constexpr (std::is_same_v<T, C>) {
        std::memcpy(d, s, static_cast<std::size_t>(n) * sizeof(C));
    } else {
        for (int64_t k = 0; k < n; ++k) d[k] = load<C>(s + k);
    }
}

template <class T, class C>
void depthwise_rows_typed(const ExecContext &ctx, const ops::ConvForwardProblem &p, const DepthwiseRows &r,
                          const ConvOperands &o, void *buffers) {
    const ops::ConvGeometry &g = p.geo;
    const Epilogue<T, C> epi = full_epilogue<T, C>(p, o);
    const int64_t ic = g.groups, taps = g.taps(), sh = g.stride[1], sw = g.stride[2], pitch = r.pitch;
    const int64_t items = g.n * ic * r.bands, phases = sh * sw, plane = r.plane_rows * pitch;
    // A plane row's columns that hold x ([lo, hi) of the padded row's sw * pitch).
    const int64_t lo = imin_(g.pad[2], sw * pitch), hi = imin_(g.pad[2] + g.in[2], sw * pitch);
    const int64_t item_macs = r.band * g.out[2] * g.ocg * taps;
    const int workers = static_cast<int>(
        std::clamp<int64_t>(imin_(ctx.threads, items / conv_grain(item_macs)), 1, kDepthwiseRowsMaxWorkers));
    parallel_workers(workers, [&](int t) {
        WorkspaceCursor cur(buffers);
        C *planes = nullptr;
        for (int k = 0; k <= t; ++k) planes = cur.take<C>(r.worker_elems);
        C *padded = planes + phases * plane + r.slack, *sums = padded + (sw == 2 ? 2 * pitch : 0);
        C *wt = sums + r.band * pitch + r.slack;
        // The padding columns and the slack past the planes hold zeros
        // from here on: only x's columns and whole padding rows are written.
        std::memset(planes, 0, static_cast<std::size_t>(sums - planes) * sizeof(C));
        const C *src[kDepthwiseRowsMaxTaps];
        int64_t tap_w[kDepthwiseRowsMaxTaps];
        for (int64_t k = 0; k < taps; ++k) {
            const int64_t kh = k / g.k[2] * g.dil[1], kw = k % g.k[2] * g.dil[2];
            src[k] = planes + (kh % sh * sw + kw % sw) * plane + kh / sh * pitch + kw / sw;
            tap_w[k] = tap_filter_offset(g, k);
        }
        for (int64_t q = items * t / workers; q < items * (t + 1) / workers; ++q) {
            const int64_t img = q / (ic * r.bands), c = q / r.bands % ic, band = q % r.bands;
            const int64_t oh0 = band * r.band, nb = imin_(r.band, g.out[1] - oh0);
            const T *xc = static_cast<const T *>(o.x) + img * g.xs[0] + c * g.xs[1];
            for (int64_t m = 0; m < g.ocg; ++m)
                for (int64_t k = 0; k < taps; ++k)
                    wt[m * taps + k] = load<C>(static_cast<const T *>(o.w) + (c * g.ocg + m) * g.ws[0] + tap_w[k]);
            // Plane row j of row phase a is padded row (oh0 + j) sh + a.
            for (int64_t a = 0; a < sh; ++a)
                for (int64_t j = 0; j < r.plane_rows; ++j) {
                    const int64_t ih = (oh0 + j) * sh + a - g.pad[1];
                    C *row = planes + a * sw * plane + j * pitch;
                    if (ih < 0 || ih >= g.in[1]) {
                        for (int64_t b = 0; b < sw; ++b)
                            std::memset(row + b * plane, 0, static_cast<std::size_t>(pitch) * sizeof(C));
                        continue;
                    }
                    copy_row(xc + ih * g.xs[3] + (lo - g.pad[2]), hi - lo, (sw == 1 ? row : padded) + lo);
                    if (sw == 2) deinterleave_pair(padded, pitch, row, row + plane);
                }
            for (int64_t m = 0; m < g.ocg; ++m) {
                const int64_t oc = c * g.ocg + m;
                depthwise_taps_row(src, wt + m * taps, static_cast<int>(taps), nb * pitch, sums);
                for (int64_t j = 0; j < nb; ++j)
                    epi.run(sums + j * pitch, g.out[2], img * g.ys[0] + oc * g.ys[1] + (oh0 + j) * g.ys[3], g.ys[4],
                            img * p.zs[0] + oc * p.zs[1] + (oh0 + j) * p.zs[3], p.zs[4], oc, 0);
            }
        }
    });
}

void depthwise_rows_run(const ExecContext &ctx, const ops::ConvForwardProblem &p, const DepthwiseRows &r,
                        const ConvOperands &o, void *ws) {
    visit_types(p.geo.dt, [&](auto t, auto c) {
        depthwise_rows_typed<typename decltype(t)::type, typename decltype(c)::type>(ctx, p, r, o, ws);
    });
}

}  // namespace

extern const ConvDepthwiseRowsKernels conv_depthwise_rows = {depthwise_rows_run};

}  // namespace anydnn::cpu::ANYDNN_ISA_NS
