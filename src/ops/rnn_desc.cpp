#include "ops/rnn_desc.hpp"

#include <cmath>
#include <cstring>

#include "core/dtype.hpp"

namespace anydnn::ops {

namespace {

bool rnn_dtype(anydnnDataType_t dt) {
    return dt == ANYDNN_DATA_FLOAT || dt == ANYDNN_DATA_DOUBLE || dt == ANYDNN_DATA_HALF ||
           dt == ANYDNN_DATA_BFLOAT16;
}

bool math_prec_ok(anydnnDataType_t dt, anydnnDataType_t prec) {
    switch (dt) {
    case ANYDNN_DATA_DOUBLE: return prec == ANYDNN_DATA_DOUBLE;
    case ANYDNN_DATA_HALF: return prec == ANYDNN_DATA_FLOAT || prec == ANYDNN_DATA_HALF;
    default: return prec == ANYDNN_DATA_FLOAT;  // FLOAT, BFLOAT16
    }
}

}  // namespace

RnnWeightLayout rnn_weight_layout(const RnnConfig &c) {
    RnnWeightLayout wl;
    const int64_t gh = int64_t{c.gates()} * c.hidden_size;
    int64_t at = 0;
    auto take = [&](int64_t n) {
        const int64_t o = at;
        at += n;
        return o;
    };
    for (int pl = 0; pl < c.pseudo_layers(); ++pl) {
        const int layer = pl / c.dirs();
        RnnLayerWeights w;
        w.in_cols = c.in_cols(layer);
        if (c.has_input_matrices(layer)) w.w = take(gh * w.in_cols);
        w.r = take(gh * c.proj_size);
        if (c.has_proj()) w.proj = take(int64_t{c.proj_size} * c.hidden_size);
        if (c.has_bw()) w.bw = take(gh);
        if (c.has_br()) w.br = take(gh);
        wl.layers.push_back(w);
    }
    wl.elements = at;
    return wl;
}

void rnn_lin_layer(const RnnConfig &c, const RnnWeightLayout &wl, int pseudo_layer, int id, RnnWeightPiece *matrix,
                   RnnWeightPiece *bias) {
    const RnnLayerWeights &w = wl.layers[pseudo_layer];
    const int g = c.gates();
    const int64_t h = c.hidden_size;
    *matrix = RnnWeightPiece{};
    *bias = RnnWeightPiece{};
    if (id == 2 * g) {  // LSTM's projection: no bias
        if (w.proj >= 0) *matrix = {w.proj, c.proj_size, h};
        return;
    }
    const bool input = id < g;
    const int64_t gate = input ? id : id - g;
    const int64_t m = input ? w.w : w.r, b = input ? w.bw : w.br;
    if (m >= 0) {
        const int64_t cols = input ? w.in_cols : c.proj_size;
        *matrix = {m + gate * h * cols, h, cols};
    }
    if (b >= 0) *bias = {b + gate * h, h, 1};
}

Status make_rnn_config(anydnnRNNAlgo_t algo, anydnnRNNMode_t mode, anydnnRNNBiasMode_t bias_mode,
                       anydnnDirectionMode_t dir_mode, anydnnRNNInputMode_t input_mode, anydnnDataType_t dt,
                       anydnnDataType_t math_prec, anydnnMathType_t math_type, int32_t input_size,
                       int32_t hidden_size, int32_t proj_size, int32_t num_layers, anydnnDropoutStruct *dropout,
                       uint32_t aux_flags, RnnConfig *out) {
    if (algo < 0 || algo >= ANYDNN_RNN_ALGO_COUNT) return fail(ANYDNN_STATUS_BAD_PARAM, "algo %d is unknown", algo);
    if (mode < ANYDNN_RNN_RELU || mode > ANYDNN_GRU)
        return fail(ANYDNN_STATUS_BAD_PARAM, "cellMode %d is unknown", mode);
    if (bias_mode < ANYDNN_RNN_NO_BIAS || bias_mode > ANYDNN_RNN_SINGLE_REC_BIAS)
        return fail(ANYDNN_STATUS_BAD_PARAM, "biasMode %d is unknown", bias_mode);
    if (dir_mode != ANYDNN_UNIDIRECTIONAL && dir_mode != ANYDNN_BIDIRECTIONAL)
        return fail(ANYDNN_STATUS_BAD_PARAM, "dirMode %d is unknown", dir_mode);
    if (input_mode != ANYDNN_LINEAR_INPUT && input_mode != ANYDNN_SKIP_INPUT)
        return fail(ANYDNN_STATUS_BAD_PARAM, "inputMode %d is unknown", input_mode);
    if (math_type < ANYDNN_DEFAULT_MATH || math_type > ANYDNN_FMA_MATH)
        return fail(ANYDNN_STATUS_BAD_PARAM, "mathType %d is unknown", math_type);
    if (!rnn_dtype(dt))
        return fail(ANYDNN_STATUS_BAD_PARAM, "dataType %d is not FLOAT, DOUBLE, HALF or BFLOAT16", dt);
    if (!math_prec_ok(dt, math_prec))
        return fail(ANYDNN_STATUS_BAD_PARAM, "mathPrec %d does not go with dataType %s", math_prec, dtype_name(dt));
    if (input_size < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "inputSize is %d, must be >= 1", input_size);
    if (hidden_size < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "hiddenSize is %d, must be >= 1", hidden_size);
    if (num_layers < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "numLayers is %d, must be >= 1", num_layers);
    if (proj_size < 1 || proj_size > hidden_size)
        return fail(ANYDNN_STATUS_BAD_PARAM, "projSize is %d, outside [1, hiddenSize = %d]", proj_size, hidden_size);
    if (proj_size < hidden_size && mode != ANYDNN_LSTM)
        return fail(ANYDNN_STATUS_BAD_PARAM, "projSize %d < hiddenSize %d: a projection needs cellMode LSTM",
                    proj_size, hidden_size);
    if (input_mode == ANYDNN_SKIP_INPUT && input_size != hidden_size)
        return fail(ANYDNN_STATUS_BAD_PARAM, "SKIP_INPUT needs inputSize (%d) == hiddenSize (%d)", input_size,
                    hidden_size);
    if ((aux_flags & ~ANYDNN_RNN_PADDED_IO_ENABLED) != 0)
        return fail(ANYDNN_STATUS_BAD_PARAM, "auxFlags 0x%x has unknown bits", aux_flags);
    RnnConfig c;
    c.algo = algo;
    c.mode = mode;
    c.bias_mode = bias_mode;
    c.dir_mode = dir_mode;
    c.input_mode = input_mode;
    c.dt = dt;
    c.math_prec = math_prec;
    c.math_type = math_type;
    c.input_size = input_size;
    c.hidden_size = hidden_size;
    c.proj_size = proj_size;
    c.num_layers = num_layers;
    c.dropout = dropout;
    c.aux_flags = aux_flags;
    *out = c;
    return kSuccess;
}

Status make_rnn_clip(anydnnRNNClipMode_t mode, anydnnNanPropagation_t nan, double lclip, double rclip, RnnClip *out) {
    if (mode != ANYDNN_RNN_CLIP_NONE && mode != ANYDNN_RNN_CLIP_MINMAX)
        return fail(ANYDNN_STATUS_BAD_PARAM, "clipMode %d is unknown", mode);
    if (nan != ANYDNN_NOT_PROPAGATE_NAN && nan != ANYDNN_PROPAGATE_NAN)
        return fail(ANYDNN_STATUS_BAD_PARAM, "clipNanOpt %d is unknown", nan);
    if (mode == ANYDNN_RNN_CLIP_MINMAX) {
        if (std::isnan(lclip) || std::isnan(rclip))
            return fail(ANYDNN_STATUS_BAD_PARAM, "lclip %g / rclip %g: NaN", lclip, rclip);
        if (lclip > rclip) return fail(ANYDNN_STATUS_BAD_PARAM, "lclip %g > rclip %g", lclip, rclip);
    }
    *out = RnnClip{mode, nan, lclip, rclip};
    return kSuccess;
}

Status make_rnn_data(anydnnDataType_t dt, anydnnRNNDataLayout_t layout, int max_seq, int batch, int vec,
                     const int *lengths, const void *fill, RnnData *out) {
    if (lengths == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "seqLengthArray is NULL");
    if (!rnn_dtype(dt))
        return fail(ANYDNN_STATUS_BAD_PARAM, "dataType %d is not FLOAT, DOUBLE, HALF or BFLOAT16", dt);
    if (layout < ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED || layout > ANYDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED)
        return fail(ANYDNN_STATUS_BAD_PARAM, "layout %d is unknown", layout);
    if (max_seq < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "maxSeqLength is %d, must be >= 1", max_seq);
    if (batch < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "batchSize is %d, must be >= 1", batch);
    if (vec < 1) return fail(ANYDNN_STATUS_BAD_PARAM, "vectorSize is %d, must be >= 1", vec);
    RnnData d;
    d.dt = dt;
    d.layout = layout;
    d.max_seq = max_seq;
    d.batch = batch;
    d.vec = vec;
    d.lengths.assign(lengths, lengths + batch);
    for (int b = 0; b < batch; ++b) {
        if (lengths[b] < 0 || lengths[b] > max_seq)
            return fail(ANYDNN_STATUS_BAD_PARAM, "seqLengthArray[%d] is %d, outside [0, maxSeqLength = %d]", b,
                        lengths[b], max_seq);
        if (layout == ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED && b > 0 && lengths[b] > lengths[b - 1])
            return fail(ANYDNN_STATUS_BAD_PARAM,
                        "seqLengthArray[%d] = %d > seqLengthArray[%d] = %d: PACKED lengths must not increase", b,
                        lengths[b], b - 1, lengths[b - 1]);
    }
    if (fill != nullptr) {
        d.has_fill = true;
        if (dt == ANYDNN_DATA_DOUBLE) {
            std::memcpy(&d.fill, fill, sizeof(double));
        } else {
            float f;
            std::memcpy(&f, fill, sizeof(float));
            d.fill = f;
        }
    }
    *out = std::move(d);
    return kSuccess;
}

Status rnn_desc_arg(const anydnnRNNStruct *desc, const anydnnRNNStruct **out) {
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "rnnDesc is NULL");
    if (!desc->is_set) return fail(ANYDNN_STATUS_BAD_PARAM, "rnnDesc was never set (anydnnSetRNNDescriptor_v8)");
    *out = desc;
    return kSuccess;
}

Status rnn_data_arg(const anydnnRNNDataStruct *desc, const char *arg, const RnnData **out) {
    if (desc == nullptr) return fail(ANYDNN_STATUS_BAD_PARAM, "%s is NULL", arg);
    if (!desc->is_set) return fail(ANYDNN_STATUS_BAD_PARAM, "%s was never set (anydnnSetRNNDataDescriptor)", arg);
    *out = &desc->data;
    return kSuccess;
}

}  // namespace anydnn::ops
