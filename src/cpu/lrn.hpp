// The LRN kernel family: LRN across channels (forward, backward) and
// divisive normalization across the spatial dimensions (forward, backward).
// Declarations only; src/cpu/kernels/lrn.hpp implements them once per ISA
// level.
#pragma once

#include <cstdint>

#include "cpu/isa_table.hpp"
#include "cpu/parallel.hpp"
#include "ops/lrn_problem.hpp"

namespace anydnn::cpu {

// Operands as in LrnForwardProblem / LrnBackwardProblem: 0 = x, 1 = y, 2 =
// dy, 3 = dx. A work item is one image's block of up to 64 pixels along the
// grid's last dimension (the lanes), all channels: the window sum of each
// channel is recomputed from a ring of the last lrnN channels' squares, in
// ascending channel order, so no running sum cancels and the result does
// not depend on the layout or the thread count.
struct LrnArgs {
    ops::LrnParams lrn;
    ops::LrnGrid g;
    const void *x, *y, *dy;  // y, dy: backward only
    void *out;               // y (forward) or dx (backward)
    double alpha, beta;
    // Lanes are channels of one pixel (x's channels innermost, NHWC), not
    // pixels: see src/cpu/kernels/lrn.hpp.
    bool channel_lanes;
};

// Divisive normalization. Operands of g: 0 = x, 1 = means, 2 = dy, 3 = the
// output (y, or dx; dMeans has dx's layout). A work item is one (n, c)
// plane; its window sums are separable box sums along w, h, d in a scratch
// of 3 planes (d * h * w values of the compute type) per slot.
struct DivNormArgs {
    ops::LrnParams lrn;
    ops::LrnGrid g;  // nd = 3: d, h, w
    const void *x, *means, *dy;  // means may be NULL (0); dy: backward only
    void *out, *dmeans;          // dmeans: backward only, may be NULL
    double alpha, beta;
    int64_t slots;  // slot s runs planes [planes * s / slots, planes * (s + 1) / slots)
    void *scratch;  // slots * 3 * d * h * w values of the compute type
};

struct LrnKernels {
    void (*forward)(const ExecContext &, const LrnArgs &);
    void (*backward)(const ExecContext &, const LrnArgs &);
    void (*divnorm_forward)(const ExecContext &, const DivNormArgs &);
    void (*divnorm_backward)(const ExecContext &, const DivNormArgs &);
};

ANYDNN_DECLARE_ISA_TABLE(LrnKernels, lrn)

}  // namespace anydnn::cpu
