// C entry points of the activations (anydnn_ops.h): the descriptor and the
// forward and backward passes.
#include <cmath>

#include "anydnn/anydnn_ops.h"
#include "api/api_call.hpp"
#include "core/handle.hpp"
#include "cpu/activation_exec.hpp"
#include "ops/activation_desc.hpp"
#include "ops/activation_problem.hpp"
#include "ops/in_place.hpp"
#include "ops/scalars.hpp"

using namespace anydnn;

extern "C" {

anydnnStatus_t anydnnCreateActivationDescriptor(anydnnActivationDescriptor_t *activationDesc) {
    return api_call("anydnnCreateActivationDescriptor", nullptr, [&] {
        if (activationDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "activationDesc is NULL");
        *activationDesc = new anydnnActivationStruct;
        return kSuccess;
    });
}

anydnnStatus_t anydnnDestroyActivationDescriptor(anydnnActivationDescriptor_t activationDesc) {
    return api_call("anydnnDestroyActivationDescriptor", nullptr, [&] {
        delete activationDesc;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetActivationDescriptor(anydnnActivationDescriptor_t activationDesc,
                                             anydnnActivationMode_t mode, anydnnNanPropagation_t reluNanOpt,
                                             double coef) {
    return api_call("anydnnSetActivationDescriptor", nullptr, [&] {
        if (activationDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "activationDesc is NULL");
        if (!ops::activation_mode_known(mode))
            return fail(ANYDNN_STATUS_BAD_PARAM, "mode %d is not an anydnnActivationMode_t", mode);
        if (reluNanOpt != ANYDNN_NOT_PROPAGATE_NAN && reluNanOpt != ANYDNN_PROPAGATE_NAN)
            return fail(ANYDNN_STATUS_BAD_PARAM, "reluNanOpt %d is not an anydnnNanPropagation_t", reluNanOpt);
        if (std::isnan(coef)) return fail(ANYDNN_STATUS_BAD_PARAM, "coef is NaN");
        activationDesc->is_set = true;
        activationDesc->mode = mode;
        activationDesc->nan_opt = reluNanOpt;
        activationDesc->coef = coef;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetActivationDescriptor(const anydnnActivationDescriptor_t activationDesc,
                                             anydnnActivationMode_t *mode, anydnnNanPropagation_t *reluNanOpt,
                                             double *coef) {
    return api_call("anydnnGetActivationDescriptor", nullptr, [&] {
        ops::Activation act;
        ANYDNN_TRY(ops::activation_desc_arg(activationDesc, &act));
        if (mode != nullptr) *mode = activationDesc->mode;
        if (reluNanOpt != nullptr) *reluNanOpt = activationDesc->nan_opt;
        if (coef != nullptr) *coef = activationDesc->coef;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetActivationDescriptorSwishBeta(anydnnActivationDescriptor_t activationDesc,
                                                      double swish_beta) {
    return api_call("anydnnSetActivationDescriptorSwishBeta", nullptr, [&] {
        if (activationDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "activationDesc is NULL");
        if (std::isnan(swish_beta)) return fail(ANYDNN_STATUS_BAD_PARAM, "swish_beta is NaN");
        activationDesc->swish_beta = swish_beta;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetActivationDescriptorSwishBeta(anydnnActivationDescriptor_t activationDesc,
                                                      double *swish_beta) {
    return api_call("anydnnGetActivationDescriptorSwishBeta", nullptr, [&] {
        if (activationDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "activationDesc is NULL");
        if (swish_beta == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "swish_beta is NULL");
        *swish_beta = activationDesc->swish_beta;
        return kSuccess;
    });
}

anydnnStatus_t anydnnActivationForward(anydnnHandle_t handle, anydnnActivationDescriptor_t activationDesc,
                                       const void *alpha, const anydnnTensorDescriptor_t xDesc, const void *x,
                                       const void *beta, const anydnnTensorDescriptor_t yDesc, void *y) {
    return api_call("anydnnActivationForward", handle, [&] {
        const Handle *h;
        const TensorLayout *xl, *yl;
        ops::Activation act;
        ops::ActivationForwardProblem p;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(ops::activation_desc_arg(activationDesc, &act));
        ANYDNN_TRY(tensor_arg(xDesc, "xDesc", &xl));
        ANYDNN_TRY(tensor_arg(yDesc, "yDesc", &yl));
        ANYDNN_TRY(ops::make_activation_forward_problem(act, *xl, *yl, &p));
        ANYDNN_TRY(ops::pointer_arg(x, "x"));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        ANYDNN_TRY(ops::check_in_place(y, *yl, "y", x, *xl, "x"));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", yl->dt, &p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", yl->dt, &p.beta));
        cpu::execute_activation_forward(*h, p, x, y);
        return kSuccess;
    });
}

anydnnStatus_t anydnnActivationBackward(anydnnHandle_t handle, anydnnActivationDescriptor_t activationDesc,
                                        const void *alpha, const anydnnTensorDescriptor_t yDesc, const void *y,
                                        const anydnnTensorDescriptor_t dyDesc, const void *dy,
                                        const anydnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                        const anydnnTensorDescriptor_t dxDesc, void *dx) {
    return api_call("anydnnActivationBackward", handle, [&] {
        const Handle *h;
        const TensorLayout *yl, *dyl, *xl, *dxl;
        ops::Activation act;
        ops::ActivationBackwardProblem p;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(ops::activation_desc_arg(activationDesc, &act));
        ANYDNN_TRY(tensor_arg(yDesc, "yDesc", &yl));
        ANYDNN_TRY(tensor_arg(dyDesc, "dyDesc", &dyl));
        ANYDNN_TRY(tensor_arg(xDesc, "xDesc", &xl));
        ANYDNN_TRY(tensor_arg(dxDesc, "dxDesc", &dxl));
        ANYDNN_TRY(ops::make_activation_backward_problem(act, *yl, *dyl, *xl, *dxl, &p));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        ANYDNN_TRY(ops::pointer_arg(dy, "dy"));
        ANYDNN_TRY(ops::pointer_arg(x, "x"));
        ANYDNN_TRY(ops::pointer_arg(dx, "dx"));
        ANYDNN_TRY(ops::check_in_place(dx, *dxl, "dx", dy, *dyl, "dy"));
        ANYDNN_TRY(ops::check_in_place(dx, *dxl, "dx", y, *yl, "y"));
        ANYDNN_TRY(ops::check_in_place(dx, *dxl, "dx", x, *xl, "x"));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", dxl->dt, &p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", dxl->dt, &p.beta));
        cpu::execute_activation_backward(*h, p, y, dy, x, dx);
        return kSuccess;
    });
}

}  // extern "C"
