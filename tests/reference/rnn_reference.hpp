// Reference recurrent networks (RNN ReLU / tanh, LSTM with projection and
// clipping, GRU "linear before reset"): plain loops in double, written from
// the semantics in include/anydnn/anydnn_adv.h, not from the library's code.
//
// Sequences are processed one at a time (they are independent): every
// per-sequence vector holds that sequence's valid steps only, step-major
// ([t][i]), so the data layouts and padding are the caller's business
// (rnn_data_position says where step t of sequence b lies in each layout).
// The backward pass is hand-written backpropagation through time over a
// recomputed forward; tests/test_rnn_reference.cpp checks it against central
// finite differences of rnn_forward.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace anydnn_test::ref {

enum class RnnCell { Relu, Tanh, Lstm, Gru };
// The data layouts, numbered as anydnnRNNDataLayout_t.
enum class RnnLayout { SeqMajorUnpacked = 0, SeqMajorPacked = 1, BatchMajorUnpacked = 2 };

struct Rnn {
    RnnCell cell = RnnCell::Lstm;
    bool input_bias = true;      // bW (DOUBLE_BIAS, SINGLE_INP_BIAS)
    bool recurrent_bias = true;  // bR (DOUBLE_BIAS, SINGLE_REC_BIAS)
    bool bidirectional = false;
    bool skip_input = false;     // layer 0: W x_t is x_t (input == hidden)
    int input = 4, hidden = 5, proj = 5, layers = 1;
    bool clip = false;           // LSTM only: c_t clamped to [lclip, rclip]
    double lclip = -1, rclip = 1;
    bool clip_nan_propagate = true;  // false: a NaN c_t becomes lclip

    int dirs() const { return bidirectional ? 2 : 1; }
    int pseudo_layers() const { return layers * dirs(); }
    int gates() const;                             // 1, 1, 4, 3
    int lin_layers() const;                        // linLayerIDs: 2, 2, 9 (8: the projection), 6
    int layer_input(int layer) const { return layer == 0 ? input : proj * dirs(); }
    int out_width() const { return proj * dirs(); }  // y's vectorSize
    bool has_projection() const { return cell == RnnCell::Lstm && proj < hidden; }
    // rows x cols of matrix linLayerID of a pseudo-layer of `layer`; {0, 0} when it does not exist.
    struct Dims {
        int rows = 0, cols = 0;
    };
    Dims matrix(int layer, int lin_id) const;
    int bias_rows(int layer, int lin_id) const;  // 0 when the bias does not exist
};

// Weights of one pseudo-layer (layer * dirs + dir), indexed by linLayerID:
// m[id] rows x cols row-major, b[id] rows; empty when absent (a missing
// bias is zero).
struct PseudoLayerWeights {
    std::vector<std::vector<double>> m, b;
};
using RnnWeights = std::vector<PseudoLayerWeights>;
// Every matrix and bias of `p` present, sized, zero.
RnnWeights rnn_zero_weights(const Rnn &p);

// Per-sequence data: seq[b] holds len[b] * width values, step-major.
using Seqs = std::vector<std::vector<double>>;

// Dropout between layers as masks: mask[l][b] (len[b] * out_width values,
// 0 or 1 / (1 - p)) multiplies layer l's output before layer l + 1 reads it,
// l = 0 .. layers - 2. Empty: no dropout.
using RnnMasks = std::vector<Seqs>;

// States are flat as the hDesc / cDesc tensors: {pseudo-layers, batch,
// proj} and {pseudo-layers, batch, hidden}; empty: zero (cx, and every
// state of a cell other than LSTM's c, may be empty).
struct RnnForwardResult {
    Seqs y;                      // y[b]: len[b] * out_width
    std::vector<double> hy, cy;  // cy empty unless LSTM
};
RnnForwardResult rnn_forward(const Rnn &p, const RnnWeights &w, const std::vector<int> &len, const Seqs &x,
                             const std::vector<double> &hx, const std::vector<double> &cx,
                             const RnnMasks &masks = {});

// The gradients of sum(dy * y) + sum(dhy * hy) + sum(dcy * cy) (dhy / dcy
// empty: zero) with respect to x, hx, cx and every present weight.
struct RnnGradients {
    Seqs dx;
    std::vector<double> dhx, dcx;  // dcx empty unless LSTM
    RnnWeights dw;
};
RnnGradients rnn_backward(const Rnn &p, const RnnWeights &w, const std::vector<int> &len, const Seqs &x,
                          const std::vector<double> &hx, const std::vector<double> &cx, const Seqs &dy,
                          const std::vector<double> &dhy, const std::vector<double> &dcy,
                          const RnnMasks &masks = {});

// Where step t (< len[b]) of sequence b lies in an RNN data buffer of
// `layout` with maxSeqLength max_t: the index of its vector (times
// vectorSize for the element offset). PACKED: time major, the sequences
// with length > t in batch order (lengths non-increasing).
int64_t rnn_data_position(RnnLayout layout, int max_t, const std::vector<int> &len, int b, int t);
// The number of vectors the buffer holds: max_t * batch, or sum(len) packed.
int64_t rnn_data_vectors(RnnLayout layout, int max_t, const std::vector<int> &len);

// Test data: uniform values in [-scale, scale) for every present weight,
// and len[b] * width values per sequence.
void fill_uniform(RnnWeights &w, std::mt19937_64 &g, double scale);
Seqs uniform_seqs(const std::vector<int> &len, int width, std::mt19937_64 &g, double scale = 1.0);

}  // namespace anydnn_test::ref
