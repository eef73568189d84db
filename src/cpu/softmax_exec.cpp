#include "cpu/softmax_exec.hpp"

#include "cpu/softmax.hpp"

namespace anydnn::cpu {

namespace {

// The reduced and the kept dimensions of the tensors ts (same dimensions,
// operand 0 the output), each as a strided loop.
SoftmaxLoops split_loops(anydnnSoftmaxMode_t mode, int nops, const TensorLayout *const *ts) {
    const TensorLayout &out = *ts[0];
    int64_t dims[2][kMaxDims], strides[2][kMaxOperands][kMaxDims];
    int n[2] = {0, 0};
    for (int i = 0; i < out.nd; ++i) {
        const int part = ops::softmax_reduces(mode, i) ? 0 : 1;
        dims[part][n[part]] = out.dims[i];
        for (int k = 0; k < nops; ++k) strides[part][k][n[part]] = ts[k]->strides[i];
        ++n[part];
    }
    const int64_t *row_strides[kMaxOperands], *outer_strides[kMaxOperands];
    for (int k = 0; k < nops; ++k) {
        row_strides[k] = strides[0][k];
        outer_strides[k] = strides[1][k];
    }
    return {make_strided_loop(n[0], dims[0], nops, row_strides), make_strided_loop(n[1], dims[1], nops, outer_strides)};
}

}  // namespace

void execute_softmax_forward(const Handle &h, const ops::SoftmaxForwardProblem &p, const void *x, void *y) {
    const TensorLayout *ts[] = {&p.y, &p.x};
    const SoftmaxForwardArgs a{split_loops(p.mode, 2, ts), p.y.dt, p.algo, x, y, p.alpha, p.beta};
    softmax_kernels(h.isa).forward(ExecContext{h.threads()}, a);
}

void execute_softmax_backward(const Handle &h, const ops::SoftmaxBackwardProblem &p, const void *y, const void *dy,
                              void *dx) {
    const TensorLayout *ts[] = {&p.dx, &p.dy, &p.y};
    const SoftmaxBackwardArgs a{split_loops(p.mode, 3, ts), p.dx.dt, p.algo, y, dy, dx, p.alpha, p.beta};
    softmax_kernels(h.isa).backward(ExecContext{h.threads()}, a);
}

}  // namespace anydnn::cpu
