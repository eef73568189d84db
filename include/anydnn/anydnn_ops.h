/* anydnn_ops.h: tensor operations, reductions, activations, softmax and pooling.
 *
 * Semantics are cuDNN 8's (cudnn_ops_infer.h / cudnn_ops_train.h). Every op
 * blends its result into the output: y = alpha * op(...) + beta * y, where
 * beta == 0 means y is write-only (its old contents, even NaN, are ignored).
 * Tensors may have any strides allowed by their descriptors; an output may
 * not overlap an input unless the function says so.
 *
 * Data types: the compute ops (Add, Op, Reduce, Activation, Softmax, Pooling) take
 * FLOAT, DOUBLE, HALF or BFLOAT16 tensors, all of one type; HALF and BFLOAT16
 * are computed in float. SetTensor, ScaleTensor and TransformTensor also take
 * the integer types; TransformTensor converts between any two (integer
 * results are rounded to nearest and saturated).
 */
#ifndef ANYDNN_OPS_H_
#define ANYDNN_OPS_H_

#include "anydnn_core.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Set, scale, add ------------------------------------------------------------------ */

/* Sets every element of y to *valuePtr (a value of y's type, double for
 * DOUBLE, float for FLOAT/HALF/BFLOAT16, int8_t/uint8_t/int32_t/int64_t for the
 * integer types). */
ANYDNN_API anydnnStatus_t anydnnSetTensor(anydnnHandle_t handle, const anydnnTensorDescriptor_t yDesc, void *y,
                                          const void *valuePtr);
/* y = alpha * y. */
ANYDNN_API anydnnStatus_t anydnnScaleTensor(anydnnHandle_t handle, const anydnnTensorDescriptor_t yDesc, void *y,
                                            const void *alpha);
/* C = alpha * A + beta * C, with A broadcast: each dimension of A equals C's
 * or is 1. BAD_PARAM: the dimension counts or data types differ, or a
 * dimension of A is neither 1 nor C's. */
ANYDNN_API anydnnStatus_t anydnnAddTensor(anydnnHandle_t handle, const void *alpha,
                                          const anydnnTensorDescriptor_t aDesc, const void *A, const void *beta,
                                          const anydnnTensorDescriptor_t cDesc, void *C);

/* ---- OpTensor ---------------------------------------------------------------------------- */

typedef enum {
    ANYDNN_OP_TENSOR_ADD = 0,
    ANYDNN_OP_TENSOR_MUL = 1,
    ANYDNN_OP_TENSOR_MIN = 2,
    ANYDNN_OP_TENSOR_MAX = 3,
    ANYDNN_OP_TENSOR_SQRT = 4, /* unary: sqrt(alpha1 * A) */
    ANYDNN_OP_TENSOR_NOT = 5   /* unary: 1 - alpha1 * A */
} anydnnOpTensorOp_t;

typedef struct anydnnOpTensorStruct *anydnnOpTensorDescriptor_t;

ANYDNN_API anydnnStatus_t anydnnCreateOpTensorDescriptor(anydnnOpTensorDescriptor_t *opTensorDesc);
ANYDNN_API anydnnStatus_t anydnnDestroyOpTensorDescriptor(anydnnOpTensorDescriptor_t opTensorDesc);
/* opTensorCompType: FLOAT or DOUBLE. */
ANYDNN_API anydnnStatus_t anydnnSetOpTensorDescriptor(anydnnOpTensorDescriptor_t opTensorDesc,
                                                      anydnnOpTensorOp_t opTensorOp,
                                                      anydnnDataType_t opTensorCompType,
                                                      anydnnNanPropagation_t opTensorNanOpt);
ANYDNN_API anydnnStatus_t anydnnGetOpTensorDescriptor(const anydnnOpTensorDescriptor_t opTensorDesc,
                                                      anydnnOpTensorOp_t *opTensorOp,
                                                      anydnnDataType_t *opTensorCompType,
                                                      anydnnNanPropagation_t *opTensorNanOpt);
/* C = op(alpha1 * A, alpha2 * B) + beta * C. A has C's dimensions; each
 * dimension of B equals C's or is 1 (broadcast). For the unary SQRT and NOT,
 * B is not read (bDesc and B may be NULL). C may be the same buffer as A or
 * B (in place) when their descriptors are identical. */
ANYDNN_API anydnnStatus_t anydnnOpTensor(anydnnHandle_t handle, const anydnnOpTensorDescriptor_t opTensorDesc,
                                         const void *alpha1, const anydnnTensorDescriptor_t aDesc, const void *A,
                                         const void *alpha2, const anydnnTensorDescriptor_t bDesc, const void *B,
                                         const void *beta, const anydnnTensorDescriptor_t cDesc, void *C);

/* ---- ReduceTensor ------------------------------------------------------------------------- */

/* Each element of C reduces the elements of A that share its coordinates in
 * the dimensions C keeps: ADD (sum), MUL (product), MIN, MAX, AMAX (max |a|),
 * AVG (sum / count), NORM1 (sum |a|), NORM2 (sqrt of sum a^2), MUL_NO_ZEROS
 * (product of the non-zero elements; 1 when all are zero). */
typedef enum {
    ANYDNN_REDUCE_TENSOR_ADD = 0,
    ANYDNN_REDUCE_TENSOR_MUL = 1,
    ANYDNN_REDUCE_TENSOR_MIN = 2,
    ANYDNN_REDUCE_TENSOR_MAX = 3,
    ANYDNN_REDUCE_TENSOR_AMAX = 4,
    ANYDNN_REDUCE_TENSOR_AVG = 5,
    ANYDNN_REDUCE_TENSOR_NORM1 = 6,
    ANYDNN_REDUCE_TENSOR_NORM2 = 7,
    ANYDNN_REDUCE_TENSOR_MUL_NO_ZEROS = 8
} anydnnReduceTensorOp_t;

typedef enum {
    ANYDNN_REDUCE_TENSOR_NO_INDICES = 0,
    ANYDNN_REDUCE_TENSOR_FLATTENED_INDICES = 1
} anydnnReduceTensorIndices_t;

typedef enum {
    ANYDNN_32BIT_INDICES = 0,
    ANYDNN_64BIT_INDICES = 1, /* NOT_SUPPORTED, as in cuDNN */
    ANYDNN_16BIT_INDICES = 2, /* NOT_SUPPORTED, as in cuDNN */
    ANYDNN_8BIT_INDICES = 3   /* NOT_SUPPORTED, as in cuDNN */
} anydnnIndicesType_t;

typedef struct anydnnReduceTensorStruct *anydnnReduceTensorDescriptor_t;

ANYDNN_API anydnnStatus_t anydnnCreateReduceTensorDescriptor(anydnnReduceTensorDescriptor_t *reduceTensorDesc);
ANYDNN_API anydnnStatus_t anydnnDestroyReduceTensorDescriptor(anydnnReduceTensorDescriptor_t reduceTensorDesc);
/* reduceTensorCompType: FLOAT or DOUBLE (other data types: NOT_SUPPORTED).
 * The CPU backend accumulates the sum-like ops in double whatever it says
 * (a sum of n terms is within n * 2^-53 * sum|a| of the exact value before
 * the one rounding to C's type) and computes MIN/MAX/AMAX exactly.
 * reduceTensorNanOpt applies to MIN, MAX and AMAX: PROPAGATE_NAN makes a NaN
 * in the reduced set the result; NOT_PROPAGATE_NAN skips NaNs (the result is
 * NaN only when all are). The other ops always propagate NaNs.
 * reduceTensorIndices: FLATTENED_INDICES asks MIN, MAX and AMAX for indices
 * (other ops ignore it). reduceTensorIndicesType: any anydnnIndicesType_t;
 * types other than 32BIT give NOT_SUPPORTED where indices would be written.
 * BAD_PARAM: a value outside its enum, reduceTensorDesc NULL. */
ANYDNN_API anydnnStatus_t anydnnSetReduceTensorDescriptor(anydnnReduceTensorDescriptor_t reduceTensorDesc,
                                                          anydnnReduceTensorOp_t reduceTensorOp,
                                                          anydnnDataType_t reduceTensorCompType,
                                                          anydnnNanPropagation_t reduceTensorNanOpt,
                                                          anydnnReduceTensorIndices_t reduceTensorIndices,
                                                          anydnnIndicesType_t reduceTensorIndicesType);
/* Any output pointer may be NULL. BAD_PARAM: reduceTensorDesc NULL or never set. */
ANYDNN_API anydnnStatus_t anydnnGetReduceTensorDescriptor(const anydnnReduceTensorDescriptor_t reduceTensorDesc,
                                                          anydnnReduceTensorOp_t *reduceTensorOp,
                                                          anydnnDataType_t *reduceTensorCompType,
                                                          anydnnNanPropagation_t *reduceTensorNanOpt,
                                                          anydnnReduceTensorIndices_t *reduceTensorIndices,
                                                          anydnnIndicesType_t *reduceTensorIndicesType);
/* Bytes of the indices output: one 32-bit index per element of C when the
 * descriptor asks for FLATTENED_INDICES with MIN, MAX or AMAX, else 0. Checks
 * the arguments as anydnnReduceTensor does (same statuses). */
ANYDNN_API anydnnStatus_t anydnnGetReductionIndicesSize(anydnnHandle_t handle,
                                                        const anydnnReduceTensorDescriptor_t reduceTensorDesc,
                                                        const anydnnTensorDescriptor_t aDesc,
                                                        const anydnnTensorDescriptor_t cDesc, size_t *sizeInBytes);
/* Always 0 on the CPU: no workspace is used. Checks the arguments as
 * anydnnReduceTensor does. */
ANYDNN_API anydnnStatus_t anydnnGetReductionWorkspaceSize(anydnnHandle_t handle,
                                                          const anydnnReduceTensorDescriptor_t reduceTensorDesc,
                                                          const anydnnTensorDescriptor_t aDesc,
                                                          const anydnnTensorDescriptor_t cDesc,
                                                          size_t *sizeInBytes);
/* C = alpha * reduce(A) + beta * C, reducing A over every dimension where C
 * is 1 and A is not; C of A's dimensions applies the op to single elements
 * (AMAX and NORM2 give |a|). A and C: FLOAT, DOUBLE, HALF or BFLOAT16, the
 * same type, any strides; alpha and beta are double for DOUBLE, else float.
 * beta == 0 never reads C. Each index (when asked for) is the position of the
 * selected element within the reduced dimensions, flattened in row-major
 * order of those dimensions (whatever A's strides), the first one on ties;
 * the indices output holds one uint32 per element of C, packed in row-major
 * order of C's dimensions. The workspace is unused (may be NULL). Results are
 * the same, bit for bit, for every thread count.
 * BAD_PARAM: handle, descriptors, A, C, alpha or beta NULL; reduceTensorDesc
 * never set; dimension counts or types differ; a dimension of C is neither 1
 * nor A's; indices asked for and NULL or under GetReductionIndicesSize bytes.
 * NOT_SUPPORTED: integer tensors; indices asked for with a type other than
 * 32BIT or over more than 2^31 - 1 reduced elements. */
ANYDNN_API anydnnStatus_t anydnnReduceTensor(anydnnHandle_t handle,
                                             const anydnnReduceTensorDescriptor_t reduceTensorDesc, void *indices,
                                             size_t indicesSizeInBytes, void *workspace, size_t workspaceSizeInBytes,
                                             const void *alpha, const anydnnTensorDescriptor_t aDesc, const void *A,
                                             const void *beta, const anydnnTensorDescriptor_t cDesc, void *C);

/* ---- Transform ---------------------------------------------------------------------------- */

/* y = alpha * x + beta * y, with x and y of the same dimensions and any
 * strides and data types (converted). */
ANYDNN_API anydnnStatus_t anydnnTransformTensor(anydnnHandle_t handle, const void *alpha,
                                                const anydnnTensorDescriptor_t xDesc, const void *x,
                                                const void *beta, const anydnnTensorDescriptor_t yDesc, void *y);

typedef enum {
    ANYDNN_TRANSFORM_FOLD = 0,
    ANYDNN_TRANSFORM_UNFOLD = 1
} anydnnFoldingDirection_t;

typedef struct anydnnTensorTransformStruct *anydnnTensorTransformDescriptor_t;

ANYDNN_API anydnnStatus_t anydnnCreateTensorTransformDescriptor(anydnnTensorTransformDescriptor_t *transformDesc);
ANYDNN_API anydnnStatus_t anydnnDestroyTensorTransformDescriptor(anydnnTensorTransformDescriptor_t transformDesc);
/* padBeforeA/padAfterA: nbDims values each (NULL means no padding); foldA:
 * nbDims - 2 spatial fold factors (NULL means 1); folds other than 1 give
 * NOT_SUPPORTED when used. */
ANYDNN_API anydnnStatus_t anydnnSetTensorTransformDescriptor(anydnnTensorTransformDescriptor_t transformDesc,
                                                             uint32_t nbDims, anydnnTensorFormat_t destFormat,
                                                             const int32_t padBeforeA[], const int32_t padAfterA[],
                                                             const uint32_t foldA[],
                                                             anydnnFoldingDirection_t direction);
ANYDNN_API anydnnStatus_t anydnnGetTensorTransformDescriptor(anydnnTensorTransformDescriptor_t transformDesc,
                                                             uint32_t nbDimsRequested,
                                                             anydnnTensorFormat_t *destFormat, int32_t padBeforeA[],
                                                             int32_t padAfterA[], uint32_t foldA[],
                                                             anydnnFoldingDirection_t *direction);
/* dest = alpha * pad(src) + beta * dest: dest has src's dimensions plus
 * padBefore + padAfter, and the padding reads as zeros. */
ANYDNN_API anydnnStatus_t anydnnTransformTensorEx(anydnnHandle_t handle,
                                                  const anydnnTensorTransformDescriptor_t transDesc,
                                                  const void *alpha, const anydnnTensorDescriptor_t srcDesc,
                                                  const void *srcData, const void *beta,
                                                  const anydnnTensorDescriptor_t destDesc, void *destData);
/* The same for filters (e.g. KCRS to KRSC). */
ANYDNN_API anydnnStatus_t anydnnTransformFilter(anydnnHandle_t handle,
                                                const anydnnTensorTransformDescriptor_t transDesc,
                                                const void *alpha, const anydnnFilterDescriptor_t srcDesc,
                                                const void *srcData, const void *beta,
                                                const anydnnFilterDescriptor_t destDesc, void *destData);

/* ---- Activation ---------------------------------------------------------------------------- */

typedef enum {
    ANYDNN_ACTIVATION_SIGMOID = 0,
    ANYDNN_ACTIVATION_RELU = 1,         /* max(x, 0) */
    ANYDNN_ACTIVATION_TANH = 2,
    ANYDNN_ACTIVATION_CLIPPED_RELU = 3, /* min(max(x, 0), coef) */
    ANYDNN_ACTIVATION_ELU = 4,          /* x > 0 ? x : coef * (exp(x) - 1) */
    ANYDNN_ACTIVATION_IDENTITY = 5,
    ANYDNN_ACTIVATION_SWISH = 6,        /* x * sigmoid(swish_beta * x) */
    /* anydnn additions, beyond cuDNN's legacy set */
    ANYDNN_ACTIVATION_GELU = 100,       /* x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)) */
    ANYDNN_ACTIVATION_GELU_TANH = 101,  /* 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
    ANYDNN_ACTIVATION_LEAKY_RELU = 102, /* x > 0 ? x : coef * x */
    ANYDNN_ACTIVATION_HARDSWISH = 103,  /* x * min(max(x + 3, 0), 6) / 6 */
    ANYDNN_ACTIVATION_MISH = 104,       /* x * tanh(softplus(x)) */
    ANYDNN_ACTIVATION_SOFTPLUS = 105    /* log(1 + exp(x)) */
} anydnnActivationMode_t;

typedef struct anydnnActivationStruct *anydnnActivationDescriptor_t;

ANYDNN_API anydnnStatus_t anydnnCreateActivationDescriptor(anydnnActivationDescriptor_t *activationDesc);
ANYDNN_API anydnnStatus_t anydnnDestroyActivationDescriptor(anydnnActivationDescriptor_t activationDesc);
/* coef: the clipping threshold (CLIPPED_RELU), alpha (ELU) or negative slope
 * (LEAKY_RELU); ignored otherwise. reluNanOpt: PROPAGATE_NAN lets RELU and
 * CLIPPED_RELU pass NaN through. BAD_PARAM: unknown mode or NaN option, a
 * NaN coef. */
ANYDNN_API anydnnStatus_t anydnnSetActivationDescriptor(anydnnActivationDescriptor_t activationDesc,
                                                        anydnnActivationMode_t mode,
                                                        anydnnNanPropagation_t reluNanOpt, double coef);
ANYDNN_API anydnnStatus_t anydnnGetActivationDescriptor(const anydnnActivationDescriptor_t activationDesc,
                                                        anydnnActivationMode_t *mode,
                                                        anydnnNanPropagation_t *reluNanOpt, double *coef);
/* The beta of SWISH (1.0 by default). */
ANYDNN_API anydnnStatus_t anydnnSetActivationDescriptorSwishBeta(anydnnActivationDescriptor_t activationDesc,
                                                                 double swish_beta);
ANYDNN_API anydnnStatus_t anydnnGetActivationDescriptorSwishBeta(anydnnActivationDescriptor_t activationDesc,
                                                                 double *swish_beta);
/* y = alpha * f(x) + beta * y. x and y have the same dimensions (strides may
 * differ); y may be x (in place) when their descriptors are identical. */
ANYDNN_API anydnnStatus_t anydnnActivationForward(anydnnHandle_t handle, anydnnActivationDescriptor_t activationDesc,
                                                  const void *alpha, const anydnnTensorDescriptor_t xDesc,
                                                  const void *x, const void *beta,
                                                  const anydnnTensorDescriptor_t yDesc, void *y);
/* dx = alpha * f'(x) * dy + beta * dx, where y = f(x) is the forward result.
 * All four tensors have the same dimensions; dx may be dy (in place). */
ANYDNN_API anydnnStatus_t anydnnActivationBackward(anydnnHandle_t handle, anydnnActivationDescriptor_t activationDesc,
                                                   const void *alpha, const anydnnTensorDescriptor_t yDesc,
                                                   const void *y, const anydnnTensorDescriptor_t dyDesc,
                                                   const void *dy, const anydnnTensorDescriptor_t xDesc,
                                                   const void *x, const void *beta,
                                                   const anydnnTensorDescriptor_t dxDesc, void *dx);

/* ---- Softmax ------------------------------------------------------------------------------- */

typedef enum {
    ANYDNN_SOFTMAX_FAST = 0,     /* exp(x) / sum exp(x), no max subtraction */
    ANYDNN_SOFTMAX_ACCURATE = 1, /* the max is subtracted first */
    ANYDNN_SOFTMAX_LOG = 2       /* log-softmax */
} anydnnSoftmaxAlgorithm_t;

typedef enum {
    ANYDNN_SOFTMAX_MODE_INSTANCE = 0, /* over C, H, W for each n */
    ANYDNN_SOFTMAX_MODE_CHANNEL = 1   /* over C for each n, h, w */
} anydnnSoftmaxMode_t;

/* y = alpha * softmax(x) + beta * y; y may be x when the descriptors match. */
ANYDNN_API anydnnStatus_t anydnnSoftmaxForward(anydnnHandle_t handle, anydnnSoftmaxAlgorithm_t algo,
                                               anydnnSoftmaxMode_t mode, const void *alpha,
                                               const anydnnTensorDescriptor_t xDesc, const void *x,
                                               const void *beta, const anydnnTensorDescriptor_t yDesc, void *y);
/* dx = alpha * dsoftmax(y, dy) + beta * dx; y is the forward output. */
ANYDNN_API anydnnStatus_t anydnnSoftmaxBackward(anydnnHandle_t handle, anydnnSoftmaxAlgorithm_t algo,
                                                anydnnSoftmaxMode_t mode, const void *alpha,
                                                const anydnnTensorDescriptor_t yDesc, const void *y,
                                                const anydnnTensorDescriptor_t dyDesc, const void *dy,
                                                const void *beta, const anydnnTensorDescriptor_t dxDesc, void *dx);

/* ---- Pooling ------------------------------------------------------------------------------- */

/* Each output element reduces one window of x: output position o of a
 * spatial dimension covers the input positions o * stride - padding ...
 * o * stride - padding + window - 1, and positions outside 0 ... in - 1 are
 * padding (never read). Output size per spatial dimension:
 * 1 + (in + 2 * padding - window) / stride (rounded down). Since padding <
 * window, every window holds at least one input element. */
typedef enum {
    ANYDNN_POOLING_MAX = 0,                           /* the largest element */
    ANYDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING = 1, /* sum / window size (padding counts as zeros) */
    ANYDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING = 2, /* sum / number of input elements in the window */
    ANYDNN_POOLING_MAX_DETERMINISTIC = 3              /* MAX (on the CPU, MAX is deterministic too) */
} anydnnPoolingMode_t;

typedef struct anydnnPoolingStruct *anydnnPoolingDescriptor_t;

ANYDNN_API anydnnStatus_t anydnnCreatePoolingDescriptor(anydnnPoolingDescriptor_t *poolingDesc);
ANYDNN_API anydnnStatus_t anydnnDestroyPoolingDescriptor(anydnnPoolingDescriptor_t poolingDesc);
/* A 2-d pooling (x of 4 dimensions). maxpoolingNanOpt applies to the MAX
 * modes: PROPAGATE_NAN makes a window holding a NaN give NaN;
 * NOT_PROPAGATE_NAN skips NaNs, so a window gives NaN only when all its input
 * elements are NaN (never -inf for want of a value). BAD_PARAM: poolingDesc
 * NULL; mode or maxpoolingNanOpt outside its enum; a window or stride < 1; a
 * padding < 0 or >= its window. A failed set leaves the descriptor as it was. */
ANYDNN_API anydnnStatus_t anydnnSetPooling2dDescriptor(anydnnPoolingDescriptor_t poolingDesc,
                                                       anydnnPoolingMode_t mode,
                                                       anydnnNanPropagation_t maxpoolingNanOpt, int windowHeight,
                                                       int windowWidth, int verticalPadding, int horizontalPadding,
                                                       int verticalStride, int horizontalStride);
/* Any output pointer may be NULL. BAD_PARAM: poolingDesc NULL, never set, or
 * set with other than 2 spatial dimensions. */
ANYDNN_API anydnnStatus_t anydnnGetPooling2dDescriptor(const anydnnPoolingDescriptor_t poolingDesc,
                                                       anydnnPoolingMode_t *mode,
                                                       anydnnNanPropagation_t *maxpoolingNanOpt, int *windowHeight,
                                                       int *windowWidth, int *verticalPadding,
                                                       int *horizontalPadding, int *verticalStride,
                                                       int *horizontalStride);
/* nbDims spatial dimensions (1 to ANYDNN_DIM_MAX - 2; the CPU backend runs 1
 * to 3), outermost first (d, h, w): windowDimA, paddingA and strideA hold
 * nbDims values each. Statuses as anydnnSetPooling2dDescriptor, and
 * BAD_PARAM for nbDims out of range or a NULL array. */
ANYDNN_API anydnnStatus_t anydnnSetPoolingNdDescriptor(anydnnPoolingDescriptor_t poolingDesc,
                                                       const anydnnPoolingMode_t mode,
                                                       const anydnnNanPropagation_t maxpoolingNanOpt, int nbDims,
                                                       const int windowDimA[], const int paddingA[],
                                                       const int strideA[]);
/* Writes min(nbDimsRequested, the descriptor's nbDims) values to each array
 * and the descriptor's spatial dimension count to *nbDims; mode, maxpoolingNanOpt
 * and nbDims may be NULL. BAD_PARAM: poolingDesc NULL or never set,
 * nbDimsRequested < 0, an array NULL when values are to be written. */
ANYDNN_API anydnnStatus_t anydnnGetPoolingNdDescriptor(const anydnnPoolingDescriptor_t poolingDesc,
                                                       int nbDimsRequested, anydnnPoolingMode_t *mode,
                                                       anydnnNanPropagation_t *maxpoolingNanOpt, int *nbDims,
                                                       int windowDimA[], int paddingA[], int strideA[]);
/* The dimensions of y for x = inputTensorDesc (4 dimensions; N and C are
 * x's). BAD_PARAM: a descriptor NULL or never set, poolingDesc not 2-d,
 * x not 4-d, an output pointer NULL, a window larger than its padded input. */
ANYDNN_API anydnnStatus_t anydnnGetPooling2dForwardOutputDim(const anydnnPoolingDescriptor_t poolingDesc,
                                                             const anydnnTensorDescriptor_t inputTensorDesc, int *n,
                                                             int *c, int *h, int *w);
/* The same for nbDims = the input's dimension count (spatial + 2) values in
 * outputTensorDimA. BAD_PARAM as the 2-d form, and when nbDims differs from
 * inputTensorDesc's dimension count or poolingDesc's spatial count + 2. */
ANYDNN_API anydnnStatus_t anydnnGetPoolingNdForwardOutputDim(const anydnnPoolingDescriptor_t poolingDesc,
                                                             const anydnnTensorDescriptor_t inputTensorDesc,
                                                             int nbDims, int outputTensorDimA[]);
/* y = alpha * pool(x) + beta * y. x and y: the same type (FLOAT, DOUBLE,
 * HALF or BFLOAT16; HALF and BFLOAT16 computed in float), spatial + 2
 * dimensions, any strides (NCHW, NHWC, padded); y's dimensions are those of
 * anydnnGetPoolingNdForwardOutputDim. alpha and beta are double for DOUBLE,
 * else float; beta == 0 never reads y. y may not overlap x.
 * BAD_PARAM: handle, a descriptor, x, y, alpha or beta NULL; a descriptor
 * never set; dimension counts, y's dimensions or types that do not match; a
 * window larger than its padded input; y overlapping x. NOT_SUPPORTED:
 * integer tensors, more than 3 spatial dimensions. */
ANYDNN_API anydnnStatus_t anydnnPoolingForward(anydnnHandle_t handle, const anydnnPoolingDescriptor_t poolingDesc,
                                               const void *alpha, const anydnnTensorDescriptor_t xDesc,
                                               const void *x, const void *beta,
                                               const anydnnTensorDescriptor_t yDesc, void *y);
/* dx = alpha * dpool(x, dy) + beta * dx. y and dy have the output's
 * dimensions, x and dx the input's; all four the same type, any strides.
 * MAX modes: each dy element goes to one input element of its window, the
 * first in scan order (d, h, w increasing) whose x equals the window's max
 * under the NaN option (the max is computed from x; y is not read); the
 * contributions of overlapping windows are summed. AVERAGE modes: each dy
 * element divided by the mode's count goes to every input element of its
 * window (x and y are not read). Results are the same, bit for bit, for every
 * thread count. beta == 0 never reads dx. dx may not overlap y, dy or x.
 * Statuses as anydnnPoolingForward; BAD_PARAM also when y's and dy's or x's
 * and dx's dimensions differ. */
ANYDNN_API anydnnStatus_t anydnnPoolingBackward(anydnnHandle_t handle, const anydnnPoolingDescriptor_t poolingDesc,
                                                const void *alpha, const anydnnTensorDescriptor_t yDesc,
                                                const void *y, const anydnnTensorDescriptor_t dyDesc,
                                                const void *dy, const anydnnTensorDescriptor_t xDesc,
                                                const void *x, const void *beta,
                                                const anydnnTensorDescriptor_t dxDesc, void *dx);

/* ---- LRN ---- */

/* Local response normalization across channels and divisive normalization
 * across the spatial dimensions. One descriptor holds both ops' parameters. */
typedef struct anydnnLRNStruct *anydnnLRNDescriptor_t;

#define ANYDNN_LRN_MIN_N 1        /* lrnN's range */
#define ANYDNN_LRN_MAX_N 16
#define ANYDNN_LRN_MIN_K 1e-5     /* lrnK's minimum */
#define ANYDNN_LRN_MIN_BETA 0.01  /* lrnBeta's minimum */

typedef enum {
    ANYDNN_LRN_CROSS_CHANNEL_DIM1 = 0, /* the window runs along dimension 1 (C) */
} anydnnLRNMode_t;

typedef enum {
    ANYDNN_DIVNORM_PRECOMPUTED_MEANS = 0, /* the means are an input of the call */
} anydnnDivNormMode_t;

/* A new descriptor with cuDNN's defaults: lrnN 5, lrnAlpha 1e-4, lrnBeta
 * 0.75, lrnK 2.0. BAD_PARAM: normDesc NULL. */
ANYDNN_API anydnnStatus_t anydnnCreateLRNDescriptor(anydnnLRNDescriptor_t *normDesc);
ANYDNN_API anydnnStatus_t anydnnDestroyLRNDescriptor(anydnnLRNDescriptor_t lrnDesc);
/* lrnN: the window width. LRN normalizes channel c over the channels
 * [c - floor((lrnN-1)/2), c + lrnN - 1 - floor((lrnN-1)/2)] (lrnN = 10:
 * [c-4, c+5]); divisive normalization uses the same extents along every
 * spatial dimension. Channels or pixels outside the tensor count as 0.
 * lrnAlpha is divided by lrnN for LRN and by lrnN^(spatial dimensions) for
 * divisive normalization. The values are used in the tensors' compute type
 * (double for DOUBLE, float otherwise).
 * BAD_PARAM: normDesc NULL, lrnN outside [ANYDNN_LRN_MIN_N, ANYDNN_LRN_MAX_N],
 * lrnK < ANYDNN_LRN_MIN_K, lrnBeta < ANYDNN_LRN_MIN_BETA, a value not
 * finite; a failure leaves the descriptor unchanged. */
ANYDNN_API anydnnStatus_t anydnnSetLRNDescriptor(anydnnLRNDescriptor_t normDesc, unsigned lrnN, double lrnAlpha,
                                                 double lrnBeta, double lrnK);
/* Any output pointer may be NULL. BAD_PARAM: normDesc NULL. */
ANYDNN_API anydnnStatus_t anydnnGetLRNDescriptor(anydnnLRNDescriptor_t normDesc, unsigned *lrnN, double *lrnAlpha,
                                                 double *lrnBeta, double *lrnK);

/* y = alpha * x * (lrnK + lrnAlpha / lrnN * sum over c's window of x^2)^-lrnBeta
 *     + beta * y.
 * x and y: the same dimensions (3 to 8) and type (FLOAT, DOUBLE, HALF,
 * BFLOAT16; HALF and BFLOAT16 computed in float), any positive strides
 * (NCHW, NHWC, padded). y may be x's buffer when the descriptors are
 * identical; it may not otherwise overlap x. beta == 0 never reads y.
 * alpha and beta are double for DOUBLE, else float.
 * BAD_PARAM: handle, normDesc, a descriptor, x, y, alpha or beta NULL;
 * lrnMode not ANYDNN_LRN_CROSS_CHANNEL_DIM1; dimensions or types that differ;
 * y overlapping x. NOT_SUPPORTED: integer tensors. */
ANYDNN_API anydnnStatus_t anydnnLRNCrossChannelForward(anydnnHandle_t handle, anydnnLRNDescriptor_t normDesc,
                                                       anydnnLRNMode_t lrnMode, const void *alpha,
                                                       const anydnnTensorDescriptor_t xDesc, const void *x,
                                                       const void *beta, const anydnnTensorDescriptor_t yDesc,
                                                       void *y);
/* dx = alpha * dLRN(x, y, dy) + beta * dx, with s_c = lrnK + lrnAlpha/lrnN *
 * sum over c's window of x^2 (recomputed from x):
 *   dLRN_c = dy_c s_c^-lrnBeta - 2 lrnBeta lrnAlpha/lrnN x_c
 *            * sum over the c' whose window holds c of dy_c' y_c' / s_c'
 * (y is the forward output, read as given). All four tensors: the same
 * dimensions and type, any strides; dx may not overlap y, dy or x. Statuses
 * as the forward pass. */
ANYDNN_API anydnnStatus_t anydnnLRNCrossChannelBackward(anydnnHandle_t handle, anydnnLRNDescriptor_t normDesc,
                                                        anydnnLRNMode_t lrnMode, const void *alpha,
                                                        const anydnnTensorDescriptor_t yDesc, const void *y,
                                                        const anydnnTensorDescriptor_t dyDesc, const void *dy,
                                                        const anydnnTensorDescriptor_t xDesc, const void *x,
                                                        const void *beta, const anydnnTensorDescriptor_t dxDesc,
                                                        void *dx);

/* Divisive normalization (Jarrett et al. 2009), the divisive half of local
 * contrast normalization, with precomputed means m (NULL: 0):
 *   u = x - m,
 *   y = alpha * u * (lrnK + lrnAlpha / lrnN^S * sum over the spatial window of u^2)^-lrnBeta + beta * y
 * where S is the number of spatial dimensions (2 or 3) and the window has
 * lrnN's extents (anydnnSetLRNDescriptor) along each of them, positions
 * outside the tensor counting as 0. xDesc describes x, means, temp and temp2;
 * yDesc y: 4 or 5 dimensions, the same dimensions and floating type, any
 * positive strides. temp and temp2 are scratch of xDesc's shape that the
 * call may overwrite (this implementation does not use them, but they must
 * not be NULL, as in cuDNN). y may not overlap x or means.
 * BAD_PARAM: a NULL argument other than means; mode not
 * ANYDNN_DIVNORM_PRECOMPUTED_MEANS; not 4 or 5 dimensions; dimensions or
 * types that differ; overlaps. NOT_SUPPORTED: integer tensors. */
ANYDNN_API anydnnStatus_t anydnnDivisiveNormalizationForward(anydnnHandle_t handle, anydnnLRNDescriptor_t normDesc,
                                                             anydnnDivNormMode_t mode, const void *alpha,
                                                             const anydnnTensorDescriptor_t xDesc, const void *x,
                                                             const void *means, void *temp, void *temp2,
                                                             const void *beta, const anydnnTensorDescriptor_t yDesc,
                                                             void *y);
/* The gradients of the forward pass's y with respect to x and the means for
 * the incoming gradient dy (xDesc's shape): dx = alpha * dy/dx-product +
 * beta * dx, dMeans = alpha * (-(the same)) + beta * dMeans (y depends on
 * x - m only). dXdMeansDesc describes dx and dMeans; dMeans may be NULL
 * (not computed). Statuses as the forward pass; dx and dMeans may not
 * overlap x, means, dy or each other. */
ANYDNN_API anydnnStatus_t anydnnDivisiveNormalizationBackward(
    anydnnHandle_t handle, anydnnLRNDescriptor_t normDesc, anydnnDivNormMode_t mode, const void *alpha,
    const anydnnTensorDescriptor_t xDesc, const void *x, const void *means, const void *dy, void *temp, void *temp2,
    const void *beta, const anydnnTensorDescriptor_t dXdMeansDesc, void *dx, void *dMeans);

/* ---- Dropout ---- */

/* Dropout with a counter-based generator (Philox4x32-10): the mask of an
 * element depends only on the seed, the forward call's number since the
 * states were initialized, and the element's index in row-major order of
 * the dimensions, so it is the same for every thread count, ISA level and
 * layout. The RNG state (seed and call counter) lives in the caller's states
 * buffer, which anydnnDropoutForward advances by one call. */
typedef struct anydnnDropoutStruct *anydnnDropoutDescriptor_t;

ANYDNN_API anydnnStatus_t anydnnCreateDropoutDescriptor(anydnnDropoutDescriptor_t *dropoutDesc);
ANYDNN_API anydnnStatus_t anydnnDestroyDropoutDescriptor(anydnnDropoutDescriptor_t dropoutDesc);
/* The bytes of the states buffer (64). BAD_PARAM: handle or sizeInBytes NULL. */
ANYDNN_API anydnnStatus_t anydnnDropoutGetStatesSize(anydnnHandle_t handle, size_t *sizeInBytes);
/* The bytes of the reserve space of a forward call on xDesc: one byte per
 * element (1: kept, 0: dropped, in row-major order of the dimensions).
 * BAD_PARAM: xdesc or sizeInBytes NULL, xdesc never set. */
ANYDNN_API anydnnStatus_t anydnnDropoutGetReserveSpaceSize(anydnnTensorDescriptor_t xdesc, size_t *sizeInBytes);
/* Sets the drop probability and, when states is not NULL, initializes the
 * states buffer for `seed` (call counter 0) and attaches it to the
 * descriptor; with states NULL only the probability changes.
 * BAD_PARAM: dropoutDesc or handle NULL, dropout outside [0, 1] or NaN.
 * INVALID_VALUE: stateSizeInBytes smaller than anydnnDropoutGetStatesSize.
 * A failure changes neither the descriptor nor the states. */
ANYDNN_API anydnnStatus_t anydnnSetDropoutDescriptor(anydnnDropoutDescriptor_t dropoutDesc, anydnnHandle_t handle,
                                                     float dropout, void *states, size_t stateSizeInBytes,
                                                     unsigned long long seed);
/* Attaches a states buffer initialized earlier by anydnnSetDropoutDescriptor
 * (or a byte copy of one) without re-initializing it: the sequence of masks
 * continues from the call counter the buffer holds, so restoring a copy
 * saved after Set (or after any forward call) repeats the masks from there.
 * The seed is the buffer's; the `seed` argument is ignored, as in cuDNN.
 * BAD_PARAM: dropoutDesc, handle or states NULL, dropout outside [0, 1],
 * states not initialized by anydnnSetDropoutDescriptor. INVALID_VALUE:
 * stateSizeInBytes too small. */
ANYDNN_API anydnnStatus_t anydnnRestoreDropoutDescriptor(anydnnDropoutDescriptor_t dropoutDesc,
                                                         anydnnHandle_t handle, float dropout, void *states,
                                                         size_t stateSizeInBytes, unsigned long long seed);
/* Any output pointer may be NULL; *seed is the attached states' seed (0
 * without states). BAD_PARAM: dropoutDesc or handle NULL. */
ANYDNN_API anydnnStatus_t anydnnGetDropoutDescriptor(anydnnDropoutDescriptor_t dropoutDesc, anydnnHandle_t handle,
                                                     float *dropout, void **states, unsigned long long *seed);
/* y = x * mask / (1 - p), mask 0 with probability p (the descriptor's
 * dropout), the scale 1 / (1 - p) computed in the compute type (double for
 * DOUBLE, else float). Writes the mask to reserveSpace and advances the
 * states' call counter. p = 0 copies x (mask all 1), p = 1 writes zeros
 * (mask all 0); neither needs states. x and y: the same dimensions and
 * floating type, any positive strides; y may be x's buffer when the
 * descriptors are identical, and may not overlap it otherwise.
 * BAD_PARAM: a NULL argument; the descriptor never set, or 0 < p < 1 and no
 * states attached; dimensions or types that differ; overlaps;
 * reserveSpaceSizeInBytes below anydnnDropoutGetReserveSpaceSize.
 * NOT_SUPPORTED: integer tensors. */
ANYDNN_API anydnnStatus_t anydnnDropoutForward(anydnnHandle_t handle, const anydnnDropoutDescriptor_t dropoutDesc,
                                               const anydnnTensorDescriptor_t xdesc, const void *x,
                                               const anydnnTensorDescriptor_t ydesc, void *y, void *reserveSpace,
                                               size_t reserveSpaceSizeInBytes);
/* dx = dy * mask / (1 - p) with the mask of the forward call that wrote
 * reserveSpace (dy's and dx's dimensions must be that call's). Statuses as
 * anydnnDropoutForward (states are not needed). */
ANYDNN_API anydnnStatus_t anydnnDropoutBackward(anydnnHandle_t handle, const anydnnDropoutDescriptor_t dropoutDesc,
                                                const anydnnTensorDescriptor_t dydesc, const void *dy,
                                                const anydnnTensorDescriptor_t dxdesc, void *dx, void *reserveSpace,
                                                size_t reserveSpaceSizeInBytes);
/* ---- Batch normalization ------------------------------------------------------------------ */

/* Batch normalization as cuDNN 8 defines it. For each statistics group of x
 * (per channel for SPATIAL, per (c, spatial position) for PER_ACTIVATION)
 *   xhat = (x - mean) * invStd,  invStd = 1 / sqrt(var + epsilon),
 *   y = alpha * (scale * xhat + bias) + beta * y,
 * with var the biased (1/m) variance of the group's m elements. x, y, dy, dx
 * (and z): 4 or 5 dimensions, the same type (FLOAT, DOUBLE, HALF or BFLOAT16;
 * the 16-bit types are computed in float), any strides (NCHW, NHWC, padded).
 * scale, bias, the means and variances: the descriptor's shape (see
 * anydnnDeriveBNTensorDescriptor), DOUBLE for DOUBLE data, FLOAT otherwise,
 * any strides. alpha and beta are double for DOUBLE data, else float; beta == 0
 * never reads the output. An output may be its input (y = x, dx = dy) only
 * with identical descriptors. Statistics are summed in double in an order
 * fixed by the shape alone: results are the same, bit for bit, for every
 * thread count. The CPU backend allocates its own scratch: the workspace
 * sizes are 0. */

typedef enum {
    ANYDNN_BATCHNORM_PER_ACTIVATION = 0,    /* statistics per C x spatial element, over N; scale 1xCxHxW */
    ANYDNN_BATCHNORM_SPATIAL = 1,           /* statistics per channel, over N x spatial; scale 1xCx1x1 */
    ANYDNN_BATCHNORM_SPATIAL_PERSISTENT = 2 /* SPATIAL, computed the same way on the CPU */
} anydnnBatchNormMode_t;

/* The fused operations of the Ex forms: BN alone, then activation, or
 * z added before the activation: y = act(bn(x) + z). */
typedef enum {
    ANYDNN_BATCHNORM_OPS_BN = 0,
    ANYDNN_BATCHNORM_OPS_BN_ACTIVATION = 1,
    ANYDNN_BATCHNORM_OPS_BN_ADD_ACTIVATION = 2
} anydnnBatchNormOps_t;

/* The smallest epsilon accepted; a smaller one is BAD_PARAM. */
#define ANYDNN_BN_MIN_EPSILON 1e-5

/* Sets derivedBnDesc to the shape of scale, bias, means and variances for x
 * and mode: 1xCx1x1(x1) for SPATIAL, 1xCxHxW(xD) for PER_ACTIVATION, packed;
 * FLOAT for HALF, BFLOAT16 and FLOAT x, DOUBLE for DOUBLE.
 * BAD_PARAM: a NULL or unset descriptor, an unknown mode, x not 4 or 5-D. */
ANYDNN_API anydnnStatus_t anydnnDeriveBNTensorDescriptor(anydnnTensorDescriptor_t derivedBnDesc,
                                                         const anydnnTensorDescriptor_t xDesc,
                                                         anydnnBatchNormMode_t mode);

/* y = alpha * (bnScale * (x - estimatedMean) / sqrt(estimatedVariance +
 * epsilon) + bnBias) + beta * y.
 * BAD_PARAM: NULL handle, descriptor or pointer; dimensions or types that
 * do not match; epsilon < ANYDNN_BN_MIN_EPSILON; an unknown mode; y overlapping x
 * unless in place. NOT_SUPPORTED: integer data, not 4 or 5 dimensions. */
ANYDNN_API anydnnStatus_t anydnnBatchNormalizationForwardInference(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const anydnnTensorDescriptor_t xDesc, const void *x, const anydnnTensorDescriptor_t yDesc, void *y,
    const anydnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    const void *estimatedMean, const void *estimatedVariance, double epsilon);

/* The training forward pass: the batch statistics of x normalize it, and
 *   running = (1 - exponentialAverageFactor) * running + exponentialAverageFactor * batch
 * updates resultRunningMean and resultRunningVariance (the latter with the
 * unbiased variance, m / (m - 1) times the biased one; m == 1 gives 0);
 * both may be NULL (no update), not one alone. resultSaveMean and
 * resultSaveInvVariance receive the batch mean and 1 / sqrt(var + epsilon)
 * for the backward pass; both may be NULL, not one alone.
 * Statuses as anydnnBatchNormalizationForwardInference; BAD_PARAM also for
 * one of a pair NULL. */
ANYDNN_API anydnnStatus_t anydnnBatchNormalizationForwardTraining(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, const void *alpha, const void *beta,
    const anydnnTensorDescriptor_t xDesc, const void *x, const anydnnTensorDescriptor_t yDesc, void *y,
    const anydnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    double exponentialAverageFactor, void *resultRunningMean, void *resultRunningVariance, double epsilon,
    void *resultSaveMean, void *resultSaveInvVariance);

/* The gradients of the training forward pass:
 *   dx = alphaDataDiff * dL/dx + betaDataDiff * dx,
 *   dBnScaleResult = alphaParamDiff * sum(dy * xhat) + betaParamDiff * dBnScaleResult,
 *   dBnBiasResult  = alphaParamDiff * sum(dy)        + betaParamDiff * dBnBiasResult.
 * savedMean and savedInvVariance are the forward pass's results; both NULL
 * recomputes them from x (not one alone). dx may be dy only in place.
 * Statuses as the forward passes. */
ANYDNN_API anydnnStatus_t anydnnBatchNormalizationBackward(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, const void *alphaDataDiff, const void *betaDataDiff,
    const void *alphaParamDiff, const void *betaParamDiff, const anydnnTensorDescriptor_t xDesc, const void *x,
    const anydnnTensorDescriptor_t dyDesc, const void *dy, const anydnnTensorDescriptor_t dxDesc, void *dx,
    const anydnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScale, void *dBnScaleResult,
    void *dBnBiasResult, double epsilon, const void *savedMean, const void *savedInvVariance);

/* The Ex forms: y = alpha * act(scale * xhat + bias [+ z]) + beta * y with
 * bnOps choosing the add and the activation (activationDesc: RELU only;
 * NULL for OPS_BN). zDesc/zData: OPS_BN_ADD_ACTIVATION only, x's dimensions.
 * The reserve space (anydnnGetBatchNormalizationTrainingExReserveSpaceSize:
 * one byte per element of x with an activation, else 0) receives the
 * activation's mask for the backward pass. Workspaces: 0 bytes (any pointer
 * accepted). BAD_PARAM: a reserve space smaller than its size; the
 * arguments of the plain forms. NOT_SUPPORTED: an activation other than RELU. */
ANYDNN_API anydnnStatus_t anydnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, anydnnBatchNormOps_t bnOps,
    const anydnnTensorDescriptor_t xDesc, const anydnnTensorDescriptor_t zDesc,
    const anydnnTensorDescriptor_t yDesc, const anydnnTensorDescriptor_t bnScaleBiasMeanVarDesc,
    const anydnnActivationDescriptor_t activationDesc, size_t *sizeInBytes);
ANYDNN_API anydnnStatus_t anydnnGetBatchNormalizationBackwardExWorkspaceSize(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, anydnnBatchNormOps_t bnOps,
    const anydnnTensorDescriptor_t xDesc, const anydnnTensorDescriptor_t yDesc,
    const anydnnTensorDescriptor_t dyDesc, const anydnnTensorDescriptor_t dzDesc,
    const anydnnTensorDescriptor_t dxDesc, const anydnnTensorDescriptor_t dBnScaleBiasDesc,
    const anydnnActivationDescriptor_t activationDesc, size_t *sizeInBytes);
ANYDNN_API anydnnStatus_t anydnnGetBatchNormalizationTrainingExReserveSpaceSize(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, anydnnBatchNormOps_t bnOps,
    const anydnnActivationDescriptor_t activationDesc, const anydnnTensorDescriptor_t xDesc,
    size_t *sizeInBytes);
ANYDNN_API anydnnStatus_t anydnnBatchNormalizationForwardTrainingEx(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, anydnnBatchNormOps_t bnOps, const void *alpha,
    const void *beta, const anydnnTensorDescriptor_t xDesc, const void *xData, const anydnnTensorDescriptor_t zDesc,
    const void *zData, const anydnnTensorDescriptor_t yDesc, void *yData,
    const anydnnTensorDescriptor_t bnScaleBiasMeanVarDesc, const void *bnScale, const void *bnBias,
    double exponentialAverageFactor, void *resultRunningMean, void *resultRunningVariance, double epsilon,
    void *resultSaveMean, void *resultSaveInvVariance, anydnnActivationDescriptor_t activationDesc,
    void *workspace, size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes);
/* The gradients of the Ex forward pass: the activation's mask from the
 * reserve space zeroes dy where the activation was off; with
 * OPS_BN_ADD_ACTIVATION the masked dy is also z's gradient, written to dzData
 * (dz = masked dy, not blended). bnBiasData and yData are not read. */
ANYDNN_API anydnnStatus_t anydnnBatchNormalizationBackwardEx(
    anydnnHandle_t handle, anydnnBatchNormMode_t mode, anydnnBatchNormOps_t bnOps, const void *alphaDataDiff,
    const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const anydnnTensorDescriptor_t xDesc, const void *xData, const anydnnTensorDescriptor_t yDesc,
    const void *yData, const anydnnTensorDescriptor_t dyDesc, const void *dyData,
    const anydnnTensorDescriptor_t dzDesc, void *dzData, const anydnnTensorDescriptor_t dxDesc, void *dxData,
    const anydnnTensorDescriptor_t dBnScaleBiasDesc, const void *bnScaleData, const void *bnBiasData,
    void *dBnScaleData, void *dBnBiasData, double epsilon, const void *savedMean, const void *savedInvVariance,
    anydnnActivationDescriptor_t activationDesc, void *workSpace, size_t workSpaceSizeInBytes,
    void *reserveSpace, size_t reserveSpaceSizeInBytes);

/* ---- Normalization ------------------------------------------------------------------------ */

/* cuDNN 8's generic normalization API, with anydnn's extra modes. Every mode
 * is xhat = (x - mean) * invStd over its statistics group, then
 * y = alpha * act(scale * xhat + bias [+ z]) + beta * y, with the semantics,
 * types, strides and statuses of the batch normalization calls above.
 * Shapes, for x of dimensions N x C x spatial (4 or 5 dimensions):
 *   mode                 statistics over     mean/var (normMeanVarDesc)  scale/bias (normScaleBiasDesc)
 *   NORM_PER_ACTIVATION  N                   1 x C x spatial             1 x C x spatial
 *   NORM_PER_CHANNEL     N x spatial         1 x C x 1...                1 x C x 1...
 * anydnn additions (not in cuDNN; groupCnt is ignored except by GROUP):
 *   NORM_LAYER           C x spatial         N x 1 x 1...                1 x C x spatial
 *   NORM_INSTANCE        spatial             N x C x 1...                1 x C x 1...
 *   NORM_GROUP           C/groupCnt x spatial N x groupCnt x 1...        1 x C x 1...
 *   NORM_RMS             C x spatial, with mean 0: invStd = 1 / sqrt(mean(x^2) + eps)
 *                                            N x 1 x 1...                1 x C x spatial
 * LAYER and RMS apply scale and bias per element of a sample (C x spatial),
 * as framework layer norms do over the trailing dimensions; GROUP and
 * INSTANCE per channel. RMS's saved mean is 0 and its bias is applied as
 * given (pass zeros for none). The running averages use the unbiased
 * variance as for batch normalization. The CPU backend allocates its own
 * scratch: the workspace sizes are 0; the reserve space holds one byte per
 * element of x with an activation (the mask for the backward pass), else
 * nothing. BAD_PARAM also: groupCnt < 1 or not dividing C (GROUP), groupCnt
 * other than 1 (the other modes). */

typedef enum {
    ANYDNN_NORM_PER_ACTIVATION = 0,
    ANYDNN_NORM_PER_CHANNEL = 1,
    /* anydnn additions, beyond cuDNN's set (see above) */
    ANYDNN_NORM_LAYER = 100,
    ANYDNN_NORM_INSTANCE = 101,
    ANYDNN_NORM_GROUP = 102,
    ANYDNN_NORM_RMS = 103
} anydnnNormMode_t;

typedef enum { ANYDNN_NORM_ALGO_STANDARD = 0, ANYDNN_NORM_ALGO_PERSIST = 1 } anydnnNormAlgo_t;

typedef enum {
    ANYDNN_NORM_OPS_NORM = 0,
    ANYDNN_NORM_OPS_NORM_ACTIVATION = 1,
    ANYDNN_NORM_OPS_NORM_ADD_ACTIVATION = 2
} anydnnNormOps_t;

/* The shapes of the table above for x, packed, with the type rule of
 * anydnnDeriveBNTensorDescriptor. */
ANYDNN_API anydnnStatus_t anydnnDeriveNormTensorDescriptor(anydnnTensorDescriptor_t derivedNormScaleBiasDesc,
                                                           anydnnTensorDescriptor_t derivedNormMeanVarDesc,
                                                           const anydnnTensorDescriptor_t xDesc,
                                                           anydnnNormMode_t mode, int groupCnt);

ANYDNN_API anydnnStatus_t anydnnNormalizationForwardInference(
    anydnnHandle_t handle, anydnnNormMode_t mode, anydnnNormOps_t normOps, anydnnNormAlgo_t algo,
    const void *alpha, const void *beta, const anydnnTensorDescriptor_t xDesc, const void *x,
    const anydnnTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    const anydnnTensorDescriptor_t normMeanVarDesc, const void *estimatedMean, const void *estimatedVariance,
    const anydnnTensorDescriptor_t zDesc, const void *z, anydnnActivationDescriptor_t activationDesc,
    const anydnnTensorDescriptor_t yDesc, void *y, double epsilon, int groupCnt);

ANYDNN_API anydnnStatus_t anydnnGetNormalizationForwardTrainingWorkspaceSize(
    anydnnHandle_t handle, anydnnNormMode_t mode, anydnnNormOps_t normOps, anydnnNormAlgo_t algo,
    const anydnnTensorDescriptor_t xDesc, const anydnnTensorDescriptor_t zDesc,
    const anydnnTensorDescriptor_t yDesc, const anydnnTensorDescriptor_t normScaleBiasDesc,
    const anydnnActivationDescriptor_t activationDesc, const anydnnTensorDescriptor_t normMeanVarDesc,
    size_t *sizeInBytes, int groupCnt);
ANYDNN_API anydnnStatus_t anydnnGetNormalizationBackwardWorkspaceSize(
    anydnnHandle_t handle, anydnnNormMode_t mode, anydnnNormOps_t normOps, anydnnNormAlgo_t algo,
    const anydnnTensorDescriptor_t xDesc, const anydnnTensorDescriptor_t yDesc,
    const anydnnTensorDescriptor_t dyDesc, const anydnnTensorDescriptor_t dzDesc,
    const anydnnTensorDescriptor_t dxDesc, const anydnnTensorDescriptor_t dNormScaleBiasDesc,
    const anydnnActivationDescriptor_t activationDesc, const anydnnTensorDescriptor_t normMeanVarDesc,
    size_t *sizeInBytes, int groupCnt);
ANYDNN_API anydnnStatus_t anydnnGetNormalizationTrainingReserveSpaceSize(
    anydnnHandle_t handle, anydnnNormMode_t mode, anydnnNormOps_t normOps, anydnnNormAlgo_t algo,
    const anydnnActivationDescriptor_t activationDesc, const anydnnTensorDescriptor_t xDesc, size_t *sizeInBytes,
    int groupCnt);

ANYDNN_API anydnnStatus_t anydnnNormalizationForwardTraining(
    anydnnHandle_t handle, anydnnNormMode_t mode, anydnnNormOps_t normOps, anydnnNormAlgo_t algo,
    const void *alpha, const void *beta, const anydnnTensorDescriptor_t xDesc, const void *xData,
    const anydnnTensorDescriptor_t normScaleBiasDesc, const void *normScale, const void *normBias,
    double exponentialAverageFactor, const anydnnTensorDescriptor_t normMeanVarDesc, void *resultRunningMean,
    void *resultRunningVariance, double epsilon, void *resultSaveMean, void *resultSaveInvVariance,
    anydnnActivationDescriptor_t activationDesc, const anydnnTensorDescriptor_t zDesc, const void *zData,
    const anydnnTensorDescriptor_t yDesc, void *yData, void *workspace, size_t workSpaceSizeInBytes,
    void *reserveSpace, size_t reserveSpaceSizeInBytes, int groupCnt);

ANYDNN_API anydnnStatus_t anydnnNormalizationBackward(
    anydnnHandle_t handle, anydnnNormMode_t mode, anydnnNormOps_t normOps, anydnnNormAlgo_t algo,
    const void *alphaDataDiff, const void *betaDataDiff, const void *alphaParamDiff, const void *betaParamDiff,
    const anydnnTensorDescriptor_t xDesc, const void *xData, const anydnnTensorDescriptor_t yDesc,
    const void *yData, const anydnnTensorDescriptor_t dyDesc, const void *dyData,
    const anydnnTensorDescriptor_t dzDesc, void *dzData, const anydnnTensorDescriptor_t dxDesc, void *dxData,
    const anydnnTensorDescriptor_t dNormScaleBiasDesc, const void *normScaleData, const void *normBiasData,
    void *dNormScaleData, void *dNormBiasData, double epsilon, const anydnnTensorDescriptor_t normMeanVarDesc,
    const void *savedMean, const void *savedInvVariance, anydnnActivationDescriptor_t activationDesc,
    void *workSpace, size_t workSpaceSizeInBytes, void *reserveSpace, size_t reserveSpaceSizeInBytes,
    int groupCnt);

#ifdef __cplusplus
}
#endif

#endif /* ANYDNN_OPS_H_ */
