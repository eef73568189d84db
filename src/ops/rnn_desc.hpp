// The RNN and RNN-data descriptor objects (anydnn_adv.h), their validation,
// and what every backend derives from them: gate counts, layer widths and
// the weight-space layout.
#pragma once

#include <cstdint>
#include <vector>

#include "anydnn/anydnn_adv.h"
#include "core/status.hpp"
#include "ops/dropout_desc.hpp"

namespace anydnn::ops {

// What anydnnSetRNNDescriptor_v8 set, validated.
struct RnnConfig {
    anydnnRNNAlgo_t algo = ANYDNN_RNN_ALGO_STANDARD;
    anydnnRNNMode_t mode = ANYDNN_LSTM;
    anydnnRNNBiasMode_t bias_mode = ANYDNN_RNN_DOUBLE_BIAS;
    anydnnDirectionMode_t dir_mode = ANYDNN_UNIDIRECTIONAL;
    anydnnRNNInputMode_t input_mode = ANYDNN_LINEAR_INPUT;
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT, math_prec = ANYDNN_DATA_FLOAT;
    anydnnMathType_t math_type = ANYDNN_DEFAULT_MATH;
    int32_t input_size = 1, hidden_size = 1, proj_size = 1, num_layers = 1;
    anydnnDropoutStruct *dropout = nullptr;  // referenced, read at each training forward call
    uint32_t aux_flags = 0;

    // Gates per cell: 1 (RNN), 4 (LSTM), 3 (GRU).
    int gates() const { return mode == ANYDNN_LSTM ? 4 : mode == ANYDNN_GRU ? 3 : 1; }
    int dirs() const { return dir_mode == ANYDNN_BIDIRECTIONAL ? 2 : 1; }
    int pseudo_layers() const { return num_layers * dirs(); }
    // linLayerIDs: the input and recurrent matrices, and LSTM's projection.
    int lin_layers() const { return 2 * gates() + (mode == ANYDNN_LSTM ? 1 : 0); }
    bool has_proj() const { return proj_size < hidden_size; }
    bool has_bw() const { return bias_mode == ANYDNN_RNN_SINGLE_INP_BIAS || bias_mode == ANYDNN_RNN_DOUBLE_BIAS; }
    bool has_br() const { return bias_mode == ANYDNN_RNN_SINGLE_REC_BIAS || bias_mode == ANYDNN_RNN_DOUBLE_BIAS; }
    // Layer `layer`'s input width.
    int64_t in_cols(int layer) const { return layer == 0 ? input_size : int64_t{proj_size} * dirs(); }
    bool has_input_matrices(int layer) const { return layer > 0 || input_mode == ANYDNN_LINEAR_INPUT; }
};

// anydnnRNNSetClip_v8's settings (independent of the rest of the descriptor).
struct RnnClip {
    anydnnRNNClipMode_t mode = ANYDNN_RNN_CLIP_NONE;
    anydnnNanPropagation_t nan = ANYDNN_NOT_PROPAGATE_NAN;
    double lclip = 0, rclip = 0;
};

// Where one pseudo-layer's pieces lie in the weight space, in elements; -1
// for a piece that does not exist. The input matrix W stacks the gates'
// matrices (gate g's rows [g H, (g + 1) H)), so W is gates * H x in_cols
// row major, and likewise R (gates * H x projSize) and the biases.
struct RnnLayerWeights {
    int64_t w = -1, r = -1, proj = -1, bw = -1, br = -1;
    int64_t in_cols = 0;
};

struct RnnWeightLayout {
    std::vector<RnnLayerWeights> layers;  // per pseudo-layer
    int64_t elements = 0;
};

RnnWeightLayout rnn_weight_layout(const RnnConfig &c);

// One matrix or bias of a linLayerID: element offset (-1: absent) and shape.
struct RnnWeightPiece {
    int64_t offset = -1, rows = 0, cols = 0;
};
void rnn_lin_layer(const RnnConfig &c, const RnnWeightLayout &wl, int pseudo_layer, int lin_layer_id,
                   RnnWeightPiece *matrix, RnnWeightPiece *bias);

// BAD_PARAM (the header's list) or the validated config.
Status make_rnn_config(anydnnRNNAlgo_t algo, anydnnRNNMode_t mode, anydnnRNNBiasMode_t bias_mode,
                       anydnnDirectionMode_t dir_mode, anydnnRNNInputMode_t input_mode, anydnnDataType_t dt,
                       anydnnDataType_t math_prec, anydnnMathType_t math_type, int32_t input_size,
                       int32_t hidden_size, int32_t proj_size, int32_t num_layers, anydnnDropoutStruct *dropout,
                       uint32_t aux_flags, RnnConfig *out);
Status make_rnn_clip(anydnnRNNClipMode_t mode, anydnnNanPropagation_t nan, double lclip, double rclip, RnnClip *out);

// What anydnnSetRNNDataDescriptor set.
struct RnnData {
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    anydnnRNNDataLayout_t layout = ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED;
    int32_t max_seq = 1, batch = 1, vec = 1;
    std::vector<int32_t> lengths;
    bool has_fill = false;
    double fill = 0;

    bool unpacked() const { return layout != ANYDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED; }
};

Status make_rnn_data(anydnnDataType_t dt, anydnnRNNDataLayout_t layout, int max_seq, int batch, int vec,
                     const int *lengths, const void *fill, RnnData *out);

}  // namespace anydnn::ops

struct anydnnRNNStruct {
    bool is_set = false;  // by anydnnSetRNNDescriptor_v8
    anydnn::ops::RnnConfig config;
    anydnn::ops::RnnClip clip;
};

struct anydnnRNNDataStruct {
    bool is_set = false;
    anydnn::ops::RnnData data;
};

namespace anydnn::ops {

// The set descriptor behind an argument: BAD_PARAM naming `arg` when NULL or never set.
Status rnn_desc_arg(const anydnnRNNStruct *desc, const anydnnRNNStruct **out);
Status rnn_data_arg(const anydnnRNNDataStruct *desc, const char *arg, const RnnData **out);

}  // namespace anydnn::ops
