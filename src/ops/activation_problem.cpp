#include "ops/activation_problem.hpp"

#include "ops/tensor_ops_problem.hpp"

namespace anydnn::ops {

std::string Activation::to_string() const {
    return "mode=" + std::to_string(mode) + " nan=" + (propagate_nan ? "propagate" : "drop") +
           " coef=" + std::to_string(coef) + " swish_beta=" + std::to_string(swish_beta);
}

std::string ActivationForwardProblem::to_string() const {
    return "activation_fwd " + act.to_string() + " x=" + x.to_string() + " y=" + y.to_string() +
           " alpha=" + std::to_string(alpha) + " beta=" + std::to_string(beta);
}

std::string ActivationBackwardProblem::to_string() const {
    return "activation_bwd " + act.to_string() + " y=" + y.to_string() + " dy=" + dy.to_string() +
           " x=" + x.to_string() + " dx=" + dx.to_string() + " alpha=" + std::to_string(alpha) +
           " beta=" + std::to_string(beta);
}

bool activation_backward_reads_y(anydnnActivationMode_t mode) {
    return mode == ANYDNN_ACTIVATION_SIGMOID || mode == ANYDNN_ACTIVATION_TANH || mode == ANYDNN_ACTIVATION_ELU;
}

bool activation_backward_reads_x(anydnnActivationMode_t mode) {
    return mode != ANYDNN_ACTIVATION_SIGMOID && mode != ANYDNN_ACTIVATION_TANH &&
           mode != ANYDNN_ACTIVATION_IDENTITY;
}

bool activation_mode_known(anydnnActivationMode_t mode) {
    return (mode >= ANYDNN_ACTIVATION_SIGMOID && mode <= ANYDNN_ACTIVATION_SWISH) ||
           (mode >= ANYDNN_ACTIVATION_GELU && mode <= ANYDNN_ACTIVATION_SOFTPLUS);
}

Status activation_desc_arg(const anydnnActivationStruct *desc, Activation *out) {
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "activationDesc is NULL");
    if (!desc->is_set) return fail(ANYDNN_STATUS_BAD_PARAM, "activationDesc was never set");
    *out = Activation{desc->mode, desc->nan_opt == ANYDNN_PROPAGATE_NAN, desc->coef, desc->swish_beta};
    return kSuccess;
}

Status make_activation_forward_problem(const Activation &act, const TensorLayout &x, const TensorLayout &y,
                                       ActivationForwardProblem *p) {
    ANYDNN_TRY(check_same_dims(x, "xDesc", y, "yDesc"));
    ANYDNN_TRY(check_same_type(x, "xDesc", y, "yDesc"));
    ANYDNN_TRY(check_floating(y, "yDesc"));
    *p = ActivationForwardProblem{act, x, y, 1, 0};
    return kSuccess;
}

Status make_activation_backward_problem(const Activation &act, const TensorLayout &y, const TensorLayout &dy,
                                        const TensorLayout &x, const TensorLayout &dx,
                                        ActivationBackwardProblem *p) {
    ANYDNN_TRY(check_same_dims(y, "yDesc", dx, "dxDesc"));
    ANYDNN_TRY(check_same_dims(dy, "dyDesc", dx, "dxDesc"));
    ANYDNN_TRY(check_same_dims(x, "xDesc", dx, "dxDesc"));
    ANYDNN_TRY(check_same_type(y, "yDesc", dx, "dxDesc"));
    ANYDNN_TRY(check_same_type(dy, "dyDesc", dx, "dxDesc"));
    ANYDNN_TRY(check_same_type(x, "xDesc", dx, "dxDesc"));
    ANYDNN_TRY(check_floating(dx, "dxDesc"));
    *p = ActivationBackwardProblem{act, y, dy, x, dx, 1, 0};
    return kSuccess;
}

}  // namespace anydnn::ops
