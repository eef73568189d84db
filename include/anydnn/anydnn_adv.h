/* anydnn_adv.h: recurrent networks (RNN with ReLU / tanh, LSTM, GRU).
 *
 * Semantics are cuDNN 8's v8 RNN API (cudnn_adv_infer.h / cudnn_adv_train.h):
 * cudnnSetRNNDescriptor_v8, cudnnSetRNNDataDescriptor, cudnnRNNForward,
 * cudnnRNNBackwardData_v8, cudnnRNNBackwardWeights_v8. On the CPU every
 * "device" pointer is a host pointer (devSeqLengths included).
 *
 * The cells, per time step t and pseudo-layer (layer, direction), with x_t
 * the layer's input, h_{t-1} / c_{t-1} the previous step's state (hx / cx,
 * or zeros, at the first step of a sequence), W the input matrices, R the
 * recurrent matrices, bW / bR their biases, s the logistic sigmoid:
 *   RNN_RELU / RNN_TANH:  h_t = act(W x_t + bW + R h_{t-1} + bR)
 *   LSTM (gates i, f, g, o, in that order: linLayerID 0-3 input, 4-7 recurrent):
 *     i = s(W_i x_t + bW_i + R_i h_{t-1} + bR_i)   (f, o alike)
 *     g = tanh(W_g x_t + bW_g + R_g h_{t-1} + bR_g)
 *     c_t = f * c_{t-1} + i * g     (then clipped to [lclip, rclip] when clipping is on)
 *     h_t = o * tanh(c_t), and with a projection (projSize < hiddenSize)
 *     h_t = P (o * tanh(c_t)), P projSize x hiddenSize (linLayerID 8, no bias)
 *   GRU (gates r, z, n: linLayerID 0-2 input, 3-5 recurrent; cuDNN's variant,
 *   the reset gate applied after the recurrent product, "linear before reset"):
 *     r = s(W_r x_t + bW_r + R_r h_{t-1} + bR_r)   (z alike)
 *     n = tanh(W_n x_t + bW_n + r * (R_n h_{t-1} + bR_n))
 *     h_t = (1 - z) * n + z * h_{t-1}
 * Missing biases (NO_BIAS; SINGLE_INP_BIAS has only bW, SINGLE_REC_BIAS only
 * bR) are zero. SKIP_INPUT: the first layer has no input matrices, W x_t is
 * x_t itself for every gate (inputSize must equal hiddenSize); its input
 * biases remain. Layer l > 0 reads layer l - 1's output: projSize values per
 * direction, the forward direction's first for BIDIRECTIONAL. The reverse
 * direction runs each sequence from its last valid step to its first. In
 * training mode with a dropout descriptor of probability p > 0, each layer's
 * output except the last layer's passes through dropout before the next
 * layer reads it (y itself is never dropped).
 *
 * The weight space holds every matrix and bias; where each lies is
 * anydnnGetRNNWeightParams' answer (do not assume a layout). */
#ifndef ANYDNN_ADV_H_
#define ANYDNN_ADV_H_

#include <stdint.h>

#include "anydnn_core.h"
#include "anydnn_ops.h"
#include "anydnn_cnn.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- RNN descriptor ------------------------------------------------------------------- */

typedef enum {
    ANYDNN_RNN_RELU = 0,
    ANYDNN_RNN_TANH = 1,
    ANYDNN_LSTM = 2,
    ANYDNN_GRU = 3
} anydnnRNNMode_t;

typedef enum {
    ANYDNN_RNN_NO_BIAS = 0,
    ANYDNN_RNN_SINGLE_INP_BIAS = 1,
    ANYDNN_RNN_DOUBLE_BIAS = 2,
    ANYDNN_RNN_SINGLE_REC_BIAS = 3
} anydnnRNNBiasMode_t;

typedef enum {
    ANYDNN_UNIDIRECTIONAL = 0,
    ANYDNN_BIDIRECTIONAL = 1
} anydnnDirectionMode_t;

typedef enum {
    ANYDNN_LINEAR_INPUT = 0,
    ANYDNN_SKIP_INPUT = 1
} anydnnRNNInputMode_t;

/* The CPU backend computes every algorithm the same way (they differ only in
 * how a GPU keeps the recurrent weights); all are accepted and reported back. */
typedef enum {
    ANYDNN_RNN_ALGO_STANDARD = 0,
    ANYDNN_RNN_ALGO_PERSIST_STATIC = 1,
    ANYDNN_RNN_ALGO_PERSIST_DYNAMIC = 2,
    ANYDNN_RNN_ALGO_PERSIST_STATIC_SMALL_H = 3,
    ANYDNN_RNN_ALGO_COUNT = 4
} anydnnRNNAlgo_t;

typedef enum {
    ANYDNN_RNN_CLIP_NONE = 0,
    ANYDNN_RNN_CLIP_MINMAX = 1
} anydnnRNNClipMode_t;

typedef enum {
    ANYDNN_FWD_MODE_INFERENCE = 0,
    ANYDNN_FWD_MODE_TRAINING = 1
} anydnnForwardMode_t;

typedef enum {
    ANYDNN_WGRAD_MODE_ADD = 0, /* dweightSpace += the gradient (cuDNN 8's only mode) */
    ANYDNN_WGRAD_MODE_SET = 1  /* dweightSpace = the gradient */
} anydnnWgradMode_t;

/* auxFlags bits. */
#define ANYDNN_RNN_PADDED_IO_DISABLED 0
#define ANYDNN_RNN_PADDED_IO_ENABLED (1U << 0)

typedef struct anydnnRNNStruct *anydnnRNNDescriptor_t;

ANYDNN_API anydnnStatus_t anydnnCreateRNNDescriptor(anydnnRNNDescriptor_t *rnnDesc);
ANYDNN_API anydnnStatus_t anydnnDestroyRNNDescriptor(anydnnRNNDescriptor_t rnnDesc);

/* dataType: FLOAT, DOUBLE, HALF or BFLOAT16 (the storage type of x, y, the
 * states and the weights). mathPrec: DOUBLE for DOUBLE data, FLOAT for FLOAT
 * data, FLOAT or HALF for HALF data (computed in float either way), FLOAT
 * for BFLOAT16 data. projSize: hiddenSize (no projection) or, for LSTM only,
 * 1..hiddenSize - 1. dropoutDesc: NULL or a dropout descriptor, read at each
 * training forward call (it must then have states when 0 < p < 1); the
 * descriptor is referenced, not copied. auxFlags: ANYDNN_RNN_PADDED_IO_ENABLED
 * is required for the unpacked data layouts, as in cuDNN.
 * BAD_PARAM: rnnDesc NULL; an unknown enum; inputSize, hiddenSize or
 * numLayers < 1; projSize outside [1, hiddenSize], or < hiddenSize for a
 * mode other than LSTM; SKIP_INPUT with inputSize != hiddenSize; a
 * dataType / mathPrec pair not listed; unknown auxFlags bits. A failure
 * leaves the descriptor unchanged. */
ANYDNN_API anydnnStatus_t anydnnSetRNNDescriptor_v8(anydnnRNNDescriptor_t rnnDesc, anydnnRNNAlgo_t algo,
                                                    anydnnRNNMode_t cellMode, anydnnRNNBiasMode_t biasMode,
                                                    anydnnDirectionMode_t dirMode, anydnnRNNInputMode_t inputMode,
                                                    anydnnDataType_t dataType, anydnnDataType_t mathPrec,
                                                    anydnnMathType_t mathType, int32_t inputSize, int32_t hiddenSize,
                                                    int32_t projSize, int32_t numLayers,
                                                    anydnnDropoutDescriptor_t dropoutDesc, uint32_t auxFlags);
/* Any output pointer may be NULL. BAD_PARAM: rnnDesc NULL or never set. */
ANYDNN_API anydnnStatus_t anydnnGetRNNDescriptor_v8(anydnnRNNDescriptor_t rnnDesc, anydnnRNNAlgo_t *algo,
                                                    anydnnRNNMode_t *cellMode, anydnnRNNBiasMode_t *biasMode,
                                                    anydnnDirectionMode_t *dirMode, anydnnRNNInputMode_t *inputMode,
                                                    anydnnDataType_t *dataType, anydnnDataType_t *mathPrec,
                                                    anydnnMathType_t *mathType, int32_t *inputSize,
                                                    int32_t *hiddenSize, int32_t *projSize, int32_t *numLayers,
                                                    anydnnDropoutDescriptor_t *dropoutDesc, uint32_t *auxFlags);
/* LSTM cell clipping: with MINMAX, c_t is clamped to [lclip, rclip] in every
 * layer (the gradient is zero where the clamp is active). clipNanOpt
 * PROPAGATE_NAN keeps a NaN c_t; NOT_PROPAGATE_NAN turns it into lclip.
 * Other cell modes accept and ignore the setting. BAD_PARAM: rnnDesc NULL,
 * an unknown enum, with MINMAX: lclip > rclip or either NaN. */
ANYDNN_API anydnnStatus_t anydnnRNNSetClip_v8(anydnnRNNDescriptor_t rnnDesc, anydnnRNNClipMode_t clipMode,
                                              anydnnNanPropagation_t clipNanOpt, double lclip, double rclip);
ANYDNN_API anydnnStatus_t anydnnRNNGetClip_v8(anydnnRNNDescriptor_t rnnDesc, anydnnRNNClipMode_t *clipMode,
                                              anydnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip);
/* For PERSIST_DYNAMIC on a GPU; nothing to build on the CPU (SUCCESS).
 * BAD_PARAM: handle or rnnDesc NULL, rnnDesc never set, miniBatch < 1. */
ANYDNN_API anydnnStatus_t anydnnBuildRNNDynamic(anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc, int miniBatch);

/* ---- RNN data descriptor ------------------------------------------------------------
 *
 * A batch of sequences of vectors: batchSize sequences, sequence b holding
 * seqLengthArray[b] (0..maxSeqLength) vectors of vectorSize elements.
 *   SEQ_MAJOR_UNPACKED:   [maxSeqLength][batchSize][vectorSize]; step t of
 *                         sequence b at (t * batchSize + b) * vectorSize.
 *   BATCH_MAJOR_UNPACKED: [batchSize][maxSeqLength][vectorSize]; step t of
 *                         sequence b at (b * maxSeqLength + t) * vectorSize.
 *   SEQ_MAJOR_PACKED:     the valid steps only, time major: step t holds the
 *                         sequences with length > t, in batch order; the
 *                         lengths must be non-increasing.
 * In the unpacked layouts the positions past a sequence's end are padding:
 * never read, and in an output (y, dx) set to *paddingFill when the output's
 * descriptor has one (else left as they are). */

typedef enum {
    ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED = 0,
    ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED = 1,
    ANYDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED = 2
} anydnnRNNDataLayout_t;

typedef struct anydnnRNNDataStruct *anydnnRNNDataDescriptor_t;

ANYDNN_API anydnnStatus_t anydnnCreateRNNDataDescriptor(anydnnRNNDataDescriptor_t *rnnDataDesc);
ANYDNN_API anydnnStatus_t anydnnDestroyRNNDataDescriptor(anydnnRNNDataDescriptor_t rnnDataDesc);
/* paddingFill: NULL or a value of dataType (double for DOUBLE, float for
 * FLOAT, HALF and BFLOAT16), copied. BAD_PARAM: rnnDataDesc or
 * seqLengthArray NULL; dataType not FLOAT, DOUBLE, HALF or BFLOAT16; an
 * unknown layout; maxSeqLength, batchSize or vectorSize < 1; a length
 * outside [0, maxSeqLength]; PACKED lengths that increase. */
ANYDNN_API anydnnStatus_t anydnnSetRNNDataDescriptor(anydnnRNNDataDescriptor_t rnnDataDesc, anydnnDataType_t dataType,
                                                     anydnnRNNDataLayout_t layout, int maxSeqLength, int batchSize,
                                                     int vectorSize, const int seqLengthArray[], void *paddingFill);
/* Writes min(arrayLengthRequested, batchSize) lengths; *paddingFill gets
 * the fill value (0 when none was set). Any output pointer may be NULL.
 * BAD_PARAM: rnnDataDesc NULL or never set, arrayLengthRequested < 0. */
ANYDNN_API anydnnStatus_t anydnnGetRNNDataDescriptor(anydnnRNNDataDescriptor_t rnnDataDesc,
                                                     anydnnDataType_t *dataType, anydnnRNNDataLayout_t *layout,
                                                     int *maxSeqLength, int *batchSize, int *vectorSize,
                                                     int arrayLengthRequested, int seqLengthArray[],
                                                     void *paddingFill);

/* ---- Weights and buffers ------------------------------------------------------------- */

/* BAD_PARAM: a NULL argument, rnnDesc never set. */
ANYDNN_API anydnnStatus_t anydnnGetRNNWeightSpaceSize(anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc,
                                                      size_t *weightSpaceSize);
/* Where matrix and bias linLayerID of pseudoLayer (layer * directions +
 * direction) lie in weightSpace. mDesc (if not NULL) is set to the matrix's
 * shape {1, rows, cols}, fully packed row major, of the RNN's data type, and
 * *mAddr to its address; bDesc / *bAddr likewise for the bias, {1, rows, 1}.
 * rows x cols: input matrices hiddenSize x (inputSize for layer 0, else
 * projSize * directions), recurrent matrices hiddenSize x projSize, the
 * projection projSize x hiddenSize. A matrix or bias that does not exist
 * (SKIP_INPUT's first-layer input matrices, biases the bias mode omits, the
 * projection's bias, the projection when there is none) gives a NULL
 * address and a descriptor with 0 dimensions (anydnnGetTensorNdDescriptor
 * reports nbDims 0). linLayerID: 0-1 RNN, 0-7 LSTM (8: the projection), 0-5
 * GRU. BAD_PARAM: handle or rnnDesc NULL, rnnDesc never set, pseudoLayer or
 * linLayerID out of range, weightSpace NULL, weightSpaceSize below
 * anydnnGetRNNWeightSpaceSize. */
ANYDNN_API anydnnStatus_t anydnnGetRNNWeightParams(anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc,
                                                   int32_t pseudoLayer, size_t weightSpaceSize,
                                                   const void *weightSpace, int32_t linLayerID,
                                                   anydnnTensorDescriptor_t mDesc, void **mAddr,
                                                   anydnnTensorDescriptor_t bDesc, void **bAddr);
/* The work space of a forward / backward call and the reserve space a
 * training forward call fills for the backward calls (0 for INFERENCE);
 * either output may be NULL. The sizes depend on xDesc's maxSeqLength and
 * batchSize only. BAD_PARAM: handle, rnnDesc or xDesc NULL or never set,
 * an unknown fwdMode, xDesc's vectorSize not the RNN's inputSize or its
 * data type not the RNN's. */
ANYDNN_API anydnnStatus_t anydnnGetRNNTempSpaceSizes(anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc,
                                                     anydnnForwardMode_t fwdMode, anydnnRNNDataDescriptor_t xDesc,
                                                     size_t *workSpaceSize, size_t *reserveSpaceSize);

/* ---- Forward and backward -------------------------------------------------------------
 *
 * Shapes: xDesc vectorSize inputSize; yDesc the same layout, lengths and
 * batch, vectorSize projSize * directions; hDesc {numLayers * directions,
 * batchSize, projSize} and cDesc {numLayers * directions, batchSize,
 * hiddenSize}, 3-D, fully packed, of the RNN's data type (cDesc is used for
 * LSTM only and may be NULL otherwise). devSeqLengths: NULL, or batchSize
 * lengths equal to xDesc's. hx / cx NULL: zero initial state; hy / cy NULL:
 * the final state is not written. hy of sequence b is the state after its
 * last valid step (after its first step for the reverse direction); a
 * sequence of length 0 passes hx through to hy. Outputs may not overlap
 * inputs or each other. */

/* fwdMode TRAINING also fills reserveSpace for the backward calls (which
 * need the same descriptors, weights and x) and draws the dropout masks
 * (advancing the dropout states by one call); INFERENCE never reads or
 * writes reserveSpace (it may be NULL). BAD_PARAM: a NULL handle,
 * descriptor, x, y or weightSpace; descriptors never set or whose shapes or
 * types disagree (above); devSeqLengths that differ from xDesc's; a buffer
 * size below what the size queries answer; an unpacked layout without
 * ANYDNN_RNN_PADDED_IO_ENABLED; dropout 0 < p < 1 without states. */
ANYDNN_API anydnnStatus_t anydnnRNNForward(anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc,
                                           anydnnForwardMode_t fwdMode, const int32_t devSeqLengths[],
                                           anydnnRNNDataDescriptor_t xDesc, const void *x,
                                           anydnnRNNDataDescriptor_t yDesc, void *y, anydnnTensorDescriptor_t hDesc,
                                           const void *hx, void *hy, anydnnTensorDescriptor_t cDesc, const void *cx,
                                           void *cy, size_t weightSpaceSize, const void *weightSpace,
                                           size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize,
                                           void *reserveSpace);
/* The gradients of the inputs from dy (and dhy / dcy, NULL meaning zero):
 * dx, dhx, dcx (NULL: not written), after a TRAINING forward call that
 * filled reserveSpace. It also stores in reserveSpace what
 * anydnnRNNBackwardWeights_v8 needs, so it must run first. y is the
 * forward call's output. Statuses as anydnnRNNForward (dy, dx and
 * reserveSpace may not be NULL). */
ANYDNN_API anydnnStatus_t anydnnRNNBackwardData_v8(
    anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc, const int32_t devSeqLengths[],
    anydnnRNNDataDescriptor_t yDesc, const void *y, const void *dy, anydnnRNNDataDescriptor_t xDesc, void *dx,
    anydnnTensorDescriptor_t hDesc, const void *hx, const void *dhy, void *dhx, anydnnTensorDescriptor_t cDesc,
    const void *cx, const void *dcy, void *dcx, size_t weightSpaceSize, const void *weightSpace,
    size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize, void *reserveSpace);
/* The weight gradient, after anydnnRNNBackwardData_v8 on the same
 * reserveSpace: added into dweightSpace (ADD) or written there (SET), at
 * the positions anydnnGetRNNWeightParams gives for the weights. x, hx and y
 * are the forward call's. Statuses as anydnnRNNForward (BAD_PARAM also for
 * an unknown addGrad). */
ANYDNN_API anydnnStatus_t anydnnRNNBackwardWeights_v8(anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc,
                                                      anydnnWgradMode_t addGrad, const int32_t devSeqLengths[],
                                                      anydnnRNNDataDescriptor_t xDesc, const void *x,
                                                      anydnnTensorDescriptor_t hDesc, const void *hx,
                                                      anydnnRNNDataDescriptor_t yDesc, const void *y,
                                                      size_t weightSpaceSize, void *dweightSpace,
                                                      size_t workSpaceSize, void *workSpace, size_t reserveSpaceSize,
                                                      void *reserveSpace);

#ifdef __cplusplus
}
#endif

#endif /* ANYDNN_ADV_H_ */
