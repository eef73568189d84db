// The RNN problems of anydnnRNNForward, anydnnRNNBackwardData_v8 and
// anydnnRNNBackwardWeights_v8: the descriptors checked against each other
// once, for every backend. Buffer sizes are the backend's answer
// (cpu/rnn_exec.hpp) and are checked by the API layer.
#pragma once

#include <cstdint>
#include <string>

#include "core/tensor_desc.hpp"
#include "ops/rnn_desc.hpp"

namespace anydnn::ops {

// What the sizes of the buffers depend on.
struct RnnShape {
    RnnConfig c;
    int64_t max_seq = 1, batch = 1;
    bool training = false;
};

struct RnnProblem {
    RnnShape shape;
    RnnClip clip;
    RnnData x;                  // lengths, layout; x's and dx's padding fill
    bool y_has_fill = false;    // y's (and dy's descriptor's) padding fill
    double y_fill = 0;
    bool lstm_clip() const { return shape.c.mode == ANYDNN_LSTM && clip.mode == ANYDNN_RNN_CLIP_MINMAX; }
    std::string to_string() const;
};

// BAD_PARAM unless xDesc fits the RNN (vectorSize inputSize, its data type).
Status check_rnn_x(const RnnConfig &c, const RnnData &x, const char *x_arg);

// Checks every descriptor of a forward or backward call against rnnDesc
// and xDesc (anydnn_adv.h's shapes); c_desc may be NULL except for LSTM
// in a call that has it (has_c_desc: not anydnnRNNBackwardWeights_v8).
Status make_rnn_problem(const anydnnRNNStruct &rnn, bool training, const int32_t *dev_seq_lengths,
                        const RnnData &x, const char *x_arg, const RnnData &y, const char *y_arg,
                        const anydnnTensorStruct *h_desc, const anydnnTensorStruct *c_desc, bool has_c_desc,
                        RnnProblem *out);

}  // namespace anydnn::ops
