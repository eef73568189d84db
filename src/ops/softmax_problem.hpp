// The softmax problems: y = alpha * softmax(x) + beta * y and its backward
// pass, validated once for every backend.
#pragma once

#include <string>

#include "anydnn/anydnn_ops.h"
#include "core/tensor_desc.hpp"

namespace anydnn::ops {

struct SoftmaxForwardProblem {
    anydnnSoftmaxAlgorithm_t algo = ANYDNN_SOFTMAX_ACCURATE;
    anydnnSoftmaxMode_t mode = ANYDNN_SOFTMAX_MODE_CHANNEL;
    TensorLayout x, y;
    double alpha = 1, beta = 0;
    std::string to_string() const;
};

struct SoftmaxBackwardProblem {
    anydnnSoftmaxAlgorithm_t algo = ANYDNN_SOFTMAX_ACCURATE;
    anydnnSoftmaxMode_t mode = ANYDNN_SOFTMAX_MODE_CHANNEL;
    TensorLayout y, dy, dx;
    double alpha = 1, beta = 0;
    std::string to_string() const;
};

// True when `mode` normalizes over dimension `dim` (INSTANCE: all but N;
// CHANNEL: C).
bool softmax_reduces(anydnnSoftmaxMode_t mode, int dim);

// Check the enums and tensors and fill *p (all but alpha and beta).
// BAD_PARAM: an unknown algorithm or mode, dimensions or types that differ.
// NOT_SUPPORTED: non-floating tensors.
Status make_softmax_forward_problem(anydnnSoftmaxAlgorithm_t algo, anydnnSoftmaxMode_t mode, const TensorLayout &x,
                                    const TensorLayout &y, SoftmaxForwardProblem *p);
Status make_softmax_backward_problem(anydnnSoftmaxAlgorithm_t algo, anydnnSoftmaxMode_t mode,
                                     const TensorLayout &y, const TensorLayout &dy, const TensorLayout &dx,
                                     SoftmaxBackwardProblem *p);

}  // namespace anydnn::ops
