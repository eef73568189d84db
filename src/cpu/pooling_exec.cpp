#include "cpu/pooling_exec.hpp"

#include <vector>

#include "cpu/pooling.hpp"

namespace anydnn::cpu {

namespace {

constexpr int64_t kScratchBudget = int64_t{1} << 20;  // bytes per ring that limit the lanes
constexpr int64_t kBackwardGrain = 16384;             // x and dy elements per thread, at least

// x's pixels of one channel are one contiguous run (NCHW and the like).
bool contiguous_planes(const ops::PoolGeometry &g, const ops::PoolStrides &xs) {
    int64_t run = 1;
    for (int k = 2; k >= 0; --k) {
        if (g.in[k] > 1 && xs.s[k + 2] != run) return false;
        run *= g.in[k];
    }
    return true;
}

PoolLanes forward_lanes(const ops::PoolGeometry &g, const ops::PoolStrides &xs) {
    // Global pooling of contiguous planes: a plain reduction per channel.
    if (whole_image(g) && contiguous_planes(g, xs)) return PoolLanes::planes;
    // Channels when they are x's innermost dimension (NHWC) or rows are
    // single pixels (a row lane would be alone).
    if (xs.s[1] <= xs.s[4] || (g.out[2] == 1 && g.c > 1)) return PoolLanes::channels;
    return PoolLanes::rows;
}

}  // namespace

void execute_pooling_forward(const Handle &h, const ops::PoolingForwardProblem &p, const void *x, void *y) {
    const PoolingForwardArgs a{p.geo, p.xs, p.ys, x, y, p.alpha, p.beta, forward_lanes(p.geo, p.xs)};
    pooling_kernels(h.isa).forward(ExecContext{h.threads()}, a);
}

void execute_pooling_backward(const Handle &h, const ops::PoolingBackwardProblem &p, const void *dy, const void *x,
                              void *dx) {
    const ops::PoolGeometry &g = p.geo;
    if (backward_row_lanes(g, p.dys, p.xs, p.dxs)) {
        const PoolingBackwardArgs a{g, p.dys, p.xs, p.dxs, dy, x, dx, p.alpha, p.beta, 0, 0, nullptr, true};
        return pooling_kernels(h.isa).backward(ExecContext{h.threads()}, a);
    }
    const int64_t value = g.dt == ANYDNN_DATA_DOUBLE ? 8 : 4;
    // The lanes depend on the geometry only, never on the thread count, so
    // each dx element's sum order is fixed.
    const int64_t ring = pooling_ring(g).elements();
    int64_t lanes = kScratchBudget / (ring * value);
    const int64_t most = p.dxs.s[1] == 1 ? kPoolingBackwardMaxLanes : kPoolingBackwardChannelsFirstLanes;
    lanes = lanes < 1 ? 1 : lanes > most ? most : lanes;
    lanes = lanes > g.c ? g.c : lanes;
    const int64_t items = g.n * ((g.c + lanes - 1) / lanes);
    const int64_t work = g.n * g.c * (g.in_pixels() + g.out_pixels() * g.window_size());
    int64_t slots = work / kBackwardGrain + 1;
    if (slots > h.threads()) slots = h.threads();
    if (slots > items) slots = items;
    std::vector<double> scratch((slots * ring * lanes * value + 7) / 8);
    const PoolingBackwardArgs a{g,  p.dys,   p.xs,  p.dxs, dy, x, dx, p.alpha, p.beta, lanes,
                                slots, scratch.data(), false};
    pooling_kernels(h.isa).backward(ExecContext{h.threads()}, a);
}

}  // namespace anydnn::cpu
