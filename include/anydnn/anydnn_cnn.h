/* anydnn_cnn.h: convolution (cuDNN 8's cudnn_cnn_infer.h, renamed).
 *
 * y = alpha * conv(x, w) + beta * y, and the fused
 * y = act(alpha1 * conv(x, w) + alpha2 * z + bias). Shapes follow cuDNN:
 * x is N x C x (D x) H x W, w is K x C/groups x (T x) R x S (a filter
 * descriptor, NCHW = KCRS or NHWC = KRSC), y is N x K x (D' x) H' x W' with
 *   out = 1 + (in + 2 * pad - ((filter - 1) * dilation + 1)) / stride.
 * x, y and z may have any strides their descriptors allow; NCHW and NHWC
 * packed tensors take the fast paths. Data types: FLOAT (compute FLOAT),
 * DOUBLE (compute DOUBLE), HALF and BFLOAT16 storage (compute FLOAT).
 *
 * Algorithms: the enum has cuDNN's names. On the CPU backend
 *   IMPLICIT_GEMM         direct loops, no workspace, every problem
 *   IMPLICIT_PRECOMP_GEMM batch-reduce GEMM over the filter taps, on a
 *                         zero-padded, stride-deinterleaved copy of x in the
 *                         workspace (no im2col): the general fast path
 *   DIRECT                depthwise convolutions (C/groups == 1)
 *   WINOGRAD_NONFUSED     Winograd F(4x4, 3x3): 2-D 3x3 filters, stride 1,
 *                         dilation 1; error <= 64 eps sum |w||x| (IMPLICIT_
 *                         PRECOMP_GEMM: about 2 eps per term)
 * The rest (GEMM, whose im2col copy IMPLICIT_PRECOMP_GEMM makes needless,
 * FFT, FFT_TILING, WINOGRAD) answer
 * NOT_SUPPORTED, with a message, as does an algorithm asked for a problem it
 * does not take: anydnn never silently runs another algorithm.
 * All algorithms are deterministic.
 *
 * Backward (training): backward data dx = alpha * conv^T(dy, w) + beta * dx,
 * backward filter dw = alpha * dconv/dw(x, dy) + beta * dw, backward bias
 * db = alpha * sum(dy) + beta * db, with the forward's descriptors (x/dx as
 * x, w/dw as w, dy as y). On the CPU backend
 *   BWD_DATA_ALGO_0, BWD_FILTER_ALGO_0   direct loops, no workspace, every problem
 *   BWD_DATA_ALGO_1, BWD_FILTER_ALGO_1   batch-reduce GEMMs on the planes of
 *                                        dx or x (as IMPLICIT_PRECOMP_GEMM)
 *   BWD_DATA_ALGO_WINOGRAD_NONFUSED      the forward's F(4x4, 3x3) on dy with
 *                                        the turned filter: 2-D 3x3, stride
 *                                        1, one group, pad <= 2
 * and the rest answer NOT_SUPPORTED. Every backward algorithm is
 * deterministic too: bit-identical results run after run and for any thread
 * count (each output element is summed in a fixed order).
 */
#ifndef ANYDNN_CNN_H_
#define ANYDNN_CNN_H_

#include "anydnn_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct anydnnConvolutionStruct *anydnnConvolutionDescriptor_t;

typedef enum {
    ANYDNN_CONVOLUTION = 0,      /* the filter is flipped in every spatial dimension */
    ANYDNN_CROSS_CORRELATION = 1 /* what deep learning frameworks call convolution */
} anydnnConvolutionMode_t;

/* Accepted and reported back; the CPU backend computes in FMA math whatever
 * the setting (there are no tensor cores to allow). */
typedef enum {
    ANYDNN_DEFAULT_MATH = 0,
    ANYDNN_TENSOR_OP_MATH = 1,
    ANYDNN_TENSOR_OP_MATH_ALLOW_CONVERSION = 2,
    ANYDNN_FMA_MATH = 3
} anydnnMathType_t;

/* Accepted and reported back; the CPU backend never reorders filters in place. */
typedef enum {
    ANYDNN_DEFAULT_REORDER = 0,
    ANYDNN_NO_REORDER = 1
} anydnnReorderType_t;

typedef enum {
    ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM = 0,
    ANYDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM = 1,
    ANYDNN_CONVOLUTION_FWD_ALGO_GEMM = 2,
    ANYDNN_CONVOLUTION_FWD_ALGO_DIRECT = 3,
    ANYDNN_CONVOLUTION_FWD_ALGO_FFT = 4,
    ANYDNN_CONVOLUTION_FWD_ALGO_FFT_TILING = 5,
    ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD = 6,
    ANYDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED = 7,
    ANYDNN_CONVOLUTION_FWD_ALGO_COUNT = 8
} anydnnConvolutionFwdAlgo_t;

typedef struct {
    anydnnConvolutionFwdAlgo_t algo;
    anydnnStatus_t status; /* SUCCESS, NOT_SUPPORTED for this problem, ALLOC_FAILED: workspace too small */
    float time;            /* milliseconds; -1 where not timed (the _v7 heuristic, or status != SUCCESS) */
    size_t memory;         /* workspace bytes */
    anydnnDeterminism_t determinism;
    anydnnMathType_t mathType;
    int reserved[3];
} anydnnConvolutionFwdAlgoPerf_t;

/* ---- Convolution descriptor ---------------------------------------------------------
 * A new descriptor has groupCount 1, DEFAULT_MATH and DEFAULT_REORDER, and
 * must be set with Set2d or SetNd before use (else BAD_PARAM). */

ANYDNN_API anydnnStatus_t anydnnCreateConvolutionDescriptor(anydnnConvolutionDescriptor_t *convDesc);
ANYDNN_API anydnnStatus_t anydnnDestroyConvolutionDescriptor(anydnnConvolutionDescriptor_t convDesc);

/* BAD_PARAM: a pad < 0, a stride or dilation < 1, mode or computeType unknown. */
ANYDNN_API anydnnStatus_t anydnnSetConvolution2dDescriptor(anydnnConvolutionDescriptor_t convDesc, int pad_h,
                                                           int pad_w, int u, int v, int dilation_h,
                                                           int dilation_w, anydnnConvolutionMode_t mode,
                                                           anydnnDataType_t computeType);
/* BAD_PARAM: the descriptor is not 2-D. Any output pointer may be NULL. */
ANYDNN_API anydnnStatus_t anydnnGetConvolution2dDescriptor(const anydnnConvolutionDescriptor_t convDesc,
                                                           int *pad_h, int *pad_w, int *u, int *v,
                                                           int *dilation_h, int *dilation_w,
                                                           anydnnConvolutionMode_t *mode,
                                                           anydnnDataType_t *computeType);
/* arrayLength: the number of spatial dimensions, 1 to ANYDNN_DIM_MAX - 2
 * (BAD_PARAM outside), as cuDNN. */
ANYDNN_API anydnnStatus_t anydnnSetConvolutionNdDescriptor(anydnnConvolutionDescriptor_t convDesc, int arrayLength,
                                                           const int padA[], const int filterStrideA[],
                                                           const int dilationA[], anydnnConvolutionMode_t mode,
                                                           anydnnDataType_t computeType);
/* Writes min(arrayLengthRequested, *arrayLength) entries of each array. */
ANYDNN_API anydnnStatus_t anydnnGetConvolutionNdDescriptor(const anydnnConvolutionDescriptor_t convDesc,
                                                           int arrayLengthRequested, int *arrayLength, int padA[],
                                                           int strideA[], int dilationA[],
                                                           anydnnConvolutionMode_t *mode,
                                                           anydnnDataType_t *computeType);

/* BAD_PARAM: groupCount < 1. */
ANYDNN_API anydnnStatus_t anydnnSetConvolutionGroupCount(anydnnConvolutionDescriptor_t convDesc, int groupCount);
ANYDNN_API anydnnStatus_t anydnnGetConvolutionGroupCount(anydnnConvolutionDescriptor_t convDesc, int *groupCount);
ANYDNN_API anydnnStatus_t anydnnSetConvolutionMathType(anydnnConvolutionDescriptor_t convDesc,
                                                       anydnnMathType_t mathType);
ANYDNN_API anydnnStatus_t anydnnGetConvolutionMathType(anydnnConvolutionDescriptor_t convDesc,
                                                       anydnnMathType_t *mathType);
ANYDNN_API anydnnStatus_t anydnnSetConvolutionReorderType(anydnnConvolutionDescriptor_t convDesc,
                                                          anydnnReorderType_t reorderType);
ANYDNN_API anydnnStatus_t anydnnGetConvolutionReorderType(anydnnConvolutionDescriptor_t convDesc,
                                                          anydnnReorderType_t *reorderType);

/* The output dimensions of x convolved with w. BAD_PARAM: the ranks of x,
 * w and the descriptor disagree, C of x is not groups * C of w, K of w is not
 * a multiple of groups, or an output dimension would be < 1. */
ANYDNN_API anydnnStatus_t anydnnGetConvolution2dForwardOutputDim(const anydnnConvolutionDescriptor_t convDesc,
                                                                 const anydnnTensorDescriptor_t inputTensorDesc,
                                                                 const anydnnFilterDescriptor_t filterDesc, int *n,
                                                                 int *c, int *h, int *w);
/* nbDims: the rank of x (BAD_PARAM otherwise). */
ANYDNN_API anydnnStatus_t anydnnGetConvolutionNdForwardOutputDim(const anydnnConvolutionDescriptor_t convDesc,
                                                                 const anydnnTensorDescriptor_t inputTensorDesc,
                                                                 const anydnnFilterDescriptor_t filterDesc,
                                                                 int nbDims, int tensorOuputDimA[]);

/* ---- Forward convolution ------------------------------------------------------------ */

/* ANYDNN_CONVOLUTION_FWD_ALGO_COUNT. */
ANYDNN_API anydnnStatus_t anydnnGetConvolutionForwardAlgorithmMaxCount(anydnnHandle_t handle, int *count);

/* Every algorithm, ranked by a model of its time for this problem, without
 * running anything: supported ones first, fastest first, then the
 * unsupported ones with status NOT_SUPPORTED. Time is -1. */
ANYDNN_API anydnnStatus_t anydnnGetConvolutionForwardAlgorithm_v7(
    anydnnHandle_t handle, const anydnnTensorDescriptor_t srcDesc, const anydnnFilterDescriptor_t filterDesc,
    const anydnnConvolutionDescriptor_t convDesc, const anydnnTensorDescriptor_t destDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionFwdAlgoPerf_t *perfResults);

/* Runs the supported algorithms on buffers of its own and returns them
 * sorted by measured time (best of a few runs, in ms). An algorithm the
 * _v7 model puts at more than 10x the cheapest is not run, so that Find stays
 * quick: it follows the timed ones with status SUCCESS and time -1. Then
 * come the unsupported ones. ALLOC_FAILED: the buffers could not be
 * allocated. */
ANYDNN_API anydnnStatus_t anydnnFindConvolutionForwardAlgorithm(
    anydnnHandle_t handle, const anydnnTensorDescriptor_t xDesc, const anydnnFilterDescriptor_t wDesc,
    const anydnnConvolutionDescriptor_t convDesc, const anydnnTensorDescriptor_t yDesc, const int requestedAlgoCount,
    int *returnedAlgoCount, anydnnConvolutionFwdAlgoPerf_t *perfResults);

/* The same on the caller's buffers (y is overwritten) and workspace: an
 * algorithm needing more than workSpaceSizeInBytes gets ALLOC_FAILED. */
ANYDNN_API anydnnStatus_t anydnnFindConvolutionForwardAlgorithmEx(
    anydnnHandle_t handle, const anydnnTensorDescriptor_t xDesc, const void *x, const anydnnFilterDescriptor_t wDesc,
    const void *w, const anydnnConvolutionDescriptor_t convDesc, const anydnnTensorDescriptor_t yDesc, void *y,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionFwdAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes);

/* NOT_SUPPORTED: algo does not take this problem. */
ANYDNN_API anydnnStatus_t anydnnGetConvolutionForwardWorkspaceSize(anydnnHandle_t handle,
                                                                   const anydnnTensorDescriptor_t xDesc,
                                                                   const anydnnFilterDescriptor_t wDesc,
                                                                   const anydnnConvolutionDescriptor_t convDesc,
                                                                   const anydnnTensorDescriptor_t yDesc,
                                                                   anydnnConvolutionFwdAlgo_t algo,
                                                                   size_t *sizeInBytes);

/* y = alpha * conv(x, w) + beta * y. BAD_PARAM: shapes or types disagree,
 * y's dimensions are not the output dimensions, y overlaps x or w, or
 * workSpaceSizeInBytes is less than the algorithm's workspace size (or
 * workSpace is NULL with a size > 0). NOT_SUPPORTED: algo does not take the
 * problem. */
ANYDNN_API anydnnStatus_t anydnnConvolutionForward(anydnnHandle_t handle, const void *alpha,
                                                   const anydnnTensorDescriptor_t xDesc, const void *x,
                                                   const anydnnFilterDescriptor_t wDesc, const void *w,
                                                   const anydnnConvolutionDescriptor_t convDesc,
                                                   anydnnConvolutionFwdAlgo_t algo, void *workSpace,
                                                   size_t workSpaceSizeInBytes, const void *beta,
                                                   const anydnnTensorDescriptor_t yDesc, void *y);

/* y = act(alpha1 * conv(x, w) + alpha2 * z + bias), fused: one pass over y.
 * z has y's dimensions and may be y itself (a residual added in place);
 * bias is 1 x K x 1 x 1 (x 1). act: any activation mode (cuDNN itself takes
 * RELU and IDENTITY only). Errors as anydnnConvolutionForward. */
ANYDNN_API anydnnStatus_t anydnnConvolutionBiasActivationForward(
    anydnnHandle_t handle, const void *alpha1, const anydnnTensorDescriptor_t xDesc, const void *x,
    const anydnnFilterDescriptor_t wDesc, const void *w, const anydnnConvolutionDescriptor_t convDesc,
    anydnnConvolutionFwdAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *alpha2,
    const anydnnTensorDescriptor_t zDesc, const void *z, const anydnnTensorDescriptor_t biasDesc, const void *bias,
    const anydnnActivationDescriptor_t activationDesc, const anydnnTensorDescriptor_t yDesc, void *y);

/* ---- Backward convolution (cudnn_cnn_train.h's calls, here with the rest) ---------- */

typedef enum {
    ANYDNN_CONVOLUTION_BWD_DATA_ALGO_0 = 0,
    ANYDNN_CONVOLUTION_BWD_DATA_ALGO_1 = 1,
    ANYDNN_CONVOLUTION_BWD_DATA_ALGO_FFT = 2,
    ANYDNN_CONVOLUTION_BWD_DATA_ALGO_FFT_TILING = 3,
    ANYDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD = 4,
    ANYDNN_CONVOLUTION_BWD_DATA_ALGO_WINOGRAD_NONFUSED = 5,
    ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT = 6
} anydnnConvolutionBwdDataAlgo_t;

typedef enum {
    ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_0 = 0,
    ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_1 = 1,
    ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT = 2,
    ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_3 = 3,
    ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD = 4,
    ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_WINOGRAD_NONFUSED = 5,
    ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_FFT_TILING = 6,
    ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT = 7
} anydnnConvolutionBwdFilterAlgo_t;

/* As anydnnConvolutionFwdAlgoPerf_t. */
typedef struct {
    anydnnConvolutionBwdDataAlgo_t algo;
    anydnnStatus_t status;
    float time;
    size_t memory;
    anydnnDeterminism_t determinism;
    anydnnMathType_t mathType;
    int reserved[3];
} anydnnConvolutionBwdDataAlgoPerf_t;

typedef struct {
    anydnnConvolutionBwdFilterAlgo_t algo;
    anydnnStatus_t status;
    float time;
    size_t memory;
    anydnnDeterminism_t determinism;
    anydnnMathType_t mathType;
    int reserved[3];
} anydnnConvolutionBwdFilterAlgoPerf_t;

/* ANYDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT. */
ANYDNN_API anydnnStatus_t anydnnGetConvolutionBackwardDataAlgorithmMaxCount(anydnnHandle_t handle, int *count);

/* Ranking, Find and FindEx as for the forward (see there); FindEx
 * overwrites dx. */
ANYDNN_API anydnnStatus_t anydnnGetConvolutionBackwardDataAlgorithm_v7(
    anydnnHandle_t handle, const anydnnFilterDescriptor_t filterDesc, const anydnnTensorDescriptor_t diffDesc,
    const anydnnConvolutionDescriptor_t convDesc, const anydnnTensorDescriptor_t gradDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionBwdDataAlgoPerf_t *perfResults);

ANYDNN_API anydnnStatus_t anydnnFindConvolutionBackwardDataAlgorithm(
    anydnnHandle_t handle, const anydnnFilterDescriptor_t wDesc, const anydnnTensorDescriptor_t dyDesc,
    const anydnnConvolutionDescriptor_t convDesc, const anydnnTensorDescriptor_t dxDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionBwdDataAlgoPerf_t *perfResults);

ANYDNN_API anydnnStatus_t anydnnFindConvolutionBackwardDataAlgorithmEx(
    anydnnHandle_t handle, const anydnnFilterDescriptor_t wDesc, const void *w, const anydnnTensorDescriptor_t dyDesc,
    const void *dy, const anydnnConvolutionDescriptor_t convDesc, const anydnnTensorDescriptor_t dxDesc, void *dx,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionBwdDataAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes);

/* NOT_SUPPORTED: algo does not take this problem. */
ANYDNN_API anydnnStatus_t anydnnGetConvolutionBackwardDataWorkspaceSize(
    anydnnHandle_t handle, const anydnnFilterDescriptor_t wDesc, const anydnnTensorDescriptor_t dyDesc,
    const anydnnConvolutionDescriptor_t convDesc, const anydnnTensorDescriptor_t dxDesc,
    anydnnConvolutionBwdDataAlgo_t algo, size_t *sizeInBytes);

/* dx = alpha * (the gradient of conv(dx's x, w) . dy with respect to x) +
 * beta * dx. dyDesc has the forward output dimensions of dxDesc. BAD_PARAM:
 * shapes or types disagree, dx overlaps w or dy, the workspace is too small.
 * NOT_SUPPORTED: algo does not take the problem. */
ANYDNN_API anydnnStatus_t anydnnConvolutionBackwardData(
    anydnnHandle_t handle, const void *alpha, const anydnnFilterDescriptor_t wDesc, const void *w,
    const anydnnTensorDescriptor_t dyDesc, const void *dy, const anydnnConvolutionDescriptor_t convDesc,
    anydnnConvolutionBwdDataAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
    const anydnnTensorDescriptor_t dxDesc, void *dx);

/* ANYDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT. */
ANYDNN_API anydnnStatus_t anydnnGetConvolutionBackwardFilterAlgorithmMaxCount(anydnnHandle_t handle, int *count);

ANYDNN_API anydnnStatus_t anydnnGetConvolutionBackwardFilterAlgorithm_v7(
    anydnnHandle_t handle, const anydnnTensorDescriptor_t srcDesc, const anydnnTensorDescriptor_t diffDesc,
    const anydnnConvolutionDescriptor_t convDesc, const anydnnFilterDescriptor_t gradDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionBwdFilterAlgoPerf_t *perfResults);

ANYDNN_API anydnnStatus_t anydnnFindConvolutionBackwardFilterAlgorithm(
    anydnnHandle_t handle, const anydnnTensorDescriptor_t xDesc, const anydnnTensorDescriptor_t dyDesc,
    const anydnnConvolutionDescriptor_t convDesc, const anydnnFilterDescriptor_t dwDesc,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionBwdFilterAlgoPerf_t *perfResults);

/* FindEx overwrites dw. cuDNN names the dy pointer y here. */
ANYDNN_API anydnnStatus_t anydnnFindConvolutionBackwardFilterAlgorithmEx(
    anydnnHandle_t handle, const anydnnTensorDescriptor_t xDesc, const void *x, const anydnnTensorDescriptor_t dyDesc,
    const void *y, const anydnnConvolutionDescriptor_t convDesc, const anydnnFilterDescriptor_t dwDesc, void *dw,
    const int requestedAlgoCount, int *returnedAlgoCount, anydnnConvolutionBwdFilterAlgoPerf_t *perfResults,
    void *workSpace, size_t workSpaceSizeInBytes);

ANYDNN_API anydnnStatus_t anydnnGetConvolutionBackwardFilterWorkspaceSize(
    anydnnHandle_t handle, const anydnnTensorDescriptor_t xDesc, const anydnnTensorDescriptor_t dyDesc,
    const anydnnConvolutionDescriptor_t convDesc, const anydnnFilterDescriptor_t gradDesc,
    anydnnConvolutionBwdFilterAlgo_t algo, size_t *sizeInBytes);

/* dw = alpha * (the gradient of conv(x, w) . dy with respect to w) + beta * dw,
 * summed over the batch. Errors as anydnnConvolutionBackwardData. */
ANYDNN_API anydnnStatus_t anydnnConvolutionBackwardFilter(
    anydnnHandle_t handle, const void *alpha, const anydnnTensorDescriptor_t xDesc, const void *x,
    const anydnnTensorDescriptor_t dyDesc, const void *dy, const anydnnConvolutionDescriptor_t convDesc,
    anydnnConvolutionBwdFilterAlgo_t algo, void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
    const anydnnFilterDescriptor_t dwDesc, void *dw);

/* db = alpha * (dy summed over all but the channel dimension) + beta * db.
 * dbDesc is 1 x K x 1 x 1 (x 1) with dy's type. BAD_PARAM otherwise. */
ANYDNN_API anydnnStatus_t anydnnConvolutionBackwardBias(anydnnHandle_t handle, const void *alpha,
                                                        const anydnnTensorDescriptor_t dyDesc, const void *dy,
                                                        const void *beta, const anydnnTensorDescriptor_t dbDesc,
                                                        void *db);

#ifdef __cplusplus
}
#endif

#endif /* ANYDNN_CNN_H_ */
