// The reduce-tensor kernel family. Declarations only; src/cpu/kernels/reduce.hpp
// implements them once per ISA level.
#pragma once

#include <cstdint>

#include "anydnn/anydnn_ops.h"
#include "cpu/isa_table.hpp"
#include "cpu/parallel.hpp"
#include "cpu/strided_loop.hpp"

namespace anydnn::cpu {

// C = alpha * reduce(A) + beta * C. `kept` walks the elements of C (operands
// 0 = A, 1 = C, 2 = the element's position in the packed row-major indices
// output); `reduced` walks the set of A that makes one element of C, relative
// to that element's A offset (operands 0 = A, 1 = the flattened row-major
// index within the reduced dimensions). beta == 0 never reads C.
struct ReduceArgs {
    StridedLoop kept, reduced;
    anydnnDataType_t dt;  // of A and C
    anydnnReduceTensorOp_t op;
    bool propagate_nan;
    const void *a;
    void *c;
    uint32_t *indices;  // NULL: no indices written
    double alpha, beta;
};

struct ReduceKernels {
    // Any strides; fastest when the reduced set is innermost in A
    // (reduced.inner_stride(0) == 1): the general fallback.
    void (*rows)(const ExecContext &, const ReduceArgs &);
    // kept.inner_stride(0) == 1: vectorized across the kept innermost dimension.
    void (*columns)(const ExecContext &, const ReduceArgs &);
};

ANYDNN_DECLARE_ISA_TABLE(ReduceKernels, reduce)

}  // namespace anydnn::cpu
