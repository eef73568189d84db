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
    ops::ConvGeometry geo;  // the convolution on x' (its x strides are x''s, packed)
    std::size_t bytes = 0;  // x' in x's storage type
};

// The unfolded convolution when it pays: one group, channels innermost in x
// (the channels-last GEMM), fewer than 16 channels, a filter wider than 1
// whose (s, c) elements are adjacent. nullopt otherwise.
std::optional<ConvUnfold> conv_w_unfold(const ops::ConvGeometry &g);

// Writes x' (u.bytes) for x of g, on ctx's threads.
void conv_unfold_x(const ExecContext &ctx, const ops::ConvGeometry &g, const void *x, void *xu);

}  // namespace anydnn::cpu
