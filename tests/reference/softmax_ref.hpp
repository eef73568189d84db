// Reference softmax: plain loops in double over multi-indices, independent
// of the library's code. Results are in row-major index order (as
// Tensor::values()), rounded to the output's type.
#pragma once

#include <vector>

#include "anydnn/anydnn.h"
#include "common/test_util.hpp"

namespace anydnn_test::ref {

// y = alpha * softmax(x) + beta * y; FAST and ACCURATE give the same
// (exact) values here, LOG gives log-softmax.
std::vector<double> softmax_forward(anydnnSoftmaxAlgorithm_t algo, anydnnSoftmaxMode_t mode, double alpha,
                                    const Tensor &x, double beta, const Tensor &y);
// dx = alpha * y (dy - sum(dy y)) + beta * dx; for LOG alpha * (dy - e^y sum(dy)).
std::vector<double> softmax_backward(anydnnSoftmaxAlgorithm_t algo, anydnnSoftmaxMode_t mode, double alpha,
                                     const Tensor &y, const Tensor &dy, double beta, const Tensor &dx);

}  // namespace anydnn_test::ref
