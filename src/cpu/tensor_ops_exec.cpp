#include "cpu/tensor_ops_exec.hpp"

#include <cstring>

#include "core/dtype.hpp"
#include "cpu/tensor_ops.hpp"

namespace anydnn::cpu {

void execute_transform(const Handle &h, const ops::TransformProblem &p, const void *x, void *y) {
    int64_t xs[kMaxDims];
    broadcast_strides(p.x, p.y, xs);
    const int64_t *strides[] = {p.y.strides, xs};
    TransformArgs a{make_strided_loop(p.y.nd, p.y.dims, 2, strides), p.y.dt, p.x.dt, x, y, p.alpha, p.beta};
    tensor_ops_kernels(h.isa).transform(ExecContext{h.threads()}, a);
}

void execute_fill(const Handle &h, const ops::FillProblem &p, void *y) {
    const int64_t *strides[] = {p.y.strides};
    FillArgs a{make_strided_loop(p.y.nd, p.y.dims, 1, strides), dtype_size(p.y.dt), {}, y};
    std::memcpy(a.value, p.value, sizeof a.value);
    tensor_ops_kernels(h.isa).fill(ExecContext{h.threads()}, a);
}

void execute_op_tensor(const Handle &h, const ops::OpTensorProblem &p, const void *a, const void *b, void *c) {
    int64_t bs[kMaxDims] = {};
    if (!p.unary()) broadcast_strides(p.b, p.c, bs);
    const int64_t *strides[] = {p.c.strides, p.a.strides, bs};
    OpTensorArgs args{make_strided_loop(p.c.nd, p.c.dims, 3, strides), p.c.dt, p.op, p.propagate_nan, a, b, c,
                      p.alpha1, p.alpha2, p.beta};
    tensor_ops_kernels(h.isa).op_tensor(ExecContext{h.threads()}, args);
}

}  // namespace anydnn::cpu
