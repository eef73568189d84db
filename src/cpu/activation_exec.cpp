#include "cpu/activation_exec.hpp"

#include "cpu/activation.hpp"

namespace anydnn::cpu {

namespace {

ActivationOp kernel_op(const ops::Activation &a) { return {a.mode, a.propagate_nan, a.coef, a.swish_beta}; }

}  // namespace

void execute_activation_forward(const Handle &h, const ops::ActivationForwardProblem &p, const void *x, void *y) {
    const int64_t *strides[] = {p.y.strides, p.x.strides};
    const ActivationForwardArgs a{make_strided_loop(p.y.nd, p.y.dims, 2, strides), p.y.dt, kernel_op(p.act), x, y,
                                  p.alpha, p.beta};
    activation_kernels(h.isa).forward(ExecContext{h.threads()}, a);
}

void execute_activation_backward(const Handle &h, const ops::ActivationBackwardProblem &p, const void *y,
                                 const void *dy, const void *x, void *dx) {
    // A tensor the mode does not read stands in as dy, so that its strides
    // cannot keep the loop from merging.
    const bool use_y = ops::activation_backward_reads_y(p.act.mode);
    const bool use_x = ops::activation_backward_reads_x(p.act.mode);
    const int64_t *strides[] = {p.dx.strides, p.dy.strides, use_y ? p.y.strides : p.dy.strides,
                                use_x ? p.x.strides : p.dy.strides};
    const ActivationBackwardArgs a{make_strided_loop(p.dx.nd, p.dx.dims, 4, strides),
                                   p.dx.dt,
                                   kernel_op(p.act),
                                   dy,
                                   use_y ? y : dy,
                                   use_x ? x : dy,
                                   dx,
                                   p.alpha,
                                   p.beta};
    activation_kernels(h.isa).backward(ExecContext{h.threads()}, a);
}

}  // namespace anydnn::cpu
