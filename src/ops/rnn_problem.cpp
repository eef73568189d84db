#include "ops/rnn_problem.hpp"

#include "core/dtype.hpp"

namespace anydnn::ops {

namespace {

const char *mode_name(anydnnRNNMode_t m) {
    switch (m) {
    case ANYDNN_RNN_RELU: return "relu";
    case ANYDNN_RNN_TANH: return "tanh";
    case ANYDNN_LSTM: return "lstm";
    default: return "gru";
    }
}

// A 3-D fully packed {d0, d1, d2} tensor of type dt.
Status check_state_desc(const anydnnTensorStruct *desc, const char *arg, anydnnDataType_t dt, int64_t d0,
                        int64_t d1, int64_t d2) {
    const TensorLayout *l;
    ANYDNN_TRY(tensor_arg(desc, arg, &l));
    const int64_t want[3] = {d0, d1, d2};
    if (l->nd != 3)
        return fail(ANYDNN_STATUS_BAD_PARAM, "%s has %d dimensions, expected 3 {%lld, %lld, %lld}", arg, l->nd,
                    static_cast<long long>(d0), static_cast<long long>(d1), static_cast<long long>(d2));
    for (int i = 0; i < 3; ++i)
        if (l->dims[i] != want[i])
            return fail(ANYDNN_STATUS_BAD_PARAM, "%s dimension %d is %lld, expected %lld", arg, i,
                        static_cast<long long>(l->dims[i]), static_cast<long long>(want[i]));
    const int64_t packed[3] = {d1 * d2, d2, 1};
    for (int i = 0; i < 3; ++i)
        if (l->strides[i] != packed[i] && want[i] > 1)
            return fail(ANYDNN_STATUS_BAD_PARAM, "%s stride %d is %lld, expected %lld (fully packed)", arg, i,
                        static_cast<long long>(l->strides[i]), static_cast<long long>(packed[i]));
    if (l->dt != dt)
        return fail(ANYDNN_STATUS_BAD_PARAM, "%s is %s, the RNN's data type is %s", arg, dtype_name(l->dt),
                    dtype_name(dt));
    return kSuccess;
}

}  // namespace

std::string RnnProblem::to_string() const {
    const RnnConfig &c = shape.c;
    return std::string("rnn ") + mode_name(c.mode) + " " + dtype_name(c.dt) + (shape.training ? " train" : " infer") +
           " L" + std::to_string(c.num_layers) + (c.dirs() == 2 ? " bidir" : "") + " in" +
           std::to_string(c.input_size) + " h" + std::to_string(c.hidden_size) + " p" +
           std::to_string(c.proj_size) + " T" + std::to_string(shape.max_seq) + " B" + std::to_string(shape.batch);
}

Status check_rnn_x(const RnnConfig &c, const RnnData &x, const char *x_arg) {
    if (x.vec != c.input_size)
        return fail(ANYDNN_STATUS_BAD_PARAM, "%s vectorSize is %d, the RNN's inputSize is %d", x_arg, x.vec,
                    c.input_size);
    if (x.dt != c.dt)
        return fail(ANYDNN_STATUS_BAD_PARAM, "%s is %s, the RNN's data type is %s", x_arg, dtype_name(x.dt),
                    dtype_name(c.dt));
    return kSuccess;
}

Status make_rnn_problem(const anydnnRNNStruct &rnn, bool training, const int32_t *dev_seq_lengths,
                        const RnnData &x, const char *x_arg, const RnnData &y, const char *y_arg,
                        const anydnnTensorStruct *h_desc, const anydnnTensorStruct *c_desc, bool has_c_desc,
                        RnnProblem *out) {
    const RnnConfig &c = rnn.config;
    ANYDNN_TRY(check_rnn_x(c, x, x_arg));
    const int64_t ycols = int64_t{c.proj_size} * c.dirs();
    if (y.vec != ycols)
        return fail(ANYDNN_STATUS_BAD_PARAM, "%s vectorSize is %d, expected projSize * directions = %lld", y_arg,
                    y.vec, static_cast<long long>(ycols));
    if (y.dt != c.dt)
        return fail(ANYDNN_STATUS_BAD_PARAM, "%s is %s, the RNN's data type is %s", y_arg, dtype_name(y.dt),
                    dtype_name(c.dt));
    if (y.layout != x.layout || y.max_seq != x.max_seq || y.batch != x.batch)
        return fail(ANYDNN_STATUS_BAD_PARAM,
                    "%s (layout %d, maxSeqLength %d, batchSize %d) differs from %s (layout %d, %d, %d)", y_arg,
                    y.layout, y.max_seq, y.batch, x_arg, x.layout, x.max_seq, x.batch);
    for (int b = 0; b < x.batch; ++b) {
        if (y.lengths[b] != x.lengths[b])
            return fail(ANYDNN_STATUS_BAD_PARAM, "%s length %d is %d, %s's is %d", y_arg, b, y.lengths[b], x_arg,
                        x.lengths[b]);
        if (dev_seq_lengths != nullptr && dev_seq_lengths[b] != x.lengths[b])
            return fail(ANYDNN_STATUS_BAD_PARAM, "devSeqLengths[%d] is %d, %s's length is %d", b, dev_seq_lengths[b],
                        x_arg, x.lengths[b]);
    }
    if (x.unpacked() && (c.aux_flags & ANYDNN_RNN_PADDED_IO_ENABLED) == 0)
        return fail(ANYDNN_STATUS_BAD_PARAM,
                    "%s's layout %d is unpacked: rnnDesc needs auxFlags ANYDNN_RNN_PADDED_IO_ENABLED", x_arg,
                    x.layout);
    ANYDNN_TRY(check_state_desc(h_desc, "hDesc", c.dt, c.pseudo_layers(), x.batch, c.proj_size));
    if (c.mode == ANYDNN_LSTM && has_c_desc)
        ANYDNN_TRY(check_state_desc(c_desc, "cDesc", c.dt, c.pseudo_layers(), x.batch, c.hidden_size));
    RnnProblem p;
    p.shape = RnnShape{c, x.max_seq, x.batch, training};
    p.clip = rnn.clip;
    p.x = x;
    p.y_has_fill = y.has_fill;
    p.y_fill = y.fill;
    *out = std::move(p);
    return kSuccess;
}

}  // namespace anydnn::ops
