// Reference ReduceTensor: plain loops in double, the reduced set of each
// element of C visited in flattened row-major index order, so that the first
// occurrence of a MIN/MAX/AMAX is simply the first one met.
#pragma once

#include <cstdint>
#include <vector>

#include "anydnn/anydnn.h"
#include "common/test_util.hpp"

namespace anydnn_test::ref {

// C = alpha * reduce(A) + beta * C over the dimensions where C is 1 and A is
// not. Returns C's expected values in row-major index order (as
// Tensor::values()), rounded to C's type; when `indices` is not NULL and op
// is MIN, MAX or AMAX, also the expected flattened index of each element.
// NaNs: ADD..MUL_NO_ZEROS propagate them always; MIN/MAX/AMAX pick a NaN as
// soon as one is met (propagate_nan) or skip NaNs unless all are NaN.
// MUL_NO_ZEROS of an all-zero set is 1.
std::vector<double> reduce(anydnnReduceTensorOp_t op, bool propagate_nan, double alpha, const Tensor &a,
                           double beta, const Tensor &c, std::vector<uint32_t> *indices);

}  // namespace anydnn_test::ref
