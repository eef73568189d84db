// C entry points of pooling (anydnn_ops.h): the descriptor, output
// dimensions and the forward and backward passes.
#include "anydnn/anydnn_ops.h"
#include "api/api_call.hpp"
#include "core/handle.hpp"
#include "cpu/pooling_exec.hpp"
#include "ops/conv_problem.hpp"
#include "ops/pooling_desc.hpp"
#include "ops/pooling_problem.hpp"
#include "ops/scalars.hpp"

using namespace anydnn;

extern "C" {

anydnnStatus_t anydnnCreatePoolingDescriptor(anydnnPoolingDescriptor_t *poolingDesc) {
    return api_call("anydnnCreatePoolingDescriptor", nullptr, [&] {
        if (poolingDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "poolingDesc is NULL");
        *poolingDesc = new anydnnPoolingStruct;
        return kSuccess;
    });
}

anydnnStatus_t anydnnDestroyPoolingDescriptor(anydnnPoolingDescriptor_t poolingDesc) {
    return api_call("anydnnDestroyPoolingDescriptor", nullptr, [&] {
        delete poolingDesc;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetPooling2dDescriptor(anydnnPoolingDescriptor_t poolingDesc, anydnnPoolingMode_t mode,
                                            anydnnNanPropagation_t maxpoolingNanOpt, int windowHeight,
                                            int windowWidth, int verticalPadding, int horizontalPadding,
                                            int verticalStride, int horizontalStride) {
    return api_call("anydnnSetPooling2dDescriptor", nullptr, [&] {
        const int window[] = {windowHeight, windowWidth}, pad[] = {verticalPadding, horizontalPadding},
                  stride[] = {verticalStride, horizontalStride};
        return ops::set_pooling(poolingDesc, mode, maxpoolingNanOpt, 2, window, pad, stride);
    });
}

anydnnStatus_t anydnnGetPooling2dDescriptor(const anydnnPoolingDescriptor_t poolingDesc, anydnnPoolingMode_t *mode,
                                            anydnnNanPropagation_t *maxpoolingNanOpt, int *windowHeight,
                                            int *windowWidth, int *verticalPadding, int *horizontalPadding,
                                            int *verticalStride, int *horizontalStride) {
    return api_call("anydnnGetPooling2dDescriptor", nullptr, [&] {
        const anydnnPoolingStruct *d;
        ANYDNN_TRY(ops::pooling_desc_arg(poolingDesc, &d));
        if (d->spatial != 2)
            return fail(ANYDNN_STATUS_BAD_PARAM, "poolingDesc has %d spatial dimensions, not 2", d->spatial);
        if (mode != nullptr) *mode = d->mode;
        if (maxpoolingNanOpt != nullptr) *maxpoolingNanOpt = d->nan_opt;
        if (windowHeight != nullptr) *windowHeight = d->window[0];
        if (windowWidth != nullptr) *windowWidth = d->window[1];
        if (verticalPadding != nullptr) *verticalPadding = d->pad[0];
        if (horizontalPadding != nullptr) *horizontalPadding = d->pad[1];
        if (verticalStride != nullptr) *verticalStride = d->stride[0];
        if (horizontalStride != nullptr) *horizontalStride = d->stride[1];
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetPoolingNdDescriptor(anydnnPoolingDescriptor_t poolingDesc, const anydnnPoolingMode_t mode,
                                            const anydnnNanPropagation_t maxpoolingNanOpt, int nbDims,
                                            const int windowDimA[], const int paddingA[], const int strideA[]) {
    return api_call("anydnnSetPoolingNdDescriptor", nullptr, [&] {
        return ops::set_pooling(poolingDesc, mode, maxpoolingNanOpt, nbDims, windowDimA, paddingA, strideA);
    });
}

anydnnStatus_t anydnnGetPoolingNdDescriptor(const anydnnPoolingDescriptor_t poolingDesc, int nbDimsRequested,
                                            anydnnPoolingMode_t *mode, anydnnNanPropagation_t *maxpoolingNanOpt,
                                            int *nbDims, int windowDimA[], int paddingA[], int strideA[]) {
    return api_call("anydnnGetPoolingNdDescriptor", nullptr, [&] {
        const anydnnPoolingStruct *d;
        ANYDNN_TRY(ops::pooling_desc_arg(poolingDesc, &d));
        if (nbDimsRequested < 0)
            return fail(ANYDNN_STATUS_BAD_PARAM, "nbDimsRequested is %d (< 0)", nbDimsRequested);
        const int n = nbDimsRequested < d->spatial ? nbDimsRequested : d->spatial;
        if (n > 0 && (windowDimA == nullptr || paddingA == nullptr || strideA == nullptr))
            return fail(ANYDNN_STATUS_BAD_PARAM, "windowDimA, paddingA and strideA may not be NULL");
        for (int i = 0; i < n; ++i) {
            windowDimA[i] = d->window[i];
            paddingA[i] = d->pad[i];
            strideA[i] = d->stride[i];
        }
        if (mode != nullptr) *mode = d->mode;
        if (maxpoolingNanOpt != nullptr) *maxpoolingNanOpt = d->nan_opt;
        if (nbDims != nullptr) *nbDims = d->spatial;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetPooling2dForwardOutputDim(const anydnnPoolingDescriptor_t poolingDesc,
                                                  const anydnnTensorDescriptor_t inputTensorDesc, int *n, int *c,
                                                  int *h, int *w) {
    return api_call("anydnnGetPooling2dForwardOutputDim", nullptr, [&] {
        const anydnnPoolingStruct *d;
        const TensorLayout *xl;
        ANYDNN_TRY(ops::pooling_desc_arg(poolingDesc, &d));
        ANYDNN_TRY(tensor_arg(inputTensorDesc, "inputTensorDesc", &xl));
        if (d->spatial != 2)
            return fail(ANYDNN_STATUS_BAD_PARAM, "poolingDesc has %d spatial dimensions, not 2", d->spatial);
        if (n == nullptr || c == nullptr || h == nullptr || w == nullptr)
            return fail(ANYDNN_STATUS_BAD_PARAM, "n, c, h and w may not be NULL");
        int64_t dims[kMaxDims];
        ANYDNN_TRY(ops::pooling_forward_output_dims(*d, *xl, dims));
        *n = static_cast<int>(dims[0]);
        *c = static_cast<int>(dims[1]);
        *h = static_cast<int>(dims[2]);
        *w = static_cast<int>(dims[3]);
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetPoolingNdForwardOutputDim(const anydnnPoolingDescriptor_t poolingDesc,
                                                  const anydnnTensorDescriptor_t inputTensorDesc, int nbDims,
                                                  int outputTensorDimA[]) {
    return api_call("anydnnGetPoolingNdForwardOutputDim", nullptr, [&] {
        const anydnnPoolingStruct *d;
        const TensorLayout *xl;
        ANYDNN_TRY(ops::pooling_desc_arg(poolingDesc, &d));
        ANYDNN_TRY(tensor_arg(inputTensorDesc, "inputTensorDesc", &xl));
        if (nbDims != xl->nd)
            return fail(ANYDNN_STATUS_BAD_PARAM, "nbDims is %d, inputTensorDesc has %d dimensions", nbDims, xl->nd);
        if (outputTensorDimA == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "outputTensorDimA is NULL");
        int64_t dims[kMaxDims];
        ANYDNN_TRY(ops::pooling_forward_output_dims(*d, *xl, dims));
        for (int i = 0; i < nbDims; ++i) outputTensorDimA[i] = static_cast<int>(dims[i]);
        return kSuccess;
    });
}

anydnnStatus_t anydnnPoolingForward(anydnnHandle_t handle, const anydnnPoolingDescriptor_t poolingDesc,
                                    const void *alpha, const anydnnTensorDescriptor_t xDesc, const void *x,
                                    const void *beta, const anydnnTensorDescriptor_t yDesc, void *y) {
    return api_call("anydnnPoolingForward", handle, [&] {
        const Handle *h;
        const anydnnPoolingStruct *d;
        const TensorLayout *xl, *yl;
        ops::PoolingForwardProblem p;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(ops::pooling_desc_arg(poolingDesc, &d));
        ANYDNN_TRY(tensor_arg(xDesc, "xDesc", &xl));
        ANYDNN_TRY(tensor_arg(yDesc, "yDesc", &yl));
        ANYDNN_TRY(ops::make_pooling_forward_problem(*d, *xl, *yl, &p));
        ANYDNN_TRY(ops::pointer_arg(x, "x"));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        // Each output reads a window of inputs: even exact aliasing is wrong.
        ANYDNN_TRY(ops::check_no_overlap(y, *yl, "y", x, *xl, "x"));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", yl->dt, &p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", yl->dt, &p.beta));
        cpu::execute_pooling_forward(*h, p, x, y);
        return kSuccess;
    });
}

anydnnStatus_t anydnnPoolingBackward(anydnnHandle_t handle, const anydnnPoolingDescriptor_t poolingDesc,
                                     const void *alpha, const anydnnTensorDescriptor_t yDesc, const void *y,
                                     const anydnnTensorDescriptor_t dyDesc, const void *dy,
                                     const anydnnTensorDescriptor_t xDesc, const void *x, const void *beta,
                                     const anydnnTensorDescriptor_t dxDesc, void *dx) {
    return api_call("anydnnPoolingBackward", handle, [&] {
        const Handle *h;
        const anydnnPoolingStruct *d;
        const TensorLayout *yl, *dyl, *xl, *dxl;
        ops::PoolingBackwardProblem p;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(ops::pooling_desc_arg(poolingDesc, &d));
        ANYDNN_TRY(tensor_arg(yDesc, "yDesc", &yl));
        ANYDNN_TRY(tensor_arg(dyDesc, "dyDesc", &dyl));
        ANYDNN_TRY(tensor_arg(xDesc, "xDesc", &xl));
        ANYDNN_TRY(tensor_arg(dxDesc, "dxDesc", &dxl));
        ANYDNN_TRY(ops::make_pooling_backward_problem(*d, *yl, *dyl, *xl, *dxl, &p));
        ANYDNN_TRY(ops::pointer_arg(y, "y"));
        ANYDNN_TRY(ops::pointer_arg(dy, "dy"));
        ANYDNN_TRY(ops::pointer_arg(x, "x"));
        ANYDNN_TRY(ops::pointer_arg(dx, "dx"));
        // The gradient is written plane by plane after dy and x are read.
        ANYDNN_TRY(ops::check_no_overlap(dx, *dxl, "dx", dy, *dyl, "dy"));
        ANYDNN_TRY(ops::check_no_overlap(dx, *dxl, "dx", y, *yl, "y"));
        ANYDNN_TRY(ops::check_no_overlap(dx, *dxl, "dx", x, *xl, "x"));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", dxl->dt, &p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", dxl->dt, &p.beta));
        cpu::execute_pooling_backward(*h, p, dy, x, dx);
        return kSuccess;
    });
}

}  // extern "C"
