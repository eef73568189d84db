// Reference pooling: plain loops in double over the elements in row-major
// index order (as Tensor::values()), independent of the library's code.
// Results are in that order, rounded to the output's type.
#pragma once

#include <vector>

#include "anydnn/anydnn.h"
#include "common/test_util.hpp"

namespace anydnn_test::ref {

// A pooling of 1 to 3 spatial dimensions (window, pad, stride: one value each).
struct Pool {
    anydnnPoolingMode_t mode = ANYDNN_POOLING_MAX;
    bool propagate_nan = false;
    std::vector<int> window, pad, stride;
};

// N, C, then 1 + (in + 2 pad - window) / stride per spatial dimension.
std::vector<int> pool_output_dims(const Pool &p, const std::vector<int> &in_dims);

// y = alpha * pool(x) + beta * y. MAX: the largest element of the window
// (NaN when one is NaN and NaN propagates; NaNs skipped otherwise, NaN when
// all are); AVERAGE: the window's sum over its size or its count of input
// elements.
std::vector<double> pooling_forward(const Pool &p, double alpha, const Tensor &x, double beta, const Tensor &y);
// dx = alpha * dpool + beta * dx. MAX: each dy to the first window element
// (scan order) equal to the max (the first NaN if the max is NaN); AVERAGE:
// dy / count to every input element of the window.
std::vector<double> pooling_backward(const Pool &p, double alpha, const Tensor &x, const Tensor &dy, double beta,
                                     const Tensor &dx);

}  // namespace anydnn_test::ref
