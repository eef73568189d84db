// C entry points of batch normalization and the generic normalization API
// (anydnn_ops.h). Every call becomes one NormProblem (src/ops/
// normalization_problem.hpp) and one of three CPU passes.
#include "anydnn/anydnn_ops.h"
#include "api/api_call.hpp"
#include "core/handle.hpp"
#include "cpu/normalization_exec.hpp"
#include "ops/conv_problem.hpp"
#include "ops/in_place.hpp"
#include "ops/normalization_problem.hpp"
#include "ops/scalars.hpp"

using namespace anydnn;

namespace {

// An output's relation to an input it reads: the same buffer with the same
// descriptor (in place: each element is read before it is written), or no
// overlap at all.
Status in_place_or_apart(const void *out, const TensorLayout &ol, const char *oarg, const void *in,
                         const TensorLayout &il, const char *iarg) {
    if (out == in) return ops::check_in_place(out, ol, oarg, in, il, iarg);
    return ops::check_no_overlap(out, ol, oarg, in, il, iarg);
}

// BAD_PARAM unless a and b are both NULL or both set.
Status pair_arg(const void *a, const char *aname, const void *b, const char *bname) {
    if ((a == nullptr) != (b == nullptr))
        return fail(ANYDNN_STATUS_BAD_PARAM, "%s and %s must be both NULL or both set (%s is NULL)", aname, bname,
                    a == nullptr ? aname : bname);
    return kSuccess;
}

Status reserve_arg(const ops::NormSpec &spec, const TensorLayout &x, const void *reserve, size_t bytes) {
    const size_t need = ops::norm_reserve_bytes(spec, x);
    if (need == 0) return kSuccess;
    if (reserve == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "reserveSpace is NULL, %zu bytes needed", need);
    if (bytes < need)
        return fail(ANYDNN_STATUS_BAD_PARAM, "reserveSpaceSizeInBytes is %zu, %zu needed", bytes, need);
    return kSuccess;
}

// The problem of a call from its descriptors (the scale/bias and the
// mean/variance descriptors may be one).
Status problem_arg(const ops::NormSpec &spec, const anydnnTensorStruct *xDesc, const anydnnTensorStruct *paramDesc,
                   const anydnnTensorStruct *statDesc, ops::NormProblem *p) {
    const TensorLayout *xl, *pl, *sl;
    ANYDNN_TRY(tensor_arg(xDesc, "xDesc", &xl));
    ANYDNN_TRY(tensor_arg(paramDesc, "the scale/bias descriptor", &pl));
    ANYDNN_TRY(tensor_arg(statDesc, "the mean/variance descriptor", &sl));
    return ops::make_norm_problem(spec, *xl, pl, sl, p);
}

// A data tensor of the call, like x.
Status like_x_arg(const ops::NormProblem &p, const anydnnTensorStruct *desc, const char *arg, TensorLayout *out) {
    const TensorLayout *l;
    ANYDNN_TRY(tensor_arg(desc, arg, &l));
    ANYDNN_TRY(ops::check_like_x(p, *l, arg));
    *out = *l;
    return kSuccess;
}

struct ForwardCall {
    bool training;
    const void *alpha, *beta;
    const anydnnTensorStruct *xDesc, *zDesc, *yDesc, *paramDesc, *statDesc;
    cpu::NormBuffers b;
    double factor, epsilon;
    size_t reserve_bytes;
};

Status forward(anydnnHandle_t handle, const ops::NormSpec &spec, const ForwardCall &c) {
    const Handle *h;
    ops::NormProblem p;
    ANYDNN_TRY(handle_arg(handle, &h));
    ANYDNN_TRY(problem_arg(spec, c.xDesc, c.paramDesc, c.statDesc, &p));
    ANYDNN_TRY(like_x_arg(p, c.yDesc, "yDesc", &p.y));
    if (spec.add) {
        ANYDNN_TRY(like_x_arg(p, c.zDesc, "zDesc", &p.z));
        ANYDNN_TRY(ops::pointer_arg(c.b.z, "z"));
        p.has_z = true;
    }
    ANYDNN_TRY(ops::pointer_arg(c.b.x, "x"));
    ANYDNN_TRY(ops::pointer_arg(c.b.y, "y"));
    ANYDNN_TRY(ops::pointer_arg(c.b.scale, "scale"));
    ANYDNN_TRY(ops::pointer_arg(c.b.bias, "bias"));
    if (c.training) {
        ANYDNN_TRY(pair_arg(c.b.running_mean, "resultRunningMean", c.b.running_var, "resultRunningVariance"));
        ANYDNN_TRY(pair_arg(c.b.save_mean, "resultSaveMean", c.b.save_inv, "resultSaveInvVariance"));
        ANYDNN_TRY(reserve_arg(spec, p.x, c.b.reserve, c.reserve_bytes));
        if (!(c.factor >= 0 && c.factor <= 1))
            return fail(ANYDNN_STATUS_BAD_PARAM, "exponentialAverageFactor is %g, not in [0, 1]", c.factor);
    } else {
        ANYDNN_TRY(ops::pointer_arg(c.b.est_mean, "estimatedMean"));
        ANYDNN_TRY(ops::pointer_arg(c.b.est_var, "estimatedVariance"));
    }
    ANYDNN_TRY(ops::check_epsilon(c.epsilon));
    ANYDNN_TRY(in_place_or_apart(c.b.y, p.y, "y", c.b.x, p.x, "x"));
    if (p.has_z) ANYDNN_TRY(in_place_or_apart(c.b.y, p.y, "y", c.b.z, p.z, "z"));
    ANYDNN_TRY(ops::scalar_arg(c.alpha, "alpha", p.dt, &p.alpha));
    ANYDNN_TRY(ops::scalar_arg(c.beta, "beta", p.dt, &p.beta));
    p.epsilon = c.epsilon;
    p.factor = c.factor;
    if (c.training) cpu::execute_norm_training(*h, p, c.b);
    else cpu::execute_norm_inference(*h, p, c.b);
    return kSuccess;
}

struct BackwardCall {
    const void *alphaData, *betaData, *alphaParam, *betaParam;
    const anydnnTensorStruct *xDesc, *dyDesc, *dzDesc, *dxDesc, *paramDesc, *statDesc;
    cpu::NormBuffers b;
    double epsilon;
    size_t reserve_bytes;
};

Status backward(anydnnHandle_t handle, const ops::NormSpec &spec, const BackwardCall &c) {
    const Handle *h;
    ops::NormProblem p;
    ANYDNN_TRY(handle_arg(handle, &h));
    ANYDNN_TRY(problem_arg(spec, c.xDesc, c.paramDesc, c.statDesc, &p));
    ANYDNN_TRY(like_x_arg(p, c.dyDesc, "dyDesc", &p.dy));
    ANYDNN_TRY(like_x_arg(p, c.dxDesc, "dxDesc", &p.dx));
    if (spec.add) {
        ANYDNN_TRY(like_x_arg(p, c.dzDesc, "dzDesc", &p.dz));
        ANYDNN_TRY(ops::pointer_arg(c.b.dz, "dz"));
        p.has_dz = true;
    }
    ANYDNN_TRY(ops::pointer_arg(c.b.x, "x"));
    ANYDNN_TRY(ops::pointer_arg(c.b.dy, "dy"));
    ANYDNN_TRY(ops::pointer_arg(c.b.dx, "dx"));
    ANYDNN_TRY(ops::pointer_arg(c.b.scale, "scale"));
    ANYDNN_TRY(ops::pointer_arg(c.b.dscale, "the scale gradient"));
    ANYDNN_TRY(ops::pointer_arg(c.b.dbias, "the bias gradient"));
    ANYDNN_TRY(pair_arg(c.b.saved_mean, "savedMean", c.b.saved_inv, "savedInvVariance"));
    ANYDNN_TRY(reserve_arg(spec, p.x, c.b.reserve, c.reserve_bytes));
    ANYDNN_TRY(ops::check_epsilon(c.epsilon));
    // dx is written last, element by element after its x and dy are read;
    // dz is written by the first pass, while x and dy are still to be read.
    ANYDNN_TRY(in_place_or_apart(c.b.dx, p.dx, "dx", c.b.dy, p.dy, "dy"));
    ANYDNN_TRY(in_place_or_apart(c.b.dx, p.dx, "dx", c.b.x, p.x, "x"));
    if (p.has_dz) {
        ANYDNN_TRY(ops::check_no_overlap(c.b.dz, p.dz, "dz", c.b.x, p.x, "x"));
        ANYDNN_TRY(ops::check_no_overlap(c.b.dz, p.dz, "dz", c.b.dy, p.dy, "dy"));
        ANYDNN_TRY(ops::check_no_overlap(c.b.dz, p.dz, "dz", c.b.dx, p.dx, "dx"));
    }
    ANYDNN_TRY(ops::scalar_arg(c.alphaData, "alphaDataDiff", p.dt, &p.alpha));
    ANYDNN_TRY(ops::scalar_arg(c.betaData, "betaDataDiff", p.dt, &p.beta));
    ANYDNN_TRY(ops::scalar_arg(c.alphaParam, "alphaParamDiff", p.dt, &p.alpha_param));
    ANYDNN_TRY(ops::scalar_arg(c.betaParam, "betaParamDiff", p.dt, &p.beta_param));
    p.epsilon = c.epsilon;
    cpu::execute_norm_backward(*h, p, c.b);
    return kSuccess;
}

// The packed descriptor of one of the small tensors.
Status derive(const ops::NormSpec &spec, const anydnnTensorStruct *xDesc, bool param, anydnnTensorStruct *out,
              const char *out_arg) {
    const TensorLayout *xl;
    if (out == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "%s is NULL", out_arg);
    ANYDNN_TRY(tensor_arg(xDesc, "xDesc", &xl));
    int64_t dims[kMaxDims];
    ANYDNN_TRY(ops::norm_small_dims(spec, *xl, param, dims));
    int d[kMaxDims];
    for (int i = 0; i < xl->nd; ++i) d[i] = static_cast<int>(dims[i]);
    return set_tensor(out, ops::norm_param_type(xl->dt), xl->nd, d, nullptr, ANYDNN_TENSOR_NCHW);
}

Status size_out(size_t *sizeInBytes, size_t v) {
    if (sizeInBytes == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "sizeInBytes is NULL");
    *sizeInBytes = v;
    return kSuccess;
}

// The workspace query of a call: its arguments checked as the call would,
// then 0 (the CPU backend allocates its scratch).
Status workspace_query(anydnnHandle_t handle, const ops::NormSpec &spec, const anydnnTensorStruct *xDesc,
                       const anydnnTensorStruct *paramDesc, const anydnnTensorStruct *statDesc, size_t *sizeInBytes) {
    const Handle *h;
    ops::NormProblem p;
    ANYDNN_TRY(handle_arg(handle, &h));
    ANYDNN_TRY(problem_arg(spec, xDesc, paramDesc, statDesc, &p));
    return size_out(sizeInBytes, 0);
}

Status reserve_query(anydnnHandle_t handle, const ops::NormSpec &spec, const anydnnTensorStruct *xDesc,
                     size_t *sizeInBytes) {
    const Handle *h;
    const TensorLayout *xl;
    ANYDNN_TRY(handle_arg(handle, &h));
    ANYDNN_TRY(tensor_arg(xDesc, "xDesc", &xl));
    return size_out(sizeInBytes, ops::norm_reserve_bytes(spec, *xl));
}

ForwardCall bn_training_call(const void *alpha, const void *beta, const anydnnTensorStruct *xDesc, const void *x,
                             const anydnnTensorStruct *yDesc, void *y, const anydnnTensorStruct *desc,
                             const void *bnScale, const void *bnBias, double factor, void *runningMean,
                             void *runningVar, double epsilon, void *saveMean, void *saveInv) {
    ForwardCall c{};
    c.training = true;
    c.alpha = alpha;
    c.beta = beta;
    c.xDesc = xDesc;
    c.yDesc = yDesc;
    c.paramDesc = c.statDesc = desc;
    c.b.x = x;
    c.b.y = y;
    c.b.scale = bnScale;
    c.b.bias = bnBias;
    c.b.running_mean = runningMean;
    c.b.running_var = runningVar;
    c.b.save_mean = saveMean;
    c.b.save_inv = saveInv;
    c.factor = factor;
    c.epsilon = epsilon;
    return c;
}
BackwardCall bn_backward_call(const void *alphaDataDiff, const void *betaDataDiff, const void *alphaParamDiff,
                              const void *betaParamDiff, const anydnnTensorStruct *xDesc, const void *x,
                              const anydnnTensorStruct *dyDesc, const void *dy, const anydnnTensorStruct *dxDesc,
                              void *dx, const anydnnTensorStruct *desc, const void *bnScale, void *dScale,
                              void *dBias, double epsilon, const void *savedMean, const void *savedInv) {
    BackwardCall c{};
    c.alphaData = alphaDataDiff;
    c.betaData = betaDataDiff;
    c.alphaParam = alphaParamDiff;
    c.betaParam = betaParamDiff;
    c.xDesc = xDesc;
    c.dyDesc = dyDesc;
    c.dxDesc = dxDesc;
    c.paramDesc = c.statDesc = desc;
    c.b.x = x;
    c.b.dy = dy;
    c.b.dx = dx;
    c.b.scale = bnScale;
    c.b.dscale = dScale;
    c.b.dbias = dBias;
    c.b.saved_mean = savedMean;
    c.b.saved_inv = savedInv;
    c.epsilon = epsilon;
    return c;
}

}  // namespace

extern "C" {

// ---- Batch normalization ----------------------------------------------------

anydnnStatus_t anydnnDeriveBNTensorDescriptor(anydnnTensorDescriptor_t derivedBnDesc,
                                              const anydnnTensorDescriptor_t xDesc, anydnnBatchNormMode_t mode) {
    return api_call("anydnnDeriveBNTensorDescriptor", nullptr, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::bn_spec(mode, ANYDNN_BATCHNORM_OPS_BN, nullptr, &spec));
        return derive(spec, xDesc, true, derivedBnDesc, "derivedBnDesc");
    });
}

anydnnStatus_t anydnnBatchNormalizationForwardInference(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const anydnnTensorDescriptor_t xDesc, const void *x, const anydnnTensorDescriptor_t yDesc, void *y,
    const anydnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    const void *estimatedMean, const void *estimatedVariance, double epsilon) {
    return api_call("anydnnBatchNormalizationForwardInference", handle, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::bn_spec(mode, ANYDNN_BATCHNORM_OPS_BN, nullptr, &spec));
        ForwardCall c{};
        c.alpha = alpha;
        c.beta = beta;
        c.xDesc = xDesc;
        c.yDesc = yDesc;
        c.paramDesc = c.statDesc = bnScaleBiasMeanVarDesc;
        c.b.x = x;
        c.b.y = y;
        c.b.scale = bnScale;
        c.b.bias = bnBias;
        c.b.est_mean = estimatedMean;
        c.b.est_var = estimatedVariance;
        c.epsilon = epsilon;
        return forward(handle, spec, c);
    });
}

anydnnStatus_t anydnnBatchNormalizationForwardTraining(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const anydnnTensorDescriptor_t xDesc, const void *x, const anydnnTensorDescriptor_t yDesc, void *y,
    const anydnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    double exponentialAverageFactor, void *resultRunningMean, void *resultRunningVariance, double epsilon,
    void *resultSaveMean, void *resultSaveInvVariance) {
    return api_call("anydnnBatchNormalizationForwardTraining", handle, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::bn_spec(mode, ANYDNN_BATCHNORM_OPS_BN, nullptr, &spec));
        return forward(handle, spec,
                       bn_training_call(alpha, beta, xDesc, x, yDesc, y, bnScaleBiasMeanVarDesc, bnScale, bnBias,
                                        exponentialAverageFactor, resultRunningMean, resultRunningVariance, epsilon,
                                        resultSaveMean, resultSaveInvVariance));
    });
}

anydnnStatus_t anydnnBatchNormalizationForwardTrainingEx(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, anydnnBatchNormOps_t bnOps, const void *alpha,
    const void *beta, const anydnnTensorDescriptor_t xDesc, const void *xData, const anydnnTensorDescriptor_t zDesc,
    const void *zData, const anydnnTensorDescriptor_t yDesc, void *yData,
    const anydnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    double exponentialAverageFactor, void *resultRunningMean, void *resultRunningVariance, double epsilon,
    void *resultSaveMean, void *resultSaveInvVariance, anydnnActivationDescriptor_t activationDesc,
    void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes) {
    return api_call("anydnnBatchNormalizationForwardTrainingEx", handle, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::bn_spec(mode, bnOps, activationDesc, &spec));
        ForwardCall c = bn_training_call(alpha, beta, xDesc, xData, yDesc, yData, bnScaleBiasMeanVarDesc, bnScale,
                                         bnBias, exponentialAverageFactor, resultRunningMean,
                                         resultRunningVariance, epsilon, resultSaveMean, resultSaveInvVariance);
        c.zDesc = zDesc;
        c.b.z = zData;
        c.b.reserve = static_cast<unsigned char *>(reserveSpace);
        c.reserve_bytes = reserveSpaceSizeInBytes;
        return forward(handle, spec, c);
    });
}

anydnnStatus_t anydnnBatchNormalizationBackward(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, const void *alphaDataDiff, const void *betaDataDiff,
    const void *alphaParamDiff, const void *betaParamDiff, const anydnnTensorDescriptor_t xDesc, const void *x,
    const anydnnTensorDescriptor_t dyDesc, const void *dy, const anydnnTensorDescriptor_t dxDesc, void *dx,
    const anydnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScale, void *dBnScaleResult,
    void *dBnBiasResult, double epsilon, const void *savedMean, const void *savedInvVariance) {
    return api_call("anydnnBatchNormalizationBackward", handle, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::bn_spec(mode, ANYDNN_BATCHNORM_OPS_BN, nullptr, &spec));
        return backward(handle, spec,
                        bn_backward_call(alphaDataDiff, betaDataDiff, alphaParamDiff, betaParamDiff, xDesc, x,
                                         dyDesc, dy, dxDesc, dx, dBnScaleBiasDesc, bnScale, dBnScaleResult,
                                         dBnBiasResult, epsilon, savedMean, savedInvVariance));
    });
}

anydnnStatus_t anydnnBatchNormalizationBackwardEx(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, anydnnBatchNormOps_t bnOps, const void *alphaDataDiff,
    const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const anydnnTensorDescriptor_t xDesc, const void *xData, const anydnnTensorDescriptor_t yDesc,
    const void *yData, const anydnnTensorDescriptor_t dyDesc, const void *dyData,
    const anydnnTensorDescriptor_t dzDesc, void *dzData, const anydnnTensorDescriptor_t dxDesc, void *dxData,
    const anydnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScaleData, const void *bnBiasData,
    void *dBnScaleData, void *dBnBiasData, double epsilon, const void *savedMean, const void *savedInvVariance,
    anydnnActivationDescriptor_t activationDesc, void *workSpace, size_t workSpaceSizeInBytes,
    void *reserveSpace, size_t reserveSpaceSizeInBytes) {
    return api_call("anydnnBatchNormalizationBackwardEx", handle, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::bn_spec(mode, bnOps, activationDesc, &spec));
        BackwardCall c = bn_backward_call(alphaDataDiff, betaDataDiff, alphaParamDiff, betaParamDiff, xDesc, xData,
                                          dyDesc, dyData, dxDesc, dxData, dBnScaleBiasDesc, bnScaleData,
                                          dBnScaleData, dBnBiasData, epsilon, savedMean, savedInvVariance);
        c.dzDesc = dzDesc;
        c.b.dz = dzData;
        c.b.reserve = static_cast<unsigned char *>(reserveSpace);
        c.reserve_bytes = reserveSpaceSizeInBytes;
        return backward(handle, spec, c);
    });
}

anydnnStatus_t anydnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, anydnnBatchNormOps_t bnOps,
    const anydnnTensorDescriptor_t xDesc, const anydnnTensorDescriptor_t zDesc,
    const anydnnTensorDescriptor_t yDesc, const anydnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const anydnnActivationDescriptor_t activationDesc, size_t *sizeInBytes) {
    return api_call("anydnnGetBatchNormalizationForwardTrainingExWorkspaceSize", handle, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::bn_spec(mode, bnOps, activationDesc, &spec));
        return workspace_query(handle, spec, xDesc, bnScaleBiasMeanVarDesc, bnScaleBiasMeanVarDesc, sizeInBytes);
    });
}

anydnnStatus_t anydnnGetBatchNormalizationBackwardExWorkspaceSize(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, anydnnBatchNormOps_t bnOps,
    const anydnnTensorDescriptor_t xDesc, const anydnnTensorDescriptor_t yDesc,
    const anydnnTensorDescriptor_t dyDesc, const anydnnTensorDescriptor_t dzDesc,
    const anydnnTensorDescriptor_t dxDesc, const anydnnTensorDescriptor_t dBnScaleBiasDesc,
    const anydnnActivationDescriptor_t activationDesc, size_t *sizeInBytes) {
    return api_call("anydnnGetBatchNormalizationBackwardExWorkspaceSize", handle, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::bn_spec(mode, bnOps, activationDesc, &spec));
        return workspace_query(handle, spec, xDesc, dBnScaleBiasDesc, dBnScaleBiasDesc, sizeInBytes);
    });
}

anydnnStatus_t anydnnGetBatchNormalizationTrainingExReserveSpaceSize(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, anydnnBatchNormOps_t bnOps,
    const anydnnActivationDescriptor_t activationDesc, const anydnnTensorDescriptor_t xDesc,
    size_t *sizeInBytes) {
    return api_call("anydnnGetBatchNormalizationTrainingExReserveSpaceSize", handle, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::bn_spec(mode, bnOps, activationDesc, &spec));
        return reserve_query(handle, spec, xDesc, sizeInBytes);
    });
}

// ---- Normalization ------------------------------------------------------------

anydnnStatus_t anydnnDeriveNormTensorDescriptor(anydnnTensorDescriptor_t derivedNormScaleBiasDesc,
                                                anydnnTensorDescriptor_t derivedNormMeanVarDesc,
                                                const anydnnTensorDescriptor_t xDesc, anydnnNormMode_t mode,
                                                int groupCnt) {
    return api_call("anydnnDeriveNormTensorDescriptor", nullptr, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::norm_spec(mode, ANYDNN_NORM_OPS_NORM, ANYDNN_NORM_ALGO_STANDARD, groupCnt, nullptr, &spec));
        if (derivedNormMeanVarDesc == nullptr)
            return fail(ANYDNN_STATUS_BAD_PARAM, "derivedNormMeanVarDesc is NULL");
        ANYDNN_TRY(derive(spec, xDesc, true, derivedNormScaleBiasDesc, "derivedNormScaleBiasDesc"));
        return derive(spec, xDesc, false, derivedNormMeanVarDesc, "derivedNormMeanVarDesc");
    });
}

anydnnStatus_t anydnnNormalizationForwardInference(
    anydnnHandle_t handle, anydnnNormMode_t mode, anydnnNormOps_t normOps, anydnnNormAlgo_t algo,
    const void *alpha, const void *beta, const anydnnTensorDescriptor_t xDesc, const void *x,
    const anydnnTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    const anydnnTensorDescriptor_t normMeanVarDesc, const void *estimatedMean, const void *estimatedVariance,
    const anydnnTensorDescriptor_t zDesc, const void *z, anydnnActivationDescriptor_t activationDesc,
    const anydnnTensorDescriptor_t yDesc, void *y, double epsilon, int groupCnt) {
    return api_call("anydnnNormalizationForwardInference", handle, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::norm_spec(mode, normOps, algo, groupCnt, activationDesc, &spec));
        ForwardCall c{};
        c.alpha = alpha;
        c.beta = beta;
        c.xDesc = xDesc;
        c.zDesc = zDesc;
        c.yDesc = yDesc;
        c.paramDesc = normScaleBiasDesc;
        c.statDesc = normMeanVarDesc;
        c.b.x = x;
        c.b.z = z;
        c.b.y = y;
        c.b.scale = normScale;
        c.b.bias = normBias;
        c.b.est_mean = estimatedMean;
        c.b.est_var = estimatedVariance;
        c.epsilon = epsilon;
        return forward(handle, spec, c);
    });
}

anydnnStatus_t anydnnNormalizationForwardTraining(
    anydnnHandle_t handle, anydnnNormMode_t mode, anydnnNormOps_t normOps, anydnnNormAlgo_t algo,
    const void *alpha, const void *beta, const anydnnTensorDescriptor_t xDesc, const void *xData,
    const anydnnTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    double exponentialAverageFactor, const anydnnTensorDescriptor_t normMeanVarDesc, void *resultRunningMean,
    void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance,
    anydnnActivationDescriptor_t activationDesc, const anydnnTensorDescriptor_t zDesc, const void *zData,
    const anydnnTensorDescriptor_t yDesc, void *yData, void *workspace, size_t workSpaceSizeInBytes,
    void *reserveSpace, size_t reserveSpaceSizeInBytes, int groupCnt) {
    return api_call("anydnnNormalizationForwardTraining", handle, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::norm_spec(mode, normOps, algo, groupCnt, activationDesc, &spec));
        ForwardCall c = bn_training_call(alpha, beta, xDesc, xData, yDesc, yData, normScaleBiasDesc, normScale,
                                         normBias, exponentialAverageFactor, resultRunningMean,
                                         resultRunningVariance, epsilon, resultSaveMean, resultSaveInvVariance);
        c.statDesc = normMeanVarDesc;
        c.zDesc = zDesc;
        c.b.z = zData;
        c.b.reserve = static_cast<unsigned char *>(reserveSpace);
        c.reserve_bytes = reserveSpaceSizeInBytes;
        return forward(handle, spec, c);
    });
}

anydnnStatus_t anydnnNormalizationBackward(
    anydnnHandle_t handle, anydnnNormMode_t mode, anydnnNormOps_t normOps, anydnnNormAlgo_t algo,
    const void *alphaDataDiff, const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const anydnnTensorDescriptor_t xDesc, const void *xData, const anydnnTensorDescriptor_t yDesc,
    const void *yData, const anydnnTensorDescriptor_t dyDesc, const void *dyData,
    const anydnnTensorDescriptor_t dzDesc, void *dzData, const anydnnTensorDescriptor_t dxDesc, void *dxData,
    const anydnnTensorDescriptor_t dNormScaleBiasDesc, const void *normScaleData, const void *normBiasData,
    void *dNormScaleData, void *dNormBiasData, double epsilon, const anydnnTensorDescriptor_t normMeanVarDesc,
    const void *savedMean, const void *savedInvVariance, anydnnActivationDescriptor_t activationDesc,
    void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes,
    int groupCnt) {
    return api_call("anydnnNormalizationBackward", handle, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::norm_spec(mode, normOps, algo, groupCnt, activationDesc, &spec));
        BackwardCall c = bn_backward_call(alphaDataDiff, betaDataDiff, alphaParamDiff, betaParamDiff, xDesc, xData,
                                          dyDesc, dyData, dxDesc, dxData, dNormScaleBiasDesc, normScaleData,
                                          dNormScaleData, dNormBiasData, epsilon, savedMean, savedInvVariance);
        c.statDesc = normMeanVarDesc;
        c.dzDesc = dzDesc;
        c.b.dz = dzData;
        c.b.reserve = static_cast<unsigned char *>(reserveSpace);
        c.reserve_bytes = reserveSpaceSizeInBytes;
        return backward(handle, spec, c);
    });
}

anydnnStatus_t anydnnGetNormalizationForwardTrainingWorkspaceSize(
    anydnnHandle_t handle, anydnnNormMode_t mode, anydnnNormOps_t normOps, anydnnNormAlgo_t algo,
    const anydnnTensorDescriptor_t xDesc, const anydnnTensorDescriptor_t zDesc,
    const anydnnTensorDescriptor_t yDesc, const anydnnTensorDescriptor_t normScaleBiasDesc,
    const anydnnActivationDescriptor_t activationDesc, const anydnnTensorDescriptor_t normMeanVarDesc,
    size_t *sizeInBytes, int groupCnt) {
    return api_call("anydnnGetNormalizationForwardTrainingWorkspaceSize", handle, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::norm_spec(mode, normOps, algo, groupCnt, activationDesc, &spec));
        return workspace_query(handle, spec, xDesc, normScaleBiasDesc, normMeanVarDesc, sizeInBytes);
    });
}

anydnnStatus_t anydnnGetNormalizationBackwardWorkspaceSize(
    anydnnHandle_t handle, anydnnNormMode_t mode, anydnnNormOps_t normOps, anydnnNormAlgo_t algo,
    const anydnnTensorDescriptor_t xDesc, const anydnnTensorDescriptor_t yDesc,
    const anydnnTensorDescriptor_t dyDesc, const anydnnTensorDescriptor_t dzDesc,
    const anydnnTensorDescriptor_t dxDesc, const anydnnTensorDescriptor_t dNormScaleBiasDesc,
    const anydnnActivationDescriptor_t activationDesc, const anydnnTensorDescriptor_t normMeanVarDesc,
    size_t *sizeInBytes, int groupCnt) {
    return api_call("anydnnGetNormalizationBackwardWorkspaceSize", handle, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::norm_spec(mode, normOps, algo, groupCnt, activationDesc, &spec));
        return workspace_query(handle, spec, xDesc, dNormScaleBiasDesc, normMeanVarDesc, sizeInBytes);
    });
}

anydnnStatus_t anydnnGetNormalizationTrainingReserveSpaceSize(
    anydnnHandle_t handle, anydnnNormMode_t mode, anydnnNormOps_t normOps, anydnnNormAlgo_t algo,
    const anydnnActivationDescriptor_t activationDesc, const anydnnTensorDescriptor_t xDesc, size_t *sizeInBytes,
    int groupCnt) {
    return api_call("anydnnGetNormalizationTrainingReserveSpaceSize", handle, [&] {
        ops::NormSpec spec;
        ANYDNN_TRY(ops::norm_spec(mode, normOps, algo, groupCnt, activationDesc, &spec));
        return reserve_query(handle, spec, xDesc, sizeInBytes);
    });
}

}  // extern "C"
