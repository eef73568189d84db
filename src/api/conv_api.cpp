// C entry points of convolution (anydnn_cnn.h): the descriptor, output
// dimensions, algorithm choice and the forward passes.
#include <cstdlib>
#include <memory>
#include <vector>

#include "anydnn/anydnn_cnn.h"
#include "api/api_call.hpp"
#include "api/conv_api_util.hpp"
#include "core/dtype.hpp"
#include "core/handle.hpp"
#include "cpu/conv_exec.hpp"
#include "ops/activation_desc.hpp"
#include "ops/conv_desc.hpp"
#include "ops/conv_problem.hpp"
#include "ops/in_place.hpp"
#include "ops/scalars.hpp"

using namespace anydnn;

namespace {

Status desc_ptr(anydnnConvolutionDescriptor_t d) {
    return d == nullptr ? fail(ANYDNN_STATUS_BAD_PARAM, "convDesc is NULL") : kSuccess;
}

Status set_conv(anydnnConvolutionDescriptor_t d, int n, const int *pad, const int *stride, const int *dil,
                anydnnConvolutionMode_t mode, anydnnDataType_t compute) {
    ANYDNN_TRY(desc_ptr(d));
    if (n < 1 || n > anydnnConvolutionStruct::kMaxSpatial)
        return fail(ANYDNN_STATUS_BAD_PARAM, "arrayLength %d: 1 to %d spatial dimensions", n,
                    anydnnConvolutionStruct::kMaxSpatial);
    if (pad == nullptr || stride == nullptr || dil == nullptr)
        return fail(ANYDNN_STATUS_BAD_PARAM, "padA, filterStrideA and dilationA may not be NULL");
    for (int i = 0; i < n; ++i) {
        if (pad[i] < 0) return fail(ANYDNN_STATUS_BAD_PARAM, "pad %d is %d (< 0)", i, pad[i]);
        if (stride[i] < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "stride %d is %d (< 1)", i, stride[i]);
        if (dil[i] < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "dilation %d is %d (< 1)", i, dil[i]);
    }
    if (mode != ANYDNN_CONVOLUTION && mode != ANYDNN_CROSS_CORRELATION)
        return fail(ANYDNN_STATUS_BAD_PARAM, "mode %d is not an anydnnConvolutionMode_t", mode);
    if (!dtype_known(compute))
        return fail(ANYDNN_STATUS_BAD_PARAM, "computeType %d is not an anydnnDataType_t", compute);
    d->is_set = true;
    d->spatial = n;
    for (int i = 0; i < n; ++i) {
        d->pad[i] = pad[i];
        d->stride[i] = stride[i];
        d->dilation[i] = dil[i];
    }
    d->mode = mode;
    d->compute = compute;
    return kSuccess;
}

// The validated problem of the forward calls.
struct ConvCall {
    const Handle *h;
    const anydnnConvolutionStruct *d;
    const TensorLayout *x, *w, *y;
    ops::ConvForwardProblem p;
};

Status conv_call(anydnnHandle_t handle, anydnnTensorDescriptor_t xDesc, anydnnFilterDescriptor_t wDesc,
                 anydnnConvolutionDescriptor_t convDesc, anydnnTensorDescriptor_t yDesc, ConvCall *c) {
    ANYDNN_TRY(handle_arg(handle, &c->h));
    ANYDNN_TRY(ops::conv_desc_arg(convDesc, &c->d));
    ANYDNN_TRY(tensor_arg(xDesc, "xDesc", &c->x));
    ANYDNN_TRY(filter_arg(wDesc, "wDesc", &c->w));
    ANYDNN_TRY(tensor_arg(yDesc, "yDesc", &c->y));
    return ops::make_conv_forward_problem(*c->d, *c->x, *c->w, *c->y, &c->p);
}

Status operands(const ConvCall &c, const void *x, const void *w, void *y) {
    ANYDNN_TRY(ops::pointer_arg(x, "x"));
    ANYDNN_TRY(ops::pointer_arg(w, "w"));
    ANYDNN_TRY(ops::pointer_arg(y, "y"));
    ANYDNN_TRY(ops::check_no_overlap(y, *c.y, "y", x, *c.x, "x"));
    return ops::check_no_overlap(y, *c.y, "y", w, *c.w, "w");
}

// The algorithm's workspace, against what the caller gave.
Status workspace_arg(const ConvCall &c, anydnnConvolutionFwdAlgo_t algo, const void *ws, std::size_t ws_bytes) {
    std::size_t need = 0;
    ANYDNN_TRY(cpu::conv_forward_workspace(*c.h, c.p, algo, &need));
    return workspace_fits(need, ws, ws_bytes);
}

}  // namespace

extern "C" {

anydnnStatus_t anydnnCreateConvolutionDescriptor(anydnnConvolutionDescriptor_t *convDesc) {
    return api_call("anydnnCreateConvolutionDescriptor", nullptr, [&] {
        if (convDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "convDesc is NULL");
        *convDesc = new anydnnConvolutionStruct;
        return kSuccess;
    });
}

anydnnStatus_t anydnnDestroyConvolutionDescriptor(anydnnConvolutionDescriptor_t convDesc) {
    return api_call("anydnnDestroyConvolutionDescriptor", nullptr, [&] {
        delete convDesc;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetConvolution2dDescriptor(anydnnConvolutionDescriptor_t convDesc, int pad_h, int pad_w, int u,
                                                int v, int dilation_h, int dilation_w, anydnnConvolutionMode_t mode,
                                                anydnnDataType_t computeType) {
    return api_call("anydnnSetConvolution2dDescriptor", nullptr, [&] {
        const int pad[] = {pad_h, pad_w}, stride[] = {u, v}, dil[] = {dilation_h, dilation_w};
        return set_conv(convDesc, 2, pad, stride, dil, mode, computeType);
    });
}

anydnnStatus_t anydnnGetConvolution2dDescriptor(const anydnnConvolutionDescriptor_t convDesc, int *pad_h, int *pad_w,
                                                int *u, int *v, int *dilation_h, int *dilation_w,
                                                anydnnConvolutionMode_t *mode, anydnnDataType_t *computeType) {
    return api_call("anydnnGetConvolution2dDescriptor", nullptr, [&] {
        const anydnnConvolutionStruct *d;
        ANYDNN_TRY(ops::conv_desc_arg(convDesc, &d));
        if (d->spatial != 2)
            return fail(ANYDNN_STATUS_BAD_PARAM, "convDesc has %d spatial dimensions, not 2", d->spatial);
        if (pad_h != nullptr) *pad_h = d->pad[0];
        if (pad_w != nullptr) *pad_w = d->pad[1];
        if (u != nullptr) *u = d->stride[0];
        if (v != nullptr) *v = d->stride[1];
        if (dilation_h != nullptr) *dilation_h = d->dilation[0];
        if (dilation_w != nullptr) *dilation_w = d->dilation[1];
        if (mode != nullptr) *mode = d->mode;
        if (computeType != nullptr) *computeType = d->compute;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetConvolutionNdDescriptor(anydnnConvolutionDescriptor_t convDesc, int arrayLength,
                                                const int padA[], const int filterStrideA[], const int dilationA[],
                                                anydnnConvolutionMode_t mode, anydnnDataType_t computeType) {
    return api_call("anydnnSetConvolutionNdDescriptor", nullptr, [&] {
        return set_conv(convDesc, arrayLength, padA, filterStrideA, dilationA, mode, computeType);
    });
}

anydnnStatus_t anydnnGetConvolutionNdDescriptor(const anydnnConvolutionDescriptor_t convDesc,
                                                int arrayLengthRequested, int *arrayLength, int padA[],
                                                int strideA[], int dilationA[], anydnnConvolutionMode_t *mode,
                                                anydnnDataType_t *computeType) {
    return api_call("anydnnGetConvolutionNdDescriptor", nullptr, [&] {
        const anydnnConvolutionStruct *d;
        ANYDNN_TRY(ops::conv_desc_arg(convDesc, &d));
        if (arrayLengthRequested < 0)
            return fail(ANYDNN_STATUS_BAD_PARAM, "arrayLengthRequested is %d (< 0)", arrayLengthRequested);
        const int n = arrayLengthRequested < d->spatial ? arrayLengthRequested : d->spatial;
        if (n > 0 && (padA == nullptr || strideA == nullptr || dilationA == nullptr))
            return fail(ANYDNN_STATUS_BAD_PARAM, "padA, strideA and dilationA may not be NULL");
        for (int i = 0; i < n; ++i) {
            padA[i] = d->pad[i];
            strideA[i] = d->stride[i];
            dilationA[i] = d->dilation[i];
        }
        if (arrayLength != nullptr) *arrayLength = d->spatial;
        if (mode != nullptr) *mode = d->mode;
        if (computeType != nullptr) *computeType = d->compute;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetConvolutionGroupCount(anydnnConvolutionDescriptor_t convDesc, int groupCount) {
    return api_call("anydnnSetConvolutionGroupCount", nullptr, [&] {
        ANYDNN_TRY(desc_ptr(convDesc));
        if (groupCount < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "groupCount is %d (< 1)", groupCount);
        convDesc->groups = groupCount;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetConvolutionGroupCount(anydnnConvolutionDescriptor_t convDesc, int *groupCount) {
    return api_call("anydnnGetConvolutionGroupCount", nullptr, [&] {
        ANYDNN_TRY(desc_ptr(convDesc));
        if (groupCount == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "groupCount is NULL");
        *groupCount = convDesc->groups;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetConvolutionMathType(anydnnConvolutionDescriptor_t convDesc, anydnnMathType_t mathType) {
    return api_call("anydnnSetConvolutionMathType", nullptr, [&] {
        ANYDNN_TRY(desc_ptr(convDesc));
        if (mathType < ANYDNN_DEFAULT_MATH || mathType > ANYDNN_FMA_MATH)
            return fail(ANYDNN_STATUS_BAD_PARAM, "mathType %d is not an anydnnMathType_t", mathType);
        convDesc->math = mathType;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetConvolutionMathType(anydnnConvolutionDescriptor_t convDesc, anydnnMathType_t *mathType) {
    return api_call("anydnnGetConvolutionMathType", nullptr, [&] {
        ANYDNN_TRY(desc_ptr(convDesc));
        if (mathType == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "mathType is NULL");
        *mathType = convDesc->math;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetConvolutionReorderType(anydnnConvolutionDescriptor_t convDesc,
                                               anydnnReorderType_t reorderType) {
    return api_call("anydnnSetConvolutionReorderType", nullptr, [&] {
        ANYDNN_TRY(desc_ptr(convDesc));
        if (reorderType != ANYDNN_DEFAULT_REORDER && reorderType != ANYDNN_NO_REORDER)
            return fail(ANYDNN_STATUS_BAD_PARAM, "reorderType %d is not an anydnnReorderType_t", reorderType);
        convDesc->reorder = reorderType;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetConvolutionReorderType(anydnnConvolutionDescriptor_t convDesc,
                                               anydnnReorderType_t *reorderType) {
    return api_call("anydnnGetConvolutionReorderType", nullptr, [&] {
        ANYDNN_TRY(desc_ptr(convDesc));
        if (reorderType == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "reorderType is NULL");
        *reorderType = convDesc->reorder;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetConvolution2dForwardOutputDim(const anydnnConvolutionDescriptor_t convDesc,
                                                      const anydnnTensorDescriptor_t inputTensorDesc,
                                                      const anydnnFilterDescriptor_t filterDesc, int *n, int *c,
                                                      int *h, int *w) {
    return api_call("anydnnGetConvolution2dForwardOutputDim", nullptr, [&] {
        const anydnnConvolutionStruct *d;
        const TensorLayout *xl, *wl;
        ANYDNN_TRY(ops::conv_desc_arg(convDesc, &d));
        ANYDNN_TRY(tensor_arg(inputTensorDesc, "inputTensorDesc", &xl));
        ANYDNN_TRY(filter_arg(filterDesc, "filterDesc", &wl));
        if (d->spatial != 2)
            return fail(ANYDNN_STATUS_BAD_PARAM, "convDesc has %d spatial dimensions, not 2", d->spatial);
        if (n == nullptr || c == nullptr || h == nullptr || w == nullptr)
            return fail(ANYDNN_STATUS_BAD_PARAM, "n, c, h and w may not be NULL");
        int64_t dims[kMaxDims];
        ANYDNN_TRY(ops::conv_forward_output_dims(*d, *xl, *wl, dims));
        *n = static_cast<int>(dims[0]);
        *c = static_cast<int>(dims[1]);
        *h = static_cast<int>(dims[2]);
        *w = static_cast<int>(dims[3]);
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetConvolutionNdForwardOutputDim(const anydnnConvolutionDescriptor_t convDesc,
                                                      const anydnnTensorDescriptor_t inputTensorDesc,
                                                      const anydnnFilterDescriptor_t filterDesc, int nbDims,
                                                      int tensorOuputDimA[]) {
    return api_call("anydnnGetConvolutionNdForwardOutputDim", nullptr, [&] {
        const anydnnConvolutionStruct *d;
        const TensorLayout *xl, *wl;
        ANYDNN_TRY(ops::conv_desc_arg(convDesc, &d));
        ANYDNN_TRY(tensor_arg(inputTensorDesc, "inputTensorDesc", &xl));
        ANYDNN_TRY(filter_arg(filterDesc, "filterDesc", &wl));
        if (nbDims != xl->nd)
            return fail(ANYDNN_STATUS_BAD_PARAM, "nbDims is %d, inputTensorDesc has %d dimensions", nbDims, xl->nd);
        if (tensorOuputDimA == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "tensorOuputDimA is NULL");
        int64_t dims[kMaxDims];
        ANYDNN_TRY(ops::conv_forward_output_dims(*d, *xl, *wl, dims));
        for (int i = 0; i < nbDims; ++i) tensorOuputDimA[i] = static_cast<int>(dims[i]);
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetConvolutionForwardAlgorithmMaxCount(anydnnHandle_t handle, int *count) {
    return api_call("anydnnGetConvolutionForwardAlgorithmMaxCount", handle, [&] {
        const Handle *h;
        ANYDNN_TRY(handle_arg(handle, &h));
        if (count == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "count is NULL");
        *count = ANYDNN_CONVOLUTION_FWD_ALGO_COUNT;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetConvolutionForwardAlgorithm_v7(anydnnHandle_t handle, const anydnnTensorDescriptor_t srcDesc,
                                                       const anydnnFilterDescriptor_t filterDesc,
                                                       const anydnnConvolutionDescriptor_t convDesc,
                                                       const anydnnTensorDescriptor_t destDesc,
                                                       const int requestedAlgoCount, int *returnedAlgoCount,
                                                       anydnnConvolutionFwdAlgoPerf_t *perfResults) {
    return api_call("anydnnGetConvolutionForwardAlgorithm_v7", handle, [&] {
        ConvCall c;
        ANYDNN_TRY(conv_call(handle, srcDesc, filterDesc, convDesc, destDesc, &c));
        ANYDNN_TRY(perf_results_arg(requestedAlgoCount, returnedAlgoCount, perfResults));
        cpu::ConvAlgoChoice all[ANYDNN_CONVOLUTION_FWD_ALGO_COUNT];
        cpu::rank_conv_forward_algos(*c.h, c.p, c.d->math, all);
        copy_results(all, ANYDNN_CONVOLUTION_FWD_ALGO_COUNT, requestedAlgoCount, returnedAlgoCount, perfResults);
        return kSuccess;
    });
}

anydnnStatus_t anydnnFindConvolutionForwardAlgorithm(anydnnHandle_t handle, const anydnnTensorDescriptor_t xDesc,
                                                     const anydnnFilterDescriptor_t wDesc,
                                                     const anydnnConvolutionDescriptor_t convDesc,
                                                     const anydnnTensorDescriptor_t yDesc,
                                                     const int requestedAlgoCount, int *returnedAlgoCount,
                                                     anydnnConvolutionFwdAlgoPerf_t *perfResults) {
    return api_call("anydnnFindConvolutionForwardAlgorithm", handle, [&] {
        ConvCall c;
        ANYDNN_TRY(conv_call(handle, xDesc, wDesc, convDesc, yDesc, &c));
        ANYDNN_TRY(perf_results_arg(requestedAlgoCount, returnedAlgoCount, perfResults));
        // Buffers of our own, and the workspace of the most demanding algorithm.
        cpu::ConvAlgoChoice all[ANYDNN_CONVOLUTION_FWD_ALGO_COUNT];
        cpu::rank_conv_forward_algos(*c.h, c.p, c.d->math, all);
        std::size_t ws_bytes = 0;
        for (const auto &a : all)
            if (a.perf.status == kSuccess && a.perf.memory > ws_bytes) ws_bytes = a.perf.memory;
        const Buffer x(c.x->bytes()), w(c.w->bytes()), y(c.y->bytes()), ws(ws_bytes);
        const cpu::ConvOperands o{x.get(), w.get(), nullptr, nullptr, y.get()};
        cpu::find_conv_forward_algos(*c.h, c.p, c.d->math, o, ws.get(), ws_bytes, all);
        copy_results(all, ANYDNN_CONVOLUTION_FWD_ALGO_COUNT, requestedAlgoCount, returnedAlgoCount, perfResults);
        return kSuccess;
    });
}

anydnnStatus_t anydnnFindConvolutionForwardAlgorithmEx(
    anydnnHandle_t handle, const anydnnTensorDescriptor_t xDesc, const void *x, const anydnnFilterDescriptor_t wDesc,
    const void *w, const anydnnConvolutionDescriptor_t convDesc, const anydnnTensorDescriptor_t yDesc, void *y,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionFwdAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes) {
    return api_call("anydnnFindConvolutionForwardAlgorithmEx", handle, [&] {
        ConvCall c;
        ANYDNN_TRY(conv_call(handle, xDesc, wDesc, convDesc, yDesc, &c));
        ANYDNN_TRY(operands(c, x, w, y));
        ANYDNN_TRY(perf_results_arg(requestedAlgoCount, returnedAlgoCount, perfResults));
        if (workSpace == nullptr && workSpaceSizeInBytes > 0)
            return fail(ANYDNN_STATUS_BAD_PARAM, "workSpace is NULL with workSpaceSizeInBytes %zu",
                        workSpaceSizeInBytes);
        cpu::ConvAlgoChoice all[ANYDNN_CONVOLUTION_FWD_ALGO_COUNT];
        const cpu::ConvOperands o{x, w, nullptr, nullptr, y};
        cpu::find_conv_forward_algos(*c.h, c.p, c.d->math, o, workSpace, workSpaceSizeInBytes, all);
        copy_results(all, ANYDNN_CONVOLUTION_FWD_ALGO_COUNT, requestedAlgoCount, returnedAlgoCount, perfResults);
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetConvolutionForwardWorkspaceSize(anydnnHandle_t handle, const anydnnTensorDescriptor_t xDesc,
                                                        const anydnnFilterDescriptor_t wDesc,
                                                        const anydnnConvolutionDescriptor_t convDesc,
                                                        const anydnnTensorDescriptor_t yDesc,
                                                        anydnnConvolutionFwdAlgo_t algo, size_t *sizeInBytes) {
    return api_call("anydnnGetConvolutionForwardWorkspaceSize", handle, [&] {
        ConvCall c;
        ANYDNN_TRY(conv_call(handle, xDesc, wDesc, convDesc, yDesc, &c));
        if (sizeInBytes == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "sizeInBytes is NULL");
        return cpu::conv_forward_workspace(*c.h, c.p, algo, sizeInBytes);
    });
}

anydnnStatus_t anydnnConvolutionForward(anydnnHandle_t handle, const void *alpha,
                                        const anydnnTensorDescriptor_t xDesc, const void *x,
                                        const anydnnFilterDescriptor_t wDesc, const void *w,
                                        const anydnnConvolutionDescriptor_t convDesc,
                                        anydnnConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes,
                                        const void *beta, const anydnnTensorDescriptor_t yDesc, void *y) {
    return api_call("anydnnConvolutionForward", handle, [&] {
        ConvCall c;
        ANYDNN_TRY(conv_call(handle, xDesc, wDesc, convDesc, yDesc, &c));
        ANYDNN_TRY(operands(c, x, w, y));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", c.y->dt, &c.p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", c.y->dt, &c.p.beta));
        ANYDNN_TRY(workspace_arg(c, algo, workSpace, workSpaceSizeInBytes));
        cpu::execute_conv_forward(*c.h, c.p, algo, cpu::ConvOperands{x, w, nullptr, nullptr, y}, workSpace);
        return kSuccess;
    });
}

anydnnStatus_t anydnnConvolutionBiasActivationForward(
    anydnnHandle_t handle, const void *alpha1, const anydnnTensorDescriptor_t xDesc, const void *x,
    const anydnnFilterDescriptor_t wDesc, const void *w, const anydnnConvolutionDescriptor_t convDesc,
    anydnnConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *alpha2,
    const anydnnTensorDescriptor_t zDesc, const void *z, const anydnnTensorDescriptor_t biasDesc, const void *bias,
    const anydnnActivationDescriptor_t activationDesc, const anydnnTensorDescriptor_t yDesc, void *y) {
    return api_call("anydnnConvolutionBiasActivationForward", handle, [&] {
        ConvCall c;
        const TensorLayout *zl, *bl;
        ops::Activation act;
        ANYDNN_TRY(conv_call(handle, xDesc, wDesc, convDesc, yDesc, &c));
        ANYDNN_TRY(tensor_arg(zDesc, "zDesc", &zl));
        ANYDNN_TRY(tensor_arg(biasDesc, "biasDesc", &bl));
        ANYDNN_TRY(ops::activation_desc_arg(activationDesc, &act));
        double a1 = 1, a2 = 0;
        ANYDNN_TRY(ops::scalar_arg(alpha1, "alpha1", c.y->dt, &a1));
        ANYDNN_TRY(ops::scalar_arg(alpha2, "alpha2", c.y->dt, &a2));
        ANYDNN_TRY(ops::add_conv_fusion(*zl, z, *bl, act, a2, *c.y, y, &c.p));
        c.p.alpha = a1;
        ANYDNN_TRY(operands(c, x, w, y));
        ANYDNN_TRY(ops::pointer_arg(bias, "bias"));
        ANYDNN_TRY(ops::check_no_overlap(y, *c.y, "y", bias, *bl, "bias"));
        if (c.p.has_z) {
            ANYDNN_TRY(ops::pointer_arg(z, "z"));
            // z may be y itself (same descriptor), else apart from it.
            if (z == y) ANYDNN_TRY(ops::check_in_place(y, *c.y, "y", z, *zl, "z"));
            else ANYDNN_TRY(ops::check_no_overlap(y, *c.y, "y", z, *zl, "z"));
        }
        ANYDNN_TRY(workspace_arg(c, algo, workSpace, workSpaceSizeInBytes));
        cpu::execute_conv_forward(*c.h, c.p, algo, cpu::ConvOperands{x, w, c.p.has_z ? z : nullptr, bias, y},
                                  workSpace);
        return kSuccess;
    });
}

}  // extern "C"
