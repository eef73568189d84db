// Unfolding x along w for channels-last convolutions with few input
// channels (a network's first layer: C = 3).
//
// IMPLICIT_PRECOMP_GEMM reduces over C per filter tap: a 7x7 filter on
// C = 3 is 49 products of k = 3, each a sliver of a register tile, and
// ResNet-50's first layer ran at 39% of peak, 2.35x oneDNN's time. Copied
// first into x'[n][d][h][ow][j][c] = x[n][d][h][ow s + j dil - pad][c]
// (zero outside x), the kw taps of one output pixel are adjacent, so the
// same convolution is one with kw = 1, stride 1 and no padding along w over
// kw * C channels: 7 products of k = 21. The filter needs no copy: in KRSC
// order (s and c adjacent, as NHWC filters are) it already is the
// [k][r][s c] filter of that convolution.
#pragma once

#include <cstddef>
#include <optional>

#include "cpu/parallel.hpp"
#include "ops/conv_problem.hpp"

namespace anydnn::cpu {

struct ConvUnfold {
    ops::ConvGeometry src;  // the convolution on x that it unfolds
    ops::ConvGeometry geo;  // the convolution on x' (its x strides are x''s, packed)
    std::size_t bytes = 0;  // x' in x's storage type
};

// x' comes first in its callers' workspaces: the bytes it takes there (64-byte
// rounded), 0 without an unfold.
inline std::size_t conv_unfold_workspace(const std::optional<ConvUnfold> &u) {
    return u ? (u->bytes + 63) & ~std::size_t{63} : 0;
}

// The unfolded convolution when it pays: one group, channels innermost in x
// (the channels-last GEMM), fewer than 16 channels, a filter wider than 1
// whose (s, c) elements are adjacent. nullopt otherwise.
std::optional<ConvUnfold> conv_w_unfold(const ops::ConvGeometry &g);

// The x the convolution reads: with u, x' written at the start of workspace
// (conv_unfold_workspace(u) bytes of it, on ctx's threads); else x itself.
const void *conv_unfolded_x(const ExecContext &ctx, const std::optional<ConvUnfold> &u, const void *x,
                            void *workspace);

}  // namespace anydnn::cpu
