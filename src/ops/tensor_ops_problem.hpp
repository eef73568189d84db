// Problems of the tensor ops (set, scale, add, op-tensor, transform): what to
// compute, validated once for every backend.
#pragma once

#include <string>

#include "anydnn/anydnn_ops.h"
#include "core/tensor_desc.hpp"

namespace anydnn::ops {

// y = alpha * x + beta * y. x has y's dimensions, or (AddTensor) 1 where it
// broadcasts. Types may differ (TransformTensor converts).
struct TransformProblem {
    TensorLayout x, y;
    double alpha = 1, beta = 0;
    std::string to_string() const;
};

// Every element of y = value (value holds one element of y's type).
struct FillProblem {
    TensorLayout y;
    unsigned char value[8] = {};
};

// c = op(alpha1 * a, alpha2 * b) + beta * c.
struct OpTensorProblem {
    anydnnOpTensorOp_t op = ANYDNN_OP_TENSOR_ADD;
    bool propagate_nan = false;
    TensorLayout a, b, c;
    double alpha1 = 1, alpha2 = 1, beta = 0;
    bool unary() const { return op == ANYDNN_OP_TENSOR_SQRT || op == ANYDNN_OP_TENSOR_NOT; }
    std::string to_string() const;
};

// BAD_PARAM unless `in` (named in_arg) has out's dimension count and each of
// its dimensions equals out's or is 1.
Status check_broadcast(const TensorLayout &in, const char *in_arg, const TensorLayout &out, const char *out_arg);
// BAD_PARAM unless the two tensors have the same dimensions.
Status check_same_dims(const TensorLayout &a, const char *a_arg, const TensorLayout &b, const char *b_arg);
// BAD_PARAM unless the two tensors have the same data type.
Status check_same_type(const TensorLayout &a, const char *a_arg, const TensorLayout &b, const char *b_arg);
// NOT_SUPPORTED unless t is FLOAT, DOUBLE, HALF or BFLOAT16.
Status check_floating(const TensorLayout &t, const char *arg);

}  // namespace anydnn::ops
