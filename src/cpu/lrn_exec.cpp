#include "cpu/lrn_exec.hpp"

#include <vector>

#include "cpu/lrn.hpp"

namespace anydnn::cpu {

namespace {

constexpr int64_t kPlaneGrain = 16384;  // divisive normalization: pixels per thread, at least

void run_divnorm(const Handle &h, const ops::DivNormProblem &p, DivNormArgs a, bool backward) {
    const ops::LrnGrid &g = p.grid;
    const int64_t P = g.dims[0] * g.dims[1] * g.dims[2], planes = g.n * g.c;
    int64_t slots = planes * P / kPlaneGrain + 1;
    if (slots > h.threads()) slots = h.threads();
    if (slots > planes) slots = planes;
    const int64_t value = g.dt == ANYDNN_DATA_DOUBLE ? 8 : 4;
    std::vector<double> scratch((slots * 3 * P * value + 7) / 8);
    a.slots = slots;
    a.scratch = scratch.data();
    const LrnKernels &k = lrn_kernels(h.isa);
    (backward ? k.divnorm_backward : k.divnorm_forward)(ExecContext{h.threads()}, a);
}

// Channels as lanes when there are enough of them to fill a vector and they
// are x's innermost dimension (NHWC) or the pixel rows are too short to
// (1x1 pixels); pixel lanes otherwise (NCHW, or few channels: strided loads
// that still use every lane).
bool channel_lanes(const ops::LrnGrid &g) {
    return g.c >= 16 && (g.sc[0] < g.s[0][g.nd - 1] || g.dims[g.nd - 1] < 16);
}

}  // namespace

void execute_lrn_forward(const Handle &h, const ops::LrnForwardProblem &p, const void *x, void *y) {
    const LrnArgs a{p.lrn, p.grid, x, nullptr, nullptr, y, p.alpha, p.beta, channel_lanes(p.grid)};
    lrn_kernels(h.isa).forward(ExecContext{h.threads()}, a);
}

void execute_lrn_backward(const Handle &h, const ops::LrnBackwardProblem &p, const void *y, const void *dy,
                          const void *x, void *dx) {
    const LrnArgs a{p.lrn, p.grid, x, y, dy, dx, p.alpha, p.beta, channel_lanes(p.grid)};
    lrn_kernels(h.isa).backward(ExecContext{h.threads()}, a);
}

void execute_divnorm_forward(const Handle &h, const ops::DivNormProblem &p, const void *x, const void *means,
                             void *y) {
    run_divnorm(h, p, DivNormArgs{p.lrn, p.grid, x, means, nullptr, y, nullptr, p.alpha, p.beta, 0, nullptr},
                false);
}

void execute_divnorm_backward(const Handle &h, const ops::DivNormProblem &p, const void *x, const void *means,
                              const void *dy, void *dx, void *dmeans) {
    run_divnorm(h, p, DivNormArgs{p.lrn, p.grid, x, means, dy, dx, dmeans, p.alpha, p.beta, 0, nullptr}, true);
}

}  // namespace anydnn::cpu
