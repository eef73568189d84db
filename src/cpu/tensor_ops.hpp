// The tensor-ops kernel family: transform (convert / blend / broadcast),
// fill and op-tensor. Declarations only; src/cpu/kernels/tensor_ops.hpp
// implements them once per ISA level.
#pragma once

#include <cstddef>

#include "anydnn/anydnn_ops.h"
#include "cpu/isa_table.hpp"
#include "cpu/parallel.hpp"
#include "cpu/strided_loop.hpp"

namespace anydnn::cpu {

// y = alpha * x + beta * y over loop (operand 0 = y, 1 = x; x may broadcast),
// converting x's type to y's. beta == 0 never reads y.
struct TransformArgs {
    StridedLoop loop;
    anydnnDataType_t ydt, xdt;
    const void *x;
    void *y;
    double alpha, beta;
};

// Every element of y (operand 0) = the elem_size bytes at value.
struct FillArgs {
    StridedLoop loop;
    std::size_t elem_size;
    unsigned char value[8];
    void *y;
};

// c = op(alpha1 * a, alpha2 * b) + beta * c (operands 0 = c, 1 = a, 2 = b; b
// may broadcast, and is not read for the unary SQRT and NOT).
struct OpTensorArgs {
    StridedLoop loop;
    anydnnDataType_t dt;
    anydnnOpTensorOp_t op;
    bool propagate_nan;
    const void *a, *b;
    void *c;
    double alpha1, alpha2, beta;
};

struct TensorOpsKernels {
    void (*transform)(const ExecContext &, const TransformArgs &);
    void (*fill)(const ExecContext &, const FillArgs &);
    void (*op_tensor)(const ExecContext &, const OpTensorArgs &);
};

ANYDNN_DECLARE_ISA_TABLE(TensorOpsKernels, tensor_ops)

}  // namespace anydnn::cpu
