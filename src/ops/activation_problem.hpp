// The activation problems: y = alpha * f(x) + beta * y and
// dx = alpha * f'(x) * dy + beta * dx, validated once for every backend.
#pragma once

#include <string>

#include "anydnn/anydnn_ops.h"
#include "core/tensor_desc.hpp"
#include "ops/activation_desc.hpp"

namespace anydnn::ops {

// What f is: the descriptor's contents once set.
struct Activation {
    anydnnActivationMode_t mode = ANYDNN_ACTIVATION_RELU;
    bool propagate_nan = false;  // RELU and CLIPPED_RELU only
    double coef = 0;             // CLIPPED_RELU clip, ELU alpha, LEAKY_RELU slope
    double swish_beta = 1;
    std::string to_string() const;
};

struct ActivationForwardProblem {
    Activation act;
    TensorLayout x, y;
    double alpha = 1, beta = 0;
    std::string to_string() const;
};

struct ActivationBackwardProblem {
    Activation act;
    TensorLayout y, dy, x, dx;
    double alpha = 1, beta = 0;
    std::string to_string() const;
};

// Which forward tensors the backward pass of a mode reads (see
// anydnnActivationBackward): y for SIGMOID, TANH and ELU, x for every mode
// but SIGMOID, TANH and IDENTITY.
bool activation_backward_reads_y(anydnnActivationMode_t mode);
bool activation_backward_reads_x(anydnnActivationMode_t mode);

// True for a value of anydnnActivationMode_t.
bool activation_mode_known(anydnnActivationMode_t mode);

// The set descriptor behind activationDesc: BAD_PARAM when NULL or never set.
Status activation_desc_arg(const anydnnActivationStruct *desc, Activation *out);

// Check the tensors against each other and fill *p (all but alpha and beta).
// BAD_PARAM: dimensions or data types differ. NOT_SUPPORTED: non-floating.
Status make_activation_forward_problem(const Activation &act, const TensorLayout &x, const TensorLayout &y,
                                       ActivationForwardProblem *p);
Status make_activation_backward_problem(const Activation &act, const TensorLayout &y, const TensorLayout &dy,
                                        const TensorLayout &x, const TensorLayout &dx,
                                        ActivationBackwardProblem *p);

}  // namespace anydnn::ops
