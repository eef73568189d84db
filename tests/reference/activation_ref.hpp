// Reference activations: f and its analytic derivative in double (std::exp,
// std::erfc, std::tanh, ...), independent of the library's code.
#pragma once

#include <vector>

#include "anydnn/anydnn.h"
#include "common/test_util.hpp"

namespace anydnn_test::ref {

struct Activation {
    anydnnActivationMode_t mode = ANYDNN_ACTIVATION_RELU;
    bool propagate_nan = false;
    double coef = 0;
    double swish_beta = 1;
};

// f(x) and f'(x) for finite or NaN x. A NaN x gives NaN, except for RELU and
// CLIPPED_RELU without NaN propagation, which treat it as a number below 0
// (f = 0 and f' = 0), and IDENTITY's f', which is 1 everywhere.
double activation_f(const Activation &a, double x);
double activation_df(const Activation &a, double x);

// y = alpha * f(x) + beta * y, rounded to y's type.
std::vector<double> activation_forward(const Activation &a, double alpha, const Tensor &x, double beta,
                                       const Tensor &y);
// dx = alpha * f'(x) * dy + beta * dx, rounded to dx's type.
std::vector<double> activation_backward(const Activation &a, double alpha, const Tensor &x, const Tensor &dy,
                                        double beta, const Tensor &dx);

}  // namespace anydnn_test::ref
