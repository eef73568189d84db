// The reduce-tensor problem: C = alpha * reduce(A) + beta * C over the
// dimensions where C is 1 and A is not, validated once for every backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "anydnn/anydnn_ops.h"
#include "core/tensor_desc.hpp"
#include "ops/reduce_desc.hpp"

namespace anydnn::ops {

struct ReduceProblem {
    anydnnReduceTensorOp_t op = ANYDNN_REDUCE_TENSOR_ADD;
    bool propagate_nan = false;  // MIN, MAX, AMAX only: a NaN wins instead of being skipped
    bool indices = false;        // write one uint32 index per element of C
    TensorLayout a, c;
    double alpha = 1, beta = 0;

    // Elements of A that make one element of C.
    int64_t reduced_count() const;
    // Bytes of the indices output: 4 per element of C when indices are written, else 0.
    std::size_t indices_bytes() const;
    std::string to_string() const;
};

// True for the ops that select one element (and so can report its index).
bool reduce_op_selects(anydnnReduceTensorOp_t op);

// The set descriptor behind reduceTensorDesc: BAD_PARAM when NULL or never set.
Status reduce_desc_arg(const anydnnReduceTensorStruct *desc, const anydnnReduceTensorStruct **out);

// Checks A and C against each other and the descriptor and fills *p (all but
// alpha and beta). BAD_PARAM: dimension counts or types differ, a dimension of
// C is neither 1 nor A's. NOT_SUPPORTED: non-floating tensors; indices asked
// for with a type other than 32-bit, or over more than INT32_MAX elements.
Status make_reduce_problem(const anydnnReduceTensorStruct &desc, const TensorLayout &a, const TensorLayout &c,
                           ReduceProblem *p);

}  // namespace anydnn::ops
