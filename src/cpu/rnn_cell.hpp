// The RNN cell kernel family: the elementwise math of one time step (gate
// activations, LSTM's state update and clip, GRU's reset and update) and its
// gradient, on the gate rows the GEMMs filled. Declarations only;
// src/cpu/kernels/rnn_cell.hpp implements them once per ISA level.
#pragma once

#include <cstdint>

#include "cpu/isa_table.hpp"
#include "cpu/parallel.hpp"

namespace anydnn::cpu {

enum class RnnCellMode { relu, tanh, lstm, gru };

// Rows [0, rows) of one step, H = hidden. Gate blocks are H wide, in the
// header's order (LSTM i f g o, GRU r z n); every row pointer steps by its ld.
// forward:
//   g      in: the pre-activations (X W^T + biases + h R^T; GRU: X W^T + bW),
//          out: the activations (RNN: h itself)
//   hr     GRU: h_{t-1} R^T + bR
//   h_prev GRU: h_{t-1}; c_prev / c: LSTM c_{t-1} and c_t (ld H)
//   h      out: h_t (LSTM: o * tanh(c_t), before the projection)
// backward (g, hr, h_prev, c_prev, c as the forward left them):
//   dh     in: the gradient of the cell's h output
//   dc     LSTM, in: of c_t from later steps; out: of c_{t-1} (ld H)
//   dg     out: of the pre-activations of the input side (X W^T + bW)
//   dgr    GRU, out: of the recurrent side (h R^T + bR; differs in n)
//   dh_prev GRU, out: the direct part z * dh of h_{t-1}'s gradient
template <class C>
struct RnnCellArgs {
    RnnCellMode mode = RnnCellMode::tanh;
    int64_t rows = 0, hidden = 0;
    C *g = nullptr;
    int64_t ldg = 0;  // also hr's, dg's and dgr's
    const C *hr = nullptr;
    const C *h_prev = nullptr;
    int64_t ld_h_prev = 0;
    const C *c_prev = nullptr;
    C *c = nullptr;
    C *h = nullptr;
    int64_t ldh = 0;
    const C *dh = nullptr;
    int64_t ld_dh = 0;
    C *dc = nullptr;
    C *dg = nullptr, *dgr = nullptr;
    C *dh_prev = nullptr;
    int64_t ld_dh_prev = 0;
    // LSTM clipping of c_t to [lclip, rclip]; a NaN c_t stays NaN with
    // propagate_nan, else becomes lclip. Its gradient is 0 where clamped.
    bool clip = false, propagate_nan = false;
    C lclip = 0, rclip = 0;
};

template <class C>
struct RnnCellKernels {
    void (*forward)(const ExecContext &, const RnnCellArgs<C> &);
    void (*backward)(const ExecContext &, const RnnCellArgs<C> &);
};

ANYDNN_DECLARE_ISA_TABLE(RnnCellKernels<float>, rnn_cell_f32)
ANYDNN_DECLARE_ISA_TABLE(RnnCellKernels<double>, rnn_cell_f64)

template <class C>
const RnnCellKernels<C> &rnn_cell_kernels(Isa isa) {
    if constexpr (sizeof(C) == 4) return rnn_cell_f32_kernels(isa);
    else return rnn_cell_f64_kernels(isa);
}

}  // namespace anydnn::cpu
