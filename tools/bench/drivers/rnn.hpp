// --rnn: anydnnRNNForward (cuDNN 8's v8 RNN API), as benchdnn's rnn driver:
// --cell=lstm|gru|rnn_relu|rnn_tanh --prop=inference|training
// --direction=left2right|bidirect_concat --dt --mb=N; problem: benchdnn's
// descriptor, e.g. l1t50mb32sic512slc512dhc512dic512n"lstm512" (layers,
// time steps, minibatch, recurrent input, layer input, hidden and output
// channels; dic < dhc is an LSTM with a projection).
//
// The network's weights are made once in one canonical form (per pseudo
// layer, cuDNN's matrices in linLayerID order, then its biases), and each
// library's case maps them into its own layout, so that corr mode compares
// two independent implementations of the same network.
#pragma once

#include <memory>
#include <string>

#include "core/driver.hpp"
#include "core/types.hpp"

namespace anydnn_bench {

struct RnnProblem : Problem {
    enum class Cell { lstm, gru, rnn_relu, rnn_tanh };
    // cx is made for every cell (the LSTM alone reads it).
    enum Input { kX, kHx, kCx, kWeights, kBiases };

    // One of cuDNN's matrices in the canonical weights: `rows` x `cols`,
    // row major, applied as W x.
    struct Matrix {
        int64_t offset = 0, rows = 0, cols = 0;
    };

    Cell cell = Cell::lstm;
    bool training = false;
    bool bidirectional = false;
    anydnnDataType_t dt = ANYDNN_DATA_FLOAT;
    int64_t l = 1, t = 1, mb = 2, sic = 0, slc = 0, dhc = 0, dic = 0;
    std::string name;

    // 4 (LSTM: i, f, g, o), 3 (GRU: r, z, n) or 1, in cuDNN's order.
    int gates() const;
    int directions() const { return bidirectional ? 2 : 1; }
    bool projection() const { return dic != dhc; }
    int64_t pseudo_layers() const { return l * directions(); }
    // The input width of `layer`: slc for the first, the previous layer's
    // output (dic per direction) after it.
    int64_t layer_input(int64_t layer) const { return layer == 0 ? slc : dic * directions(); }
    // cuDNN's linLayerIDs of a pseudo layer that have a matrix: the input
    // ones (0..G-1), the recurrent ones (G..2G-1) and, with a projection,
    // the LSTM's 8 (= 2G).
    int matrices() const { return 2 * gates() + (projection() ? 1 : 0); }
    Matrix matrix(int64_t pseudo_layer, int lin_layer) const;
    int64_t weight_elements() const;
    // bW then bR of each gate (linLayerIDs 0..2G-1), dhc each, per pseudo layer.
    int64_t bias_offset(int64_t pseudo_layer, int lin_layer) const {
        return (pseudo_layer * 2 * gates() + lin_layer) * dhc;
    }
    int64_t bias_elements() const { return pseudo_layers() * 2 * gates() * dhc; }

    Dims x_dims() const { return {t, mb, slc}; }
    Dims y_dims() const { return {t, mb, dic * directions()}; }
    Dims h_dims() const { return {pseudo_layers(), mb, dic}; }
    Dims c_dims() const { return {pseudo_layers(), mb, dhc}; }

    const char *driver() const override { return "rnn"; }
    std::string repro() const override;
    double bytes() const override;
    double flops() const override;
    int occurrences() const override;
    double tolerance() const override;
    Inputs make_inputs(anydnnHandle_t h, uint64_t seed) const override;
    // anydnn_case, onednn_case: its driver's WithCases (core/problem_driver.hpp).
};

std::unique_ptr<Driver> make_rnn_driver();
extern const char kRnnUsage[];

}  // namespace anydnn_bench
