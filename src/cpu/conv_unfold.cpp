#include "cpu/conv_unfold.hpp"

#include <algorithm>
#include <cstring>

#include "core/dtype.hpp"

namespace anydnn::cpu {

namespace {

// Below this many channels a tap's reduction is too short for the GEMM's
// register tile (16 lanes of k per FMA chain are the engine's sweet spot).
constexpr int64_t kUnfoldMaxChannels = 16;

}  // namespace

std::optional<ConvUnfold> conv_w_unfold(const ops::ConvGeometry &g) {
    const int64_t s_w = g.k[2], c = g.icg;
    // c' = j c + i must be one stride apart in w: (s, c) adjacent.
    const bool filter_fits = c == 1 || g.ws[4] == c * g.ws[1];
    if (g.groups != 1 || s_w == 1 || c >= kUnfoldMaxChannels || g.xs[1] != 1 || !filter_fits) return std::nullopt;
    ConvUnfold u;
    u.src = g;
    ops::ConvGeometry &f = u.geo;
    f = g;
    f.icg = s_w * c;
    f.in[2] = f.out[2];
    f.k[2] = f.stride[2] = f.dil[2] = 1;
    f.pad[2] = 0;
    // x' packed: [n][d][h][ow][c'].
    f.xs[1] = 1;
    f.xs[4] = f.icg;
    f.xs[3] = g.xs[3] == 0 ? 0 : f.in[2] * f.xs[4];
    f.xs[2] = g.xs[2] == 0 ? 0 : f.in[1] * f.in[2] * f.xs[4];
    f.xs[0] = f.in[0] * f.in[1] * f.in[2] * f.xs[4];
    // The filter as [k][c'][d][h] (w extent 1): c' = j c + i at j ws[4] + i ws[1].
    f.ws[1] = c == 1 ? g.ws[4] : g.ws[1];
    f.ws[4] = 0;
    u.bytes = static_cast<std::size_t>(g.n * f.xs[0]) * dtype_size(g.dt);
    return u;
}

const void *conv_unfolded_x(const ExecContext &ctx, const std::optional<ConvUnfold> &u, const void *x,
                            void *workspace) {
    if (!u) return x;
    const ops::ConvGeometry &g = u->src;
    void *xu = workspace;
    const std::size_t es = dtype_size(g.dt);
    const int64_t s_w = g.k[2], c = g.icg, ow_n = g.out[2], in_w = g.in[2];
    const int64_t rows = g.n * g.in[0] * g.in[1], row_elems = ow_n * s_w * c;
    // One memcpy per output pixel when its taps read adjacent pixels of x.
    const bool runs = !g.flip && g.dil[2] == 1 && g.xs[4] == c;
    const char *xb = static_cast<const char *>(x);
    char *ub = static_cast<char *>(xu);
    parallel_ranges(ctx, rows, 16, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
            const int64_t n = r / (g.in[0] * g.in[1]), d = r / g.in[1] % g.in[0], h = r % g.in[1];
            const char *src = xb + static_cast<std::size_t>(n * g.xs[0] + d * g.xs[2] + h * g.xs[3]) * es;
            char *dst = ub + static_cast<std::size_t>(r * row_elems) * es;
            for (int64_t ow = 0; ow < ow_n; ++ow, dst += s_w * c * es) {
                const int64_t iw0 = ow * g.stride[2] - g.pad[2];
                if (runs) {
                    // Taps j in [lo, hi) read x; the others are padding.
                    const int64_t lo = iw0 < 0 ? std::min(-iw0, s_w) : 0;
                    const int64_t hi = std::max(lo, std::min(s_w, in_w - iw0));
                    std::memset(dst, 0, static_cast<std::size_t>(lo * c) * es);
                    if (hi > lo)
                        std::memcpy(dst + lo * c * es, src + (iw0 + lo) * c * es,
                                    static_cast<std::size_t>((hi - lo) * c) * es);
                    std::memset(dst + hi * c * es, 0, static_cast<std::size_t>((s_w - hi) * c) * es);
                    continue;
                }
                for (int64_t j = 0; j < s_w; ++j) {
                    // CONVOLUTION mode: tap j of x' meets filter column j.
                    const int64_t iw = iw0 + (g.flip ? s_w - 1 - j : j) * g.dil[2];
                    char *out = dst + j * c * es;  // x's channels are adjacent (conv_w_unfold)
                    if (iw < 0 || iw >= in_w) std::memset(out, 0, static_cast<std::size_t>(c) * es);
                    else std::memcpy(out, src + static_cast<std::size_t>(iw * g.xs[4]) * es, static_cast<std::size_t>(c) * es);
                }
            }
        }
    });
    return xu;
}

}  // namespace anydnn::cpu
