// C entry points of backward convolution (anydnn_cnn.h): data, filter and
// bias, their workspace queries, algorithm ranking and Find.
#include "anydnn/anydnn_cnn.h"
#include "api/api_call.hpp"
#include "api/conv_api_util.hpp"
#include "core/handle.hpp"
#include "cpu/conv_bwd_exec.hpp"
#include "cpu/reduce_exec.hpp"
#include "ops/conv_desc.hpp"
#include "ops/conv_problem.hpp"
#include "ops/reduce_desc.hpp"
#include "ops/reduce_problem.hpp"
#include "ops/scalars.hpp"

using namespace anydnn;

namespace {

// The validated problem of a backward call: x is dx (data) or x (filter),
// w is w or dw, y is dy.
struct BwdCall {
    const Handle *h;
    const anydnnConvolutionStruct *d;
    const TensorLayout *x, *w, *y;
    ops::ConvBackwardProblem p;
};

Status bwd_call(anydnnHandle_t handle, anydnnTensorDescriptor_t xDesc, const char *x_name,
                anydnnFilterDescriptor_t wDesc, const char *w_name, anydnnTensorDescriptor_t dyDesc,
                anydnnConvolutionDescriptor_t convDesc, BwdCall *c) {
    ANYDNN_TRY(handle_arg(handle, &c->h));
    ANYDNN_TRY(ops::conv_desc_arg(convDesc, &c->d));
    ANYDNN_TRY(tensor_arg(xDesc, x_name, &c->x));
    ANYDNN_TRY(filter_arg(wDesc, w_name, &c->w));
    ANYDNN_TRY(tensor_arg(dyDesc, "dyDesc", &c->y));
    return ops::make_conv_backward_problem(*c->d, *c->x, *c->w, *c->y, &c->p);
}

// Backward data: dx is written; w and dy are read and may not overlap it.
Status data_call(anydnnHandle_t handle, anydnnFilterDescriptor_t wDesc, anydnnTensorDescriptor_t dyDesc,
                 anydnnConvolutionDescriptor_t convDesc, anydnnTensorDescriptor_t dxDesc, BwdCall *c) {
    return bwd_call(handle, dxDesc, "dxDesc", wDesc, "wDesc", dyDesc, convDesc, c);
}

Status data_operands(const BwdCall &c, const void *w, const void *dy, void *dx) {
    ANYDNN_TRY(ops::pointer_arg(w, "w"));
    ANYDNN_TRY(ops::pointer_arg(dy, "dy"));
    ANYDNN_TRY(ops::pointer_arg(dx, "dx"));
    ANYDNN_TRY(ops::check_no_overlap(dx, *c.x, "dx", w, *c.w, "w"));
    return ops::check_no_overlap(dx, *c.x, "dx", dy, *c.y, "dy");
}

// Backward filter: dw is written; x and dy are read.
Status filter_call(anydnnHandle_t handle, anydnnTensorDescriptor_t xDesc, anydnnTensorDescriptor_t dyDesc,
                   anydnnConvolutionDescriptor_t convDesc, anydnnFilterDescriptor_t dwDesc, BwdCall *c) {
    return bwd_call(handle, xDesc, "xDesc", dwDesc, "dwDesc", dyDesc, convDesc, c);
}

Status filter_operands(const BwdCall &c, const void *x, const void *dy, void *dw) {
    ANYDNN_TRY(ops::pointer_arg(x, "x"));
    ANYDNN_TRY(ops::pointer_arg(dy, "dy"));
    ANYDNN_TRY(ops::pointer_arg(dw, "dw"));
    ANYDNN_TRY(ops::check_no_overlap(dw, *c.w, "dw", x, *c.x, "x"));
    return ops::check_no_overlap(dw, *c.w, "dw", dy, *c.y, "dy");
}

// The largest workspace among the supported ranked choices.
template <class Choice>
std::size_t largest_workspace(const Choice *all, int count) {
    std::size_t bytes = 0;
    for (int i = 0; i < count; ++i)
        if (all[i].perf.status == kSuccess && all[i].perf.memory > bytes) bytes = all[i].perf.memory;
    return bytes;
}

Status max_count(anydnnHandle_t handle, int *count, int value) {
    const Handle *h;
    ANYDNN_TRY(handle_arg(handle, &h));
    if (count == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "count is NULL");
    *count = value;
    return kSuccess;
}

}  // namespace

extern "C" {

// ---- Backward data ----------------------------------------------------------------------

anydnnStatus_t anydnnGetConvolutionBackwardDataAlgorithmMaxCount(anydnnHandle_t handle, int *count) {
    return api_call("anydnnGetConvolutionBackwardDataAlgorithmMaxCount", handle,
                    [&] { return max_count(handle, count, ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT); });
}

anydnnStatus_t anydnnGetConvolutionBackwardDataAlgorithm_v7(
    anydnnHandle_t handle, const anydnnFilterDescriptor_t filterDesc, const anydnnTensorDescriptor_t diffDesc,
    const anydnnConvolutionDescriptor_t convDesc, const anydnnTensorDescriptor_t gradDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionBwdDataAlgoPerf_t *perfResults) {
    return api_call("anydnnGetConvolutionBackwardDataAlgorithm_v7", handle, [&] {
        BwdCall c;
        ANYDNN_TRY(data_call(handle, filterDesc, diffDesc, convDesc, gradDesc, &c));
        ANYDNN_TRY(perf_results_arg(requestedAlgoCount, returnedAlgoCount, perfResults));
        cpu::ConvBwdDataAlgoChoice all[ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        cpu::rank_conv_bwd_data_algos(*c.h, c.p, c.d->math, all);
        copy_results(all, ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, requestedAlgoCount, returnedAlgoCount, perfResults);
        return kSuccess;
    });
}

anydnnStatus_t anydnnFindConvolutionBackwardDataAlgorithm(
    anydnnHandle_t handle, const anydnnFilterDescriptor_t wDesc, const anydnnTensorDescriptor_t dyDesc,
    const anydnnConvolutionDescriptor_t convDesc, const anydnnTensorDescriptor_t dxDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionBwdDataAlgoPerf_t *perfResults) {
    return api_call("anydnnFindConvolutionBackwardDataAlgorithm", handle, [&] {
        BwdCall c;
        ANYDNN_TRY(data_call(handle, wDesc, dyDesc, convDesc, dxDesc, &c));
        ANYDNN_TRY(perf_results_arg(requestedAlgoCount, returnedAlgoCount, perfResults));
        constexpr int kCount = ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
        cpu::ConvBwdDataAlgoChoice all[kCount];
        cpu::rank_conv_bwd_data_algos(*c.h, c.p, c.d->math, all);
        const std::size_t ws_bytes = largest_workspace(all, kCount);
        const Buffer w(c.w->bytes()), dy(c.y->bytes()), dx(c.x->bytes()), ws(ws_bytes);
        cpu::find_conv_bwd_data_algos(*c.h, c.p, c.d->math, cpu::ConvBwdDataOperands{w.get(), dy.get(), dx.get()},
                                      ws.get(), ws_bytes, all);
        copy_results(all, kCount, requestedAlgoCount, returnedAlgoCount, perfResults);
        return kSuccess;
    });
}

anydnnStatus_t anydnnFindConvolutionBackwardDataAlgorithmEx(
    anydnnHandle_t handle, const anydnnFilterDescriptor_t wDesc, const void *w, const anydnnTensorDescriptor_t dyDesc,
    const void *dy, const anydnnConvolutionDescriptor_t convDesc, const anydnnTensorDescriptor_t dxDesc, void *dx,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionBwdDataAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes) {
    return api_call("anydnnFindConvolutionBackwardDataAlgorithmEx", handle, [&] {
        BwdCall c;
        ANYDNN_TRY(data_call(handle, wDesc, dyDesc, convDesc, dxDesc, &c));
        ANYDNN_TRY(data_operands(c, w, dy, dx));
        ANYDNN_TRY(perf_results_arg(requestedAlgoCount, returnedAlgoCount, perfResults));
        ANYDNN_TRY(workspace_fits(0, workSpace, workSpaceSizeInBytes));
        cpu::ConvBwdDataAlgoChoice all[ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
        cpu::find_conv_bwd_data_algos(*c.h, c.p, c.d->math, cpu::ConvBwdDataOperands{w, dy, dx}, workSpace,
                                      workSpaceSizeInBytes, all);
        copy_results(all, ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT, requestedAlgoCount, returnedAlgoCount, perfResults);
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetConvolutionBackwardDataWorkspaceSize(anydnnHandle_t handle,
                                                             const anydnnFilterDescriptor_t wDesc,
                                                             const anydnnTensorDescriptor_t dyDesc,
                                                             const anydnnConvolutionDescriptor_t convDesc,
                                                             const anydnnTensorDescriptor_t dxDesc,
                                                             anydnnConvolutionBwdDataAlgo_t algo, size_t *sizeInBytes) {
    return api_call("anydnnGetConvolutionBackwardDataWorkspaceSize", handle, [&] {
        BwdCall c;
        ANYDNN_TRY(data_call(handle, wDesc, dyDesc, convDesc, dxDesc, &c));
        if (sizeInBytes == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "sizeInBytes is NULL");
        return cpu::conv_bwd_data_workspace(*c.h, c.p, algo, sizeInBytes);
    });
}

anydnnStatus_t anydnnConvolutionBackwardData(anydnnHandle_t handle, const void *alpha,
                                             const anydnnFilterDescriptor_t wDesc, const void *w,
                                             const anydnnTensorDescriptor_t dyDesc, const void *dy,
                                             const anydnnConvolutionDescriptor_t convDesc,
                                             anydnnConvolutionBwdDataAlgo_t algo, void *workSpace,
                                             size_t workSpaceSizeInBytes, const void *beta,
                                             const anydnnTensorDescriptor_t dxDesc, void *dx) {
    return api_call("anydnnConvolutionBackwardData", handle, [&] {
        BwdCall c;
        ANYDNN_TRY(data_call(handle, wDesc, dyDesc, convDesc, dxDesc, &c));
        ANYDNN_TRY(data_operands(c, w, dy, dx));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", c.x->dt, &c.p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", c.x->dt, &c.p.beta));
        std::size_t need = 0;
        ANYDNN_TRY(cpu::conv_bwd_data_workspace(*c.h, c.p, algo, &need));
        ANYDNN_TRY(workspace_fits(need, workSpace, workSpaceSizeInBytes));
        cpu::execute_conv_bwd_data(*c.h, c.p, algo, cpu::ConvBwdDataOperands{w, dy, dx}, workSpace);
        return kSuccess;
    });
}

// ---- Backward filter --------------------------------------------------------------------

anydnnStatus_t anydnnGetConvolutionBackwardFilterAlgorithmMaxCount(anydnnHandle_t handle, int *count) {
    return api_call("anydnnGetConvolutionBackwardFilterAlgorithmMaxCount", handle,
                    [&] { return max_count(handle, count, ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT); });
}

anydnnStatus_t anydnnGetConvolutionBackwardFilterAlgorithm_v7(
    anydnnHandle_t handle, const anydnnTensorDescriptor_t srcDesc, const anydnnTensorDescriptor_t diffDesc,
    const anydnnConvolutionDescriptor_t convDesc, const anydnnFilterDescriptor_t gradDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionBwdFilterAlgoPerf_t *perfResults) {
    return api_call("anydnnGetConvolutionBackwardFilterAlgorithm_v7", handle, [&] {
        BwdCall c;
        ANYDNN_TRY(filter_call(handle, srcDesc, diffDesc, convDesc, gradDesc, &c));
        ANYDNN_TRY(perf_results_arg(requestedAlgoCount, returnedAlgoCount, perfResults));
        cpu::ConvBwdFilterAlgoChoice all[ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        cpu::rank_conv_bwd_filter_algos(*c.h, c.p, c.d->math, all);
        copy_results(all, ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, requestedAlgoCount, returnedAlgoCount,
                     perfResults);
        return kSuccess;
    });
}

anydnnStatus_t anydnnFindConvolutionBackwardFilterAlgorithm(
    anydnnHandle_t handle, const anydnnTensorDescriptor_t xDesc, const anydnnTensorDescriptor_t dyDesc,
    const anydnnConvolutionDescriptor_t convDesc, const anydnnFilterDescriptor_t dwDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionBwdFilterAlgoPerf_t *perfResults) {
    return api_call("anydnnFindConvolutionBackwardFilterAlgorithm", handle, [&] {
        BwdCall c;
        ANYDNN_TRY(filter_call(handle, xDesc, dyDesc, convDesc, dwDesc, &c));
        ANYDNN_TRY(perf_results_arg(requestedAlgoCount, returnedAlgoCount, perfResults));
        constexpr int kCount = ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
        cpu::ConvBwdFilterAlgoChoice all[kCount];
        cpu::rank_conv_bwd_filter_algos(*c.h, c.p, c.d->math, all);
        const std::size_t ws_bytes = largest_workspace(all, kCount);
        const Buffer x(c.x->bytes()), dy(c.y->bytes()), dw(c.w->bytes()), ws(ws_bytes);
        cpu::find_conv_bwd_filter_algos(*c.h, c.p, c.d->math,
                                        cpu::ConvBwdFilterOperands{x.get(), dy.get(), dw.get()}, ws.get(), ws_bytes,
                                        all);
        copy_results(all, kCount, requestedAlgoCount, returnedAlgoCount, perfResults);
        return kSuccess;
    });
}

anydnnStatus_t anydnnFindConvolutionBackwardFilterAlgorithmEx(
    anydnnHandle_t handle, const anydnnTensorDescriptor_t xDesc, const void *x, const anydnnTensorDescriptor_t dyDesc,
    const void *y, const anydnnConvolutionDescriptor_t convDesc, const anydnnFilterDescriptor_t dwDesc, void *dw,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionBwdFilterAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes) {
    return api_call("anydnnFindConvolutionBackwardFilterAlgorithmEx", handle, [&] {
        BwdCall c;
        ANYDNN_TRY(filter_call(handle, xDesc, dyDesc, convDesc, dwDesc, &c));
        ANYDNN_TRY(filter_operands(c, x, y, dw));
        ANYDNN_TRY(perf_results_arg(requestedAlgoCount, returnedAlgoCount, perfResults));
        ANYDNN_TRY(workspace_fits(0, workSpace, workSpaceSizeInBytes));
        cpu::ConvBwdFilterAlgoChoice all[ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
        cpu::find_conv_bwd_filter_algos(*c.h, c.p, c.d->math, cpu::ConvBwdFilterOperands{x, y, dw}, workSpace,
                                        workSpaceSizeInBytes, all);
        copy_results(all, ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT, requestedAlgoCount, returnedAlgoCount,
                     perfResults);
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetConvolutionBackwardFilterWorkspaceSize(anydnnHandle_t handle,
                                                               const anydnnTensorDescriptor_t xDesc,
                                                               const anydnnTensorDescriptor_t dyDesc,
                                                               const anydnnConvolutionDescriptor_t convDesc,
                                                               const anydnnFilterDescriptor_t gradDesc,
                                                               anydnnConvolutionBwdFilterAlgo_t algo,
                                                               size_t *sizeInBytes) {
    return api_call("anydnnGetConvolutionBackwardFilterWorkspaceSize", handle, [&] {
        BwdCall c;
        ANYDNN_TRY(filter_call(handle, xDesc, dyDesc, convDesc, gradDesc, &c));
        if (sizeInBytes == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "sizeInBytes is NULL");
        return cpu::conv_bwd_filter_workspace(*c.h, c.p, algo, sizeInBytes);
    });
}

anydnnStatus_t anydnnConvolutionBackwardFilter(anydnnHandle_t handle, const void *alpha,
                                               const anydnnTensorDescriptor_t xDesc, const void *x,
                                               const anydnnTensorDescriptor_t dyDesc, const void *dy,
                                               const anydnnConvolutionDescriptor_t convDesc,
                                               anydnnConvolutionBwdFilterAlgo_t algo, void *workSpace,
                                               size_t workSpaceSizeInBytes, const void *beta,
                                               const anydnnFilterDescriptor_t dwDesc, void *dw) {
    return api_call("anydnnConvolutionBackwardFilter", handle, [&] {
        BwdCall c;
        ANYDNN_TRY(filter_call(handle, xDesc, dyDesc, convDesc, dwDesc, &c));
        ANYDNN_TRY(filter_operands(c, x, dy, dw));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", c.x->dt, &c.p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", c.x->dt, &c.p.beta));
        std::size_t need = 0;
        ANYDNN_TRY(cpu::conv_bwd_filter_workspace(*c.h, c.p, algo, &need));
        ANYDNN_TRY(workspace_fits(need, workSpace, workSpaceSizeInBytes));
        cpu::execute_conv_bwd_filter(*c.h, c.p, algo, cpu::ConvBwdFilterOperands{x, dy, dw}, workSpace);
        return kSuccess;
    });
}

// ---- Backward bias: a ReduceTensor ADD over all but the channels ------------------------

anydnnStatus_t anydnnConvolutionBackwardBias(anydnnHandle_t handle, const void *alpha,
                                             const anydnnTensorDescriptor_t dyDesc, const void *dy, const void *beta,
                                             const anydnnTensorDescriptor_t dbDesc, void *db) {
    return api_call("anydnnConvolutionBackwardBias", handle, [&] {
        const Handle *h;
        const TensorLayout *dyl, *dbl;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(tensor_arg(dyDesc, "dyDesc", &dyl));
        ANYDNN_TRY(tensor_arg(dbDesc, "dbDesc", &dbl));
        if (dbl->nd != dyl->nd)
            return fail(ANYDNN_STATUS_BAD_PARAM, "dbDesc has %d dimensions, dyDesc %d", dbl->nd, dyl->nd);
        for (int i = 0; i < dbl->nd; ++i) {
            const int64_t want = i == 1 ? dyl->dims[1] : 1;
            if (dbl->dims[i] != want)
                return fail(ANYDNN_STATUS_BAD_PARAM, "dbDesc must be 1 x K x 1 x ... (K = %lld); dimension %d is %lld",
                            static_cast<long long>(dyl->dims[1]), i, static_cast<long long>(dbl->dims[i]));
        }
        ANYDNN_TRY(ops::pointer_arg(dy, "dy"));
        ANYDNN_TRY(ops::pointer_arg(db, "db"));
        ANYDNN_TRY(ops::check_no_overlap(db, *dbl, "db", dy, *dyl, "dy"));
        anydnnReduceTensorStruct add;
        add.is_set = true;
        add.op = ANYDNN_REDUCE_TENSOR_ADD;
        add.comp_type = dyl->dt == ANYDNN_DATA_DOUBLE ? ANYDNN_DATA_DOUBLE : ANYDNN_DATA_FLOAT;
        ops::ReduceProblem p;
        ANYDNN_TRY(ops::make_reduce_problem(add, *dyl, *dbl, &p));
        ANYDNN_TRY(ops::scalar_arg(alpha, "alpha", dyl->dt, &p.alpha));
        ANYDNN_TRY(ops::scalar_arg(beta, "beta", dyl->dt, &p.beta));
        cpu::execute_reduce(*h, p, dy, db, nullptr);
        return kSuccess;
    });
}

}  // extern "C"
