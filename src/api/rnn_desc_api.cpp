// C entry points of the RNN and RNN-data descriptors (anydnn_adv.h).
#include <cstring>

#include "anydnn/anydnn_adv.h"
#include "api/api_call.hpp"
#include "core/handle.hpp"
#include "ops/rnn_desc.hpp"

using namespace anydnn;

extern "C" {

anydnnStatus_t anydnnCreateRNNDescriptor(anydnnRNNDescriptor_t *rnnDesc) {
    return api_call("anydnnCreateRNNDescriptor", nullptr, [&] {
        if (rnnDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "rnnDesc is NULL");
        *rnnDesc = new anydnnRNNStruct;
        return kSuccess;
    });
}

anydnnStatus_t anydnnDestroyRNNDescriptor(anydnnRNNDescriptor_t rnnDesc) {
    return api_call("anydnnDestroyRNNDescriptor", nullptr, [&] {
        delete rnnDesc;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetRNNDescriptor_v8(anydnnRNNDescriptor_t rnnDesc, anydnnRNNAlgo_t algo,
                                         anydnnRNNMode_t cellMode, anydnnRNNBiasMode_t biasMode,
                                         anydnnDirectionMode_t dirMode, anydnnRNNInputMode_t inputMode,
                                         anydnnDataType_t dataType, anydnnDataType_t mathPrec,
                                         anydnnMathType_t mathType, int32_t inputSize, int32_t hiddenSize,
                                         int32_t projSize, int32_t numLayers,
                                         anydnnDropoutDescriptor_t dropoutDesc, uint32_t auxFlags) {
    return api_call("anydnnSetRNNDescriptor_v8", nullptr, [&] {
        if (rnnDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "rnnDesc is NULL");
        ops::RnnConfig c;
        ANYDNN_TRY(ops::make_rnn_config(algo, cellMode, biasMode, dirMode, inputMode, dataType, mathPrec, mathType,
                                        inputSize, hiddenSize, projSize, numLayers, dropoutDesc, auxFlags, &c));
        rnnDesc->config = c;
        rnnDesc->is_set = true;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetRNNDescriptor_v8(anydnnRNNDescriptor_t rnnDesc, anydnnRNNAlgo_t *algo,
                                         anydnnRNNMode_t *cellMode, anydnnRNNBiasMode_t *biasMode,
                                         anydnnDirectionMode_t *dirMode, anydnnRNNInputMode_t *inputMode,
                                         anydnnDataType_t *dataType, anydnnDataType_t *mathPrec,
                                         anydnnMathType_t *mathType, int32_t *inputSize, int32_t *hiddenSize,
                                         int32_t *projSize, int32_t *numLayers,
                                         anydnnDropoutDescriptor_t *dropoutDesc, uint32_t *auxFlags) {
    return api_call("anydnnGetRNNDescriptor_v8", nullptr, [&] {
        const anydnnRNNStruct *d;
        ANYDNN_TRY(ops::rnn_desc_arg(rnnDesc, &d));
        const ops::RnnConfig &c = d->config;
        if (algo != nullptr) *algo = c.algo;
        if (cellMode != nullptr) *cellMode = c.mode;
        if (biasMode != nullptr) *biasMode = c.bias_mode;
        if (dirMode != nullptr) *dirMode = c.dir_mode;
        if (inputMode != nullptr) *inputMode = c.input_mode;
        if (dataType != nullptr) *dataType = c.dt;
        if (mathPrec != nullptr) *mathPrec = c.math_prec;
        if (mathType != nullptr) *mathType = c.math_type;
        if (inputSize != nullptr) *inputSize = c.input_size;
        if (hiddenSize != nullptr) *hiddenSize = c.hidden_size;
        if (projSize != nullptr) *projSize = c.proj_size;
        if (numLayers != nullptr) *numLayers = c.num_layers;
        if (dropoutDesc != nullptr) *dropoutDesc = c.dropout;
        if (auxFlags != nullptr) *auxFlags = c.aux_flags;
        return kSuccess;
    });
}

anydnnStatus_t anydnnRNNSetClip_v8(anydnnRNNDescriptor_t rnnDesc, anydnnRNNClipMode_t clipMode,
                                   anydnnNanPropagation_t clipNanOpt, double lclip, double rclip) {
    return api_call("anydnnRNNSetClip_v8", nullptr, [&] {
        if (rnnDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "rnnDesc is NULL");
        ops::RnnClip clip;
        ANYDNN_TRY(ops::make_rnn_clip(clipMode, clipNanOpt, lclip, rclip, &clip));
        rnnDesc->clip = clip;
        return kSuccess;
    });
}

anydnnStatus_t anydnnRNNGetClip_v8(anydnnRNNDescriptor_t rnnDesc, anydnnRNNClipMode_t *clipMode,
                                   anydnnNanPropagation_t *clipNanOpt, double *lclip, double *rclip) {
    return api_call("anydnnRNNGetClip_v8", nullptr, [&] {
        if (rnnDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "rnnDesc is NULL");
        const ops::RnnClip &c = rnnDesc->clip;
        if (clipMode != nullptr) *clipMode = c.mode;
        if (clipNanOpt != nullptr) *clipNanOpt = c.nan;
        if (lclip != nullptr) *lclip = c.lclip;
        if (rclip != nullptr) *rclip = c.rclip;
        return kSuccess;
    });
}

anydnnStatus_t anydnnBuildRNNDynamic(anydnnHandle_t handle, anydnnRNNDescriptor_t rnnDesc, int miniBatch) {
    return api_call("anydnnBuildRNNDynamic", handle, [&] {
        const Handle *h;
        const anydnnRNNStruct *d;
        ANYDNN_TRY(handle_arg(handle, &h));
        ANYDNN_TRY(ops::rnn_desc_arg(rnnDesc, &d));
        if (miniBatch < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "miniBatch is %d, must be >= 1", miniBatch);
        return kSuccess;
    });
}

anydnnStatus_t anydnnCreateRNNDataDescriptor(anydnnRNNDataDescriptor_t *rnnDataDesc) {
    return api_call("anydnnCreateRNNDataDescriptor", nullptr, [&] {
        if (rnnDataDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "rnnDataDesc is NULL");
        *rnnDataDesc = new anydnnRNNDataStruct;
        return kSuccess;
    });
}

anydnnStatus_t anydnnDestroyRNNDataDescriptor(anydnnRNNDataDescriptor_t rnnDataDesc) {
    return api_call("anydnnDestroyRNNDataDescriptor", nullptr, [&] {
        delete rnnDataDesc;
        return kSuccess;
    });
}

anydnnStatus_t anydnnSetRNNDataDescriptor(anydnnRNNDataDescriptor_t rnnDataDesc, anydnnDataType_t dataType,
                                          anydnnRNNDataLayout_t layout, int maxSeqLength, int batchSize,
                                          int vectorSize, const int seqLengthArray[], void *paddingFill) {
    return api_call("anydnnSetRNNDataDescriptor", nullptr, [&] {
        if (rnnDataDesc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "rnnDataDesc is NULL");
        ops::RnnData d;
        ANYDNN_TRY(ops::make_rnn_data(dataType, layout, maxSeqLength, batchSize, vectorSize, seqLengthArray,
                                      paddingFill, &d));
        rnnDataDesc->data = std::move(d);
        rnnDataDesc->is_set = true;
        return kSuccess;
    });
}

anydnnStatus_t anydnnGetRNNDataDescriptor(anydnnRNNDataDescriptor_t rnnDataDesc, anydnnDataType_t *dataType,
                                          anydnnRNNDataLayout_t *layout, int *maxSeqLength, int *batchSize,
                                          int *vectorSize, int arrayLengthRequested, int seqLengthArray[],
                                          void *paddingFill) {
    return api_call("anydnnGetRNNDataDescriptor", nullptr, [&] {
        const ops::RnnData *d;
        ANYDNN_TRY(ops::rnn_data_arg(rnnDataDesc, "rnnDataDesc", &d));
        if (arrayLengthRequested < 0)
            return fail(ANYDNN_STATUS_BAD_PARAM, "arrayLengthRequested is %d, must be >= 0", arrayLengthRequested);
        if (dataType != nullptr) *dataType = d->dt;
        if (layout != nullptr) *layout = d->layout;
        if (maxSeqLength != nullptr) *maxSeqLength = d->max_seq;
        if (batchSize != nullptr) *batchSize = d->batch;
        if (vectorSize != nullptr) *vectorSize = d->vec;
        if (seqLengthArray != nullptr)
            for (int b = 0; b < arrayLengthRequested && b < d->batch; ++b) seqLengthArray[b] = d->lengths[b];
        if (paddingFill != nullptr) {
            // A value of the descriptor's type: double for DOUBLE, float otherwise.
            if (d->dt == ANYDNN_DATA_DOUBLE) {
                std::memcpy(paddingFill, &d->fill, sizeof(double));
            } else {
                const float f = static_cast<float>(d->fill);
                std::memcpy(paddingFill, &f, sizeof(float));
            }
        }
        return kSuccess;
    });
}

}  // extern "C"
