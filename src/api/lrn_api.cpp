// C entry points of LRN and divisive normalization (anydnn_ops.h): the
// descriptor and the forward and backward passes.
#include "anydnn/anydnn_ops.h"
#include "api/api_call.hpp"
#include "core/handle.hpp"
#include "cpu/lrn_exec.hpp"
#include "ops/conv_problem.hpp"
#include "ops/in_place.hpp"
#include "ops/lrn_desc.hpp"
#include "ops/lrn_problem.hpp"
#include "ops/scalars.hpp"

using namespace anydnn;

namespace {

Status lrn_mode_arg(anydnnLRNMode_t mode) {
    if (mode != ANYDNN_LRN_CROSS_CHANNEL_DIM1)
        return fail(ANYDNN_STATUS_BAD_PARAM, "lrnMode %d is not ANYDNN_LRN_CROSS_CHANNEL_DIM1", mode);
    return kSuccess;
}

Status divnorm_mode_arg(anydnnDivNormMode_t mode) {
    if (mode != ANYDNN_DIVNORM_PRECOMPUTED_MEANS)
        return fail(ANYDNN_STATUS_BAD_PARAM, "mode %d is not ANYDNN_DIVNORM_PRECOMPUTED_MEANS", mode);
    return kSuccess;
}

}  // namespace

extern "C" {

anydnnStatus_t anydnnCreateLRNDescriptor(anydnnLRNDescriptor_t *normDesc) {
    return api_call("anydnnCreateLRNDescriptor", nullptr, [&] {
        if (normDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "normDesc is NULL");
        *normDesc = new anydnnLRNStruct;
        return kSuccess;
    });
}

anydnnStatus_t anydnnDestroyLRNDescriptor(anydnnLRNDescriptor_t lrnDesc) {
    return api_call("anydnnDestroyLRNDescriptor", nullptr, [&] {
        delete lrnDesc;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetLRNDescriptor(anydnnLRNDescriptor_t normDesc, unsigned lrnN, double lrnAlpha,
                                      double lrnBeta, double lrnK) {
    return api_call("anydnnSetLRNDescriptor", nullptr,
                    [&] { return ops::set_lrn(normDesc, lrnN, lrnAlpha, lrnBeta, lrnK); });
}

anydnnStatus_t anydnnGetLRNDescriptor(anydnnLRNDescriptor_t normDesc, unsigned *lrnN, double *lrnAlpha,
                                      double *lrnBeta, double *lrnK) {
    return api_call("anydnnGetLRNDescriptor", nullptr, [&] {
        const anydnnLRNStruct *d;
        ANYDNN_TRY(ops::lrn_desc_arg(normDesc, &d));
        if (lrnN != nullptr) *lrnN = d->n;
        if (lrnAlpha != nullptr) *lrnAlpha = d->alpha;
        if (lrnBeta != nullptr) *lrnBeta = d->beta;
        if (lrnK != nullptr) *lrnK = d->k;
        return kSuccess;
    });
}

anydnnStatus_t anydnnLRNCrossChannelForward(anydnnHandle_t handle, anydnnLRNDescriptor_t normDesc,
                                            anydnnLRNMode_t lrnMode, const void *alpha,
                                            const anydnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                            const anydnnTensorDescriptor_t yDesc, void *y) {
    return api_call("anydnnLRNCrossChannelForward", handle, [&] {
        const Handle *h;
        const anydnnLRNStruct *d;
        const TensorLayout *xl, *yl;
        ops::LrnForwardProblem p;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(ops::lrn_desc_arg(normDesc, &d));
        ANYDNN_TRY(lrn_mode_arg(lrnMode));
        ANYDNN_TRY(tensor_arg(xDesc, "xDesc", &xl));
        ANYDNN_TRY(tensor_arg(yDesc, "yDesc", &yl));
        ANYDNN_TRY(ops::make_lrn_forward_problem(*d, *xl, *yl, &p));
        ANYDNN_TRY(ops::pointer_arg(x, "x"));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        // Each channel's input is read before its output is written and
        // never again, so exact aliasing works; any other overlap does not.
        if (x == y) ANYDNN_TRY(ops::check_in_place(y, *yl, "y", x, *xl, "x"));
        else ANYDNN_TRY(ops::check_no_overlap(y, *yl, "y", x, *xl, "x"));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", yl->dt, &p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", yl->dt, &p.beta));
        cpu::execute_lrn_forward(*h, p, x, y);
        return kSuccess;
    });
}

anydnnStatus_t anydnnLRNCrossChannelBackward(anydnnHandle_t handle, anydnnLRNDescriptor_t normDesc,
                                             anydnnLRNMode_t lrnMode, const void *alpha,
                                             const anydnnTensorDescriptor_t yDesc, const void *y,
                                             const anydnnTensorDescriptor_t dyDesc, const void *dy,
                                             const anydnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                             const anydnnTensorDescriptor_t dxDesc, void *dx) {
    return api_call("anydnnLRNCrossChannelBackward", handle, [&] {
        const Handle *h;
        const anydnnLRNStruct *d;
        const TensorLayout *yl, *dyl, *xl, *dxl;
        ops::LrnBackwardProblem p;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(ops::lrn_desc_arg(normDesc, &d));
        ANYDNN_TRY(lrn_mode_arg(lrnMode));
        ANYDNN_TRY(tensor_arg(yDesc, "yDesc", &yl));
        ANYDNN_TRY(tensor_arg(dyDesc, "dyDesc", &dyl));
        ANYDNN_TRY(tensor_arg(xDesc, "xDesc", &xl));
        ANYDNN_TRY(tensor_arg(dxDesc, "dxDesc", &dxl));
        ANYDNN_TRY(ops::make_lrn_backward_problem(*d, *yl, *dyl, *xl, *dxl, &p));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        ANYDNN_TRY(ops::pointer_arg(dy, "dy"));
        ANYDNN_TRY(ops::pointer_arg(x, "x"));
        ANYDNN_TRY(ops::pointer_arg(dx, "dx"));
        // dx of a channel is written after later channels' x, y and dy are read.
        ANYDNN_TRY(ops::check_no_overlap(dx, *dxl, "dx", y, *yl, "y"));
        ANYDNN_TRY(ops::check_no_overlap(dx, *dxl, "dx", dy, *dyl, "dy"));
        ANYDNN_TRY(ops::check_no_overlap(dx, *dxl, "dx", x, *xl, "x"));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", dxl->dt, &p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", dxl->dt, &p.beta));
        cpu::execute_lrn_backward(*h, p, y, dy, x, dx);
        return kSuccess;
    });
}

anydnnStatus_t anydnnDivisiveNormalizationForward(anydnnHandle_t handle, anydnnLRNDescriptor_t normDesc,
                                                  anydnnDivNormMode_t mode, const void *alpha,
                                                  const anydnnTensorDescriptor_t xDesc, const void *x,
                                                  const void *means, void *temp, void *temp2, const void *beta,
                                                  const anydnnTensorDescriptor_t yDesc, void *y) {
    return api_call("anydnnDivisiveNormalizationForward", handle, [&] {
        const Handle *h;
        const anydnnLRNStruct *d;
        const TensorLayout *xl, *yl;
        ops::DivNormProblem p;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(ops::lrn_desc_arg(normDesc, &d));
        ANYDNN_TRY(divnorm_mode_arg(mode));
        ANYDNN_TRY(tensor_arg(xDesc, "xDesc", &xl));
        ANYDNN_TRY(tensor_arg(yDesc, "yDesc", &yl));
        ANYDNN_TRY(ops::make_divnorm_problem(*d, *xl, *yl, &p));
        ANYDNN_TRY(ops::pointer_arg(x, "x"));
        ANYDNN_TRY(ops::pointer_arg(temp, "temp"));
        ANYDNN_TRY(ops::pointer_arg(temp2, "temp2"));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        // Each output reads a window of inputs.
        ANYDNN_TRY(ops::check_no_overlap(y, *yl, "y", x, *xl, "x"));
        if (means != nullptr) ANYDNN_TRY(ops::check_no_overlap(y, *yl, "y", means, *xl, "means"));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", yl->dt, &p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", yl->dt, &p.beta));
        p.has_means = means != nullptr;
        cpu::execute_divnorm_forward(*h, p, x, means, y);
        return kSuccess;
    });
}

anydnnStatus_t anydnnDivisiveNormalizationBackward(anydnnHandle_t handle, anydnnLRNDescriptor_t normDesc,
                                                   anydnnDivNormMode_t mode, const void *alpha,
                                                   const anydnnTensorDescriptor_t xDesc, const void *x,
                                                   const void *means, const void *dy, void *temp, void *temp2,
                                                   const void *beta, const anydnnTensorDescriptor_t dXdMeansDesc,
                                                   void *dx, void *dMeans) {
    return api_call("anydnnDivisiveNormalizationBackward", handle, [&] {
        const Handle *h;
        const anydnnLRNStruct *d;
        const TensorLayout *xl, *dxl;
        ops::DivNormProblem p;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(ops::lrn_desc_arg(normDesc, &d));
        ANYDNN_TRY(divnorm_mode_arg(mode));
        ANYDNN_TRY(tensor_arg(xDesc, "xDesc", &xl));
        ANYDNN_TRY(tensor_arg(dXdMeansDesc, "dXdMeansDesc", &dxl));
        ANYDNN_TRY(ops::make_divnorm_problem(*d, *xl, *dxl, &p));
        ANYDNN_TRY(ops::pointer_arg(x, "x"));
        ANYDNN_TRY(ops::pointer_arg(dy, "dy"));
        ANYDNN_TRY(ops::pointer_arg(temp, "temp"));
        ANYDNN_TRY(ops::pointer_arg(temp2, "temp2"));
        ANYDNN_TRY(ops::pointer_arg(dx, "dx"));
        const void *inputs[] = {x, means, dy};
        const char *names[] = {"x", "means", "dy"};
        for (int i = 0; i < 3; ++i) {
            if (inputs[i] == nullptr) continue;
            ANYDNN_TRY(ops::check_no_overlap(dx, *dxl, "dx", inputs[i], *xl, names[i]));
            if (dMeans != nullptr) ANYDNN_TRY(ops::check_no_overlap(dMeans, *dxl, "dMeans", inputs[i], *xl, names[i]));
        }
        if (dMeans != nullptr) ANYDNN_TRY(ops::check_no_overlap(dMeans, *dxl, "dMeans", dx, *dxl, "dx"));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", dxl->dt, &p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", dxl->dt, &p.beta));
        p.has_means = means != nullptr;
        p.has_dmeans = dMeans != nullptr;
        cpu::execute_divnorm_backward(*h, p, x, means, dy, dx, dMeans);
        return kSuccess;
    });
}

}  // extern "C"
