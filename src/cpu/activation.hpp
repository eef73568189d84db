// The activation kernel family: forward and backward of every activation
// mode. Declarations only; src/cpu/kernels/activation.hpp implements them
// once per ISA level.
#pragma once

#include "anydnn/anydnn_ops.h"
#include "cpu/isa_table.hpp"
#include "cpu/parallel.hpp"
#include "cpu/strided_loop.hpp"

namespace anydnn::cpu {

// f and its parameters, as the kernels see them.
struct ActivationOp {
    anydnnActivationMode_t mode;
    bool propagate_nan;
    double coef, swish_beta;
};

// y = alpha * f(x) + beta * y over loop (operand 0 = y, 1 = x), all tensors
// of type dt. beta == 0 never reads y.
struct ActivationForwardArgs {
    StridedLoop loop;
    anydnnDataType_t dt;
    ActivationOp op;
    const void *x;
    void *y;
    double alpha, beta;
};

// dx = alpha * f'(x) * dy + beta * dx over loop (operands 0 = dx, 1 = dy,
// 2 = y, 3 = x). An operand the mode does not read may be given as dy (its
// pointer and strides), so that it does not split the loop.
struct ActivationBackwardArgs {
    StridedLoop loop;
    anydnnDataType_t dt;
    ActivationOp op;
    const void *dy, *y, *x;
    void *dx;
    double alpha, beta;
};

struct ActivationKernels {
    void (*forward)(const ExecContext &, const ActivationForwardArgs &);
    void (*backward)(const ExecContext &, const ActivationBackwardArgs &);
};

ANYDNN_DECLARE_ISA_TABLE(ActivationKernels, activation)

}  // namespace anydnn::cpu
