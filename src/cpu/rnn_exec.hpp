// The CPU backend of the recurrent networks (anydnn_adv.h): the plan of a
// call (the sequences canonicalized, the buffers laid out in the work and
// reserve spaces) and the per-layer loops of GEMMs and cell passes
// (docs/ARCHITECTURE.md, "Recurrent networks").
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/handle.hpp"
#include "ops/rnn_problem.hpp"

namespace anydnn::cpu {

struct RnnSizes {
    std::size_t workspace = 0, reserve = 0;  // reserve: 0 for inference
};

// The buffers a call of this shape needs on this handle (its ISA level
// chooses the GEMMs' pack buffers, sized for max(its thread count, the
// cores)). A training shape's work space serves both forward modes and both
// backward calls.
RnnSizes rnn_sizes(const Handle &h, const ops::RnnShape &s);

// The dropout a training forward call applies between layers: p 0 none.
struct RnnDropout {
    double p = 0;
    uint64_t seed = 0, call = 0;
};

struct RnnForwardBuffers {
    const void *x = nullptr;
    void *y = nullptr;
    const void *hx = nullptr;
    void *hy = nullptr;
    const void *cx = nullptr;
    void *cy = nullptr;
    const void *w = nullptr;
    void *workspace = nullptr;
    void *reserve = nullptr;  // training only
};

struct RnnBackwardDataBuffers {
    const void *dy = nullptr;
    void *dx = nullptr;
    const void *dhy = nullptr;
    void *dhx = nullptr;
    const void *dcy = nullptr;
    void *dcx = nullptr;
    const void *w = nullptr;
    void *workspace = nullptr;
    void *reserve = nullptr;
};

struct RnnBackwardWeightsBuffers {
    void *dw = nullptr;
    bool add = true;  // dw += the gradient, else dw = the gradient
    void *workspace = nullptr;
    const void *reserve = nullptr;
};

// The buffers hold at least rnn_sizes(h, p.shape); NULL state pointers
// mean zeros (inputs) or not written (outputs).
void execute_rnn_forward(const Handle &h, const ops::RnnProblem &p, const RnnDropout &dropout,
                         const RnnForwardBuffers &b);
void execute_rnn_backward_data(const Handle &h, const ops::RnnProblem &p, const RnnBackwardDataBuffers &b);
void execute_rnn_backward_weights(const Handle &h, const ops::RnnProblem &p, const RnnBackwardWeightsBuffers &b);

}  // namespace anydnn::cpu
