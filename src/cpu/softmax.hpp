// The softmax kernel family: forward and backward of the FAST, ACCURATE and
// LOG algorithms over any split of a tensor into softmax groups.
// Declarations only; src/cpu/kernels/softmax.hpp implements them once per
// ISA level.
#pragma once

#include "anydnn/anydnn_ops.h"
#include "cpu/isa_table.hpp"
#include "cpu/parallel.hpp"
#include "cpu/strided_loop.hpp"

namespace anydnn::cpu {

// The two loops of a softmax problem: `row` visits the elements of one
// softmax (the reduced dimensions), `outer` the softmaxes (the others); an
// element's offset in operand k is the sum of its offsets in both.
struct SoftmaxLoops {
    StridedLoop row, outer;
};

// y = alpha * softmax(x) + beta * y (operands 0 = y, 1 = x).
struct SoftmaxForwardArgs {
    SoftmaxLoops loops;
    anydnnDataType_t dt;
    anydnnSoftmaxAlgorithm_t algo;
    const void *x;
    void *y;
    double alpha, beta;
};

// dx = alpha * dsoftmax(y, dy) + beta * dx (operands 0 = dx, 1 = dy, 2 = y).
struct SoftmaxBackwardArgs {
    SoftmaxLoops loops;
    anydnnDataType_t dt;
    anydnnSoftmaxAlgorithm_t algo;
    const void *y, *dy;
    void *dx;
    double alpha, beta;
};

struct SoftmaxKernels {
    void (*forward)(const ExecContext &, const SoftmaxForwardArgs &);
    void (*backward)(const ExecContext &, const SoftmaxBackwardArgs &);
};

ANYDNN_DECLARE_ISA_TABLE(SoftmaxKernels, softmax)

}  // namespace anydnn::cpu
