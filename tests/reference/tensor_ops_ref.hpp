// Reference tensor ops: plain loops in double over multi-indices. Each
// returns the expected values of the output, element by element in
// row-major index order (as Tensor::values()), rounded to its type.
#pragma once

#include <vector>

#include "anydnn/anydnn.h"
#include "common/test_util.hpp"

namespace anydnn_test::ref {

// The element of `in` that broadcasts to output index `idx`.
double broadcast_at(const Tensor &in, const std::vector<int> &idx);

// y = alpha * x + beta * y, x broadcast to y's dimensions.
std::vector<double> transform(double alpha, const Tensor &x, double beta, const Tensor &y);
// c = op(alpha1 * a, alpha2 * b) + beta * c.
std::vector<double> op_tensor(anydnnOpTensorOp_t op, bool propagate_nan, double alpha1, const Tensor &a,
                              double alpha2, const Tensor *b, double beta, const Tensor &c);

}  // namespace anydnn_test::ref
