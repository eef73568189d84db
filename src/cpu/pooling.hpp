// The pooling kernel family: forward and backward of max and average
// pooling over 1 to 3 spatial dimensions (normalized to d, h, w), any
// strides. Declarations only; src/cpu/kernels/pooling.hpp implements them
// once per ISA level.
#pragma once

#include <cstdint>

#include "cpu/isa_table.hpp"
#include "cpu/parallel.hpp"
#include "ops/pooling_problem.hpp"

namespace anydnn::cpu {

// What the forward pass vectorizes over.
enum class PoolLanes {
    rows,      // a block of one output row (NCHW)
    channels,  // the channels of one output pixel (x's channels innermost: NHWC)
    planes,    // channels, each output the reduction of its channel's whole plane,
               // contiguous in x (global pooling of NCHW)
};

// One output pixel whose window holds every input pixel (global pooling;
// the padding before it is below the window, so its first tap is pixel 0).
inline bool whole_image(const ops::PoolGeometry &g) {
    for (int k = 0; k < 3; ++k)
        if (g.out[k] != 1 || g.window[k] - g.pad[k] < g.in[k]) return false;
    return true;
}

// y = alpha * pool(x) + beta * y; strides in the order n, c, d, h, w.
struct PoolingForwardArgs {
    ops::PoolGeometry g;
    ops::PoolStrides xs, ys;
    const void *x;
    void *y;
    double alpha, beta;
    PoolLanes lanes;
};

// The backward pass's scratch: the gradient of a work item is summed in a
// ring of input slabs, the slabs along `dim` (0 = d for 3-D problems, else
// 1 = h: rows) that the windows of one output index along `dim` touch:
// window[dim] slabs of `slab` pixels each (H x W, or W), input slab i in slot
// i % window[dim]. A slab is final, and written to dx, once the outputs move
// past it; a 112x112 max pool's ring is 3 rows.
struct PoolingRing {
    int dim;
    int64_t slab;  // pixels per slab
    int64_t slots;
    int64_t elements() const { return slab * slots; }  // per channel lane
};

inline PoolingRing pooling_ring(const ops::PoolGeometry &g) {
    // Rows need a single output plane along d, and one input plane.
    const int dim = g.in[0] > 1 || g.out[0] > 1 ? 0 : 1;
    return {dim, dim == 0 ? g.in[1] * g.in[2] : g.in[2], g.window[dim]};
}

// The channels of a backward work item, at most: 64 when dx's channels are
// contiguous (NHWC: an item reads whole pixels; with 16 the four items of
// a 64-channel pixel each streamed x with one cache line in four used, and
// the pass was latency-bound), else 16, one register transpose's tile of
// channel rows (NCHW: more images' items for the threads).
constexpr int64_t kPoolingBackwardMaxLanes = 64;
constexpr int64_t kPoolingBackwardChannelsFirstLanes = 16;

// Whether the backward pass takes its lanes along output rows (row lanes,
// no staging: src/cpu/kernels/pooling.hpp) rather than channels: rows of
// contiguous values of the compute type (f32, f64) whose channels are not
// the innermost dimension (NCHW), 2-D, output rows of a vector or more.
// Global average pooling is a broadcast either way.
inline bool backward_row_lanes(const ops::PoolGeometry &g, const ops::PoolStrides &dys, const ops::PoolStrides &xs,
                               const ops::PoolStrides &dxs) {
    const bool is_max = g.kind == ops::PoolKind::max;
    if (g.dt != ANYDNN_DATA_FLOAT && g.dt != ANYDNN_DATA_DOUBLE) return false;
    if (g.in[0] != 1 || g.out[0] != 1 || g.out[2] < 16 || (!is_max && whole_image(g))) return false;
    return dys.s[4] == 1 && dxs.s[4] == 1 && (!is_max || xs.s[4] == 1) && dxs.s[1] != 1;
}

// dx = alpha * dpool(x, dy) + beta * dx. A work item is one image's block of
// `lanes` channels: its gradient is summed in its ring (PoolingRing) in the
// compute type, channel fastest, in output scan order, then blended into dx
// once, so each dx element's sum runs in the same order whatever the thread
// count, and f16/bf16 are rounded once.
struct PoolingBackwardArgs {
    ops::PoolGeometry g;
    ops::PoolStrides dys, xs, dxs;
    const void *dy, *x;  // x: MAX only
    void *dx;
    double alpha, beta;
    int64_t lanes;  // channels per work item (kPoolingBackwardMaxLanes, kPoolingBackwardChannelsFirstLanes)
    int64_t slots;  // rings; slot s runs items [items * s / slots, items * (s + 1) / slots)
    void *scratch;  // slots * pooling_ring(g).elements() * lanes values of the compute type
    bool rows;      // row lanes (backward_row_lanes): an item is a channel plane, and lanes, slots
                    // and scratch are unused
};

struct PoolingKernels {
    void (*forward)(const ExecContext &, const PoolingForwardArgs &);
    void (*backward)(const ExecContext &, const PoolingBackwardArgs &);
};

ANYDNN_DECLARE_ISA_TABLE(PoolingKernels, pooling)

}  // namespace anydnn::cpu
